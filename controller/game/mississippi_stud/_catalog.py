"""Mississippi Stud's wager spots and paytable spots (N.J.A.C. 13:69F-35): ``ante``, the street
bets ``third``, ``fourth``, ``fifth`` (each 1x, 2x or 3x the ante, 35.1), optional ``bonus``
(three-card bonus on the community cards). Paytables: ``main`` (the final five-card hand pays
every live ante and street bet, 35.11) and ``bonus`` (three-card hands)."""

from __future__ import annotations

from controller.hands import MISSISSIPPI_STUD, Category, Kind
from controller.wagers import GameCatalog, PaytableSpot, RequiredRow, WagerMultiple

__all__ = ["CATALOG"]

CATALOG = GameCatalog(
    "mississippi_stud",
    MISSISSIPPI_STUD,
    ("ante", "third", "fourth", "fifth", "bonus"),
    (
        PaytableSpot(
            "main",
            Kind.FIVE,
            True,
            required_rows=(RequiredRow(Category.ONE_PAIR, frozenset(range(6, 11)), True, "35.10(i)2"),),
        ),
        PaytableSpot("bonus", Kind.THREE, False, "bonus"),
    ),
    multiples=tuple(
        WagerMultiple(street, "ante", 3, rule)
        for street, rule in (("third", "35.10(a)"), ("fourth", "35.10(e)"), ("fifth", "35.10(g)"))
    ),
)
"""Mississippi Stud's catalog entry."""
