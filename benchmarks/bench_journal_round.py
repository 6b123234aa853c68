"""The journal's writer in a simulated round, alone (issue 41 item 6): CPU a round of the calls the
table makes to its journal.

Run ``python benchmarks/bench_journal_round.py [--game G] [--seeds N] [--rounds R] [--repeat K]``.
It plays simulated seeds 1..N of ``G`` (no faults, ``R`` rounds each) once, keeping every call the
table made to its SQLite journal (each record appended, each round's record, each round's start
snapshot, each fold of closed rounds into blocks) with its arguments; then it makes each seed's
calls again, in order, on a fresh journal, ``K`` times at each durability (``OFF``: the
simulation's simulated disk; ``FULL``: a table's, each commit synced), and prints the CPU
(``time.process_time``: user + system of this process, so a sync's system time counts) a round of
each kind of call and of all, the median and the least of the ``K`` runs (a shared machine's load
only adds), and the CPU an event's record costs. A last line appends records one
by one to a journal that never folds (a table whose floor stores nothing for a while: the writer
then keeps its newest 4,096 rows), the CPU a record once that many are kept.

The same calls give the same journal in any tree whose simulation writes byte-identical journals
(the guard, ``python -m hil.simulate.guard``): copy this file into another checkout's
``benchmarks/`` to measure it beside this one, in turn, on the same load. Prints figures; asserts
nothing.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import controller.journal.store as store
import controller.table._round_folder as round_folder
from controller.journal.fold import fold_closed_rounds
from controller.journal.store import SqliteJournal
from hil.simulate.run import run_seed

WRITES = ("append", "append_round", "snapshot", "append_batch")
"""The journal's writing methods the table calls (and the fold, kept as ``fold``)."""

Call = tuple[str, tuple[Any, ...], dict[str, Any]]


def capture(game: str, seeds: int, rounds: int) -> tuple[int, int, list[list[Call]]]:
    """Rounds, events and the journal calls of each of simulated seeds 1..``seeds`` of ``game``."""
    calls: list[Call] = []
    each: list[list[Call]] = []
    real = {name: getattr(SqliteJournal, name) for name in WRITES}

    def kept(name: str) -> Callable[..., Any]:
        method = real[name]

        def call(journal: SqliteJournal, *args: Any, **kwargs: Any) -> Any:
            calls.append((name, copy.deepcopy(args), copy.deepcopy(kwargs)))
            return method(journal, *args, **kwargs)

        return call

    real_fold = round_folder.fold_closed_rounds

    def fold(journal: SqliteJournal, upto: int | None, most: int | None = None) -> Any:
        calls.append(("fold", (upto, most), {}))
        return real_fold(journal, upto, most)

    for name in WRITES:
        setattr(SqliteJournal, name, kept(name))
    round_folder.fold_closed_rounds = fold  # type: ignore[assignment]  # the table's fold, counted
    played = events = 0
    try:
        for seed in range(1, seeds + 1):
            res = run_seed(game, seed, [], rounds=rounds, swarm=False)
            played, events = played + res.rounds, events + res.events
            each.append(calls)
            calls = []
    finally:
        for name, method in real.items():
            setattr(SqliteJournal, name, method)
        round_folder.fold_closed_rounds = real_fold
    return played, events, each


def _journal(path: Path, sync: str, clock: Callable[[], float]) -> SqliteJournal:
    """A fresh journal at ``sync`` (a tree without the durability port: set after it opens)."""
    port = getattr(store, "Sync", None)
    if port is not None:
        return SqliteJournal(path, clock=clock, sync=port[sync])  # type: ignore[call-arg]  # older trees
    journal = SqliteJournal(path, clock=clock)
    journal.db.execute(f"PRAGMA synchronous={sync}")
    return journal


def replay(seeds: list[list[Call]], sync: str) -> dict[str, float]:
    """CPU seconds of each kind of call, each seed's calls made again on a fresh journal at ``sync``."""
    spent: dict[str, float] = defaultdict(float)
    for calls in seeds:
        _replay(calls, sync, spent)
    return spent


def _replay(calls: list[Call], sync: str, spent: dict[str, float]) -> None:
    ticks = itertools.count(1_800_000_000_0)
    with tempfile.TemporaryDirectory() as folder:
        journal = _journal(Path(folder) / "journal.db", sync, lambda: next(ticks) / 10)
        try:
            for name, args, kwargs in calls:
                start = time.process_time()
                if name == "fold":
                    fold_closed_rounds(journal, *args)
                else:
                    getattr(journal, name)(*args, **kwargs)
                spent[name] += time.process_time() - start
        finally:
            journal.close()


def kept_full(records: int) -> float:
    """CPU seconds a record of ``records`` appended one by one (``OFF``) after 5,000 (no fold)."""
    ticks = itertools.count(1_800_000_000_0)
    data = {"boot": 1, "card": "Ah", "index": 3, "number": 17, "seat": 2}
    with tempfile.TemporaryDirectory() as folder:
        journal = _journal(Path(folder) / "journal.db", "OFF", lambda: next(ticks) / 10)
        try:
            for _ in range(5_000):
                journal.append("CardDealt", data, event=True)
            start = time.process_time()
            for _ in range(records):
                journal.append("CardDealt", data, event=True)
            return (time.process_time() - start) / records
        finally:
            journal.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="mississippi_stud")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    played, events, seeds = capture(args.game, args.seeds, args.rounds)
    counts = {name: sum(1 for calls in seeds for c in calls if c[0] == name) for name in (*WRITES, "fold")}
    print(f"{args.game}: {played} rounds, {events} events; calls: {counts}")
    names = [name for name in (*WRITES, "fold") if counts[name]]
    for sync in ("OFF", "FULL"):
        runs = [replay(seeds, sync) for _ in range(args.repeat)]
        for label, pick in (("median", statistics.median), ("least", min)):
            parts = ", ".join(f"{name} {1000 * pick(r[name] for r in runs) / played:.2f}" for name in names)
            total = pick(sum(r.values()) for r in runs)
            record = pick(r["append"] for r in runs) / max(1, counts["append"])
            print(
                f"  {sync:4} {label:6} ms a round: {1000 * total / played:6.2f} ({parts}); "
                f"{1e6 * record:.1f} us an event's record"
            )
    kept = [kept_full(5_000) for _ in range(args.repeat)]
    print(
        f"  OFF, 4,096 rows kept (no fold): median {1e6 * statistics.median(kept):.1f}, "
        f"least {1e6 * min(kept):.1f} us a record appended"
    )


if __name__ == "__main__":
    main()
