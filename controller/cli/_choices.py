"""The names sub-commands offer as ``choices`` (and a figure their help shows), written out here so that registering a
sub-command imports nothing heavy: the registries they copy load numpy, the par solver or the
simulators, which ``tablectl --help`` and ``tablectl rank`` must not wait for.
``tests/test_cli_startup.py`` checks each against the registry it copies."""

from __future__ import annotations

from controller.game.registry import names

__all__ = ["GAMES", "RULES_GAMES", "HAND_KINDS", "HOUSE_WAYS", "FAULT_PROFILES", "STRATEGIES", "KEEP_LAST"]

GAMES = ("boston5", "mississippi_stud", "pai_gow", "three_card_poker")
"""The games the table runs (those whose definition has a table side:
``controller.game.registry.table_names()``), sorted: the one light list a game dealt at a table
adds its name to (knowing it from the definitions would import every game)."""
RULES_GAMES = names()
"""Every game (``controller.game.registry.GAMES``: naming them imports none), sorted: ``rank``,
``settle`` and ``par`` take them; a game the table does not run yet would be here and not in
:data:`GAMES`."""
HAND_KINDS = ("five", "seven", "three", "low", "bonus")
"""``controller.hands.Kind`` values, in their order."""
HOUSE_WAYS = ("ballys_ac", "foxwoods")
"""``controller.game.pai_gow._house_way.HOUSE_WAYS``, sorted."""
FAULT_PROFILES = ("noisy", "none")
"""``hil.bench.FAULT_PROFILES``, sorted."""
STRATEGIES = ("par", "random")
"""``hil.bench.STRATEGIES``."""
KEEP_LAST = 10
"""``controller.journal.retention.KEEP_LAST``: the rounds ``journal prune`` always keeps."""
