"""Durable journal figures, beside a bare SQLite insert loop at the same settings.

Run ``python benchmarks/bench_journal.py [--commits N] [--events N] [--kills N]``, or
``--writer N`` for the writer's figure alone. Measured in one run:

* the writer's CPU time a record (``--writer``, default 20,000 records): a bench table's
  journal records (five Mississippi Stud rounds, as ``bench_floor.py``'s template) appended with
  ``append_batch``, ``--per-commit`` (50) a transaction as ``bench_floor.py``'s writers do at full
  speed, against its required floor: bare SQLite inserts of the same rows in the same commits
  plus the SHA-256 chain over their canonical text (``bench_floor.py``'s "writers" floor);

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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# its helpers from tests/, by bare name as the tests import them (tests/ is no package)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from cli_helpers import tablectl_process

from controller.configuration import config_dir, load_table
from controller.journal import SqliteJournal
from controller.journal.meters import meters_for_round
from controller.journal.store import GENESIS, NewRecord, canonical, record_hash
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


def writer_template(folder: Path) -> list[tuple[str, dict[str, Any], bool]]:
    """A bench table's journal records (kind, data, event) from its first round on: five
    Mississippi Stud rounds played by ``tablectl bench`` (``bench_floor.py``'s template)."""
    path = folder / "template.db"
    subprocess.run(
        [sys.executable, "-m", "controller", "bench", "--rounds", "5", "--quiet", "--journal", str(path)],
        check=True,
        capture_output=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    journal = SqliteJournal(path)
    records = [(r.kind, r.data, r.event) for r in journal.records() if r.seq > 4]  # after OpenTable, link-ups
    journal.close()
    return records


def writer_batches(records: list[tuple[str, dict[str, Any], bool]], n: int, per_commit: int) -> list[list[NewRecord]]:
    """``n`` records from ``records`` in turn as ``append_batch`` takes them, ``per_commit`` a
    batch, each round's record numbered and its meters computed (made before the clock starts)."""
    out: list[list[NewRecord]] = []
    seq = round_no = 0
    first = 1
    for start in range(0, n, per_commit):
        batch = []
        for i in range(start, min(n, start + per_commit)):
            kind, data, event = records[i % len(records)]
            seq += 1
            if kind == "RoundSettled":
                round_no += 1
                data = {**data, "round": round_no, "first_seq": first, "last_seq": seq - 1}
                batch.append(NewRecord(kind, data, False, round_no, meters_for_round(data)))
                first = seq + 1
            else:
                batch.append(NewRecord(kind, data, event))
        out.append(batch)
    return out


def writer(n: int, per_commit: int, folder: Path) -> tuple[float, float]:
    """(journal CPU us a record, required floor CPU us a record): ``append_batch`` of the template's
    records against bare SQLite inserts of the same rows in the same commits plus the SHA-256
    chain, both at WAL + synchronous=FULL, each on a fresh file."""
    batches = writer_batches(writer_template(folder), n, per_commit)
    journal = SqliteJournal(folder / "writer.db")
    start = time.process_time()
    for batch in batches:
        journal.append_batch(batch)
    ours = (time.process_time() - start) / n * 1e6
    journal.close()
    texts = [[(r.kind, int(r.event), canonical(r.data)) for r in batch] for batch in batches]
    db = sqlite3.connect(str(folder / "writer-bare.db"), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute(
        "CREATE TABLE records (seq INTEGER PRIMARY KEY, at REAL, kind TEXT, event INTEGER, data TEXT, prev TEXT, hash TEXT)"
    )
    seq, digest = 0, GENESIS
    start = time.process_time()
    for batch_texts in texts:
        rows = []
        for kind, event, text in batch_texts:
            seq += 1
            at = time.time()
            prev, digest = digest, record_hash(digest, seq, at, kind, bool(event), text)
            rows.append((seq, at, kind, event, text, prev, digest))
        db.execute("BEGIN IMMEDIATE")
        db.executemany("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        db.execute("COMMIT")
    bare = (time.process_time() - start) / n * 1e6
    db.close()
    return ours, bare


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
    p.add_argument(
        "--writer", type=int, default=20_000, metavar="N", help="records for the writer's CPU figure (0 skips it)"
    )
    p.add_argument("--per-commit", type=int, default=50, help="records a transaction for the writer's figure")
    p.add_argument("--writer-only", action="store_true", help="the writer's figure alone")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-journal-") as tmp:
        folder = Path(tmp)
        if args.writer:
            ours_us, floor_us = writer(args.writer, args.per_commit, folder)
            print(
                f"writer CPU a record, {args.writer:,} template records {args.per_commit} a commit at synchronous=FULL: "
                f"journal {ours_us:.2f} us, required floor (bare SQLite same rows and commits + SHA-256 chain) "
                f"{floor_us:.2f} us (floor / journal {floor_us / ours_us:.2f}x)"
            )
        if args.writer_only:
            return
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
