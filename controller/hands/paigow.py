"""Pai gow hand-setting rules: a set is a five-card high hand and a two-card low hand, and the
high hand must not be outranked by the low hand (digest 3.3 item 5: it must outrank or equal it)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from controller.hands._value import HandValue, _evaluate, _evaluate_low, evaluate_five, evaluate_low
from controller.hands.categories import CATEGORY_SHIFT, FIVE_CARD_ORDER, Category, unpack
from controller.hands.fast import JOKER_INDEX, REAL_CODES, evaluator_for
from controller.hands.rules import PAI_GOW
from controller.vocab import Card, format_cards

__all__ = ["HandSet", "make_set", "set_dealt", "legal_sets", "sets_with_high", "is_pai_gow"]


def low_outranks_high(high: HandValue, low: HandValue) -> bool:
    """Whether the two-card ``low`` hand outranks the five-card ``high`` hand (a foul).

    A pair in the low hand is beaten by any high hand of two pair or better, and by a pair of
    the same or a higher rank; two unpaired low cards are beaten by any pair, and by a high
    hand whose two top cards are at least as high, compared in order.
    """
    if low.category is Category.ONE_PAIR:
        if high.category is Category.HIGH_CARD:
            return True
        return high.category is Category.ONE_PAIR and unpack(high.strength)[1][0] < unpack(low.strength)[1][0]
    if high.category is not Category.HIGH_CARD:
        return False
    low_fields, high_fields = unpack(low.strength)[1], unpack(high.strength)[1]
    return (low_fields[0], low_fields[1]) > (high_fields[0], high_fields[1])


@dataclass(frozen=True, slots=True)
class HandSet:
    """A pai gow set: the five-card ``high`` and two-card ``low`` hands, ranked."""

    high: HandValue
    low: HandValue
    _words: dict[str, str] | None = field(default=None, init=False, repr=False, compare=False)
    """:meth:`words`, once asked (the table shows a seat's set, then its settlement writes it)."""

    @property
    def foul(self) -> bool:
        """True when the low hand outranks the high hand."""
        return low_outranks_high(self.high, self.low)

    def to_json(self) -> dict[str, str]:
        """The set in words: each hand's best cards and category (a dict of the caller's own)."""
        words = self._words
        if words is not None:
            return dict(words)
        return {
            "high": format_cards(self.high.best),
            "high_category": self.high.category._value_,
            "low": format_cards(self.low.best),
            "low_category": self.low.category._value_,
        }

    def words(self) -> Mapping[str, str]:
        """:meth:`to_json`'s words, made once and kept: for a set shown before it is settled."""
        words = self._words
        if words is None:
            words = self.to_json()
            object.__setattr__(self, "_words", words)
        return words


def make_set(high: Sequence[Card], low: Sequence[Card]) -> HandSet:
    """Rank a set of five high cards and two low cards under the pai gow rules."""
    return HandSet(evaluate_five(high, PAI_GOW), evaluate_low(low, PAI_GOW))


def set_dealt(high: Sequence[Card], low: Sequence[Card]) -> HandSet:
    """:func:`make_set` of cards already checked (seven distinct cards of the 53-card deck)."""
    return HandSet(_evaluate(high, PAI_GOW), _evaluate_low(low))


def legal_sets(cards: Sequence[Card]) -> list[HandSet]:
    """Every set of seven distinct cards (already checked) that is not a foul, in the order of
    the two low cards' positions in ``cards``."""
    sets = []
    for i in range(7):
        for j in range(i + 1, 7):
            high = [c for k, c in enumerate(cards) if k != i and k != j]
            s = HandSet(_evaluate(high, PAI_GOW), _evaluate_low((cards[i], cards[j])))
            if not s.foul:
                sets.append(s)
    return sets


def sets_with_high(cards: Sequence[Card], categories: Collection[Category]) -> list[HandSet]:
    """The sets of seven distinct cards (already checked) whose high hand is of one of
    ``categories``, each as :func:`legal_sets` gives it and in its order, where every one of
    ``categories`` outranks any two-card hand (straight and above: none of these sets is a foul).
    Only the high hands are ranked first: the low hands of the sets kept."""
    assert _FOUL_PRONE.isdisjoint(categories), "a high hand of these categories may be a foul"
    evaluator = evaluator_for(PAI_GOW.wheel)
    wanted = [category in categories for category in FIVE_CARD_ORDER]  # by category number
    # each five is the seven's summed codes less two cards (the joker's code 0: it is tried apart)
    codes = [REAL_CODES[c.index] for c in cards]
    total = sum(codes)
    joker = next((k for k, c in enumerate(cards) if c.index == JOKER_INDEX), -1)
    sets = []
    for i in range(7):
        for j in range(i + 1, 7):
            five = total - codes[i] - codes[j]
            if joker < 0 or joker == i or joker == j:
                strength = evaluator.strength_of_sum(five)
            else:
                strength = evaluator.joker_strength_of_sum(five)
            if wanted[strength >> CATEGORY_SHIFT]:
                high = [c for k, c in enumerate(cards) if k != i and k != j]
                sets.append(HandSet(_evaluate(high, PAI_GOW), _evaluate_low((cards[i], cards[j]))))
    return sets


_FOUL_PRONE = frozenset({Category.HIGH_CARD, Category.ONE_PAIR, Category.TWO_PAIR, Category.THREE_OF_A_KIND})
"""The high hands a low hand may outrank (:func:`low_outranks_high`: no-pair and one pair; the
rest kept out of :func:`sets_with_high` with them for a margin)."""


def is_pai_gow(cards: Sequence[Card]) -> tuple[bool, int]:
    """Whether seven cards are a *pai gow* (no pair, straight or flush, the joker only an ace),
    and the rank (2-14) of the highest card: for the pai gow insurance wager."""
    strength = evaluator_for(PAI_GOW.wheel).ace_only_strength([c.index for c in cards])
    index, fields = unpack(strength)
    return index == 0, fields[0] + 2
