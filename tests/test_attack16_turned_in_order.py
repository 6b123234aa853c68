"""Attack on the settlement's reveal order: at the dealer's reveal (the settlement's first step) the
table's snapshot (and so the web view and anything read from it) shows every player's hand face up,
before the dealer turns any of them.

The rule: Boston 5 24.10(e), (f) (seeds): the dealer reveals his five cards, then "starting with the
player farthest to his or her right and continuing counterclockwise around the table, turn[s] over
each player's cards", resolving each in order; Mississippi Stud 35.10(i) (seeds): each hand is
evaluated and announced one player at a time, counterclockwise from the dealer's right; Three Card
Poker the same (20, inferred). Pai gow already keeps each hand face down until it is turned
(tests/test_table_pai_gow.py, issue 40 item 6); these three games do not. Found on main: at the
``dealer: reveal`` step every seat's cards are face up."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from table_helpers import FedTable, closed_table


def boston5() -> FedTable:
    t = closed_table(
        "boston5",
        (
            (1, "ante", 500),
            (1, "first", 1000),
            (2, "ante", 500),
            (2, "first", 1000),
            (4, "ante", 500),
            (4, "first", 1000),
        ),
    )
    t.deal("As Ks Qs 2h 7d 9c 3c 4d 5h 8s 8d 8c")
    t.press("next")  # no bonus to expose
    for seat in (1, 2, 4):
        t.spot(seat, "second", 1000)
    t.press("deal")
    t.deal("Js Ts 6h 6d 4c 4s Jd Jh")
    return t


def mississippi_stud() -> FedTable:
    t = closed_table("mississippi_stud", ((1, "ante", 500), (2, "ante", 500), (4, "ante", 500)))
    t.deal("As Kd Qs Jh 2c 7d Tc 9c 8d")
    for street in ("third", "fourth", "fifth"):
        for seat in (1, 2, 4):
            t.spot(seat, street, 500)
        t.press("reveal")
    return t


def three_card_poker() -> FedTable:
    t = closed_table("three_card_poker", ((1, "ante", 500), (2, "ante", 500), (4, "ante", 500)))
    t.deal("Ah Kh Qh 7c 4d 2s 9d 9s 3c Qc 8h 4h")
    for seat in (1, 2, 4):
        t.spot(seat, "play", 500)
    t.press("reveal")
    return t


ROUNDS: dict[str, Callable[[], FedTable]] = {
    "boston5": boston5,
    "mississippi_stud": mississippi_stud,
    "three_card_poker": three_card_poker,
}


def face_up_seats(t: FedTable) -> set[int]:
    """The seats with a card face up in the table's snapshot."""
    return {seat.number for seat in t.snapshot().seats if any(card is not None for card in seat.cards)}


@pytest.mark.parametrize("game", ROUNDS)
def test_each_players_hand_is_turned_only_at_its_own_step(game: str) -> None:
    t = ROUNDS[game]()
    s = t.snapshot()
    assert s.step == "settlement" and (s.asked or "").startswith("dealer"), (s.step, s.asked)
    assert face_up_seats(t) == set(), f"at {s.asked!r}: seats {sorted(face_up_seats(t))} face up"
    turned: set[int] = set()
    for seat in (4, 2, 1):  # counterclockwise from the dealer's right
        t.press("confirm")
        s = t.snapshot()
        assert (s.asked or "").startswith(f"seat {seat}:"), s.asked
        turned.add(seat)
        assert face_up_seats(t) <= turned, f"at {s.asked!r}: seats {sorted(face_up_seats(t) - turned)} face up"
