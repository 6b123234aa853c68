"""An independent reference model of the games (issue 41 item 1), written from the regulation texts.

It shares no code with ``controller/`` or ``drivers/`` (tests/test_reference.py walks its imports:
the standard library and PyYAML only). :mod:`.poker` ranks hands by brute force over every
5-card choice, :mod:`.paytables` reads the paytable YAML itself, and :mod:`.games` computes,
from a round's dealt cards, wagers and decisions, where every card goes, when it may be seen and
what every wager wins or loses. The simulation (:mod:`hil.simulate.model_check`) compares each
settled round with it.
"""

from __future__ import annotations

from hil.reference.games import Expected, WagerOutcome, expect_round, visible_cards
from hil.reference.paytables import RefTable, load_ref_table

__all__ = ["Expected", "WagerOutcome", "expect_round", "visible_cards", "RefTable", "load_ref_table"]
