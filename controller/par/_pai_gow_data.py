"""The stored simulation of the pai gow main wager (controller.par.pai_gow_main), by house way.

Reproduce with ``python benchmarks/par_pai_gow_main.py --way WAY --rounds N --seed S`` for the
runs named in ``MAIN_SOURCE[way]`` (the counts are the sum of each run's last line; runs with
different seeds are independent). Seven hands of seven per round from the 53-card deck, the dealer's
and six players' hands set by the house way; the counts are the players' results. They depend
on the house way only (the commission is applied to them), not on any paytable.
"""

from __future__ import annotations

from controller.par.pai_gow_main import MainCounts

__all__ = ["MAIN_COUNTS", "MAIN_SOURCE"]

MAIN_COUNTS: dict[str, MainCounts] = {
    "foxwoods": MainCounts(
        rounds=1700000,
        players=6,
        win=2970872,
        push=4130606,
        lose=3098522,
        sum_w2=10609638,
        sum_l2=10561620,
        sum_wl=2323153,
    ),
    "ballys_ac": MainCounts(
        rounds=1700000,
        players=6,
        win=2917106,
        push=4234304,
        lose=3048590,
        sum_w2=10383592,
        sum_l2=10257946,
        sum_wl=2216848,
    ),
}
"""Counts by house way name (a way not listed has no stored figure)."""

MAIN_SOURCE: dict[str, str] = {
    "foxwoods": "benchmarks/par_pai_gow_main.py --way foxwoods --seed 14 (first 1,200,000 rounds) plus --seed 15 "
    "(first 500,000 rounds), chunks of 50,000; 1115 CPU s",
    "ballys_ac": "benchmarks/par_pai_gow_main.py --way ballys_ac --rounds 1700000 --seed 21, chunks of 50,000; 1102 CPU s",
}
"""How each way's counts were made (the command that reproduces them)."""
