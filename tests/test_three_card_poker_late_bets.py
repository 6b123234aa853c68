"""Three Card Poker's late bets (docs/dealer-guide.md, "Accept / refuse a late or removed bet").

Every wager is placed before the deal (20.6, inferred from the published rule sheets named in the
game's ``SOURCES``): the pair plus is settled on the player's own three cards (20.11(c)), the
6 Card Bonus on the player's three and the dealer's three, the ante's bonus on the player's own
three (20.11(b)), and the player decides play or fold on them. Found: a late pair plus, 6 Card
Bonus or ante (placed, raised, or taken back) was accepted by the supervisor's ``next`` once
cards were dealt, in the deal and at the play step (before the seat decided). Now refused once a
card of the round is dealt, held or not, in every step after: ``cannot enter a round already
dealt: ...`` (or, as before, ``a hand already collected or paid`` / ``a round already settled``).
A late play wager was already refused (not a wager before the deal); asserted here too. Before the
first card a supervisor may still accept a late pair plus, 6 Card Bonus or ante.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from late_bet_helpers import assert_late_accepted, assert_late_refused, late_change
from table_helpers import FedTable, at_step, closed_table

SIX = "six_card_bonus"
CARDS = "As Ks Qs 2h 7d 9c 3c 4d 5h Qc 8h 4h"
"""Seat 1 A-K-Q, seat 2 2-7-9, seat 3 3-4-5, the dealer Q-8-4 (qualifies)."""


def table() -> FedTable:
    """Seat 1 an ante of 5.00; seat 2 an ante, a pair plus and a 6 Card Bonus of 5.00 each; seat 3
    a pair plus of 5.00 alone; betting closed."""
    return closed_table(
        "three_card_poker",
        ((1, "ante", 500), (2, "ante", 500), (2, "pair_plus", 500), (2, SIX, 500), (3, "pair_plus", 500)),
    )


def no_more_bets() -> FedTable:
    return at_step(table(), "no_more_bets")


def first_card() -> FedTable:
    t = table()
    t.deal(CARDS.split()[0])
    return at_step(t, "dealing")


def dealer_cards() -> FedTable:
    t = table()
    t.deal(" ".join(CARDS.split()[:10]))  # every seat's three, the dealer's first
    return at_step(t, "dealing")


def play() -> FedTable:
    t = table()
    t.deal(CARDS)
    assert t.snapshot().step == "play"
    return t


def one_played() -> FedTable:
    t = play()
    t.spot(1, "play", 500)
    assert t.snapshot().step == "play"
    return t


def settlement() -> FedTable:
    t = one_played()
    t.spot(2, "play", 500)
    t.press("reveal")
    assert t.snapshot().step == "settlement"
    return t


DEALT: dict[str, Callable[[], FedTable]] = {
    "first_card": first_card,
    "dealer_cards": dealer_cards,
    "play": play,
    "one_played": one_played,
    "settlement": settlement,
}
"""Every step once a card of the round is dealt (at the play step: before any seat decides, and
with seat 1 played, seat 2 not yet)."""

CHANGES = [
    (1, "pair_plus", 500),
    (1, SIX, 500),
    (2, "pair_plus", 1000),
    (2, SIX, 1000),
    (3, "pair_plus", 1000),
    (2, "pair_plus", 0),
    (2, SIX, 0),
    (1, "ante", 1000),
    (2, "ante", 1000),
]
IDS = [
    "seat 1 pair plus placed",
    "seat 1 6 card placed",
    "seat 2 pair plus raised",
    "seat 2 6 card raised",
    "seat 3 pair plus alone raised",
    "seat 2 pair plus taken back",
    "seat 2 6 card taken back",
    "seat 1 ante raised",
    "seat 2 ante raised",
]


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize("seat, spot, cents", CHANGES, ids=IDS)
@pytest.mark.parametrize("step", DEALT)
def test_no_late_change_once_a_card_is_dealt(step: str, seat: int, spot: str, cents: int, held: bool) -> None:
    t = DEALT[step]()
    before = t.snapshot().seat(seat)
    assert before is not None
    late_change(t, seat, spot, cents, held)
    assert_late_refused(t, before.wager_map(), seat, spot)


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize("step", ["first_card", "dealer_cards", "one_played", "settlement"])
def test_a_late_play_wager_is_refused(step: str, held: bool) -> None:
    """Already so: the play wager is not a wager before the deal (placed on a seat still to
    decide, raised or taken back on one that played)."""
    t = DEALT[step]()
    for seat, cents in ((3, 500), (2, 500)) if step.startswith(("first", "dealer")) else ((1, 1000), (1, 0)):
        before = t.snapshot().seat(seat)
        assert before is not None
        late_change(t, seat, "play", cents, held)
        assert_late_refused(t, before.wager_map(), seat, "play")
        held = False  # the hold stays for the second change


BEFORE = [(c, i) for c, i in zip(CHANGES, IDS, strict=True) if c[0] != 3]
"""The changes a supervisor may accept before the deal (seat 3's, a pair plus alone, is refused
then too, as before: the required ante)."""


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize("seat, spot, cents", [c for c, _ in BEFORE], ids=[i for _, i in BEFORE])
def test_before_the_first_card_a_supervisor_may_accept_a_late_change(
    seat: int, spot: str, cents: int, held: bool
) -> None:
    t = no_more_bets()
    late_change(t, seat, spot, cents, held)
    assert_late_accepted(t, seat, spot, cents)
