"""Cards that left the shoe during a hold that ends by itself (the journal written again, a link
back) when the round's deal is over (settlement, pai gow's setting, the stub count): no card is
expected any more, so the hold stays until the supervisor decides on them (confirm: burned, no
place in the deal; void: a misdeal), never the round settled with them still waiting."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from table_helpers import FedTable
from test_table_outages import Table, betting
from test_table_pai_gow import SHOE
from test_table_pai_gow import Table as PaiGow

from controller.game.pai_gow._machine import Phase
from controller.table._stub_count import STUB_EVERY
from controller.table.card_ledger import BURNED
from controller.table.engine import JournalFault
from controller.table.phases import Common
from drivers.link import LinkDown
from drivers.panel import ButtonChanged

DISK_FULL = "disk full: 0 bytes free on /"
WAITING = "2 cards dealt while held: supervisor: confirm accepts, void declares a misdeal"


def stud_settlement() -> FedTable:
    t = Table()
    betting(t)
    t.press("no_more_bets")
    t.deal("As Ad Kc Qd 7h 8h 2c")
    for street in ("third", "fourth", "fifth"):
        t.spot(1, street, 500)
        t.spot(4, street, 1000)
        t.press("reveal")
    assert t.m.phase is Common.SETTLEMENT
    return t


def pai_gow_setting() -> FedTable:
    t = PaiGow()
    t.to_setting()
    assert t.m.phase is Phase.SETTING
    return t


def pai_gow_stub_count() -> FedTable:
    t = PaiGow()
    t.m.stub.restore(STUB_EVERY - 1)  # this round is the one the stub is counted after
    t.to_setting()
    for _ in range(100):
        if t.m.phase is Common.COUNT_STUB:
            break
        t.press("confirm")
    assert t.m.phase is Common.COUNT_STUB, t.m.phase
    return t


STATES: dict[str, Callable[[], FedTable]] = {
    "stud settlement": stud_settlement,
    "pai gow setting": pai_gow_setting,
    "pai gow stub count": pai_gow_stub_count,
}


def journal_outage(t: FedTable) -> None:
    t.m.journal_failed(DISK_FULL)
    t.feed(JournalFault(DISK_FULL, 0, 0))


def panel_down(t: FedTable) -> None:
    t.feed(LinkDown(device="panel", reason="no reply"))


def shoe_down(t: FedTable) -> None:
    """The shoe's link alone: its cards are its reports delivered late, as dealt when none was
    expected (live, such a card holds for the supervisor; never burned without him)."""
    t.feed(LinkDown(device="shoe", reason="no reply"))


HOLDS: dict[str, tuple[Callable[[FedTable], None], tuple[str, ...]]] = {
    "journal outage": (journal_outage, ("panel", "shoe", "bet_spots")),
    "panel link down": (panel_down, ("panel",)),
    "shoe link down": (shoe_down, ("shoe",)),
}


def read_again(t: FedTable, devices: tuple[str, ...]) -> None:
    """Each of ``devices`` back: its link up and its whole state read (nothing changed on it)."""
    t.devices_back(devices, tuple((s, spot, c) for (s, spot), c in t.m.board.levels.items()))


def held_with_cards(state: str, hold: str) -> FedTable:
    """The table in ``state``, held by ``hold``; two cards leave the shoe; every device is back."""
    t = STATES[state]()
    held_from = t.m.phase
    fault, devices = HOLDS[hold]
    fault(t)
    assert t.m.phase is Common.HOLD
    t.deal(" ".join(str(c) for c in SHOE[50:52]) if isinstance(t, PaiGow) else "3c 4d")
    assert len(t.m.ledger.waiting) == 2
    read_again(t, devices)
    assert t.m.holds.held_from is held_from
    return t


@pytest.mark.parametrize("hold", HOLDS)
@pytest.mark.parametrize("state", STATES)
def test_cards_out_after_the_deal_keep_the_hold_until_the_supervisor_decides(state: str, hold: str) -> None:
    t = held_with_cards(state, hold)
    # every device is back, but the cards wait: the hold stays, the screen says for what
    assert t.m.phase is Common.HOLD and t.m.holds.reason == WAITING, t.m.holds.reason
    assert t.m.hold_prompt().startswith("supervisor: key, then confirm accepts the cards")  # void: while offered
    held_from = t.m.holds.held_from
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("clear_fault")  # refused: the cards first
    assert t.m.phase is Common.HOLD
    for _ in range(20):  # a notice on the screen (pai gow: the stub counted) takes confirm first
        if not t.m.display.notices:
            break
        t.press("confirm")
    t.press("confirm")  # no place in the deal: burned, named in the round's record
    assert t.m.phase is held_from and not t.m.ledger.waiting
    burned = [e for e in t.m.ledger.entries if e.index > 49 or (e.index > 7 and not isinstance(t, PaiGow))]
    assert [e.to for e in burned] == [BURNED] * 2, burned


def test_a_card_the_shoe_reports_late_while_betting_holds_as_it_would_have_live() -> None:
    """Betting open, the shoe's link down, a card out: when the shoe is back the card is its
    report delivered late, dealt when none was expected: the table holds for the supervisor
    (it was burned without him)."""
    t = Table()
    betting(t)
    shoe_down(t)
    t.deal("As")
    read_again(t, ("shoe",))
    assert t.m.phase is Common.HOLD and t.m.holds.reason.startswith("1 card dealt while held"), t.m.holds.reason
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("void")  # a misdeal: the card is named in the void round's record
    assert t.m.phase is Common.BETTING and t.m.rounds[-1].settlement is None
