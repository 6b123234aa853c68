"""Poker hands as the regulations state them (N.J.A.C. 13:69F-24.3 ranking, 24.3(d) three-card
hands), by brute force: a hand of more than five cards is worth its best choice of five, tried
one by one. No lookup tables."""

from __future__ import annotations

from itertools import combinations

__all__ = ["CATEGORIES", "THREE_CATEGORIES", "Card", "parse", "five", "best_five", "three"]

CATEGORIES = (
    "high_card",
    "one_pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
    "five_aces",
)
"""Five-card hands from lowest to highest (24.3(b); five aces only with pai gow's joker)."""

THREE_CATEGORIES = ("high_card", "one_pair", "flush", "straight", "three_of_a_kind", "straight_flush", "mini_royal")
"""Three-card hands from lowest to highest (24.3(d); the mini royal is an ace-king-queen straight flush)."""

RANK_NAMES = "23456789TJQKA"

Card = tuple[int, str]
"""(rank 2..14, suit letter); the joker is (0, "*")."""


def parse(text: str) -> Card:
    """A card as the journal writes it ("As", "Td", "JK" for the joker)."""
    if text == "JK":
        return (0, "*")
    if len(text) != 2 or text[0] not in RANK_NAMES or text[1] not in "cdhs":
        raise ValueError(f"not a card: {text!r}")
    return (RANK_NAMES.index(text[0]) + 2, text[1])


def _straight_top(ranks: list[int]) -> int:
    """The top card of a straight made by five distinct ``ranks`` (0 when none). An ace is high,
    or low only in ace-two-three-four-five (24.3(a)); it never wraps round (24.3(b)6)."""
    r = sorted(set(ranks))
    if len(r) != 5:
        return 0
    if r[4] - r[0] == 4:
        return r[4]
    if r == [2, 3, 4, 5, 14]:
        return 5
    return 0


def five(cards: list[Card], wheel_second: bool = False) -> tuple[int, tuple[int, ...]]:
    """The value of exactly five cards without a joker: (category index, ranks that break ties).

    Hands of one category compare by the ranks that make them, then by the highest card one hand
    has and the other does not (24.3(c)): the ranks ordered by how many of each, then by rank.
    A straight's value is twice its top card. ``wheel_second``: pai gow's ranking, where
    ace-two-three-four-five is the second-highest straight (digest 3.3 item 3), not the lowest."""
    assert len(cards) == 5
    ranks = [r for r, _ in cards]
    flush = len({s for _, s in cards}) == 1
    top = 2 * _straight_top(ranks)
    if top == 10 and wheel_second:
        top = 27  # between the ace-high straight (28) and the king-high (26)
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    order = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    if shape[0] == 5:
        return CATEGORIES.index("five_aces"), (order[0],)
    if top and flush:
        return CATEGORIES.index("royal_flush" if top == 28 else "straight_flush"), (top,)
    if shape[0] == 4:
        return CATEGORIES.index("four_of_a_kind"), tuple(order)
    if shape[:2] == [3, 2]:
        return CATEGORIES.index("full_house"), tuple(order)
    if flush:
        return CATEGORIES.index("flush"), tuple(sorted(ranks, reverse=True))
    if top:
        return CATEGORIES.index("straight"), (top,)
    if shape[0] == 3:
        return CATEGORIES.index("three_of_a_kind"), tuple(order)
    if shape[:2] == [2, 2]:
        return CATEGORIES.index("two_pair"), tuple(order)
    if shape[0] == 2:
        return CATEGORIES.index("one_pair"), tuple(order)
    return CATEGORIES.index("high_card"), tuple(order)


_STRAIGHT_OR_FLUSH = {CATEGORIES.index(c) for c in ("straight", "flush", "straight_flush", "royal_flush")}


def _with_joker(cards: list[Card], wheel_second: bool = False) -> tuple[int, tuple[int, ...]]:
    """Five cards, one of them perhaps the joker: it counts as an ace, or as any card that
    completes a straight, a flush or a straight flush (house-ways.md)."""
    rest = [c for c in cards if c[0] != 0]
    if len(rest) == 5:
        return five(rest, wheel_second)
    best = five([*rest, (14, "*")], wheel_second)  # an ace of no suit: it makes no flush
    for rank in range(2, 15):
        for suit in "cdhs":
            value = five([*rest, (rank, suit)], wheel_second)
            if value[0] in _STRAIGHT_OR_FLUSH and value > best:
                best = value
    return best


def best_five(cards: list[Card], wheel_second: bool = False) -> tuple[tuple[int, tuple[int, ...]], list[Card]]:
    """The best five of ``cards`` (five or more), tried every way, and the five chosen
    (``wheel_second``: pai gow's ranking of the ace-to-five straight, see :func:`five`)."""
    best: tuple[tuple[int, tuple[int, ...]], list[Card]] | None = None
    for choice in combinations(cards, 5):
        value = _with_joker(list(choice), wheel_second)
        if best is None or value > best[0]:
            best = (value, list(choice))
    if best is None:
        raise ValueError(f"fewer than five cards: {len(cards)}")
    return best


def three(cards: list[Card]) -> str:
    """The three-card hand of three cards (24.3(d)): an ace is high or low, never between a
    king and a two."""
    assert len(cards) == 3
    ranks = sorted(r for r, _ in cards)
    flush = len({s for _, s in cards}) == 1
    straight = len(set(ranks)) == 3 and (ranks[2] - ranks[0] == 2 or ranks == [2, 3, 14])
    if straight and flush:
        return "mini_royal" if ranks == [12, 13, 14] else "straight_flush"
    if len(set(ranks)) == 1:
        return "three_of_a_kind"
    if straight:
        return "straight"
    if flush:
        return "flush"
    if len(set(ranks)) == 2:
        return "one_pair"
    return "high_card"
