"""Issue 40 (authority never outlives its evidence): a hold only the supervisor clears stays that
hold across a journal outage. The outage's end reads every device again, as always; the hold then
still needs the supervisor's way, it never becomes a hold that ends by itself."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from test_table_outages import Table, betting

from controller.table.engine import JournalFault
from controller.table.phases import Common
from controller.table.round import HoldKind
from drivers.link import DeviceFault
from drivers.shoe import CardUnreadable
from drivers.state import PanelState, ShoeState, SpotsState

DISK_FULL = "disk full: 0 bytes free on /"


def unreadable_card(t: Table) -> tuple[str, int]:
    betting(t)
    t.press("no_more_bets")
    t.cards("As Ad")
    t.feed(CardUnreadable(device="shoe", index=3))
    return "unreadable card", 3


def lock_failed(t: Table) -> tuple[str, int]:
    betting(t)
    t.press("no_more_bets")
    t.feed(DeviceFault(device="bet_spots", kind="command_failed", command="lock", error="command lock failed: busy"))
    return "bet_spots: command lock failed", 0


def events_lost(t: Table) -> tuple[str, int]:
    betting(t)
    t.press("no_more_bets")
    t.cards("As Ad Kc")
    t.m.journal_failed(DISK_FULL)
    t.feed(JournalFault(DISK_FULL, 2, 0))
    return "journal: ", 3


def card_unexpected(t: Table) -> tuple[str, int]:
    betting(t)
    t.cards("As")  # before "no more bets": no card is expected
    return "card 1 from the shoe dealt when none was expected", 1


HOLDS: dict[str, Callable[[Table], tuple[str, int]]] = {
    "unreadable card": unreadable_card,
    "command failed": lock_failed,
    "journal refused events": events_lost,
    "card not expected": card_unexpected,
}


def read_again(t: Table, cards_out: int, key_on: bool) -> None:
    t.feed(PanelState(device="panel", key_on=key_on, held=()))
    t.feed(ShoeState(device="shoe", status="ok", cards_out=cards_out))
    spots = tuple((s, spot, c) for (s, spot), c in t.m.board.levels.items())
    t.feed(SpotsState(device="bet_spots", spots=spots))


@pytest.mark.parametrize("hold", HOLDS, ids=list(HOLDS))
def test_a_supervisor_hold_stays_one_across_a_journal_outage(hold: str) -> None:
    t = Table()
    reason_start, cards_out = HOLDS[hold](t)
    assert t.m.phase is Common.HOLD and t.m.holds.reason.startswith(reason_start), t.m.holds.reason
    reason, kind = t.m.holds.reason, t.m.holds.kind
    assert kind.supervisor_only
    t.m.journal_failed(DISK_FULL)
    t.feed(JournalFault(DISK_FULL, 0, 2))
    assert t.m.phase is Common.HOLD and (t.m.holds.reason, t.m.holds.kind) == (reason, kind)
    assert "journal written again: each device's state is read again" in t.m.display.state().notes
    t.key()
    t.press("clear_fault")  # the devices are not read again yet: refused
    assert t.m.phase is Common.HOLD and t.m.links.device_links.why_not_back() is not None
    read_again(t, cards_out, key_on=False)
    # every device read again: the hold did not end by itself, it names the same way on
    assert t.m.phase is Common.HOLD and (t.m.holds.reason, t.m.holds.kind) == (reason, kind)
    shown = t.snapshot().hold
    assert shown is not None and shown.reason == reason
    t.key()
    t.press("void")  # the supervisor's way
    assert t.m.phase is Common.BETTING and t.m.round_no == 2


def test_a_lock_that_failed_is_sent_again_at_clear_fault_after_a_journal_outage() -> None:
    """The command hold's own way (its device sent its state again at clear fault) still applies
    after the outage: clear fault, once every device is read, resumes where the round was."""
    t = Table()
    lock_failed(t)
    t.m.journal_failed(DISK_FULL)
    t.feed(JournalFault(DISK_FULL, 0, 1))
    read_again(t, 0, key_on=True)
    assert t.m.phase is Common.HOLD and t.m.holds.kind is HoldKind.COMMAND
    t.devices.commands.clear()
    t.press("clear_fault")
    assert t.m.phase is Common.NO_MORE_BETS and ("lock", (True,)) in t.devices.commands
