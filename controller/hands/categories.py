"""Hand categories, their order for each kind of hand, and the integer strength encoding.

A hand's *strength* is one integer: ``category_index << 20`` plus up to five 4-bit tie-break
fields, most significant first. The category index is the category's position in the
order for that kind of hand (five-card, three-card, two-card low, seven-card bonus), so a
larger strength is always a better hand of the same game and size, and equal strengths are
a push. Rank fields hold ``rank - 2`` (a deuce is 0, an ace 12); a straight's field holds
its *ordinal* (its position among the ten straights of the game, see :mod:`rules`).
"""

from __future__ import annotations

from enum import Enum

__all__ = ["Category", "FIVE_CARD_ORDER", "BONUS_SEVEN_ORDER", "pack", "unpack"]


class Category(Enum):
    """The name of a hand's category; the value is the name written in JSON and config."""

    SEVEN_CARD_STRAIGHT_FLUSH = "seven_card_straight_flush"
    ROYAL_FLUSH_ROYAL_MATCH = "royal_flush_royal_match"
    SEVEN_CARD_STRAIGHT_FLUSH_JOKER = "seven_card_straight_flush_joker"
    FIVE_ACES = "five_aces"
    ROYAL_FLUSH = "royal_flush"
    STRAIGHT_FLUSH = "straight_flush"
    MINI_ROYAL = "mini_royal"
    FOUR_OF_A_KIND = "four_of_a_kind"
    FULL_HOUSE = "full_house"
    FLUSH = "flush"
    STRAIGHT = "straight"
    THREE_OF_A_KIND = "three_of_a_kind"
    TWO_PAIR = "two_pair"
    ONE_PAIR = "one_pair"
    HIGH_CARD = "high_card"


C = Category

FIVE_CARD_ORDER: tuple[Category, ...] = (
    C.HIGH_CARD,
    C.ONE_PAIR,
    C.TWO_PAIR,
    C.THREE_OF_A_KIND,
    C.STRAIGHT,
    C.FLUSH,
    C.FULL_HOUSE,
    C.FOUR_OF_A_KIND,
    C.STRAIGHT_FLUSH,
    C.ROYAL_FLUSH,
    C.FIVE_ACES,
)
"""Five-card (and best-five-of-seven) categories, lowest first. Five aces needs the joker."""

LOW_HAND_ORDER: tuple[Category, ...] = (C.HIGH_CARD, C.ONE_PAIR)
"""Pai gow two-card low hand: a pair beats no pair."""

BONUS_SEVEN_ORDER: tuple[Category, ...] = FIVE_CARD_ORDER + (
    C.SEVEN_CARD_STRAIGHT_FLUSH_JOKER,
    C.ROYAL_FLUSH_ROYAL_MATCH,
    C.SEVEN_CARD_STRAIGHT_FLUSH,
)
"""Pai gow seven-card bonus categories, lowest first (the Fortune paytable's order on top)."""

CATEGORY_SHIFT = 20
_FIELD_BITS = 4


def pack(category_index: int, fields: tuple[int, ...] | list[int]) -> int:
    """The strength of a hand with this category index and tie-break fields (at most 5)."""
    value = category_index
    for i in range(5):
        value = (value << _FIELD_BITS) | (fields[i] if i < len(fields) else 0)
    return value


def unpack(strength: int) -> tuple[int, tuple[int, int, int, int, int]]:
    """The category index and the five tie-break fields of ``strength``."""
    s = strength
    return s >> CATEGORY_SHIFT, ((s >> 16) & 0xF, (s >> 12) & 0xF, (s >> 8) & 0xF, (s >> 4) & 0xF, s & 0xF)
