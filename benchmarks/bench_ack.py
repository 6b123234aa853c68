"""A burst of cards from a shoe on a pty into the SQLite journal: each event acknowledged when it
is received (before issue 21) beside acknowledged only once its record is committed (now: one
event in flight per device), side by side in one run.

Run ``python benchmarks/bench_ack.py [--cards 600] [--runs 3]``. Prints, per run and mode, the
wall-clock time from the burst's start until every card is journaled and the controller
process's CPU time meanwhile. It asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.journal import SqliteJournal
from controller.table.engine import Engine
from controller.vocab import deck
from drivers.shoe import CardDealt, ShoeDriver
from hil.devices import ShoeSim
from hil.serve import PtyServer


def burst(after_commit: bool, cards: int) -> tuple[float, float]:
    """(wall s, CPU s) for ``cards`` cards dealt at once until all are journaled."""
    folder = Path(tempfile.mkdtemp())
    journal = SqliteJournal(folder / "j.db")
    seen: list[object] = []
    engine = Engine(lambda e: seen.append(e) if isinstance(e, CardDealt) else None, journal)
    sim = ShoeSim(address=1)
    server = PtyServer(sim)
    driver = ShoeDriver("shoe", server.start(), engine.queue)
    driver.link.ack_when_journaled = after_commit
    engine.on_recorded = driver.link.journaled
    engine.start()
    driver.start()
    while not driver.link.up:
        time.sleep(0.01)
    sim.load(([str(c) for c in deck()] * (cards // 52 + 1))[:cards])
    wall, cpu = time.monotonic(), time.process_time()
    sim.deal(cards)
    while len(seen) < cards:
        time.sleep(0.001)
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    driver.close()
    engine.stop()
    server.close()
    journal.close()
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=600)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
    for _ in range(args.runs):
        for mode in (False, True):
            results[mode].append(burst(mode, args.cards))
    for mode, name in ((False, "acknowledged on receipt"), (True, "acknowledged after the commit")):
        walls = [w for w, _ in results[mode]]
        cpus = [c for _, c in results[mode]]
        print(
            f"{name}: {args.cards} cards, median {statistics.median(walls):.2f} s wall "
            f"({args.cards / statistics.median(walls):.0f} cards/s), {statistics.median(cpus):.2f} s CPU"
        )


if __name__ == "__main__":
    main()
