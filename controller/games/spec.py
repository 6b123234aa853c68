"""One :class:`GameSpec` per game: what the rules layer knows of a game, in one place.

Each game's own module defines its ``SPEC``; :data:`SPECS` names it by game as
``"module:attribute"`` and :func:`spec_for` imports it on first use (as python-can's
``BACKENDS`` does), so naming a game costs nothing until it is used.

The table side (``controller/table``: machine class, ``face_up`` and ``game_view``, the bench
player, the page's spots, the dealer guide's scripted round) is not on the spec yet: those
registries (``GAME_TABLES``, ``MACHINES``, ``SCRIPTS``, ``PLAYERS``, ``SPOTS``, the ``if game ==``
of ``snapshot_build.py`` and ``reveal.py``) are for the session that changes ``controller/table``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any

from controller.catalog import CATALOG, GameCatalog, Option
from controller.hands import HandRules
from controller.names import game_name

if TYPE_CHECKING:
    from controller.par.sheet import ParSheet
    from controller.settlement import Settlement
    from controller.table_config import TableConfig

__all__ = ["GameSpec", "SPECS", "spec_for", "known_games"]


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A game as the rules layer sees it: names, catalog, ranking rules, settings, the round
    record's reader, settlement and writer, and the par sheet (built lazily: ``par`` names
    ``"module:function"`` taking a table config)."""

    name: str
    read_round: Callable[[Mapping[str, Any], TableConfig], Any]
    settle: Callable[[Any, TableConfig], Settlement]
    round_record: Callable[..., dict[str, Any]]
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
        return CATALOG[self.name]

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
        build: Callable[[TableConfig], ParSheet] = _load(self.par)
        return build(table)


SPECS: dict[str, str] = {
    "boston5": "controller.games.boston5:SPEC",
    "mississippi_stud": "controller.games.mississippi_stud:SPEC",
    "pai_gow": "controller.games.pai_gow:SPEC",
    "three_card_poker": "controller.games.three_card_poker:SPEC",
}
"""Every game, by name: where its spec lives, imported on first use."""


def _load(where: str) -> Any:
    module, _, attribute = where.partition(":")
    return getattr(import_module(module), attribute)


def known_games() -> tuple[str, ...]:
    """The names of the games, sorted."""
    return tuple(sorted(SPECS))


def spec_for(game: str) -> GameSpec:
    """The spec of ``game``; raises ``KeyError`` naming the known games."""
    where = SPECS.get(game)
    if where is None:
        raise KeyError(f"unknown game '{game}' (known: {', '.join(known_games())})")
    spec = _load(where)
    if not isinstance(spec, GameSpec) or spec.name != game:
        raise TypeError(f"{where} is not the GameSpec of {game}")
    return spec
