"""What each game's wagers and paytables are: the data the config loader and settlement share.

Boston 5 stud (N.J.A.C. 13:69F-24): ``ante``, ``first`` (a multiple of the ante), ``second``
(equal to ``first``, or the player folds), optional ``bonus`` (three-card bonus). Paytables:
``bonus`` (three-card hands, 24.11(d)) and ``ante_bonus`` (five-card hands, 24.11(c)).

Mississippi Stud (13:69F-35): ``ante``, the street bets ``third``, ``fourth``, ``fifth``
(each 1x, 2x or 3x the ante, 35.1), optional ``bonus`` (three-card bonus on the community
cards). Paytables: ``main`` (the final five-card hand pays every live ante and street bet,
35.11) and ``bonus`` (three-card hands).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.hands import BOSTON5, MISSISSIPPI_STUD, HandRules, Kind

__all__ = ["PaytableSpot", "Option", "GameCatalog", "CATALOG", "catalog_for"]


@dataclass(frozen=True, slots=True)
class PaytableSpot:
    """A paytable a game's table config names: what kind of hand it pays and whether it is required."""

    name: str
    kind: Kind
    required: bool
    needs_wager: str | None = None
    """The optional wager spot that needs this paytable to be offered (``None``: always needed)."""


@dataclass(frozen=True, slots=True)
class Option:
    """A game-specific table setting: its name, type (``int`` or ``odds``), default and meaning."""

    name: str
    type: str
    default: object
    help: str


@dataclass(frozen=True, slots=True)
class GameCatalog:
    """One game's wager spots, paytable spots and table settings."""

    game: str
    rules: HandRules
    wager_spots: tuple[str, ...]
    paytable_spots: tuple[PaytableSpot, ...]
    options: tuple[Option, ...] = ()

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
                Option("first_to_ante", "int", 2, "the first wager is exactly this many times the ante"),
                Option("first_second_pays", "odds", "1 to 1", "what winning first and second wagers pay (24.11)"),
            ),
        ),
        GameCatalog(
            "mississippi_stud",
            MISSISSIPPI_STUD,
            ("ante", "third", "fourth", "fifth", "bonus"),
            (PaytableSpot("main", Kind.FIVE, True), PaytableSpot("bonus", Kind.THREE, False, "bonus")),
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
