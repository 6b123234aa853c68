"""Per-game ranking rules: where the A-2-3-4-5 straight sits, the joker, the three-card order.

Nothing here is global: each game names its own :class:`HandRules`, and every evaluator
takes one. Sources: Boston 5 rank of cards, N.J.A.C. 13:69F-24 (seed 004); Mississippi
Stud, 58 Pa. Code 655a.6 as digested (regulations digest 2.7); pai gow poker, regulations
digest 3.3 (53-card deck, the joker as a "bug", A-2-3-4-5 the second highest straight).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from controller.hands.categories import Category

__all__ = ["Wheel", "HandRules", "BOSTON5", "MISSISSIPPI_STUD", "PAI_GOW", "THREE_CARD_POKER"]


class Wheel(Enum):
    """Where A-2-3-4-5 ranks among straights (and straight flushes)."""

    LOWEST = "lowest"
    """Below 2-3-4-5-6 (Boston 5 seed (a) and (b)2, (b)6; Mississippi Stud)."""
    SECOND_HIGHEST = "second_highest"
    """Between A-K-Q-J-T and K-Q-J-T-9 (pai gow poker, digest 3.3 item 3)."""

    def straight_ordinals(self) -> tuple[int, ...]:
        """The high card (``rank - 2``, the wheel as 3) of each straight, weakest first.

        A straight's tie-break field is its position in this tuple.
        """
        middle = tuple(range(4, 12))  # 6-high (index 4) ... K-high (index 11)
        if self is Wheel.LOWEST:
            return (3,) + middle + (12,)
        return middle + (3, 12)


THREE_CARD_BOSTON5: tuple[Category, ...] = (
    Category.HIGH_CARD,
    Category.ONE_PAIR,
    Category.FLUSH,
    Category.STRAIGHT,
    Category.THREE_OF_A_KIND,
    Category.STRAIGHT_FLUSH,
)
"""Boston 5 optional bonus, seed (d): straight flush > trips > straight > flush > pair."""

THREE_CARD_MISSISSIPPI: tuple[Category, ...] = THREE_CARD_BOSTON5 + (Category.MINI_ROYAL,)
"""Mississippi Stud 3-card bonus: the Boston 5 order with the mini royal (A-K-Q suited) on top."""


@dataclass(frozen=True, slots=True)
class HandRules:
    """How one game ranks hands.

    ``three_card`` is the three-card order, lowest first, or ``None`` where the game has no
    three-card hands; ``low_hand`` says whether the game has two-card low hands.
    """

    game: str
    wheel: Wheel
    joker: bool
    three_card: tuple[Category, ...] | None
    low_hand: bool
    seven_card_bonus: bool


BOSTON5 = HandRules("boston5", Wheel.LOWEST, False, THREE_CARD_BOSTON5, False, False)
MISSISSIPPI_STUD = HandRules("mississippi_stud", Wheel.LOWEST, False, THREE_CARD_MISSISSIPPI, False, False)
PAI_GOW = HandRules("pai_gow", Wheel.SECOND_HIGHEST, True, None, True, True)
THREE_CARD_POKER = HandRules("three_card_poker", Wheel.LOWEST, False, THREE_CARD_BOSTON5, False, False)
"""Three Card Poker (N.J.A.C. 13:69F-20, rank of hands): straight flush > three of a kind >
straight > flush > pair > high card; A-2-3 the lowest straight, Q-K-A the highest."""
