"""How long the exact par computations take, beside the floor and a direct method.

Run ``python benchmarks/bench_par.py [--skip-slow]``. Measured in one run, CPU seconds (one core:
numpy here uses one thread for this work) and wall seconds:

* Mississippi Stud, optimal strategy and the full par (backward induction over card sets, then
  the forward pass): target at most 60 s on one core;
* the floor: ranking all 2,598,960 five-card hands with the batch evaluator, which any exhaustive
  method must do at least once;
* a direct method: the recursion over the 117,600 ordered community deals of one starting hand
  (as tests/test_par.py checks it), timed on two starting hands and scaled to all 1,326;
* Boston 5's exact solution (dealer hands counted by rank class with card removal) and the
  pai gow seven-card classes (154,143,080 hands in 292,259 classes), unless ``--skip-slow``.

Prints figures; asserts nothing. The strategy cache is not used (everything is computed).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from controller.configuration import default_table_path, load_table
from controller.hands.batch import strengths
from controller.hands.rules import Wheel
from controller.par.combos import combinations_array
from controller.par.lines import five_card_lines


def timed(what: Callable[[], Any]) -> tuple[Any, float, float]:
    """(result, CPU seconds, wall seconds) of ``what()``."""
    cpu, wall = time.process_time(), time.perf_counter()
    out = what()
    return out, time.process_time() - cpu, time.perf_counter() - wall


def direct_third(two: list[int], pay: dict[int, float]) -> float:
    """The value of the best play of two cards, by recursion over every ordered community deal."""
    rest = [c for c in range(52) if c not in two]
    order = np.array([(a, b, c) for a in rest for b in rest if b != a for c in rest if c != a and c != b])
    hands = np.hstack([np.tile(two, (order.shape[0], 1)), order])
    m = np.vectorize(pay.__getitem__)(strengths(hands, Wheel.LOWEST)).reshape(50, 49, 48).mean(axis=2)
    best3 = -1.0
    for b3 in (1, 3):
        fourth = []
        for i in range(50):
            best4 = -float(1 + b3)
            for b4 in (1, 3):
                s = 1 + b3 + b4
                v5 = np.maximum(-s, np.maximum((s + 1) * m[i], (s + 3) * m[i]))
                best4 = max(best4, float(v5.mean()))
            fourth.append(best4)
        best3 = max(best3, float(np.mean(fourth)))
    return best3


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--skip-slow", action="store_true", help="only Mississippi Stud and its floor")
    args = p.parse_args()
    table = load_table(default_table_path("mississippi_stud"))
    main_table = table.paytables["main"]
    rows = []

    hands = combinations_array(52, 5)
    strengths(hands[:10], Wheel.LOWEST)  # the evaluator's tables, built once
    s5, cpu, wall = timed(lambda: strengths(hands, Wheel.LOWEST))
    rows.append(("floor: rank all 2,598,960 five-card hands (batch)", cpu, wall))

    from controller.par.mississippi import solve

    par, cpu_ms, wall_ms = timed(lambda: solve(main_table))
    rows.append(("Mississippi Stud optimal strategy and par, exact", cpu_ms, wall_ms))

    _, pays = five_card_lines(main_table, s5)
    pay = dict(zip(s5.tolist(), pays.tolist(), strict=True))
    _, cpu, wall = timed(lambda: [direct_third(two, pay) for two in ([51, 50], [5, 19])])
    rows.append(("direct recursion over ordered deals, 1,326 starts (from 2)", cpu * 663, wall * 663))

    if not args.skip_slow:
        from controller.par.boston5 import solve as b5_solve

        b5 = load_table(default_table_path("boston5"))
        _, cpu, wall = timed(lambda: b5_solve(b5.paytables["ante_bonus"], 2, 1.0))
        rows.append(("Boston 5 best play and par, exact", cpu, wall))
        from controller.par.pai_gow import bonus_counts, insurance_counts

        _, cpu, wall = timed(lambda: (bonus_counts(), insurance_counts()))
        rows.append(("pai gow bonus and insurance classes, exact", cpu, wall))

    print(f"{'figure':<62} {'CPU s':>9} {'wall s':>9} {'vs floor':>9}")
    floor = rows[0][1]
    for name, cpu, wall in rows:
        print(f"{name:<62} {cpu:>9.2f} {wall:>9.2f} {cpu / floor:>8.1f}x")
    print()
    print(
        f"Mississippi Stud: house edge {-100 * par.ev_per_ante:.4f}% per ante, element of risk "
        f"{-100 * par.ev_per_ante / par.average_total_wager:.4f}%, average total wager {par.average_total_wager:.4f}"
    )
    print(f"target: Mississippi Stud exact in at most 60 s on one core: {'met' if cpu_ms <= 60 else 'NOT met'}")
    direct = rows[2][1]
    print(f"exact solver vs the direct recursion: {direct / cpu_ms:.0f}x less CPU")


if __name__ == "__main__":
    main()
