"""Attack on Boston 5's second wager (24.10(b), (c)) after the seat decided: a change to the
``second`` spot of a seat that folded (its ante and first wager collected) or that placed its
second wager already, held or not.

Found: chips put on a folded seat's second spot were taken silently: no late bet, no lamp, no line
on the screen, nothing at the settlement (the chips on the layout in no record); and a second wager
changed to another amount after it was placed only said ``correct: ... must equal the first``
while ``deal`` was taken: the round settled the old amount with the new one on the spot. In
Mississippi Stud (a street bet) and Three Card Poker (the play wager) the same change is a late
bet (docs/dealer-guide.md: late and removed bets refused with the lamp flashing). Now it is one in
Boston 5 too (the supervisor's ``next`` cannot make it a wager: the record keeps what the dealer
collected or took); a second wager taken back to nothing before the final cards is still the
seat's fold (24.10(c))."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from table_helpers import FedTable, closed_table

from drivers.link import LinkDown
from drivers.panel import ButtonChanged


def second_wager() -> FedTable:
    """Seats 1 and 2 (ante 5.00, first 10.00) at Boston 5's second wager."""
    t = closed_table("boston5", ((1, "ante", 500), (1, "first", 1000), (2, "ante", 500), (2, "first", 1000)))
    t.deal("As Ks Qs 2h 7d 9c 3c 4d 5h")
    t.press("next")  # no bonus to expose
    assert t.snapshot().step == "second_wager"
    return t


def folded(t: FedTable) -> None:
    t.press("seat_1", "fold", "confirm")  # ante and first wager collected


def withdrawn(t: FedTable) -> None:
    t.spot(1, "second", 1000)
    t.spot(1, "second", 0)  # taken back before the final cards: a fold (24.10(c))
    t.press("confirm")  # ante and first wager collected


def placed(t: FedTable) -> None:
    t.spot(1, "second", 1000)


DECIDED: dict[str, tuple[Callable[[FedTable], None], int, dict[str, int]]] = {
    # how seat 1 decided, the chips then on its second spot, its wagers in the record
    "folded": (folded, 1000, {"ante": 500, "first": 1000}),
    "withdrawn": (withdrawn, 1000, {"ante": 500, "first": 1000}),
    "placed, then doubled": (placed, 2000, {"ante": 500, "first": 1000, "second": 1000}),
}


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize("case", DECIDED)
def test_a_change_to_a_decided_seats_second_wager_is_a_late_bet(case: str, held: bool) -> None:
    decide, cents, wagers = DECIDED[case]
    t = second_wager()
    decide(t)
    if held:  # a hold in the step that asks for the second wager does not change what a wager is
        t.feed(LinkDown(device="panel", reason="no reply"))
        assert t.snapshot().step == "hold"
    t.spot(1, "second", cents)
    s = t.snapshot()
    assert [(b.seat, b.spot, b.cents) for b in s.late_bets] == [(1, "second", cents)], s.late_bets
    assert f"late bet: seat 1 second {cents / 100:.2f} not accepted" in s.recent
    assert ("lamp", (1, "second", "flash_late")) in t.devices.commands
    if held:
        return
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("next")  # the supervisor cannot make it a wager: the dealer collected or took the first one
    seat = t.snapshot().seat(1)
    assert seat is not None and seat.wager_map() == wagers
    assert any(line.startswith("supervisor: late bet refused: seat 1 second") for line in t.snapshot().recent)


def test_a_second_wager_not_yet_placed_is_still_placed_and_a_withdrawal_still_folds() -> None:
    t = second_wager()
    t.spot(1, "second", 2000)  # not equal to the first: corrected, not a late bet
    assert (
        not t.snapshot().late_bets and "correct: seat 1 second: must equal the first wager 10.00" in t.snapshot().recent
    )
    t.spot(1, "second", 1000)
    t.spot(2, "second", 1000)
    t.spot(2, "second", 0)
    s = t.snapshot()
    seat1, seat2 = s.seat(1), s.seat(2)
    assert seat1 is not None and seat1.wager_map()["second"] == 1000 and not s.late_bets
    assert seat2 is not None and seat2.folded_at == "second"
