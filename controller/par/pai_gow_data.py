"""The stored simulation of the pai gow main wager (controller.par.pai_gow_main), by house way.

Reproduce with ``python benchmarks/par_pai_gow_main.py --way WAY --rounds N --seed 14`` (the
counts are its last line). Seven hands of seven per round from the 53-card deck, the dealer's
and six players' hands set by the house way; the counts are the players' results. They depend
on the house way only (the commission is applied to them), not on any paytable.
"""

from __future__ import annotations

from controller.par.pai_gow_main import MainCounts

__all__ = ["MAIN_COUNTS", "MAIN_SOURCE"]

MAIN_COUNTS: dict[str, MainCounts] = {
    "foxwoods": MainCounts(
        rounds=100000, players=6, win=175963, push=243191, lose=180846, sum_w2=628615, sum_l2=613866, sum_wl=137118
    ),
}
"""Counts by house way name (a way not listed has no stored figure)."""

MAIN_SOURCE = "benchmarks/par_pai_gow_main.py --seed 14 (interim run)"
