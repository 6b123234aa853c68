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
from table_helpers import FedTable, bench_table

from controller.table.game_tables import GAME_TABLES
from drivers.link import LinkDown
from drivers.panel import ButtonChanged

FIRST = "As Ks Qs 2h 7d 9c 3c 4d 5h"
"""Seat 1 A-K-Q, seat 2 2-7-9 (its bonus loses), the dealer 3-4-5."""
FINAL = "6h 8d Tc Jd 2c 3d"


def table() -> FedTable:
    """Seats 1 and 2 (ante 5.00, first 10.00); seat 2 with a bonus of 5.00; betting closed."""
    t = FedTable(GAME_TABLES["boston5"], bench_table("boston5"))
    for seat in (1, 2):
        t.spot(seat, "ante", 500)
        t.spot(seat, "first", 1000)
    t.spot(2, "bonus", 500)
    t.press("no_more_bets")
    return t


def no_more_bets() -> FedTable:
    t = table()
    assert t.snapshot().step == "no_more_bets"
    return t


def first_deal() -> FedTable:
    t = table()
    t.deal(" ".join(FIRST.split()[:4]))
    assert t.snapshot().step == "first_deal"
    return t


def bonus() -> FedTable:
    t = table()
    t.deal(FIRST)
    assert t.snapshot().step == "bonus"
    return t


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


def late_bonus(t: FedTable, seat: int, cents: int, held: bool) -> None:
    if held:  # a hold from the step (the shoe's link: the panel and the bet spots still answer)
        t.feed(LinkDown(device="shoe", reason="cable"))
        assert t.snapshot().step == "hold"
    t.spot(seat, "bonus", cents)
    s = t.snapshot()
    assert [(b.seat, b.spot, b.cents) for b in s.late_bets] == [(seat, "bonus", cents)], s.late_bets
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("next")


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize("seat, cents", CHANGES, ids=IDS)
@pytest.mark.parametrize("step", DEALT)
def test_no_late_bonus_once_a_card_is_dealt(step: str, seat: int, cents: int, held: bool) -> None:
    t = DEALT[step]()
    before = t.snapshot().seat(seat)
    assert before is not None
    late_bonus(t, seat, cents, held)
    s = t.snapshot()
    after = s.seat(seat)
    assert after is not None and after.wager_map() == before.wager_map(), after.wager_map()
    assert not any(line.startswith("supervisor: late bet accepted") for line in s.recent), s.recent
    assert not s.late_bets, s.late_bets
    assert any(line.startswith(f"supervisor: late bet refused: seat {seat} bonus") for line in s.recent), s.recent


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize("seat, cents", CHANGES, ids=IDS)
def test_before_the_first_card_a_supervisor_may_accept_a_late_bonus(seat: int, cents: int, held: bool) -> None:
    t = no_more_bets()
    late_bonus(t, seat, cents, held)
    s = t.snapshot()
    after = s.seat(seat)
    assert after is not None and after.wager_map().get("bonus", 0) == cents, after.wager_map()
    assert any(line.startswith(f"supervisor: late bet accepted: seat {seat} bonus") for line in s.recent), s.recent
