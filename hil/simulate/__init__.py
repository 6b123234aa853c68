"""``tablectl simulate``: the whole table in one process and one thread under a simulated clock.

The real table (round machine, engine, journal, settlement, snapshot, dealer screen) with the
simulators' device logic behind the real drivers' link protocol (:mod:`hil.wire`), the bench's
players and dealer, a supervisor, and faults drawn from one seed (:mod:`.faults`); invariants
are checked after every event and at the end (:mod:`.invariants`); a failing seed replays
exactly and shrinks to the fewest faults that still fail (:mod:`.run`).
"""

from __future__ import annotations

from hil.simulate.faults import FAULT_KINDS, KNOWN_BUG_KINDS, Fault
from hil.simulate.run import SeedResult, run_seed, run_seeds, shrink

__all__ = ["FAULT_KINDS", "KNOWN_BUG_KINDS", "Fault", "SeedResult", "run_seed", "run_seeds", "shrink"]
