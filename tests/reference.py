"""A slow, obviously-correct poker hand reference, written from the rule texts alone.

Shares no code with ``controller.hands``: a card here is a ``(rank, suit)`` pair with ranks
2-14 and suit ``None`` for a card with no suit (the joker playing as an ace or filling a
straight). A hand's key is a tuple; a larger tuple is a better hand. The categories' order
(24.3(b)) is the simulation's reference model's (:mod:`hil.reference.poker`), itself written from
the rule texts and sharing no code with the controller.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations

from hil.reference.poker import CATEGORIES

RefCard = tuple[int, str | None]


@cache
def straights(wheel_second_highest: bool) -> tuple[tuple[int, ...], ...]:
    """Every straight as its five ranks, weakest first."""
    ordinary = [tuple(range(high, high - 5, -1)) for high in range(6, 14)]  # 6-high ... K-high
    wheel = (5, 4, 3, 2, 14)
    broadway = (14, 13, 12, 11, 10)
    if wheel_second_highest:
        return (*ordinary, wheel, broadway)
    return (wheel, *ordinary, broadway)


_STRAIGHT_PLACES = {wheel: {tuple(sorted(st)): i for i, st in enumerate(straights(wheel))} for wheel in (False, True)}
"""Each straight's place in :func:`straights`, found by its ranks in ascending order."""


def key5(cards: Sequence[RefCard], wheel_second_highest: bool = False) -> tuple:
    """The key of exactly five cards."""
    assert len(cards) == 5
    ranks = [r for r, _ in cards]
    suits = [s for _, s in cards]
    counts = Counter(ranks)
    flush = suits[0] is not None and all(s == suits[0] for s in suits)
    order = straights(wheel_second_highest)
    straight_place = _STRAIGHT_PLACES[wheel_second_highest].get(tuple(sorted(ranks)))
    # groups: by count, then rank, largest first
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    by_group = tuple(r for r, _ in groups)
    shape = tuple(n for _, n in groups)
    if shape == (5,):
        assert ranks[0] == 14, "only aces can be five of a kind (with the joker)"
        return (CATEGORIES.index("five_aces"),)
    if straight_place is not None and flush:
        if order[straight_place] == (14, 13, 12, 11, 10):
            return (CATEGORIES.index("royal_flush"),)
        return (CATEGORIES.index("straight_flush"), straight_place)
    if shape == (4, 1):
        return (CATEGORIES.index("four_of_a_kind"),) + by_group
    if shape == (3, 2):
        return (CATEGORIES.index("full_house"),) + by_group
    if flush:
        return (CATEGORIES.index("flush"),) + tuple(sorted(ranks, reverse=True))
    if straight_place is not None:
        return (CATEGORIES.index("straight"), straight_place)
    if shape == (3, 1, 1):
        return (CATEGORIES.index("three_of_a_kind"),) + by_group
    if shape == (2, 2, 1):
        return (CATEGORIES.index("two_pair"),) + by_group
    if shape == (2, 1, 1, 1):
        return (CATEGORIES.index("one_pair"),) + by_group
    return (CATEGORIES.index("high_card"),) + tuple(sorted(ranks, reverse=True))


def category(key: tuple) -> str:
    """The category name of a key."""
    return CATEGORIES[key[0]]


_JOKER_MAY_MAKE = {"straight", "flush", "straight_flush", "royal_flush"}


def joker_keys(real: Sequence[RefCard], wheel_second_highest: bool = True) -> Iterable[tuple]:
    """Keys of ``real`` (four cards) plus the joker, for every use the rules allow."""
    held = Counter(r for r, _ in real)
    for rank in range(2, 15):
        if rank != 14 and held[rank] == 4:
            continue  # no fifth card of this rank exists; only aces may be five of a kind
        for suit in ("c", "d", "h", "s", None):
            if (rank, suit) in real:
                continue
            key = key5(list(real) + [(rank, suit)], wheel_second_highest)
            if rank == 14 or category(key) in _JOKER_MAY_MAKE:
                yield key


_KEY5_BY_RANKS: dict[tuple[tuple[int, ...], bool, bool], tuple] = {}
""":func:`key5` of five real cards by all it reads of them: their ranks (sorted), whether they share a
suit, and the wheel's place (at most 6,175 x 2 x 2 entries). The exhaustive seven-card test asks for
the 1,033,305 fives of its 49,205 rank multisets, of which 6,175 differ (about 3.8 s of CPU less
for each of its two runs, suite time cut ci16)."""


def _key5_remembered(real: Sequence[RefCard], wheel_second_highest: bool) -> tuple:
    suits = [s for _, s in real]
    flush = suits[0] is not None and all(s == suits[0] for s in suits)  # as key5 tells a flush
    what = (tuple(sorted(r for r, _ in real)), flush, wheel_second_highest)
    key = _KEY5_BY_RANKS.get(what)
    if key is None:
        key = _KEY5_BY_RANKS[what] = key5(real, wheel_second_highest)
    return key


def best_key(cards: Sequence[RefCard | None], wheel_second_highest: bool = False) -> tuple:
    """The best five-card key among ``cards`` (``None`` is the joker), trying every subset."""
    best: tuple = ()
    for five in combinations(cards, 5):
        real = [c for c in five if c is not None]
        if len(real) == 5:
            key = _key5_remembered(real, wheel_second_highest)
        else:
            key = max(joker_keys(real, wheel_second_highest))
        best = max(best, key)
    return best
