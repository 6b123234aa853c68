"""The games a table can run: each game's name in a table config and its round machine class,
read from the game's definition (:mod:`controller.game.registry`; a lookup imports that game's
machine only)."""

from __future__ import annotations

from controller.game.registry import ByGame
from controller.table.round import RoundTable

__all__ = ["GAME_TABLES"]


def _machine(game: object) -> type[RoundTable] | None:
    from controller.game.definition import GameDefinition

    assert isinstance(game, GameDefinition)
    if not game.at_table:
        return None
    machine: type[RoundTable] = game.machine()
    return machine


GAME_TABLES: ByGame[type[RoundTable]] = ByGame(_machine)
"""The games the controller can run at a table so far (in the registry's order)."""
