"""What each game's wagers and paytables are: the data the config loader and settlement share.

Boston 5 stud (N.J.A.C. 13:69F-24): ``ante``, ``first`` (a multiple of the ante), ``second``
(equal to ``first``, or the player folds), optional ``bonus`` (three-card bonus). Paytables:
``bonus`` (three-card hands, 24.11(d)) and ``ante_bonus`` (five-card hands, 24.11(c)).

Mississippi Stud (13:69F-35): ``ante``, the street bets ``third``, ``fourth``, ``fifth``
(each 1x, 2x or 3x the ante, 35.1), optional ``bonus`` (three-card bonus on the community
cards). Paytables: ``main`` (the final five-card hand pays every live ante and street bet,
35.11) and ``bonus`` (three-card hands).

Three Card Poker (13:69F-20): ``ante``, ``play`` (exactly the ante, or the player folds) and
optional ``pair_plus``. Paytables: ``ante_bonus`` (straight or better on the ante, paid whatever
the dealer holds) and ``pair_plus`` (pair or better). The play wager's even money and the
dealer's queen-high qualifier are the regulation's, not settings
(:mod:`controller.games.three_card_poker`).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.hands import BOSTON5, MISSISSIPPI_STUD, PAI_GOW, THREE_CARD_POKER, Category, HandRules, Kind
from controller.money import MAX_CENTS

__all__ = [
    "RequiredRow",
    "PaytableSpot",
    "Option",
    "WagerMultiple",
    "GameCatalog",
    "CATALOG",
    "catalog_for",
    "REGULATION_MINIMUMS",
]


@dataclass(frozen=True, slots=True)
class RequiredRow:
    """A paytable line the regulation fixes: a table without it is refused."""

    category: Category
    ranks: frozenset[int]
    push: bool
    """The line pushes (neither paid nor collected)."""
    rule: str


@dataclass(frozen=True, slots=True)
class PaytableSpot:
    """A paytable a game's table config names: what kind of hand it pays and whether it is required."""

    name: str
    kind: Kind
    required: bool
    needs_wager: str | None = None
    """The optional wager spot that needs this paytable to be offered (``None``: always needed)."""
    categories: tuple[Category, ...] | None = None
    """The only categories its rows may name (``None``: every category of ``kind``)."""
    amounts: bool = False
    """Rows pay a fixed ``amount`` in cents (envy bonus) instead of odds."""
    required_rows: tuple[RequiredRow, ...] = ()
    """Lines the regulation requires of every paytable for this spot."""


@dataclass(frozen=True, slots=True)
class Option:
    """A game-specific table setting: its name, type (``int`` or ``odds``), default and meaning."""

    name: str
    type: str
    """``int``, ``odds``, ``bool`` or ``choice``."""
    default: object
    help: str
    choices: tuple[str, ...] = ()
    minimum: int = 1
    maximum: int = MAX_CENTS
    """The bounds of an ``int`` option (the default ceiling is the largest amount, :data:`MAX_CENTS`)."""
    fixed: str = ""
    """The regulation fixes the value (the default): the rule; the setting may only repeat it."""


@dataclass(frozen=True, slots=True)
class WagerMultiple:
    """A wager the rules let a player make from ``least`` up to ``times`` another (``of``): the
    table maximum of ``spot`` may not be below ``times`` the maximum of ``of``, nor its minimum
    above ``least`` times the minimum of ``of`` (a player betting the most, or the least, on
    ``of`` could not make a bet the rules allow, and the table could not settle it). With
    ``times_option`` the multiple is that table setting's value, and exact (``least`` = ``times``)."""

    spot: str
    of: str
    times: int
    rule: str
    least: int = 1
    times_option: str = ""


@dataclass(frozen=True, slots=True)
class GameCatalog:
    """One game's wager spots, paytable spots and table settings."""

    game: str
    rules: HandRules
    wager_spots: tuple[str, ...]
    paytable_spots: tuple[PaytableSpot, ...]
    options: tuple[Option, ...] = ()
    multiples: tuple[WagerMultiple, ...] = ()
    """Wagers the rules let a player make as a multiple of another (checked against the limits)."""

    def paytable_spot(self, name: str) -> PaytableSpot | None:
        """The paytable spot called ``name``, if the game has one."""
        return next((p for p in self.paytable_spots if p.name == name), None)


CATALOG: dict[str, GameCatalog] = {
    c.game: c
    for c in (
        GameCatalog(
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
        ),
        GameCatalog(
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
        ),
        GameCatalog(
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
        ),
        GameCatalog(
            "three_card_poker",
            THREE_CARD_POKER,
            ("ante", "play", "pair_plus"),
            (
                PaytableSpot("ante_bonus", Kind.THREE, True),
                PaytableSpot("pair_plus", Kind.THREE, False, "pair_plus"),
            ),
            multiples=(WagerMultiple("play", "ante", 1, "20.6 (the play wager equals the ante; inferred)", 1),),
        ),
    )
}
"""Every game tablectl runs, by name."""


def catalog_for(game: str) -> GameCatalog:
    """The catalog entry of ``game``; raises ``KeyError`` naming the known games."""
    try:
        return CATALOG[game]
    except KeyError:
        raise KeyError(f"unknown game '{game}' (known: {', '.join(sorted(CATALOG))})") from None


REGULATION_MINIMUMS: dict[str, dict[str, tuple[int, str]]] = {"pai_gow": {"bonus": (100, "11.15(b)")}}
"""Wager minimums the regulation fixes, cents, by game and spot: a table minimum may be higher, never lower."""
