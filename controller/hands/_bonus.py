"""Pai gow seven-card bonus classification (N.J.A.C. 13:69F-11.15, digest 3.6).

The bonus wager is paid on the best hand the seven cards can make, whatever the set. Here
the joker may be used as any card to complete a straight, flush, straight flush or royal
flush, otherwise it is an ace; a *seven-card straight flush* with no joker is its own, top,
category, and one completed by the joker is the category below the royal match.

Conventions (written down because paytables depend on them):

* **Every line a hand qualifies for.** A hand qualifies for each five-card category that five
  of its cards form exactly (so 5-6-7-8-9 with two more nines qualifies for both the
  straight and three of a kind), and for each seven-card category it meets.
  :attr:`BonusValue.qualifies` lists them all, highest in :data:`BONUS_SEVEN_ORDER` first.
* **Paid once, at the highest-paying line.** Settlement pays one line per hand: the line of
  the paytable, among ``qualifies``, that pays the most (:func:`paying_line`). With the
  Fortune table this pays three of a kind (3 to 1) over a straight (2 to 1).
* A seven-card straight flush may play the ace low (A-2-3-4-5-6-7), as the pai gow wheel does.
* Royal flush plus royal match: a royal flush (the joker may complete it) and, in the other
  two cards, a natural suited king and queen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TypeVar

from controller.hands._value import HandError, best_dealt, evaluate_best, hand_json
from controller.hands.categories import BONUS_SEVEN_ORDER, FIVE_CARD_ORDER, Category
from controller.hands.fast import _CODES, FOUR_SUIT, JOKER_INDEX, REAL_CODES, SUIT_SHIFT, evaluator_for
from controller.hands.rules import HandRules
from controller.vocab import Card

__all__ = ["BonusValue", "classify_bonus", "bonus_shown", "paying_line"]

_KING, _QUEEN = 11, 10
_ROYAL_RANKS = frozenset({8, 9, 10, 11, 12})


@dataclass(frozen=True, slots=True)
class BonusValue:
    """The seven-card bonus classification of one hand.

    ``category`` is the highest category in :data:`BONUS_SEVEN_ORDER` the hand qualifies
    for; ``qualifies`` all of them, highest first; ``best`` the cards that make ``category``
    (all seven for a seven-card category); ``strength`` orders bonus hands.
    """

    category: Category
    qualifies: tuple[Category, ...]
    best: tuple[Card, ...]
    strength: int
    cards: tuple[Card, ...]

    def to_json(self) -> dict[str, object]:
        """The JSON form printed by ``tablectl rank --kind bonus``."""
        out = hand_json(self.cards, self.category, self.best, self.strength)
        out["qualifies"] = [c.value for c in self.qualifies]
        return out


def _consecutive_seven(ranks: set[int]) -> bool:
    """Seven distinct ranks in a row, the ace high or low."""
    if len(ranks) != 7:
        return False
    if max(ranks) - min(ranks) == 6:
        return True
    low = {-1 if r == 12 else r for r in ranks}
    return max(low) - min(low) == 6


def _seven_card_categories(cards: Sequence[Card]) -> list[Category]:
    real_total = sum([REAL_CODES[c.index] for c in cards])  # the joker adds nothing
    if FOUR_SUIT[(real_total >> SUIT_SHIFT) & 0xFFFF] < 0:  # each category needs four or more of a suit
        return []
    real = [c for c in cards if not c.is_joker]
    has_joker = len(real) < len(cards)
    suits = [c.index // 13 for c in real]
    if max(suits.count(s) for s in set(suits)) < 4:  # each category needs four or more of a suit
        return []
    found: list[Category] = []
    if len(set(suits)) == 1:
        ranks = {c.index % 13 for c in real}
        if not has_joker and _consecutive_seven(ranks):
            found.append(Category.SEVEN_CARD_STRAIGHT_FLUSH)
        if has_joker and any(_consecutive_seven(ranks | {r}) for r in range(13) if r not in ranks):
            found.append(Category.SEVEN_CARD_STRAIGHT_FLUSH_JOKER)
    for suit in set(suits):  # by deck index (suit, rank - 2): no enum hashing
        if suits.count(suit) < 4:  # a royal flush needs five of the suit, or four and the joker
            continue
        royal = [c for c in real if c.index // 13 == suit and c.index % 13 in _ROYAL_RANKS]
        if len(royal) == 5:
            rest = [c for c in cards if c not in royal]
        elif len(royal) == 4 and has_joker:
            rest = [c for c in real if c not in royal]  # the joker completes the royal flush
        else:
            continue
        if len(rest) != 2:
            continue
        a, b = rest
        if (
            a.rank is not None
            and b.rank is not None
            and a.suit is b.suit
            and {a.rank - 2, b.rank - 2} == {_KING, _QUEEN}
        ):
            found.append(Category.ROYAL_FLUSH_ROYAL_MATCH)
    return found


def _five_card_bits(cards: Sequence[Card], rules: HandRules) -> int:
    """The five-card categories some five of ``cards`` form exactly, one bit per category number."""
    evaluator = evaluator_for(rules.wheel)
    bits = 0
    indices = [c.index for c in cards]
    if JOKER_INDEX not in indices:  # each five is the seven's summed codes less two cards
        return evaluator.fives_category_bits([_CODES[i] for i in indices])
    for five in combinations(indices, 5):
        if JOKER_INDEX in five:
            bits |= evaluator.joker_categories([i for i in five if i != JOKER_INDEX])
        else:
            bits |= 1 << (evaluator.strength(five) >> 20)
    return bits


def _categories_of(bits: int) -> tuple[Category, ...]:
    """The five-card categories of ``bits``, highest first."""
    return tuple(category for n, category in reversed(list(enumerate(FIVE_CARD_ORDER))) if bits >> n & 1)


_BY_BITS: dict[int, tuple[Category, ...]] = {}
""":func:`_categories_of` by bits: a few dozen sets of categories occur."""


def classify_bonus(cards: Sequence[Card], rules: HandRules) -> BonusValue:
    """Classify seven cards for the pai gow bonus wager (see the module's conventions)."""
    if not rules.seven_card_bonus:
        raise HandError(f"{rules.game} has no seven-card bonus")
    if len(cards) != 7:
        raise HandError(f"a seven-card bonus hand needs 7 cards, got {len(cards)}")
    five = evaluate_best(cards, rules)  # also checks duplicates and the joker
    bits = _five_card_bits(cards, rules)
    found = _BY_BITS.get(bits)
    if found is None:
        found = _BY_BITS[bits] = _categories_of(bits)
    seven = _seven_card_categories(cards)
    qualifies = tuple(sorted(set(seven), key=BONUS_SEVEN_ORDER.index, reverse=True)) + found if seven else found
    top = qualifies[0]
    best = five.best if top in FIVE_CARD_ORDER else tuple(cards)
    strength = (BONUS_SEVEN_ORDER.index(top) << 24) | five.strength
    return BonusValue(top, qualifies, best, strength, tuple(cards))


def bonus_shown(cards: Sequence[Card], rules: HandRules) -> tuple[Category, tuple[Card, ...]]:
    """The ``category`` and ``best`` of :func:`classify_bonus` for seven cards already checked
    (distinct, the joker only where ``rules`` deal it), without the lines the hand qualifies
    for: what a hand's recall shows when no wager is paid on its lines. The highest category
    some five form exactly is the best five's own (checked against ``classify_bonus``)."""
    seven = _seven_card_categories(cards)
    if seven:
        return max(seven, key=BONUS_SEVEN_ORDER.index), tuple(cards)
    return best_dealt(cards, rules)


K = TypeVar("K")


def paying_line(
    qualifies: Iterable[Category], pays: Mapping[Category, K], key: Callable[[K], object]
) -> Category | None:
    """The category, among ``qualifies``, whose paytable line pays most (``None`` if none pays).

    ``pays`` maps categories to paytable lines and ``key`` orders lines by what they pay; a
    tie goes to the higher category, so the choice never depends on the paytable's order.
    """
    lines = [c for c in qualifies if c in pays]
    if not lines:
        return None
    return max(lines, key=lambda c: (key(pays[c]), BONUS_SEVEN_ORDER.index(c)))
