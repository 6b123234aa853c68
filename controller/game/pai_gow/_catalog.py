"""Pai gow poker's wager spots, paytable spots and table settings (N.J.A.C. 13:69F-11.15,
13:69F-31): ``pai_gow``, optional ``bonus`` and ``insurance``. Paytables: ``bonus`` (seven-card
bonus hands), ``envy`` (fixed amounts, 11.15(c)) and ``insurance`` (high card only)."""

from __future__ import annotations

from controller.hands import PAI_GOW, Category, Kind
from controller.wagers import GameCatalog, Option, PaytableSpot

__all__ = ["CATALOG"]

CATALOG = GameCatalog(
    "pai_gow",
    PAI_GOW,
    ("pai_gow", "bonus", "insurance"),
    (
        PaytableSpot("bonus", Kind.BONUS, False, "bonus"),
        PaytableSpot("envy", Kind.BONUS, False, "bonus", amounts=True),
        PaytableSpot("insurance", Kind.SEVEN, False, "insurance", categories=(Category.HIGH_CARD,)),
    ),
    (
        Option("house_way", "choice", "foxwoods", "how the dealer's hand is set", ("foxwoods", "ballys_ac")),
        Option("house_way_deuces_exception", "bool", False, "full house with twos and A-K kept together"),
        Option(
            "foul_policy",
            "choice",
            "forfeit",
            "what a fouled player hand does",
            ("forfeit", "reset_by_house_way"),
        ),
        Option(
            "commission_percent",
            "int",
            5,
            "commission on winning pai gow wagers, percent",
            minimum=0,
            maximum=100,
        ),
        Option(
            "commission_rounding",
            "choice",
            "down",
            "rounding of the commission to the cent",
            ("down", "up", "nearest"),
        ),
        Option(
            "bonus_minimum",
            "int",
            100,
            "the least bonus wager, cents (11.15(b): no less than $1.00; a table may ask more)",
            minimum=100,
        ),
        Option(
            "envy_minimum",
            "int",
            500,
            "the least bonus wager that gets an envy marker, cents",
            minimum=500,
            fixed="11.15(c): every bonus wager of $5.00 or more gets an envy marker",
        ),
        Option("envy_includes_dealer", "bool", False, "whether the dealer's premium hand pays envy"),
        Option("start_method", "choice", "dice", "how the starting position is drawn (31.11)", ("dice", "rng")),
        Option(
            "count_direction",
            "choice",
            "counterclockwise",
            "how positions are counted from the dealer (31.11)",
            ("counterclockwise", "clockwise"),
        ),
        Option(
            "deal_direction",
            "choice",
            "clockwise",
            "the direction cards go round (31.8; some pai gow pages say counterclockwise)",
            ("clockwise", "counterclockwise"),
        ),
        Option(
            "deal_method",
            "choice",
            "one_at_a_time",
            "cards one at a time (31.8) or 7-card stacks (31.10)",
            ("one_at_a_time", "stacks"),
        ),
    ),
)
"""Pai gow's catalog entry."""
