"""A year at one table: a journal of ``--records`` records (default 20,000,000, about what a table
playing 16 hours a day writes in a year) and what each reader costs on it.

Run ``python benchmarks/bench_journal_year.py [--records N] [--keep DIR]``. The journal is built
from a real bench journal of a few Mississippi Stud rounds, its rounds repeated with new round
numbers and times spread over a year, every record chained and hashed as the journal writes it,
a snapshot at each round's start, the round index and the meters kept (so every reader sees a
journal it cannot tell from a real one; ``journal verify`` passes on it). Measured on it:

* start-up after a crash: what the runtime does with the journal before it is ready (open it,
  check the chain from the last snapshot, read the snapshot);
* ``tablectl recall --last 10``, ``recall --round N`` (a round from the middle of the year),
  ``tablectl meters``, each as a command (the interpreter's start included), beside
  ``tablectl --version`` (the floor: the start alone);
* ``tablectl status``'s link records, in process, beside reading every link record;
* ``tablectl journal verify`` (a scan): MB/s, and the ratio to reading every record with SQLite;
* the file's size per round;
* ``tablectl journal prune`` of the oldest month (last: it changes the file; a copy), then of the
  next day, as the daily timer would: from the verified-up-to mark the first one left.

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.configuration import config_dir, load_table
from controller.journal import SqliteJournal, check_tail, checkpoint
from controller.journal.meters import meters_for_round
from controller.journal.store import canonical, record_hash, snapshot_hash
from controller.journal.stored import read_records
from hil.bench import run_bench

YEAR_S = 365 * 86400


def template(folder: Path) -> Path:
    """A real bench journal of a few rounds."""
    path = folder / "template.db"
    table = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
    run_bench(table, seats=4, rounds=6, seed=11, progress=False, journal_path=path)
    return path


def build(src: Path, dst: Path, records: int) -> int:
    """Write ``dst``: the rounds of ``src`` repeated until it holds ``records`` records; returns rounds."""
    t = SqliteJournal.open_readonly(src)
    snaps = t.db.execute("SELECT seq, round_no, state FROM snapshots ORDER BY seq").fetchall()
    rows = [(r.seq, r.at, r.kind, int(r.event), r.data) for r in read_records(t.db)]
    t.close()
    # One round: from a snapshot to the next one (the last snapshot's round may be open: not used).
    bounds = [s for s, _, _ in snaps]
    rounds = [
        ([r for r in rows if lo < r[0] <= hi], state, lo)
        for (lo, _, state), hi in zip(snaps[:-1], bounds[1:], strict=True)
    ]
    rounds = [(recs, state, lo) for recs, state, lo in rounds if any(r[2] == "RoundSettled" for r in recs)]
    head = [r for r in rows if r[0] <= bounds[0]]
    j = SqliteJournal(dst)
    j.db.execute("PRAGMA synchronous=OFF")
    j.db.execute("PRAGMA journal_mode=MEMORY")
    seq, prev = j.last_seq, j.last_hash
    start = time.time() - YEAR_S
    per_round = max(1, records // max(1, sum(len(r) for r, _, _ in rounds) // len(rounds)))
    step = YEAR_S / per_round
    at0 = rows[0][1]
    meters: dict[tuple[str, str], int] = {}
    sums = checkpoint.SpotSums(1)
    round_no = 0

    def put(at: float, kind: str, event: int, data: str) -> None:
        nonlocal seq, prev
        seq += 1
        digest = record_hash(prev, seq, at, kind, bool(event), data, None)
        j.db.execute("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)", (seq, at, kind, event, data, prev, digest))
        prev = digest

    j.db.execute("BEGIN")
    for _, at, kind, event, data in head:
        put(start + (at - at0), kind, event, data)
    n = 0
    while seq < records:
        recs, state, lo = rounds[n % len(rounds)]
        base_seq = seq
        n += 1
        base = start + n * step
        snap_state = json.loads(state)
        snap_state["round_no"] = round_no
        text = canonical(snap_state)
        j.db.execute(
            "INSERT INTO snapshots VALUES (?, ?, ?, ?)",
            (seq, round_no + 1, text, snapshot_hash(prev, seq, round_no + 1, text)),
        )
        first_at = recs[0][1]
        for _, at, kind, event, data in recs:
            when = base + (at - first_at)
            if kind == "RoundSettled":
                round_no += 1
                doc = json.loads(data)
                doc["round"] = round_no
                if isinstance(doc.get("first_seq"), int):
                    doc["first_seq"] = base_seq + (doc["first_seq"] - lo)
                data = canonical(doc)
                put(when, kind, event, data)
                j.db.execute("INSERT INTO rounds VALUES (?, ?, ?)", (round_no, seq, when))
                for key, value in meters_for_round(doc).items():
                    meters[key] = meters.get(key, 0) + value
                sums.add(doc)
                if round_no % checkpoint.EVERY == 0:  # as the journal writes it, right after the round
                    cp = {
                        "round": round_no,
                        "through_seq": seq,
                        "meters": [[s, n, v] for (s, n), v in sorted(meters.items())],
                        "spots": sums.to_json(),
                    }
                    put(when, checkpoint.KIND, 0, canonical(cp))
            else:
                put(when, kind, event, data)
        if n % 2000 == 0:
            j.db.execute("COMMIT")
            j.db.execute("BEGIN")
            print(f"  built {seq:,} records ({round_no:,} rounds)", file=sys.stderr)
    for (scope, name), value in meters.items():
        j.db.execute("INSERT OR REPLACE INTO meters VALUES (?, ?, ?)", (scope, name, value))
    j.db.execute("COMMIT")
    j.db.execute("PRAGMA journal_mode=WAL")
    j.close()
    return round_no


def timed(argv: list[str], runs: int = 3) -> float:
    """The median wall time of a command, in seconds (its exit status must be 0)."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr[-500:]}")
    return sorted(times)[len(times) // 2]


def status_links(path: Path) -> None:
    """``tablectl status``'s link records, in process (CPU): every link record (what it read
    before) beside ``_link_rows`` (through the ``records_links`` index)."""
    import sqlite3

    from controller.cli._status import _link_rows
    from controller.journal.store import LINK_KINDS

    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        every = (
            f"SELECT seq, at, kind, data FROM records WHERE kind IN ({', '.join('?' * len(LINK_KINDS))}) ORDER BY seq"
        )
        for name, read in (
            ("every link record (before)", lambda: db.execute(every, LINK_KINDS).fetchall()),
            ("the status's link records (_link_rows)", lambda: _link_rows(db)),
        ):
            t0 = time.process_time()
            rows = read()
            print(f"status, {name}: {len(rows):,} rows, {time.process_time() - t0:.3f} s CPU")
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20_000_000)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the journal in this folder")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="tablectl-year-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"year-{args.records}.db"
    tool = [sys.executable, "-m", "controller"]
    if not path.exists():
        t0 = time.perf_counter()
        rounds = build(template(folder), path, args.records)
        print(f"built {args.records:,} records, {rounds:,} rounds in {time.perf_counter() - t0:.0f} s")
    j = SqliteJournal.open_readonly(path)
    rounds = j.round_count()
    records = j.last_seq
    j.close()
    size = path.stat().st_size
    print(
        f"journal: {records:,} records, {rounds:,} rounds, {size / 2**20:,.0f} MiB, {size / rounds / 1024:.1f} KiB/round"
    )

    t0 = time.perf_counter()
    j = SqliteJournal(path)
    snap = j.last_snapshot()
    problems = check_tail(j, snap.seq if snap else 0)
    j.close()
    print(f"start-up after a crash (journal part): {time.perf_counter() - t0:.3f} s, problems {problems}")

    status_links(path)
    floor = timed([*tool, "--version"])
    print(f"tablectl --version (the start alone): {floor:.2f} s")
    for name, argv in (
        ("recall --last 10", [*tool, "recall", "--journal", str(path), "--last", "10"]),
        ("recall --round N", [*tool, "recall", "--journal", str(path), "--round", str(rounds // 2)]),
        ("meters", [*tool, "meters", "--journal", str(path)]),
    ):
        took = timed(argv)
        print(f"{name}: {took:.2f} s ({took - floor:.2f} s beyond the start)")

    t0 = time.perf_counter()
    db = SqliteJournal.open_readonly(path)
    n = sum(1 for _ in read_records(db.db))
    db.close()
    scan = time.perf_counter() - t0
    took = timed([*tool, "journal", "verify", "--journal", str(path)], runs=1)
    print(
        f"journal verify: {took:.1f} s, {size / 2**20 / took:.0f} MB/s; reading every record ({n:,}) alone "
        f"{scan:.1f} s: verify is {took / scan:.1f}x the read"
    )
    copy = folder / "prune.db"
    shutil.copyfile(path, copy)
    took = timed([*tool, "journal", "prune", "--journal", str(copy), "--days", "335"], runs=1)
    print(f"journal prune of the oldest month, the first (no verified-up-to mark yet: every record read): {took:.1f} s")
    took = timed([*tool, "journal", "prune", "--journal", str(copy), "--days", "334"], runs=1)
    print(f"journal prune of the next day, from the mark (the day's rounds and the tail read): {took:.1f} s")
    os.remove(copy)
    if not args.keep:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
