"""Attack on the soak's snapshots without the dealer's texts (CHANGELOG "2026-12-07 (afternoon)",
``tablectl soak``): the shortcut is the soak's alone. What ``tests/test_soak_speed.py`` does not
check, and this does: the runtime's published snapshot (what ``tablectl run``'s screen, the web,
the pit and the floor read, and what ``tablectl simulate``'s hidden-card checks scan) still carries
the dealer's texts, in every game, in play and while held (a mistaken default would leave
those checks scanning empty texts: they would pass on anything)."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_helpers import ManualClock
from test_replay_authority import GAMES, Fed

from controller.table.events import OpenTable
from drivers.bet_spots import SpotReport
from drivers.state import ShoeState


@pytest.mark.parametrize("game", GAMES)
def test_the_runtimes_snapshot_carries_the_dealers_texts(tmp_path: Path, game: str) -> None:
    clock = ManualClock(1_800_000_000.0)
    fed = Fed(game, tmp_path / "j.db", clock, roster=False)
    try:
        fed.feed(OpenTable())
        fed.feed(SpotReport(device="bet_spots", at=clock.now, seat=1, spot="ante", cents=1000))
        s = fed.runtime.snapshot
        assert s.screen and s.asked, f"{game}: the runtime's snapshot has no dealer's texts: {s.screen!r} {s.asked!r}"
        fed.feed(ShoeState(device="shoe", at=clock.now, status="ok", cards_out=1))  # a card the table never had
        s = fed.runtime.snapshot
        assert s.step == "hold" and s.hold is not None and s.asked and s.screen
    finally:
        fed.close()
