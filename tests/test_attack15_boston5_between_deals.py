"""Attack on cards out of the shoe during a hold that ends by itself (CHANGELOG 2026-12-07 night,
branch waiting14), in Boston 5's steps between its two deals: the bonus exposure, the bonus
settlement and the second wager (24.10(a)-(c)).

Found (attack15; fixed by branch b5hold15): held there for the shoe (its link, a jam, the door) the
cards that left the shoe hold the table for the supervisor at once (``confirm`` burns them, ``void``
is a misdeal), as a card out there live does; held for any other device (the panel's link, the bet
spots' link, the journal, a restart) the hold ended by itself and the cards waited "once the deal
begins". The round went on with them out of the shoe: the exposed bonus paid (24.10(a)), a second
wager withdrawn although a card had left the shoe (24.10(c): only until the first final card leaves
it), and at ``deal`` the misdeal the hold names refused (the bonus paid). Now
``CardIntake.decided_now`` is also true once the round's deal has begun (``deal_begun``): the hold
stays for the supervisor. The guard's 80 journals stay as they were; the nine (step, fault kind)
pairs of the CI swarm's Boston 5 seeds it moved are reached by targeted scenarios (docs/simulate.md).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from table_helpers import FedTable, bench_table

from controller.table.engine import JournalFault
from controller.table.events import DevicesExpected
from controller.table.game_tables import GAME_TABLES
from controller.table.snapshot_build import build_hands
from drivers.link import LinkDown
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, DoorChanged, Jam
from drivers.state import ShoeState

BETS = ((1, "ante", 500), (1, "first", 1000), (1, "bonus", 500), (2, "ante", 500), (2, "first", 1000))
"""Seats 1 and 2 with an ante and a first wager; seat 1's bonus (a straight flush, exposed)."""


def first_deal(step: str) -> FedTable:
    """A Boston 5 round after its first deal, at ``step``: ``bonus`` (seat 1 may expose),
    ``bonus settlement`` (seat 1's straight flush exposed, its bonus to pay) or ``second wager``
    (the bonus paid)."""
    t = FedTable(GAME_TABLES["boston5"], bench_table("boston5"))
    for seat, spot, cents in BETS:
        t.spot(seat, spot, cents)
    t.press("no_more_bets")
    t.deal("As Ks Qs 2h 7d 9c 3c 4d 5h")
    if step != "bonus":
        t.press("seat_1", "next")
    if step == "second wager":
        t.press("confirm")  # seat 1's bonus paid
    assert t.snapshot().step == step.replace(" ", "_"), t.snapshot().step
    return t


def journal_outage(t: FedTable) -> tuple[str, ...]:
    t.m.journal_failed("disk full: 0 bytes free on /")
    t.feed(JournalFault("disk full: 0 bytes free on /", 0, 0))
    return ("panel", "shoe", "bet_spots")


def link_down(device: str) -> Callable[[FedTable], tuple[str, ...]]:
    def down(t: FedTable) -> tuple[str, ...]:
        t.feed(LinkDown(device=device, reason="no reply"))
        return (device,)

    return down


HOLDS: dict[str, Callable[[FedTable], tuple[str, ...]]] = {
    "journal outage": journal_outage,
    "panel link down": link_down("panel"),
    "bet spots link down": link_down("bet_spots"),
}


def read_again(t: FedTable, devices: tuple[str, ...]) -> None:
    """Each of ``devices`` back: its link up and its whole state read (nothing changed on it)."""
    t.devices_back(devices, BETS)


def key(t: FedTable) -> None:
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))


STEPS = ("bonus", "bonus settlement", "second wager")


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("fault", ["jam", "door"])
def test_cards_out_during_a_shoe_fault_between_the_deals_hold_for_the_supervisor(step: str, fault: str) -> None:
    """The behaviour the other holds are measured against: a jam or the door, two cards out, the
    shoe ok again: the table holds for the supervisor at once."""
    t = first_deal(step)
    t.feed(Jam(device="shoe") if fault == "jam" else DoorChanged(device="shoe", open=True))
    t.deal("Jc Jd")
    ok = ShoeState(device="shoe", status="ok", cards_out=t.shoe_index)
    t.feed(ok if fault == "jam" else DoorChanged(device="shoe", open=False))
    hold = t.snapshot().hold
    assert hold is not None and hold.cards_waiting == 2, hold


def cards_out_and_back(step: str, hold: str) -> FedTable:
    """Boston 5 at ``step``, held by ``hold``; two cards leave the shoe; every device is back."""
    t = first_deal(step)
    devices = HOLDS[hold](t)
    t.deal("Jc Jd")  # two cards out of the shoe while held
    read_again(t, devices)
    return t


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("hold", HOLDS)
def test_cards_out_during_any_hold_between_the_deals_are_decided_before_the_round_goes_on(step: str, hold: str) -> None:
    t = cards_out_and_back(step, hold)
    s = t.snapshot()
    # as for the shoe's own faults: the supervisor decides on the cards before anything is paid or withdrawn
    assert s.step == "hold" and s.hold is not None and s.hold.cards_waiting == 2, (s.step, s.hold)
    key(t)
    t.press("clear_fault")  # refused: the cards first
    assert t.snapshot().step == "hold"
    t.press("confirm")  # no place in the deal (the final cards are not dealt before `deal`): burned
    s = t.snapshot()
    assert s.step == step.replace(" ", "_") and s.hold is None, (s.step, s.hold)
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=False))
    if step == "bonus":
        t.press("seat_1", "next")
    if step != "second wager":
        t.press("confirm")  # seat 1's bonus paid
    for seat in (1, 2):
        t.spot(seat, "second", 1000)
    t.press("deal")
    t.deal("Js Ts 6d 6c 8s 8c")  # the final cards are the next ones out of the shoe
    s = t.snapshot()
    assert s.step == "settlement" and s.hold is None, (s.step, s.hold)
    # the players' own view (at the dealer's reveal seat 1's last two are still face down: 24.10(f))
    assert dict(build_hands(t.m).hands)[1] == ("As", "Ks", "Qs", "Js", "Ts")


@pytest.mark.parametrize("hold", HOLDS)
def test_the_misdeal_is_taken_while_nothing_is_paid(hold: str) -> None:
    """At the bonus exposure nothing is paid: ``void`` declares the misdeal the hold names."""
    t = cards_out_and_back("bonus", hold)
    key(t)
    assert t.snapshot().why_not_void() is None
    t.press("void")
    s = t.snapshot()
    assert s.last_round is not None and s.last_round.void and s.step in ("betting", "count_stub"), s.step


@pytest.mark.parametrize("step", STEPS)
def test_cards_out_while_the_controller_was_stopped_between_the_deals_are_decided_before_the_round_goes_on(
    step: str,
) -> None:
    """The controller stops at ``step`` and starts again (the round replayed from its events, every
    device expected and read again); two cards left the shoe while it was stopped."""
    live = first_deal(step)
    t = FedTable(GAME_TABLES["boston5"], bench_table("boston5"))
    for event in live.events:
        t.feed(event)
    t.feed(DevicesExpected(devices=("bet_spots", "panel", "shoe"), reread=True, since=1000.0))
    for n, card in enumerate(("Jc", "Jd"), start=t.shoe_index + 1):
        t.feed(CardDealt(device="shoe", card=card, index=n, quality=100, at=10.0))  # before the start
    read_again(t, ("panel", "shoe", "bet_spots"))
    s = t.snapshot()
    assert s.step == "hold" and s.hold is not None and s.hold.cards_waiting == 2, (s.step, s.hold)
