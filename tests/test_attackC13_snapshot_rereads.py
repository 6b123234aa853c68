"""Attack on the round snapshot after a restart (CHANGELOG 2026-12-07 evening: the snapshot names
``links_down`` and ``links_not_back`` so a replay opens held as the live round did).

After a restart with a round open every device's state is read again, and what a device reports
before that, that happened before the start, was done while the table was stopped: not acted on
(docs/journal.md, "Recovery"). The devices still to be read again and the start they are judged
against were not in the round's snapshot: a round that opens after the restart, before a device
is read again, and is then replayed after a second stop, took in the replay a report the live
table had held back (chips put on a spot while the controller was stopped became a wager)."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_helpers import ManualClock
from test_replay_authority import GAMES, Fed

from controller.table.events import DevicesExpected, OpenTable
from drivers.bet_spots import SpotReport
from drivers.link_events import LinkUp
from drivers.state import PanelState, ShoeState

DEVICES = ("bet_spots", "panel", "shoe")


def _restarted(path: Path, clock: ManualClock, game: str) -> tuple[Fed, float]:
    """The controller started again on the journal, as ``TableRuntime.prepare`` does: the round
    recovered, then every device expected and read again (``since``: the start)."""
    again = Fed(game, path, clock, False)
    assert again.runtime.recover()
    since = clock.now
    again.feed(DevicesExpected(devices=DEVICES, reread=True, since=since))
    return again, since


def _table(fed: Fed) -> tuple[str, int, str, dict[int, dict[str, int]]]:
    round_ = fed.runtime.round
    return fed.phase, round_.round_no, round_.holds.reason if round_.holds.on else "", fed.runtime.snapshot.wagers()


@pytest.mark.parametrize("game", GAMES)
def test_a_report_made_while_stopped_in_a_round_opened_before_the_reread_is_held_back_in_the_replay(
    tmp_path: Path, game: str
) -> None:
    """Round 1 open, stop. Started again: the panel and the shoe are read again, not the bet
    spots; the supervisor voids round 1 and round 2 opens. The bet spots' link comes up and sends
    again a report made while the table was stopped: not acted on (it waits for their state).
    Stop again: the replay of round 2 holds it back too."""
    clock, path = ManualClock(1_800_000_000.0), tmp_path / "j.db"
    first = Fed(game, path, clock, False)
    try:
        first.feed(DevicesExpected(devices=()))
        first.feed(OpenTable())
        assert (first.phase, first.runtime.round.round_no) == ("betting", 1)
    finally:
        first.close()
    clock.now += 60
    stopped_at = clock.now - 30  # the chips went down while the controller was stopped
    live, since = _restarted(path, clock, game)
    try:
        for device in ("panel", "shoe"):
            live.feed(LinkUp(device=device, at=clock.now, boot_id=1, rebooted=False))
        live.feed(PanelState(device="panel", at=clock.now, key_on=False))
        live.feed(ShoeState(device="shoe", at=clock.now))
        live.press("supervisor_key")
        live.press("void")
        live.press("void", pressed=False)
        live.press("supervisor_key", pressed=False)
        assert live.runtime.round.round_no == 2
        live.feed(LinkUp(device="bet_spots", at=clock.now, boot_id=1, rebooted=False))
        assert stopped_at < since
        live.feed(SpotReport(device="bet_spots", at=stopped_at, seat=1, spot="ante", cents=1000))
        held = _table(live)
    finally:
        live.close()
    assert held[3] == {}, held  # not acted on live: it waits for the spots' state
    clock.now += 60
    again = Fed(game, path, clock, False)
    try:
        assert again.runtime.recover()
        assert _table(again) == held
    finally:
        again.close()
