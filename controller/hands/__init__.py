"""Hand ranking for Boston 5 stud, Mississippi Stud and pai gow poker: pure functions, no I/O.

Start with :func:`rank_hand` (one entry point for every kind of hand) or the evaluators it
dispatches to. Each returns a value with ``category``, ``best`` cards and an integer
``strength`` (larger is better, comparable for hands of the same game and kind).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from controller.hands._bonus import BonusValue, bonus_shown, classify_bonus, paying_line
from controller.hands._value import (
    HandError,
    HandValue,
    evaluate_best,
    evaluate_dealt,
    evaluate_five,
    evaluate_low,
    evaluate_three,
)
from controller.hands.categories import Category
from controller.hands.rules import (
    BOSTON5,
    MISSISSIPPI_STUD,
    PAI_GOW,
    THREE_CARD_POKER,
    HandRules,
    Wheel,
)
from controller.vocab import Card

__all__ = [
    "Kind",
    "Category",
    "HandRules",
    "Wheel",
    "HandValue",
    "BonusValue",
    "HandError",
    "BOSTON5",
    "MISSISSIPPI_STUD",
    "PAI_GOW",
    "THREE_CARD_POKER",
    "rank_hand",
    "evaluate_five",
    "evaluate_best",
    "evaluate_dealt",
    "evaluate_three",
    "evaluate_low",
    "classify_bonus",
    "bonus_shown",
    "paying_line",
]


class Kind(Enum):
    """What kind of hand to rank; the value is the ``--kind`` word of ``tablectl rank``."""

    FIVE = "five"
    """Exactly five cards."""
    SEVEN = "seven"
    """The best five of seven cards."""
    THREE = "three"
    """A three-card hand (Three Card Poker; the Boston 5 and Mississippi Stud bonuses)."""
    LOW = "low"
    """A pai gow two-card low hand."""
    BONUS = "bonus"
    """Seven cards classified for the pai gow bonus wager."""


_BY_SIZE = {2: Kind.LOW, 3: Kind.THREE, 5: Kind.FIVE, 7: Kind.SEVEN}


def kind_for_size(size: int) -> Kind:
    """The kind of hand ``size`` cards make when no kind is given (2, 3, 5 or 7)."""
    try:
        return _BY_SIZE[size]
    except KeyError:
        raise HandError(f"cannot tell the kind of a {size}-card hand (give 2, 3, 5 or 7 cards, or --kind)") from None


def rank_hand(cards: Sequence[Card], rules: HandRules, kind: Kind | None = None) -> HandValue | BonusValue:
    """Rank ``cards`` as ``kind`` (by default, the kind their number implies) under ``rules``."""
    kind = kind or kind_for_size(len(cards))
    if kind is Kind.FIVE:
        return evaluate_five(cards, rules)
    if kind is Kind.SEVEN:
        if len(cards) != 7:
            raise HandError(f"best five of seven needs 7 cards, got {len(cards)}")
        return evaluate_best(cards, rules)
    if kind is Kind.THREE:
        return evaluate_three(cards, rules)
    if kind is Kind.LOW:
        return evaluate_low(cards, rules)
    return classify_bonus(cards, rules)
