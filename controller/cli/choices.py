"""The names sub-commands offer as ``choices`` (and a figure their help shows), written out here so that registering a
sub-command imports nothing heavy: the registries they copy load numpy, the par solver or the
simulators, which ``tablectl --help`` and ``tablectl rank`` must not wait for.
``tests/test_cli_startup.py`` checks each against the registry it copies."""

from __future__ import annotations

__all__ = ["GAMES", "RULES_GAMES", "HAND_KINDS", "HOUSE_WAYS", "FAULT_PROFILES", "STRATEGIES", "KEEP_LAST"]

GAMES = ("boston5", "mississippi_stud", "pai_gow")
"""The games the table runs (``hil.bench.PLAYERS``, ``controller.docgen.diagram.MACHINES``), sorted."""
RULES_GAMES = ("boston5", "mississippi_stud", "pai_gow", "three_card_poker")
"""The games of the rules layer (``controller.games.spec.SPECS``, ``controller.catalog.CATALOG``,
``controller.hands.RULES``), sorted: ``rank``, ``settle`` and ``par`` take them; a game the table
does not run yet (Three Card Poker) is here and not in :data:`GAMES`."""
HAND_KINDS = ("five", "seven", "three", "low", "bonus")
"""``controller.hands.Kind`` values, in their order."""
HOUSE_WAYS = ("ballys_ac", "foxwoods")
"""``controller.games.house_way.HOUSE_WAYS``, sorted."""
FAULT_PROFILES = ("noisy", "none")
"""``hil.bench.FAULT_PROFILES``, sorted."""
STRATEGIES = ("par", "random")
"""``hil.bench.STRATEGIES``."""
KEEP_LAST = 10
"""``controller.journal.retention.KEEP_LAST``: the rounds ``journal prune`` always keeps."""
