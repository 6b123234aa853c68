"""Durable journal figures, beside a bare SQLite insert loop at the same settings.

Run ``python benchmarks/bench_journal.py [--commits N] [--events N] [--kills N]``. Measured in
one run:

* events committed per second: ``SqliteJournal.append`` (WAL, ``synchronous=FULL``, one
  transaction per event, hash chain) against a bare ``INSERT`` loop on the same settings with
  rows of the same size (target: at least 0.8x);
* time to ready after a crash with ``--events`` events in the journal (default 1,000,000):
  a Mississippi Stud table plays rounds into a journal (written with ``synchronous=OFF`` to
  build it quickly), stops mid-round, and a new process opens the journal, checks it and
  rebuilds the open round (target: under 1 s);
* journal size per round;
* the crash test with more kills than the test suite's 50 (``--kills``, default 100; 0 skips).

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# its helpers from tests/, by bare name as the tests import them (tests/ is no package)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from cli_helpers import tablectl_process

from controller.configuration import config_dir, load_table
from controller.journal import SqliteJournal
from controller.journal.store import canonical
from controller.table.engine import Engine
from controller.table.runtime import TableRuntime
from drivers.shoe import ShoeStatus

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_table import mississippi_events

EVENT = {"device": "bet_spots", "seat": 3, "spot": "ante", "cents": 2500, "at": 1764685000.123456, "event_no": 1234}


def commits(n: int, folder: Path) -> tuple[float, float, int]:
    """(journal appends/s, bare inserts/s, bytes per row) at WAL + synchronous=FULL."""
    journal = SqliteJournal(folder / "journal.db")
    start = time.perf_counter()
    for _ in range(n):
        journal.append("SpotReport", EVENT, event=True)
    ours = n / (time.perf_counter() - start)
    journal.close()
    row = canonical(EVENT)
    db = sqlite3.connect(str(folder / "bare.db"), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute(
        "CREATE TABLE records (seq INTEGER PRIMARY KEY, at REAL, kind TEXT, event INTEGER, data TEXT, prev TEXT, hash TEXT)"
    )
    filler = "0" * 64
    start = time.perf_counter()
    for seq in range(1, n + 1):
        db.execute("BEGIN IMMEDIATE")
        db.execute(
            "INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)", (seq, time.time(), "SpotReport", 1, row, filler, filler)
        )
        db.execute("COMMIT")
    bare = n / (time.perf_counter() - start)
    db.close()
    return ours, bare, len(row) + 2 * 64


class _NoDevices:
    """Devices that take every command and do nothing."""

    def __getattr__(self, name: str) -> object:
        return lambda *args: None


def offline_runtime(path: Path) -> TableRuntime:
    """The Mississippi bench table on a journal, its devices on ``loop://`` (never started)."""
    table = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
    return TableRuntime(table, {role: "loop://" for role in table.devices}, SqliteJournal(path))


def build(path: Path, events: int) -> tuple[int, int]:
    """Play rounds into the journal at ``path`` until it holds ``events`` events, stopping in the
    middle of a round; returns (events, finished rounds)."""
    runtime = offline_runtime(path)
    runtime.journal.db.execute("PRAGMA synchronous=OFF")  # type: ignore[attr-defined]
    runtime.devices = runtime.table.devices = _NoDevices()  # the links never run: drop the commands
    engine: Engine = runtime.engine
    from controller.table.events import OpenTable

    engine.step(OpenTable())
    rng = random.Random(1)
    written = 1
    while True:
        for e in mississippi_events(rng):
            engine.step(e)
            written += 1
            if runtime.table.phase.value == "count_stub":
                engine.step(ShoeStatus(device="shoe", stub_count=runtime.table.stub.expected, deck_size=52))
                written += 1
            if written >= events and runtime.table.phase.value == "fourth_street":
                rounds = len(runtime.journal.round_seqs())  # type: ignore[attr-defined]
                runtime.journal.close()  # type: ignore[attr-defined]
                return written, rounds


READY = """
import sys, time
t = time.perf_counter()
sys.path.insert(0, {root!r})
from benchmarks.bench_journal import offline_runtime
runtime = offline_runtime(__import__("pathlib").Path({path!r}))
runtime.recover()
ready = time.perf_counter() - t
print(ready, runtime.recovered, runtime.table.round_no, runtime.table.phase.value)
"""


def crash_run(kills: int, folder: Path) -> str:
    """The crash test's loop with ``kills`` SIGKILLs; whether every round equals a clean run's."""
    env = {**os.environ, "TMPDIR": str(folder)}
    rounds = max(60, kills + 20)

    def bench(journal: Path) -> list[str]:
        return tablectl_process(
            "bench", "--seats", "3", "--rounds", rounds, "--seed", "7", "--journal", journal, "--resume", "--quiet"
        )

    rng = random.Random(kills)
    done = 0
    start = time.perf_counter()
    while done < kills:
        proc = subprocess.Popen(
            bench(folder / "crashed.db"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
        )
        try:
            proc.wait(timeout=rng.uniform(0.2, 0.8))
            break  # finished before all the kills
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            done += 1
    subprocess.run(bench(folder / "crashed.db"), capture_output=True, env=env, check=True)
    crashed_s = time.perf_counter() - start
    subprocess.run(bench(folder / "clean.db"), capture_output=True, env=env, check=True)

    def rounds_of(p: Path) -> list[str]:
        j = SqliteJournal(p, create=False)
        out = [json.dumps([j.record(s).data[k] for k in ("record", "settlement", "cards")]) for _, s in j.round_seqs()]  # type: ignore[union-attr]
        j.close()
        return out

    same = rounds_of(folder / "crashed.db") == rounds_of(folder / "clean.db")
    verify = subprocess.run(
        tablectl_process("journal", "verify", "--journal", folder / "crashed.db"),
        capture_output=True,
        text=True,
    )
    return f"{done} kills over {rounds} rounds in {crashed_s:.0f} s: rounds equal to a clean run: {same}; journal verify: {'ok' if verify.returncode == 0 else verify.stderr.strip()}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--commits", type=int, default=2000)
    p.add_argument("--events", type=int, default=1_000_000)
    p.add_argument("--kills", type=int, default=100)
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-journal-") as tmp:
        folder = Path(tmp)
        ours, bare, row = commits(args.commits, folder)
        print(
            f"events committed/s at synchronous=FULL: journal {ours:,.0f}, bare insert loop {bare:,.0f} (journal / bare {ours / bare:.2f}x; {row} bytes of data per row)"
        )
        path = folder / "big.db"
        start = time.perf_counter()
        events, rounds = build(path, args.events)
        size = path.stat().st_size + (
            path.with_name(path.name + "-wal").stat().st_size if path.with_name(path.name + "-wal").exists() else 0
        )
        print(
            f"built a journal of {events:,} events ({rounds:,} rounds, 6 seats) in {time.perf_counter() - start:.0f} s: "
            f"{size / 2**20:,.1f} MiB, {size / max(rounds, 1) / 1024:.1f} KiB per round"
        )
        out = subprocess.run(
            [sys.executable, "-c", READY.format(root=str(Path(__file__).resolve().parent.parent), path=str(path))],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        print(
            f"time to ready after a crash with {events:,} events: {float(out[0]):.2f} s (process start, imports, journal checked, "
            f"round {out[2]} rebuilt in {out[3]} from {out[1]} events)"
        )
        if args.kills:
            print("crash run: " + crash_run(args.kills, folder))


if __name__ == "__main__":
    main()
