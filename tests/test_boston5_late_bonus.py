"""Boston 5's bonus wager (24.10(a)) and late bets (docs/dealer-guide.md, "Accept / refuse a late
or removed bet").

The bonus is settled on the player's first three cards alone (24.10(a): exposed or not, before any
second wager; placed with the ante and first wager before "no more bets", 24.8(b)4). Found: a
late bonus (placed, raised, or taken back) was accepted by the supervisor's ``next`` after those
cards were dealt: at the bonus step, and after the bonus settlement on a seat whose bonus had not
been settled (one placed there could never be exposed: it was simply collected at the final
settlement). Now refused once a card of the round is dealt, held or not, in every step after:
``cannot enter a round already dealt: the bonus is settled on the first three cards (24.10(a))``
(or, as before, ``cannot enter a hand already collected or paid`` / ``a round already settled``).
Before the first card a supervisor may still accept it, as any late bet before the deal.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from late_bet_helpers import assert_late_accepted, assert_late_refused, late_change
from table_helpers import FedTable, at_step, closed_table

FIRST = "As Ks Qs 2h 7d 9c 3c 4d 5h"
"""Seat 1 A-K-Q, seat 2 2-7-9 (its bonus loses), the dealer 3-4-5."""
FINAL = "6h 8d Tc Jd 2c 3d"


def table() -> FedTable:
    """Seats 1 and 2 (ante 5.00, first 10.00); seat 2 with a bonus of 5.00; betting closed."""
    return closed_table(
        "boston5", ((1, "ante", 500), (1, "first", 1000), (2, "ante", 500), (2, "first", 1000), (2, "bonus", 500))
    )


def no_more_bets() -> FedTable:
    return at_step(table(), "no_more_bets")


def first_deal() -> FedTable:
    t = table()
    t.deal(" ".join(FIRST.split()[:4]))
    return at_step(t, "first_deal")


def bonus() -> FedTable:
    t = table()
    t.deal(FIRST)
    return at_step(t, "bonus")


def bonus_settlement() -> FedTable:
    t = bonus()
    t.press("next")  # nobody exposes: seat 2's bonus to collect
    assert t.snapshot().step == "bonus_settlement"
    return t


def second_wager() -> FedTable:
    t = bonus_settlement()
    t.press("confirm")
    assert t.snapshot().step == "second_wager"
    return t


def final_deal() -> FedTable:
    t = second_wager()
    t.spot(1, "second", 1000)
    t.spot(2, "second", 1000)
    t.press("deal")
    assert t.snapshot().step == "final_deal"
    return t


def settlement() -> FedTable:
    t = final_deal()
    t.deal(FINAL)
    assert t.snapshot().step == "settlement"
    return t


DEALT: dict[str, Callable[[], FedTable]] = {
    "first_deal": first_deal,
    "bonus": bonus,
    "bonus_settlement": bonus_settlement,
    "second_wager": second_wager,
    "final_deal": final_deal,
    "settlement": settlement,
}
"""Every step once a card of the round is dealt."""

CHANGES = [(1, 500), (2, 1000), (2, 0)]
IDS = ["seat 1 placed", "seat 2 raised", "seat 2 taken back"]


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize("seat, cents", CHANGES, ids=IDS)
@pytest.mark.parametrize("step", DEALT)
def test_no_late_bonus_once_a_card_is_dealt(step: str, seat: int, cents: int, held: bool) -> None:
    t = DEALT[step]()
    before = t.snapshot().seat(seat)
    assert before is not None
    late_change(t, seat, "bonus", cents, held)
    assert_late_refused(t, before.wager_map(), seat, "bonus")


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize("seat, cents", CHANGES, ids=IDS)
def test_before_the_first_card_a_supervisor_may_accept_a_late_bonus(seat: int, cents: int, held: bool) -> None:
    t = no_more_bets()
    late_change(t, seat, "bonus", cents, held)
    assert_late_accepted(t, seat, "bonus", cents)
