"""The fast path: the strength of the best five cards of 5 to 7 cards, as one integer.

Each card is coded as one integer with three fields that add without carrying:

* bits 0-38: rank counts, 3 bits per rank (so the sum of the codes *is* the rank multiset);
* bits 40-55: suit counts, 4 bits per suit;
* bits 64-115: a 13-bit rank mask per suit (distinct cards never carry).

Summing a hand's codes gives all three at once. A hand with five or more cards of one suit is
a flush, and then nothing without the flush can beat it (with at most seven cards, a full
house or better next to a five-card flush needs eight); its value comes from a table indexed
by that suit's rank mask. Otherwise the value comes from a table of rank multisets. Both
tables are built once per :class:`~controller.hands.rules.Wheel` from first principles (the
rank-multiset table entry by entry, on each multiset's first look-up; see
``_nonflush_strength``) and checked exhaustively by the tests.

The joker (pai gow's "bug") is tried as an ace, and as every card that could complete a
straight or a flush; a substitution other than an ace only counts when the result is a
straight, flush, straight flush or royal flush (digest 3.3 item 2).
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.hands.categories import FIVE_CARD_ORDER, Category, pack
from controller.hands.rules import Wheel

__all__ = ["evaluator_for", "card_code", "REAL_CODES"]

JOKER_INDEX = 52
RANK_BITS = (1 << 39) - 1
SUIT_SHIFT = 40
MASK_SHIFT = 64
_ACE = 12

_IDX = {c: i for i, c in enumerate(FIVE_CARD_ORDER)}
_I_HIGH = _IDX[Category.HIGH_CARD]
_I_PAIR = _IDX[Category.ONE_PAIR]
_I_TWO_PAIR = _IDX[Category.TWO_PAIR]
_I_TRIPS = _IDX[Category.THREE_OF_A_KIND]
_I_STRAIGHT = _IDX[Category.STRAIGHT]
_I_FLUSH = _IDX[Category.FLUSH]
_I_FULL = _IDX[Category.FULL_HOUSE]
_I_QUADS = _IDX[Category.FOUR_OF_A_KIND]
_I_SF = _IDX[Category.STRAIGHT_FLUSH]
_I_ROYAL = _IDX[Category.ROYAL_FLUSH]
_I_FIVE_ACES = _IDX[Category.FIVE_ACES]
_JOKER_COMPLETES = frozenset({_I_STRAIGHT, _I_FLUSH, _I_SF, _I_ROYAL})


def card_code(index: int) -> int:
    """The summable code of the real card with deck index ``index`` (0-51)."""
    suit, rank = divmod(index, 13)
    return (1 << (3 * rank)) | (1 << (SUIT_SHIFT + 4 * suit)) | (1 << (MASK_SHIFT + 13 * suit + rank))


_CODES: tuple[int, ...] = tuple(card_code(i) for i in range(52))
REAL_CODES: tuple[int, ...] = (*_CODES, 0)
"""Each card's summable code by its index (0-52), the joker's 0: a hand's sum is its real cards'."""
# A rank with no suit: the joker as an ace for pairs, or filling a straight's gap.
_SUITLESS: tuple[int, ...] = tuple(1 << (3 * r) for r in range(13))


def _suit_with_at_least(n: int) -> list[int]:
    # one byte holds two suits' counts: the first of its two suits with n or more, by byte
    low = [0 if b & 0xF >= n else 1 if b >> 4 >= n else -1 for b in range(256)]
    high = [s + 2 if s >= 0 else -1 for s in low]
    return [low[key & 0xFF] if low[key & 0xFF] >= 0 else high[key >> 8] for key in range(1 << 16)]


FLUSH_SUIT = _suit_with_at_least(5)
"""For each 16-bit field of suit counts, the suit (0-3) with five or more cards, or -1."""
FOUR_SUIT = _suit_with_at_least(4)
"""The same for four or more cards: a flush the joker can complete."""


def _straight_table(wheel: Wheel) -> list[int]:
    """For each 13-bit rank mask, the ordinal of its best straight, or -1."""
    needs = []
    for high in wheel.straight_ordinals():
        ranks = (12, 0, 1, 2, 3) if high == 3 else tuple(range(high - 4, high + 1))
        needs.append(sum(1 << r for r in ranks))
    table = [-1] * (1 << 13)
    for mask in range(1 << 13):
        for ordinal in range(len(needs) - 1, -1, -1):
            if mask & needs[ordinal] == needs[ordinal]:
                table[mask] = ordinal
                break
    return table


_HIGH_FIRST = tuple(range(12, -1, -1))


def _nonflush_strength(counts: Sequence[int], straights: Sequence[int]) -> int:
    """The best five-card value of a rank multiset with no flush (counts indexed by rank - 2)."""
    if counts[_ACE] >= 5:
        return pack(_I_FIVE_ACES, ())
    desc: list[int] = []  # the ranks held, highest first; then those held 4, 3 and 2 times
    quads: list[int] = []
    trips: list[int] = []
    pairs: list[int] = []
    mask = 0
    for r in _HIGH_FIRST:  # one pass: each rank multiset is worked out once, on its first look-up
        n = counts[r]
        if n:
            desc.append(r)
            mask |= 1 << r
            if n >= 4:
                quads.append(r)
            elif n == 3:
                trips.append(r)
            elif n == 2:
                pairs.append(r)
    if quads:
        q = quads[0]
        return pack(_I_QUADS, (q, next(r for r in desc if r != q)))
    if trips and (len(trips) > 1 or pairs):
        return pack(_I_FULL, (trips[0], max(trips[1:] + pairs)))
    straight = straights[mask]
    if straight >= 0:
        return pack(_I_STRAIGHT, (straight,))
    if trips:
        t = trips[0]
        return pack(_I_TRIPS, (t, *[r for r in desc if r != t][:2]))
    if len(pairs) >= 2:
        p1, p2 = pairs[0], pairs[1]
        return pack(_I_TWO_PAIR, (p1, p2, next(r for r in desc if r not in (p1, p2))))
    if pairs:
        p = pairs[0]
        return pack(_I_PAIR, (p, *[r for r in desc if r != p][:3]))
    return pack(_I_HIGH, desc[:5])


def _flush_strength(mask: int, straights: Sequence[int]) -> int:
    straight = straights[mask]
    if straight == 9:
        return pack(_I_ROYAL, (straight,))
    if straight >= 0:
        return pack(_I_SF, (straight,))
    return pack(_I_FLUSH, [r for r in range(12, -1, -1) if mask >> r & 1][:5])


def _multisets(size: int, max_ace: int) -> list[list[int]]:
    out: list[list[int]] = []
    _fill(out, [0] * 13, 12, size, max_ace)
    return out


def _fill(out: list[list[int]], counts: list[int], rank: int, left: int, max_ace: int) -> None:
    # a function of the module, not a closure that refers to itself: the lists made would stay
    # in that reference cycle, uncollected, until the next full garbage collection
    if rank < 0:
        if left == 0:
            out.append(counts.copy())
        return
    top = min(left, max_ace if rank == _ACE else 4)
    for n in range(top, -1, -1):
        counts[rank] = n
        _fill(out, counts, rank - 1, left - n, max_ace)
    counts[rank] = 0


class _RankTable(dict[int, int]):
    """Non-flush strengths by the sum of the rank-count fields, each worked out on its first
    look-up (building all 7-card multisets up front took most of a second at start)."""

    __slots__ = ("straights",)

    def __init__(self, straights: Sequence[int]) -> None:
        super().__init__()
        self.straights = straights

    def __missing__(self, key: int) -> int:
        value = self[key] = _nonflush_strength([(key >> (3 * r)) & 7 for r in range(13)], self.straights)
        return value


class Evaluator:
    """Best-five strength of 5-7 card hands under one :class:`Wheel` rule.

    ``strength(indices)`` takes deck indices (0-51, the joker 52); larger is better.
    Get instances from :func:`evaluator_for`; the tables are built once per wheel.
    """

    __slots__ = ("wheel", "_straights", "_flush", "_nonflush", "_joker", "_joker_categories")

    def __init__(self, wheel: Wheel) -> None:
        self.wheel = wheel
        self._straights = _straight_table(wheel)
        self._flush = [_flush_strength(m, self._straights) if m.bit_count() >= 5 else -1 for m in range(1 << 13)]
        self._nonflush = _RankTable(self._straights)  # filled on first use of each rank multiset
        self._joker: tuple[dict[int, int], list[int]] | None = None  # built on the first joker
        self._joker_categories: dict[int, int] = {}  # by rank counts and four-suit mask: a few thousand at most

    @property
    def rank_table(self) -> dict[int, int]:
        """Strength of every unsuited hand of 5-7 cards, by the sum of its rank-count fields
        (all of them: the batch path's arrays and the exhaustive tests need the whole table)."""
        table = self._nonflush
        for size in (5, 6, 7):
            for counts in _multisets(size, max_ace=5):
                table[sum(n << (3 * r) for r, n in enumerate(counts))]
        return table

    @property
    def flush_table(self) -> list[int]:
        """Strength of every 13-bit rank mask of one suit with five or more cards (else -1)."""
        return self._flush

    def strength_of_sum(self, total: int) -> int:
        """The strength of the hand whose card codes add up to ``total``."""
        suit = FLUSH_SUIT[(total >> SUIT_SHIFT) & 0xFFFF]
        if suit >= 0:
            return self._flush[(total >> (MASK_SHIFT + 13 * suit)) & 0x1FFF]
        return self._nonflush[total & RANK_BITS]

    def fives_category_bits(self, codes: Sequence[int]) -> int:
        """The five-card categories some five of seven real cards (their codes) form exactly,
        one bit per category number: each five is the seven's summed codes less two cards
        (:meth:`strength_of_sum` inline: 21 look-ups a hand)."""
        flush_suit, flush, nonflush = FLUSH_SUIT, self._flush, self._nonflush
        total = sum(codes)
        bits = 0
        for i, code in enumerate(codes):
            rest = total - code
            for other in codes[i + 1 :]:
                five = rest - other
                suit = flush_suit[(five >> SUIT_SHIFT) & 0xFFFF]
                if suit >= 0:
                    bits |= 1 << (flush[(five >> (MASK_SHIFT + 13 * suit)) & 0x1FFF] >> 20)
                else:
                    bits |= 1 << (nonflush[five & RANK_BITS] >> 20)
        return bits

    def strength(self, indices: Sequence[int]) -> int:
        """The strength of the best five of ``indices`` (5-7 distinct cards, joker allowed)."""
        if JOKER_INDEX in indices:
            return self.joker_strength([i for i in indices if i != JOKER_INDEX])
        return self.strength_of_sum(sum(map(_CODES.__getitem__, indices)))  # summed in C

    def joker_strength(self, real: Sequence[int]) -> int:
        """The strength of ``real`` (4-6 cards) plus the joker, at its best legal use.

        Two look-ups: the best use of the joker as a rank with no suit (an ace, or a card
        filling a straight), and, where a suit holds four or more of ``real``, the best card
        of that suit to complete the flush. Equal to the maximum of :meth:`joker_options`.
        """
        total = 0
        for i in real:
            total += _CODES[i]
        return self.joker_strength_of_sum(total)

    def joker_strength_of_sum(self, total: int) -> int:
        """:meth:`joker_strength` of the real cards whose codes add up to ``total``."""
        rank_table, flush_table = self.joker_tables
        key = total & RANK_BITS
        best = rank_table.get(key)
        if best is None:
            best = rank_table[key] = self._joker_rank(key, [(key >> (3 * r)) & 7 for r in range(13)])
        suit = FOUR_SUIT[(total >> SUIT_SHIFT) & 0xFFFF]
        if suit >= 0:
            flush = flush_table[(total >> (MASK_SHIFT + 13 * suit)) & 0x1FFF]
            if flush > best:
                return flush
        return best

    @property
    def joker_tables(self) -> tuple[dict[int, int], list[int]]:
        """The joker's rank table (by real rank counts) and flush table (by real suit mask)."""
        tables = self._joker
        if tables is None:
            tables = self._joker = (self._build_joker_ranks(), self._build_joker_flushes())
        return tables

    def _build_joker_ranks(self) -> dict[int, int]:
        """Best suitless use of the joker by real rank multiset: filled in on first use of each
        by :meth:`joker_strength_of_sum` (or all at once by :meth:`complete_joker_tables`)."""
        return {}

    def complete_joker_tables(self) -> tuple[dict[int, int], list[int]]:
        """The joker tables with every size of hand filled in (for the batch path's arrays)."""
        rank_table, flush_table = self.joker_tables
        for counts in [*_multisets(4, max_ace=4), *_multisets(5, max_ace=4), *_multisets(6, max_ace=4)]:
            key = sum(n << (3 * r) for r, n in enumerate(counts))
            if key not in rank_table:
                rank_table[key] = self._joker_rank(key, counts)
        return rank_table, flush_table

    def _joker_rank(self, key: int, counts: Sequence[int]) -> int:
        nonflush = self._nonflush
        best = nonflush[key + _SUITLESS[_ACE]]
        for rank in range(12):
            if counts[rank] < 4:
                s = nonflush[key + _SUITLESS[rank]]
                if s > best and s >> 20 in _JOKER_COMPLETES:
                    best = s
        return best

    def _build_joker_flushes(self) -> list[int]:
        """Best flush completed by the joker for every one-suit rank mask of 4-6 cards (else -1)."""
        flush = self._flush
        table = [-1] * (1 << 13)
        for mask in range(1 << 13):
            if 4 <= mask.bit_count() <= 6:
                table[mask] = max(flush[mask | (1 << r)] for r in range(13) if not mask >> r & 1)
        return table

    def ace_only_strength(self, indices: Sequence[int]) -> int:
        """The strength of ``indices`` with the joker, if present, counted only as an ace
        (never completing a straight or flush): pai gow insurance, 11.15(d)2."""
        total = 0
        for i in indices:
            total += _SUITLESS[_ACE] if i == JOKER_INDEX else _CODES[i]
        return self.strength_of_sum(total)

    def joker_categories(self, real: Sequence[int]) -> int:
        """The categories of every legal use of the joker with ``real`` (4-6 cards), one bit per
        category number (``1 << (strength >> 20)``): the categories :meth:`joker_options` gives.

        They depend only on the real cards' rank counts and, where a suit holds four or more of
        them, that suit's rank mask, so they are remembered by those (a few thousand keys at
        most: the pai gow bonus asks for 15 four-card sets a hand)."""
        total = 0
        for i in real:
            total += _CODES[i]
        suit = FOUR_SUIT[(total >> SUIT_SHIFT) & 0xFFFF]
        mask = (total >> (MASK_SHIFT + 13 * suit)) & 0x1FFF if suit >= 0 else -1
        key = ((mask + 1) << SUIT_SHIFT) | (total & RANK_BITS)
        found = self._joker_categories.get(key)
        if found is None:
            found = 0
            for s, _ in self.joker_options(real):
                found |= 1 << (s >> 20)
            self._joker_categories[key] = found
        return found

    def joker_options(self, real: Sequence[int]) -> list[tuple[int, int]]:
        """Every legal use of the joker with ``real``: (strength, what it stands for).

        What it stands for is a deck index (0-51), or ``-1 - rank`` for a rank with no suit.
        """
        base = 0
        for i in real:
            base += _CODES[i]
        of_sum = self.strength_of_sum
        options = [(of_sum(base + _SUITLESS[_ACE]), -1 - _ACE)]
        for rank in range(12):
            if (base >> (3 * rank)) & 7 >= 4:
                continue
            s = of_sum(base + _SUITLESS[rank])
            if s >> 20 in _JOKER_COMPLETES:
                options.append((s, -1 - rank))
        held = set(real)
        for suit in range(4):
            if (base >> (SUIT_SHIFT + 4 * suit)) & 0xF < 4:
                continue
            for rank in range(13):
                index = 13 * suit + rank
                if index in held:
                    continue
                s = of_sum(base + _CODES[index])
                if rank == _ACE or s >> 20 in _JOKER_COMPLETES:
                    options.append((s, index))
        return options


def evaluator_for(wheel: Wheel) -> Evaluator:
    """The shared :class:`Evaluator` of ``wheel`` (its small tables built on first use; the
    rank-multiset tables fill in as hands are ranked)."""
    found = _EVALUATORS.get(wheel._value_)
    if found is None:
        found = _EVALUATORS[wheel._value_] = Evaluator(wheel)
    return found


_EVALUATORS: dict[str, Evaluator] = {}
"""The evaluators by their wheel's value: every hand ranked asks, and a string's hash is kept
where an enum's is worked out in Python on each look-up."""
