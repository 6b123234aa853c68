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
from test_replay_authority import BETS, GAMES, Fed

from controller.table.events import DevicesExpected, OpenTable
from drivers.bet_spots import SpotReport
from drivers.link_events import LinkUp
from drivers.state import PanelState, ShoeState, SpotsState

DEVICES = ("bet_spots", "panel", "shoe")


def _restarted(path: Path, clock: ManualClock, game: str) -> tuple[Fed, float]:
    """The controller started again on the journal, as ``TableRuntime.prepare`` does: the round
    recovered, then every device expected and read again (``since``: the start)."""
    again = Fed(game, path, clock, False)
    assert again.runtime.recover()
    since = clock.now
    again.feed(DevicesExpected(devices=DEVICES, reread=True, since=since))
    return again, since


def _table(fed: Fed) -> tuple[str, int, str, dict[int, dict[str, int]], int]:
    """What the round does: its step, number, hold, wagers and the cards waiting for the supervisor."""
    round_ = fed.runtime.round
    reason = round_.holds.reason if round_.holds.on else ""
    return fed.phase, round_.round_no, reason, fed.runtime.snapshot.wagers(), len(round_.ledger.waiting)


STATES = {
    "bet_spots": lambda at: SpotsState(device="bet_spots", at=at),
    "panel": lambda at: PanelState(device="panel", at=at, key_on=False),
    "shoe": lambda at: ShoeState(device="shoe", at=at),
}
# What the device not read again sends again, made while the controller was stopped (the shoe's
# card is not here: a card before the deal holds the table live and in the replay alike).
WHILE_STOPPED = {
    "bet_spots": lambda at, game: SpotReport(
        device="bet_spots", at=at, seat=1, spot=BETS.get(game, (("ante", 1000),))[0][0], cents=1000
    ),
}


@pytest.mark.parametrize("unread", sorted(WHILE_STOPPED))
@pytest.mark.parametrize("game", GAMES)
def test_a_report_made_while_stopped_in_a_round_opened_before_the_reread_is_held_back_in_the_replay(
    tmp_path: Path, game: str, unread: str
) -> None:
    """Round 1 open, stop. Started again: every device but one is read again; the supervisor
    voids round 1 and round 2 opens. The device left comes up and sends again what it reported
    while the table was stopped (chips on a spot: not acted on, they wait for the spots' state).
    Stop again: the replay of round 2 does as the live round did."""
    clock, path = ManualClock(1_800_000_000.0), tmp_path / "j.db"
    first = Fed(game, path, clock, False)
    try:
        first.feed(DevicesExpected(devices=()))
        first.feed(OpenTable())
        assert (first.phase, first.runtime.round.round_no) == ("betting", 1)
    finally:
        first.close()
    clock.now += 60
    stopped_at = clock.now - 30  # what the device reports was done while the controller was stopped
    live, since = _restarted(path, clock, game)
    try:
        for device in sorted(set(DEVICES) - {unread}):
            live.feed(LinkUp(device=device, at=clock.now, boot_id=1, rebooted=False))
            live.feed(STATES[device](clock.now))
        live.press("supervisor_key")
        live.press("void")
        live.press("void", pressed=False)
        live.press("supervisor_key", pressed=False)
        assert live.runtime.round.round_no == 2
        live.feed(LinkUp(device=unread, at=clock.now, boot_id=1, rebooted=False))
        assert stopped_at < since
        live.feed(WHILE_STOPPED[unread](stopped_at, game))
        held = _table(live)
    finally:
        live.close()
    assert held[3] == {}, held  # not acted on live
    clock.now += 60
    again = Fed(game, path, clock, False)
    try:
        assert again.runtime.recover()
        assert _table(again) == held
    finally:
        again.close()
