"""Attack on the round snapshot's ``links_down`` (CHANGELOG 2026-12-07 evening: "a round that
opened held for a device's link down resumes as it was after a restart"): the same replay for a
device that was not *down* but had not come back as the round opened.

A device that has never connected since the controller started (its port would not open, say)
holds a round as it opens ("never connected: shoe: ..."), and refuses "no more bets" while it is
missing (docs/dealer-guide.md, the holds table). The snapshot named only the devices whose link
was down, so a controller started again in that round replayed it as if every device were back:
the "no more bets" the table had refused was taken in the replay, betting closed, and the round
resumed with its betting closed where the table had it open and held. The replay must do what
the journal shows done (docs/journal.md, "Recovery")."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_helpers import ManualClock
from test_replay_authority import BETS, GAMES, Fed

from controller.table.events import DevicesExpected, OpenTable
from drivers.bet_spots import SpotReport
from drivers.link_events import DeviceFault


def _bet_and_press(live: Fed, game: str) -> None:
    for spot, cents in BETS.get(game, (("ante", 1000),)):
        live.feed(SpotReport(device="bet_spots", at=live.clock.now, seat=1, spot=spot, cents=cents))
    live.press("no_more_bets")
    live.press("no_more_bets", pressed=False)


def _recovered(path: Path, clock: ManualClock, game: str) -> tuple[str, int, str]:
    again = Fed(game, path, clock, False)
    try:
        assert again.runtime.recover()
        round_ = again.runtime.round
        return again.phase, round_.round_no, round_.holds.reason if round_.holds.on else ""
    finally:
        again.close()


@pytest.mark.parametrize("game", GAMES)
def test_a_round_opened_held_for_a_device_never_connected_replays_held(tmp_path: Path, game: str) -> None:
    """Round 1 held for the shoe (its port would not open) and voided; round 2 opens held for it;
    "no more bets" is refused; the controller stops. Started again, round 2 is held as it was."""
    clock, path = ManualClock(1_800_000_000.0), tmp_path / "j.db"
    live = Fed(game, path, clock, False)
    try:
        live.feed(DevicesExpected(devices=("shoe",)))  # the others connected (not expected here)
        live.feed(OpenTable())
        live.feed(DeviceFault(device="shoe", at=clock.now, kind="open_failed", error="no such port"))
        live.press("supervisor_key")
        live.press("void")
        live.press("void", pressed=False)
        live.press("supervisor_key", pressed=False)
        round_ = live.runtime.round
        assert (live.phase, round_.round_no) == ("hold", 2)
        _bet_and_press(live, game)
        held = (live.phase, round_.round_no, round_.holds.reason)
        assert held == ("hold", 2, "never connected: shoe: no such port")
    finally:
        live.close()
    assert _recovered(path, clock, game) == held


@pytest.mark.parametrize("game", GAMES)
def test_no_more_bets_refused_for_a_device_not_connected_yet_is_refused_in_the_replay(
    tmp_path: Path, game: str
) -> None:
    """The table opens before the shoe has connected (it has not said why): "no more bets" is
    refused and the table holds for it. Started again, the replay refuses it too."""
    clock, path = ManualClock(1_800_000_000.0), tmp_path / "j.db"
    live = Fed(game, path, clock, False)
    try:
        live.feed(DevicesExpected(devices=("shoe",)))
        live.feed(OpenTable())
        _bet_and_press(live, game)
        round_ = live.runtime.round
        held = (live.phase, round_.round_no, round_.holds.reason)
        assert held == ("hold", 1, "never connected: shoe")
    finally:
        live.close()
    assert _recovered(path, clock, game) == held
