"""Three Card Poker's wager spots and paytable spots (N.J.A.C. 13:69F-20): ``ante``, ``play``
(exactly the ante, or the player folds) and optional ``pair_plus``. Paytables: ``ante_bonus``
(straight or better on the ante, paid whatever the dealer holds) and ``pair_plus`` (pair or
better). The play wager's even money and the dealer's queen-high qualifier are the
regulation's, not settings (:mod:`controller.game.three_card_poker._rules`)."""

from __future__ import annotations

from controller.hands import THREE_CARD_POKER, Kind
from controller.wagers import GameCatalog, PaytableSpot, WagerMultiple

__all__ = ["CATALOG"]

CATALOG = GameCatalog(
    "three_card_poker",
    THREE_CARD_POKER,
    ("ante", "play", "pair_plus"),
    (
        PaytableSpot("ante_bonus", Kind.THREE, True),
        PaytableSpot("pair_plus", Kind.THREE, False, "pair_plus"),
    ),
    multiples=(WagerMultiple("play", "ante", 1, "20.6 (the play wager equals the ante; inferred)", 1),),
)
"""Three Card Poker's catalog entry."""
