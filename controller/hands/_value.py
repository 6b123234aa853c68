"""Hand evaluation that explains itself: :class:`HandValue` with category, best cards and strength.

``evaluate_five`` and ``evaluate_best`` rank five-card hands and the best five of six or seven
(N.J.A.C. 13:69F-24 rank of cards, seed 004, for Boston 5; the same rules for Mississippi
Stud; the pai gow rules of digest 3.3 with the joker); ``evaluate_three`` ranks three-card
bonus hands (seed 004 (d)); ``evaluate_low`` ranks pai gow two-card low hands.

Comparing two hands of the same game and size is comparing their ``strength``: the category
first, then the ranks that define it (the pair, the trips, the straight's place), then the
highest card not held by the other hand, down to a full tie, which is a push (seed (c)).
Suits never break ties.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from controller.hands.categories import CATEGORY_SHIFT, FIVE_CARD_ORDER, LOW_HAND_ORDER, Category, pack, unpack
from controller.hands.fast import JOKER_INDEX, evaluator_for
from controller.hands.rules import HandRules
from controller.vocab import Card, format_cards

__all__ = [
    "HandValue",
    "HandError",
    "hand_json",
    "evaluate_five",
    "evaluate_best",
    "evaluate_dealt",
    "evaluate_three",
    "evaluate_low",
]


class HandError(ValueError):
    """A hand cannot be ranked as asked (wrong number of cards, a joker where there is none...)."""


@dataclass(frozen=True, eq=False, slots=True)
class HandValue:
    """The result of ranking one hand.

    ``cards`` are the cards given, ``best`` the cards that make the hand in the order that
    explains it (the group first, then kickers; a straight from its top card), with the
    joker shown as ``JK`` where it was used. Values compare by ``strength`` only: ``a == b``
    means a tie (a push), and ``<`` orders them as the game does.
    """

    category: Category
    picked: tuple[Card, ...] | Callable[[], tuple[Card, ...]]
    """The best cards, or how to find them: picking them is the slow part of ranking, and
    deciding a hand (a pai gow set, a showdown) needs only the strength."""
    strength: int
    cards: tuple[Card, ...]

    @property
    def best(self) -> tuple[Card, ...]:
        """The cards that make the hand, in the order that explains it."""
        picked = self.picked
        if callable(picked):
            picked = picked()
            object.__setattr__(self, "picked", picked)
        return picked

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HandValue) and self.strength == other.strength

    def __hash__(self) -> int:
        return hash(self.strength)

    def __lt__(self, other: HandValue) -> bool:
        return self.strength < other.strength

    def __le__(self, other: HandValue) -> bool:
        return self.strength <= other.strength

    def __gt__(self, other: HandValue) -> bool:
        return self.strength > other.strength

    def __ge__(self, other: HandValue) -> bool:
        return self.strength >= other.strength

    def to_json(self) -> dict[str, object]:
        """The JSON form printed by ``tablectl rank``."""
        return hand_json(self.cards, self.category, self.best, self.strength)


def hand_json(cards: Sequence[Card], category: Category, best: Sequence[Card], strength: int) -> dict[str, object]:
    """The JSON object ``tablectl rank`` prints for one ranked hand."""
    return {"cards": format_cards(cards), "category": category.value, "best": format_cards(best), "strength": strength}


def _check(cards: Sequence[Card], rules: HandRules, sizes: Sequence[int], what: str) -> None:
    if len(cards) not in sizes:
        wanted = " or ".join(str(n) for n in sizes)
        raise HandError(f"{what} needs {wanted} cards, got {len(cards)}")
    indices = [c.index for c in cards]
    if len(set(indices)) == len(indices) and (rules.joker or JOKER_INDEX not in indices):
        return  # nothing to name (checked in C): the loop below finds the first problem
    seen: set[int] = set()
    for position, c in enumerate(cards, start=1):
        if c.index in seen:
            raise HandError(f"card {position} '{c}': appears twice in the hand")
        seen.add(c.index)
        if c.is_joker and not rules.joker:
            raise HandError(f"card {position} 'JK': {rules.game} is dealt from 52 cards, with no joker")


def _straight_ranks(ordinal: int, rules: HandRules) -> list[int]:
    high = rules.wheel.straight_ordinals()[ordinal]
    return [3, 2, 1, 0, 12] if high == 3 else list(range(high, high - 5, -1))


def _needed_ranks(category: Category, fields: tuple[int, ...], rules: HandRules) -> list[int]:
    f = fields
    if category is Category.FIVE_ACES:
        return [12] * 5
    if category in (Category.ROYAL_FLUSH, Category.STRAIGHT_FLUSH, Category.STRAIGHT):
        return _straight_ranks(f[0], rules)
    if category is Category.FOUR_OF_A_KIND:
        return [f[0]] * 4 + [f[1]]
    if category is Category.FULL_HOUSE:
        return [f[0]] * 3 + [f[1]] * 2
    if category is Category.THREE_OF_A_KIND:
        return [f[0]] * 3 + [f[1], f[2]]
    if category is Category.TWO_PAIR:
        return [f[0]] * 2 + [f[1]] * 2 + [f[2]]
    if category is Category.ONE_PAIR:
        return [f[0]] * 2 + [f[1], f[2], f[3]]
    return list(f)  # flush, high card


_FLUSH_CATEGORIES = frozenset({Category.FLUSH, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH})
_FLUSH_NAMES = frozenset(c.value for c in _FLUSH_CATEGORIES)
"""Their values: a category is looked up by its value's hash (a string's, kept), not the enum's
(worked out in Python on every look-up)."""


def _pick_best(
    cards: Sequence[Card], category: Category, fields: tuple[int, ...], rules: HandRules
) -> tuple[Card, ...]:
    """The five cards that make ``category`` with ``fields``, chosen independently of card order."""
    # the later suit first, as :func:`_high_first` orders cards of one rank (the deck index is
    # the suit, then the rank): only the order within each rank is read; the joker, the highest
    # index, comes first
    pool = sorted(cards, key=_index, reverse=True)
    joker = [pool.pop(0)] if pool[0].index == JOKER_INDEX else []
    if category._value_ in _FLUSH_NAMES:
        per_suit = [0, 0, 0, 0]
        for c in pool:
            per_suit[c.index // 13] += 1
        suit = max(range(4), key=lambda s: (per_suit[s], s))
        pool = [c for c in pool if c.index // 13 == suit]
    ranks = [_RANK_OF[c.index] for c in pool]  # each card's rank - 2, in the pool's order
    best: list[Card] = []
    for rank in _needed_ranks(category, fields, rules):
        try:  # the first card of that rank left: the later suit first
            at = ranks.index(rank)
        except ValueError:
            if not joker:
                raise AssertionError(f"cannot rebuild {category.value} from {format_cards(cards)}") from None
            best.append(joker.pop())
        else:
            ranks[at] = -1  # taken
            best.append(pool[at])
    return tuple(best)


def _index(card: Card) -> int:
    """A card's place in the deck order: a sort key."""
    return card.index


_RANK_OF: tuple[int, ...] = tuple(i % 13 for i in range(52))
"""Each real card's rank - 2, by its index."""
_STRAIGHT_CATEGORIES = frozenset({Category.STRAIGHT, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH})
_GROUP_CATEGORIES = frozenset(
    {Category.ONE_PAIR, Category.TWO_PAIR, Category.THREE_OF_A_KIND, Category.FULL_HOUSE, Category.FOUR_OF_A_KIND}
)
_GROUP_NAMES = frozenset(c.value for c in _GROUP_CATEGORIES)
_STRAIGHT_NAMES = frozenset(c.value for c in _STRAIGHT_CATEGORIES)
_ORDER_KEY = tuple((i % 13) * 4 + i // 13 for i in range(52))
"""A card's place in a hand's explanation among cards of as many of their rank: rank, then suit."""


def _pick_five(cards: tuple[Card, ...], category: Category) -> tuple[Card, ...]:
    """:func:`_pick_best` of exactly five cards without the joker, in one sort: every card
    plays, ordered by how many of its rank the hand holds, then rank, then the later suit
    (a wheel straight shows its ace last). Checked against ``_pick_best`` on every hand."""
    order = _ORDER_KEY
    name = category._value_
    keyed: list[tuple[int, Card]]  # each card's key is its own (no two tie): cards are never compared
    if name in _GROUP_NAMES:
        ranks = [c.index % 13 for c in cards]
        keyed = [((ranks.count(r) << 6) + order[c.index], c) for r, c in zip(ranks, cards)]
    else:
        keyed = [(order[c.index], c) for c in cards]
        if name in _STRAIGHT_NAMES and min(keyed)[0] < 4 and max(keyed)[0] >= 48:  # the wheel: 5-4-3-2-A
            keyed = [(k - 52 if k >= 48 else k, c) for k, c in keyed]
    keyed.sort(reverse=True)
    return tuple([c for _, c in keyed])


def evaluate_five(cards: Sequence[Card], rules: HandRules) -> HandValue:
    """Rank exactly five cards under ``rules``."""
    _check(cards, rules, (5,), "a five-card hand")
    return _evaluate(cards, rules)


def evaluate_best(cards: Sequence[Card], rules: HandRules) -> HandValue:
    """Rank the best five of five to seven cards under ``rules``."""
    _check(cards, rules, (5, 6, 7), "best five")
    return _evaluate(cards, rules)


def evaluate_dealt(cards: Sequence[Card], rules: HandRules) -> HandValue:
    """:func:`evaluate_best` of five to seven cards already checked (distinct, the joker only
    where ``rules`` deal it): settlement ranks hands its record reader has checked."""
    return _evaluate(cards, rules)


def best_dealt(cards: Sequence[Card], rules: HandRules) -> tuple[Category, tuple[Card, ...]]:
    """The ``category`` and ``best`` of :func:`evaluate_dealt` of five to seven cards already
    checked, found at once (no :class:`HandValue` made): a hand shown, not compared."""
    indices = [c.index for c in cards]
    strength = evaluator_for(rules.wheel).strength(indices)
    category = FIVE_CARD_ORDER[strength >> CATEGORY_SHIFT]
    if len(indices) == 5 and JOKER_INDEX not in indices:
        return category, _pick_five(tuple(cards), category)
    return category, _pick_best(cards, category, unpack(strength)[1], rules)


def _evaluate(cards: Sequence[Card], rules: HandRules) -> HandValue:
    indices = [c.index for c in cards]
    strength = evaluator_for(rules.wheel).strength(indices)
    category = FIVE_CARD_ORDER[strength >> CATEGORY_SHIFT]
    cards = tuple(cards)
    if len(cards) == 5 and JOKER_INDEX not in indices:
        return HandValue(category, partial(_pick_five, cards, category), strength, cards)
    return HandValue(category, partial(_pick_best, cards, category, unpack(strength)[1], rules), strength, cards)


def evaluate_three(cards: Sequence[Card], rules: HandRules) -> HandValue:
    """Rank a three-card bonus hand (Boston 5 seed (d); Mississippi Stud with the mini royal).

    Three-card straights: A-2-3 *is* a straight, the lowest; Q-K-A the highest; K-A-2 is not.
    Reason: seed (d)3 forbids only one use of the ace, "an ace may not be combined with a
    king and two", which would be needless if the ace could not play low at all; and seed
    (a) lets the ace play low to complete a straight formed with the cards below it. The
    same reading gives the usual three-card poker ranking, where A-2-3 is the lowest
    straight. A three-card flush is three suited cards "not in consecutive order" (seed
    (d)4), so three suited consecutive cards are only a straight flush.
    """
    order = rules.three_card
    if order is None:
        raise HandError(f"{rules.game} has no three-card hands")
    _check(cards, rules, (3,), "a three-card hand")
    # from the deck index (rank - 2 and suit): no enum arithmetic nor hashing
    ranks = sorted([c.index % 13 for c in cards if c.index != JOKER_INDEX], reverse=True)  # _check refused a joker
    flush = len({c.index // 13 for c in cards}) == 1
    distinct = len(set(ranks)) == 3
    straight = -1
    if distinct and ranks[0] - ranks[2] == 2:
        straight = ranks[0] - 1  # 2-3-4 is 1 ... Q-K-A is 11
    elif ranks == [12, 1, 0]:
        straight = 0  # A-2-3
    if straight >= 0 and flush:
        if straight == 11 and Category.MINI_ROYAL in order:
            category, fields = Category.MINI_ROYAL, [straight]
        else:
            category, fields = Category.STRAIGHT_FLUSH, [straight]
    elif ranks[0] == ranks[2]:
        category, fields = Category.THREE_OF_A_KIND, [ranks[0]]
    elif straight >= 0:
        category, fields = Category.STRAIGHT, [straight]
    elif flush:
        category, fields = Category.FLUSH, ranks
    elif ranks[0] == ranks[1] or ranks[1] == ranks[2]:
        pair = ranks[1]
        category, fields = Category.ONE_PAIR, [pair, ranks[2] if ranks[0] == pair else ranks[0]]
    else:
        category, fields = Category.HIGH_CARD, ranks
    if straight == 0:
        best_ranks = [1, 0, 12]  # the ace plays low: shown as 3-2-A
    elif category is Category.ONE_PAIR:
        best_ranks = [fields[0], fields[0], fields[1]]
    else:
        best_ranks = ranks
    best = _take(cards, best_ranks)
    return HandValue(category, best, pack(order.index(category), fields), tuple(cards))


def _high_first(c: Card) -> int:
    """Sort key: higher rank first, then the later suit in deck order, so picks ignore input order
    (one integer, rank then suit: sorting by it is faster than by a tuple)."""
    suit, rank = divmod(c.index, 13)
    return -(rank * 8 + suit)


def _take(cards: Sequence[Card], ranks: Sequence[int]) -> tuple[Card, ...]:
    """For each of ``ranks`` (``rank - 2``), the first card of that rank not yet taken, in
    :func:`_high_first` order (each card's key is its own: cards are never compared)."""
    pool = [c for _, c in sorted([(_high_first(c), c) for c in cards])]
    taken = [False] * len(pool)
    out: list[Card] = []
    for rank in ranks:
        k = next(k for k, c in enumerate(pool) if not taken[k] and c.index != JOKER_INDEX and c.index % 13 == rank)
        taken[k] = True
        out.append(pool[k])
    return tuple(out)


def evaluate_low(cards: Sequence[Card], rules: HandRules) -> HandValue:
    """Rank a pai gow two-card low hand: a pair beats no pair; the joker here is an ace."""
    if not rules.low_hand:
        raise HandError(f"{rules.game} has no two-card low hands")
    _check(cards, rules, (2,), "a two-card low hand")
    return _evaluate_low(cards)


def _evaluate_low(cards: Sequence[Card]) -> HandValue:
    a, b = cards
    ra = 12 if a.rank is None else a.rank - 2
    rb = 12 if b.rank is None else b.rank - 2
    if (ra, a.index) >= (rb, b.index):  # higher rank first, then the later card in deck order
        best, hi, lo = (a, b), ra, rb
    else:
        best, hi, lo = (b, a), rb, ra
    if hi == lo:
        return HandValue(Category.ONE_PAIR, best, _LOW_PAIR | hi << 16, tuple(cards))
    return HandValue(Category.HIGH_CARD, best, _LOW_NO_PAIR | hi << 16 | lo << 12, tuple(cards))


_LOW_PAIR = pack(LOW_HAND_ORDER.index(Category.ONE_PAIR), [])
_LOW_NO_PAIR = pack(LOW_HAND_ORDER.index(Category.HIGH_CARD), [])
"""A low hand's strength without its fields (:func:`pack`'s: the first field at bit 16, the second at 12)."""
