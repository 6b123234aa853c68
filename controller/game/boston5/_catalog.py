"""Boston 5 stud poker's wager spots, paytable spots and table settings (N.J.A.C. 13:69F-24):
``ante``, ``first`` (a multiple of the ante), ``second`` (equal to ``first``, or the player
folds), optional ``bonus`` (three-card bonus). Paytables: ``bonus`` (three-card hands, 24.11(d))
and ``ante_bonus`` (five-card hands, 24.11(c))."""

from __future__ import annotations

from controller.hands import BOSTON5, Kind
from controller.wagers import GameCatalog, Option, PaytableSpot, WagerMultiple

__all__ = ["CATALOG"]

CATALOG = GameCatalog(
    "boston5",
    BOSTON5,
    ("ante", "first", "second", "bonus"),
    (PaytableSpot("bonus", Kind.THREE, False, "bonus"), PaytableSpot("ante_bonus", Kind.FIVE, True)),
    (
        Option("first_to_ante", "int", 2, "the first wager is exactly this many times the ante", maximum=100),
        Option("first_second_pays", "odds", "1 to 1", "what winning first and second wagers pay (24.11)"),
    ),
    multiples=(
        WagerMultiple(
            "first",
            "ante",
            2,
            "first_to_ante (the first wager is that many times the ante)",
            2,
            "first_to_ante",
        ),
        WagerMultiple("second", "ante", 2, "24.10(b) (the second wager equals the first)", 2, "first_to_ante"),
    ),
)
"""Boston 5's catalog entry."""
