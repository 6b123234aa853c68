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

``--sqlite`` adds where an event's record goes: its rows inserted bare (the same rows, on a fresh
journal of the same schema, each its own autocommitted ``INSERT``, ``OFF``), the same with the
``head`` trigger dropped, the replay with ``PRAGMA locking_mode=EXCLUSIVE`` (``OFF``), and each
round's block text compressed at zlib levels 1, 6 and 9 (CPU a block and its bytes).
"""

from __future__ import annotations

import argparse
import copy
import itertools
import statistics
import sys
import tempfile
import time
import zlib
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


def _clock() -> Callable[[], float]:
    """A journal's clock: a tenth of a second a record, the same in every run."""
    ticks = itertools.count(18_000_000_000)
    return lambda: next(ticks) / 10


Opener = Callable[[Path, str, Callable[[], float]], SqliteJournal]
"""How a replay opens its journal (path, durability, clock)."""


def _journal(path: Path, sync: str, clock: Callable[[], float]) -> SqliteJournal:
    """A fresh journal at ``sync`` (a tree without the durability port: set after it opens)."""
    port = getattr(store, "Sync", None)
    if port is not None:
        return SqliteJournal(path, clock=clock, sync=port[sync])  # type: ignore[call-arg]  # older trees
    journal = SqliteJournal(path, clock=clock)
    journal.db.execute(f"PRAGMA synchronous={sync}")
    return journal


def replay(seeds: list[list[Call]], sync: str, opener: Opener | None = None) -> dict[str, float]:
    """CPU seconds of each kind of call, each seed's calls made again on a fresh journal at ``sync``
    (opened by ``opener``, :func:`_journal` unless given)."""
    spent: dict[str, float] = defaultdict(float)
    for calls in seeds:
        _replay(calls, sync, spent, opener or _journal)
    return spent


def _replay(calls: list[Call], sync: str, spent: dict[str, float], opener: Opener) -> None:
    with tempfile.TemporaryDirectory() as folder:
        journal = opener(Path(folder) / "journal.db", sync, _clock())
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
    data = {"boot": 1, "card": "Ah", "index": 3, "number": 17, "seat": 2}
    with tempfile.TemporaryDirectory() as folder:
        journal = _journal(Path(folder) / "journal.db", "OFF", _clock())
        try:
            for _ in range(5_000):
                journal.append("CardDealt", data, event=True)
            start = time.process_time()
            for _ in range(records):
                journal.append("CardDealt", data, event=True)
            return (time.process_time() - start) / records
        finally:
            journal.close()


def _rows_written(seeds: list[list[Call]]) -> list[list[tuple[Any, ...]]]:
    """The ``records`` rows each seed's calls write (before any fold)."""
    out = []
    for calls in seeds:
        with tempfile.TemporaryDirectory() as folder:
            journal = _journal(Path(folder) / "journal.db", "OFF", _clock())
            try:
                for name, args, kwargs in calls:
                    if name != "fold":
                        getattr(journal, name)(*args, **kwargs)
                out.append(journal.db.execute("SELECT * FROM records ORDER BY seq").fetchall())
            finally:
                journal.close()
    return out


def bare_inserts(rows: list[list[tuple[Any, ...]]], trigger: bool) -> float:
    """CPU seconds a row of ``rows`` inserted one by one on a fresh journal (``OFF``)."""
    spent = 0.0
    for seed_rows in rows:
        with tempfile.TemporaryDirectory() as folder:
            journal = _journal(Path(folder) / "journal.db", "OFF", time.time)
            try:
                if not trigger:
                    journal.db.execute("DROP TRIGGER head")
                start = time.process_time()
                for row in seed_rows:
                    journal.db.execute("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)", row)
                spent += time.process_time() - start
            finally:
                journal.close()
    return spent / sum(map(len, rows))


def sqlite_figures(seeds: list[list[Call]], played: int, repeat: int) -> None:
    """Print the ``--sqlite`` figures."""
    rows = _rows_written(seeds)
    for trigger in (True, False):
        each = [bare_inserts(rows, trigger) for _ in range(repeat)]
        label = "bare INSERT" + ("" if trigger else ", no head trigger")
        print(f"  OFF  {label:31} median {1e6 * statistics.median(each):.1f}, least {1e6 * min(each):.1f} us a row")

    def exclusive(path: Path, sync: str, clock: Callable[[], float]) -> SqliteJournal:
        journal = _journal(path, sync, clock)
        journal.db.execute("PRAGMA locking_mode=EXCLUSIVE")
        return journal

    for label, opener in (("as is", _journal), ("locking_mode=EXCLUSIVE", exclusive)):
        runs = [replay(seeds, "OFF", opener) for _ in range(repeat)]
        total = statistics.median(sum(r.values()) for r in runs)
        record = statistics.median(r["append"] for r in runs) / sum(len(r) for r in rows)
        print(f"  OFF  {label:31} median {1000 * total / played:.2f} ms a round, {1e6 * record:.1f} us a record")
    texts = [
        "\n".join(f"{at!r}\t{kind}\t{event}\t{data}" for _, at, kind, event, data, _, _ in span).encode()
        for seed_rows in rows
        for span in _spans(seed_rows)
    ]
    for level in (1, 6, 9):
        start = time.process_time()
        for _ in range(repeat):
            packed = [zlib.compress(text, level) for text in texts]
        took = (time.process_time() - start) / repeat / len(texts)
        size = sum(map(len, packed)) / len(packed)
        print(
            f"  zlib level {level}: {1000 * took:.3f} ms a block of {sum(map(len, texts)) / len(texts):,.0f} bytes, {size:,.0f} bytes"
        )


def _spans(rows: list[tuple[Any, ...]]) -> list[list[tuple[Any, ...]]]:
    """``rows`` cut at each ``RoundSettled`` (a round's records, about as a fold takes them)."""
    out: list[list[tuple[Any, ...]]] = [[]]
    for row in rows:
        out[-1].append(row)
        if row[2] == "RoundSettled":
            out.append([])
    return [span for span in out if span]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="mississippi_stud")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sqlite", action="store_true", help="where an event's record goes (see above)")
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
    if args.sqlite:
        sqlite_figures(seeds, played, args.repeat)


if __name__ == "__main__":
    main()
