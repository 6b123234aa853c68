"""What a game's wagers and paytables are made of: the data the config loader and settlement share.

Each game's own entry (its wager spots, paytable spots and settings) is in its package,
``controller.game.<name>.catalog``, and on its definition (``controller.game.registry.definition(name).catalog``).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.hands import Category, HandRules, Kind
from controller.vocab import MAX_CENTS

__all__ = [
    "RequiredRow",
    "PaytableSpot",
    "Option",
    "WagerMultiple",
    "GameCatalog",
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
