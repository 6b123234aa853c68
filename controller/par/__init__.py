"""Game math: exact par sheets, the optimal strategies, and the figures ``tablectl par`` prints.

``par_sheet(game, table)`` gives a :class:`ParSheet` for a table config: per wager spot (keyed by
the table's wager spot names) the house edge per unit, its variance (for a bench's 95%
interval), and each paytable line's probability and contribution; for the main game the edge
per ante and per total action, the average total wager, push and fold rates. Pure functions
over the table's paytables; the results are kept by the par service (controller.par.service,
controller.par._cache).

* Mississippi Stud: optimal play, exact (controller.par.mississippi).
* Boston 5: the best second-wager-or-fold, exact (controller.par.boston5).
* Three Card Poker: ante and play with the best strategy, pair plus, exact
  (controller.par.three_card_poker).
* Three-card bonuses: exact over the 22,100 hands (controller.par._three_card).
* Pai gow: the main wager by a stored simulation of house way against house way
  (controller.par.pai_gow_main); bonus, envy and insurance exact (controller.par.pai_gow).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.par.sheet import Line, ParSheet, SpotPar
    from controller.par.sheets import par_sheet
    from controller.par.strategy import boston5_expose, boston5_raise, mississippi_decision

__all__ = [
    "par_sheet",
    "ParSheet",
    "SpotPar",
    "Line",
    "mississippi_decision",
    "boston5_raise",
    "boston5_expose",
]

_WHERE = {
    "par_sheet": "controller.par.sheets",
    "ParSheet": "controller.par.sheet",
    "SpotPar": "controller.par.sheet",
    "Line": "controller.par.sheet",
    "mississippi_decision": "controller.par.strategy",
    "boston5_raise": "controller.par.strategy",
    "boston5_expose": "controller.par.strategy",
}


def __getattr__(name: str) -> object:
    """The names above, imported at first use: importing ``controller.par.service`` (the cache,
    the theoretical win) must not load numpy and the solvers."""
    if name not in _WHERE:
        raise AttributeError(f"module 'controller.par' has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
