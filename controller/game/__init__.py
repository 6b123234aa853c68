"""The games: one package per game (``controller.game.<name>``) holding its
:class:`~controller.game.definition.GameDefinition`, and the lazy registry of them
(:mod:`controller.game.registry`), and the words shown for a game's, a hand's and a wager's code
(:func:`game_name`, :func:`hand_name`, :func:`wager_name`). Importing this package imports no game.

Adding a game: a new package ``controller/game/<name>/`` (its ``DEFINITION``: catalog, deal plan,
steps, the rules layer's ``SPEC`` in its private ``_rules``, its round machine in ``_machine`` (a
module of the table's layer), and the names of its parts in other layers: the bench player, the
dealer guide's round, each in a new module of its own layer), one line in :data:`~controller.game.registry.GAMES`, and, once it is dealt at a table,
its name in ``controller.cli._choices.GAMES`` (the command line's light list). The tests
parametrized over the registry (``tests/test_game_registry.py`` and others) pick it up."""

from controller.game._names import game_name, hand_name, wager_name, wager_order
from controller.game.registry import GAMES, definition, names

__all__ = ["GAMES", "definition", "game_name", "hand_name", "names", "wager_name", "wager_order"]
