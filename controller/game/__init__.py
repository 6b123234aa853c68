"""The games: one package per game (``controller.game.<name>``) holding its
:class:`~controller.game.definition.GameDefinition`, and the lazy registry of them
(:mod:`controller.game.registry`). Importing this package imports no game."""

from controller.game.registry import GAMES, definition, names

__all__ = ["GAMES", "definition", "names"]
