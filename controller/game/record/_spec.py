"""One :class:`GameSpec` per game: what the rules layer knows of a game, in one place.

Each game's rules module defines its ``SPEC``; the game's definition
(:class:`controller.game.definition.GameDefinition`, in ``controller.game.<name>``) holds it,
and :func:`spec_for` reads it from there (:mod:`controller.game.registry` imports the game on
first use, as python-can's ``BACKENDS`` does), so naming a game costs nothing until it is used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from controller.game import game_name
from controller.game.definition import load
from controller.game.registry import ByGame, definition, names
from controller.hands import HandRules
from controller.wagers import GameCatalog, Option

if TYPE_CHECKING:
    from controller.configuration import TableConfig
    from controller.game.definition import GameDefinition
    from controller.par.sheet import ParSheet
    from controller.wagers import Settlement

__all__ = ["GameSpec", "SPECS", "spec_for", "known_games"]


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A game as the rules layer sees it: names, catalog, ranking rules, settings, the round
    record's reader, settlement and writer, and the par sheet (built lazily: ``par`` names
    ``"module:function"`` taking a table config)."""

    name: str
    read_round: Callable[[Mapping[str, Any], TableConfig], Any]
    settle: Callable[[Any, TableConfig], Settlement]
    round_record: Callable[..., dict[str, object]]
    top_keys: frozenset[str]
    """The round record's keys; ``recall`` (what ``tablectl recall --json`` adds) is not read for settling."""
    par: str
    """``"module:function"``: the function giving a table's :class:`ParSheet`."""
    par_options: tuple[str, ...] = ()
    """The table options the par sheet reads (part of the key its results are kept under)."""
    par_needs: str = ""
    """``"module:function"`` giving the costly results (kind, inputs) a table's sheet needs kept
    before it is made in process (the par service); empty: nothing costly, made at once."""

    @property
    def display_name(self) -> str:
        """The game's plain name (``Three Card Poker``)."""
        return game_name(self.name)

    @property
    def catalog(self) -> GameCatalog:
        """The game's wager spots, paytable spots and settings."""
        return definition(self.name).catalog

    @property
    def rules(self) -> HandRules:
        """How the game ranks hands."""
        return self.catalog.rules

    @property
    def options(self) -> tuple[Option, ...]:
        """The game's typed table settings."""
        return self.catalog.options

    def par_sheet(self, table: TableConfig) -> ParSheet:
        """The par sheet of ``table`` (the par function imported on first use)."""
        build: Callable[[TableConfig], ParSheet] = load(self.par)
        return build(table)


def _spec(game: GameDefinition) -> GameSpec:
    spec = game.spec
    if not isinstance(spec, GameSpec):
        raise TypeError(f"the definition of {game.name} holds no GameSpec")
    return spec


SPECS: ByGame[GameSpec] = ByGame(_spec)
"""Every game's spec, by name: read from its definition (:mod:`controller.game.registry`), a
lookup imports that game only."""


def known_games() -> tuple[str, ...]:
    """The names of the games, sorted."""
    return names()


def spec_for(game: str) -> GameSpec:
    """The spec of ``game``; raises ``KeyError`` naming the known games."""
    return _spec(definition(game))
