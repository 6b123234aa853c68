"""Attack on the presses that "ask state once" (CHANGELOG 2026-12-07 morning, #42 item 5):
Mississippi Stud's ``reveal`` (the machine checks the street; why it did not reveal is asked only
after) and the fold whose collection must be confirmed first, pressed on each street, held or not,
before and after the seats' bets. Nothing found: each press says why it did not reveal exactly as
the dealer guide says (``cannot reveal: waiting for ...``, ``cannot reveal: confirm the collection
first``), and reveals only once every seat acted and the collection is confirmed; a press while
held reveals nothing."""

from __future__ import annotations

import pytest
from table_helpers import FedTable, bench_table

from controller.table.game_tables import GAME_TABLES
from drivers.shoe import DoorChanged, Jam
from drivers.state import ShoeState

STREETS = ("third", "fourth", "fifth")
NEXT = {"third": "fourth_street", "fourth": "fifth_street", "fifth": "settlement"}


def on_street(street: str) -> FedTable:
    """A Mississippi Stud round of seats 1, 4 and 5 on ``street``, every seat still to act."""
    t = FedTable(GAME_TABLES["mississippi_stud"], bench_table("mississippi_stud"))
    for seat in (1, 4, 5):
        t.spot(seat, "ante", 500)
    t.press("no_more_bets")
    t.deal("As Ad Kc Qd 7h 8h 2c 3s 9d")
    for before in STREETS[: STREETS.index(street)]:
        for seat in (1, 4, 5):
            t.spot(seat, before, 500)
        t.press("reveal")
    assert t.snapshot().step == f"{street}_street", t.snapshot().step
    return t


def hold(t: FedTable, how: str) -> None:
    t.feed(Jam(device="shoe") if how == "jam" else DoorChanged(device="shoe", open=True))
    assert t.snapshot().step == "hold"


def end_hold(t: FedTable, how: str) -> None:
    if how == "door":
        t.feed(DoorChanged(device="shoe", open=False))
    t.feed(ShoeState(device="shoe", status="ok", cards_out=t.m.ledger.shoe_count))


def pressed_reveal(t: FedTable) -> tuple[str, tuple[str, ...]]:
    """``reveal`` pressed: the step after it, and the notes it made (each event's own: the last
    event's go as it is handled)."""
    t.press("reveal")
    return t.snapshot().step, tuple(t.m.display.notes)


@pytest.mark.parametrize("held", [None, "jam", "door"])
@pytest.mark.parametrize("street", STREETS)
def test_reveal_says_why_not_on_each_street_held_or_not_before_and_after_the_bets(
    street: str, held: str | None
) -> None:
    t = on_street(street)
    here = f"{street}_street"
    if held:
        hold(t, held)
        assert pressed_reveal(t) == ("hold", ())  # nothing to say: the machine holds
        end_hold(t, held)
    assert pressed_reveal(t) == (here, ("cannot reveal: waiting for seats 1, 4, 5",))
    t.spot(4, street, 1000)  # one bet: the others still named, in seat order
    assert pressed_reveal(t) == (here, ("cannot reveal: waiting for seats 1, 5",))
    t.press("seat_5", "fold")  # a fold: its collection to confirm
    if held:
        hold(t, held)
        assert pressed_reveal(t) == ("hold", ("cannot reveal: confirm the collection first",))
        end_hold(t, held)
    assert pressed_reveal(t) == (here, ("cannot reveal: waiting for seat 1",))
    t.spot(1, street, 500)  # every seat acted; the fold's collection still to confirm
    assert pressed_reveal(t) == (here, ("cannot reveal: confirm the collection first",))
    if held:
        hold(t, held)
        assert pressed_reveal(t) == ("hold", ("cannot reveal: confirm the collection first",))
        end_hold(t, held)
    t.press("confirm")  # the collection confirmed
    assert pressed_reveal(t) == (NEXT[street], ())


@pytest.mark.parametrize("bet", [False, True], ids=["no bet", "a bet"])
def test_reveal_outside_the_streets_changes_nothing_and_says_nothing(bet: bool) -> None:
    """Not found: ``reveal`` in betting (before and after a bet), at "no more bets" and while
    dealing, held or not: the step stays, no note, no card shown."""
    t = FedTable(GAME_TABLES["mississippi_stud"], bench_table("mississippi_stud"))
    if bet:
        t.spot(1, "ante", 500)
    assert pressed_reveal(t) == ("betting", ())
    hold(t, "jam")
    assert pressed_reveal(t) == ("hold", ())
    end_hold(t, "jam")
    if not bet:
        return
    t.press("no_more_bets")
    t.deal("As Ad")  # dealing
    assert pressed_reveal(t) == ("dealing", ())
    hold(t, "door")
    assert pressed_reveal(t) == ("hold", ())
    assert t.m.revealed() == 0


def boston5_at_second_wager() -> FedTable:
    """A Boston 5 table in its second-wager step: seats 2 and 5 with an ante and a first wager,
    their three cards dealt, no bonus exposed."""
    t = FedTable(GAME_TABLES["boston5"], bench_table("boston5"))
    for seat in (2, 5):
        t.spot(seat, "ante", 500)
        t.spot(seat, "first", 1000)
    t.press("no_more_bets")
    t.deal("As Ks Qs 2h 7d 9c 3c 4d 5h")
    t.press("confirm")  # no bonus exposed
    return t


@pytest.mark.parametrize("held", [None, "jam"])
def test_boston5_deal_says_why_not_before_and_after_the_bets_and_a_withdrawal(held: str | None) -> None:
    """Not found: Boston 5's ``deal`` in the second-wager step names the seats still to decide,
    then the fold's collection to confirm (a second wager withdrawn), held or not; it deals only
    once both are done."""
    t = boston5_at_second_wager()

    def pressed_deal() -> tuple[str, tuple[str, ...]]:
        t.press("deal")
        return t.snapshot().step, tuple(t.m.display.notes)

    assert pressed_deal() == ("second_wager", ("cannot deal: waiting for seats 2, 5",))
    t.spot(2, "second", 1000)
    t.spot(5, "second", 1000)
    t.spot(5, "second", 0)  # withdrawn: a fold, its collection to confirm
    if held:
        t.feed(Jam(device="shoe"))
        assert pressed_deal()[0] == "hold"
        t.feed(ShoeState(device="shoe", status="ok", cards_out=9))
    assert pressed_deal() == ("second_wager", ("cannot deal: confirm the collection first",))
    t.press("confirm")
    assert pressed_deal() == ("final_deal", ())
