"""The floor link at scale, all on this machine: simulated tables writing their journals and
publishing them through NATS JetStream, two ingest workers writing PostgreSQL.

Run ``python benchmarks/bench_floor.py [--tables 200] [--procs 4] [--outage 60]``. Phases:

1. realistic rate (``--rate`` records/s per table, default 2: a live table deals a round of
   about 120 journal records a minute): the delay from journal commit (the record's time) to
   PostgreSQL commit (``track_commit_timestamp``), p50 / p99;
2. full speed: every table writes as fast as its journal takes it (SQLite, WAL, ``--sync``,
   ``--per-commit`` records a transaction) for ``--full`` s, then stops: records written per
   second, and records stored in PostgreSQL per second end to end (counted until the store
   holds every record written in the phase);
3. a broker outage of ``--outage`` s at the realistic rate (the NATS server SIGKILLed, then
   restarted on its store): the time from the restart until the store holds every record.

The records are a real bench table's journal (``tablectl bench``) replayed with the sequence
numbers and round numbers of each simulated table, so messages have the real sizes (a round's
``.round`` message carries all its events). Tables run in ``--procs`` processes, each table
with its own journal file and its own forwarder (``controller.floor.forwarder.Forwarder``, as a table runs it),
the forwarders of a process on one asyncio loop and one NATS connection; the ingest workers are
``tablectl floor ingest`` processes sharing the durable consumer. At full speed each table
commits ``--per-commit`` records per journal transaction (``append_batch``); at the realistic
rate one. Phases 1 and 2 print CPU microseconds per record of each stage (writers, forwarders,
nats-server, ingest, PostgreSQL) beside the floors measured first in the same run
(``benchmarks/floor_floors.py``), and the sum: what one record costs end to end.

Prints figures beside the targets; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg

from benchmarks.floor_floors import Floors, measure_floors, postgres_cpu, proc_cpu
from controller.floor.forwarder import Forwarder
from controller.floor.migrate import migrate
from controller.floor.servers import LocalNats, LocalPostgres
from controller.floor_config import FloorConfig
from controller.journal import NewRecord, SqliteJournal
from controller.journal.meters import meters_for_round

REPO = Path(__file__).resolve().parent.parent

REALISTIC, FULL, STOP, IDLE = 0, 1, 2, 3


def template(folder: Path) -> list[tuple[str, dict[str, Any], bool]]:
    """A real bench table's journal records (kind, data, event), from its first round on."""
    journal = folder / "template.db"
    subprocess.run(
        [sys.executable, "-m", "controller", "bench", "--rounds", "5", "--quiet", "--journal", str(journal)],
        check=True,
        capture_output=True,
    )
    j = SqliteJournal(journal)
    records = [(r.kind, r.data, r.event) for r in j.records() if r.seq > 4]  # after OpenTable and the link-ups
    j.close()
    return records


class SimTable:
    """One simulated table: a journal fed from the template, a forwarder publishing it."""

    def __init__(self, folder: Path, table_id: str, servers: tuple[str, ...], sync: str) -> None:
        self.journal = SqliteJournal(folder / f"{table_id}.db")
        self.journal.db.execute(f"PRAGMA synchronous={sync}")
        self.forwarder = Forwarder(self.journal.path, FloorConfig(table_id, servers))
        self.i = 0
        self.round_no = 0
        self.first_seq = 1

    def write_one(self, records: list[tuple[str, dict[str, Any], bool]]) -> None:
        """Append the next template record, one transaction (as a live table does)."""
        kind, data, event = records[self.i % len(records)]
        self.i += 1
        if kind == "RoundSettled":
            self.round_no += 1
            data = {**data, "round": self.round_no, "first_seq": self.first_seq, "last_seq": self.journal.last_seq}
            seq = self.journal.append_round(self.round_no, data, meters_for_round(data))
            self.first_seq = seq + 1
        else:
            self.journal.append(kind, data, event)

    def write_many(self, records: list[tuple[str, dict[str, Any], bool]], n: int) -> None:
        """Append the next ``n`` template records in one transaction (``append_batch``: still
        chained record by record, one commit and sync for all)."""
        batch: list[NewRecord] = []
        seq = self.journal.last_seq
        for _ in range(n):
            kind, data, event = records[self.i % len(records)]
            self.i += 1
            seq += 1
            if kind == "RoundSettled":
                self.round_no += 1
                data = {**data, "round": self.round_no, "first_seq": self.first_seq, "last_seq": seq - 1}
                batch.append(NewRecord(kind, data, False, self.round_no, meters_for_round(data)))
                self.first_seq = seq + 1
            else:
                batch.append(NewRecord(kind, data, event))
        self.journal.append_batch(batch)


def table_process(
    folder: Path,
    ids: list[str],
    servers: tuple[str, ...],
    records: list[tuple[str, dict[str, Any], bool]],
    rate: float,
    phase: Any,
    written: Any,
    writer_cpu: Any,
    slot: int,
    sync: str,
    per_commit: int,
) -> None:
    """The tables ``ids`` in one process: one writer thread, and one thread running every
    table's forwarder on one asyncio loop over one NATS connection (the forwarder's code as a
    table runs it, without 50 threads fighting over the GIL). ``writer_cpu[slot]``: the writer
    thread's CPU seconds (the forwarders have the rest)."""
    tables = [SimTable(folder, t, servers, sync) for t in ids]
    forwarding = threading.Thread(target=lambda: asyncio.run(forward_all(tables)), name="forwarders")
    forwarding.start()
    next_at = time.monotonic()
    count = turn = 0
    while phase.value != STOP:
        if phase.value == IDLE:
            time.sleep(0.05)
            next_at = time.monotonic()
            continue
        if phase.value == REALISTIC:
            next_at += 1.0 / (rate * len(tables))
            delay = next_at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            elif delay < -1.0:
                next_at = time.monotonic()  # behind by more than a second: do not burst to catch up
            tables[turn % len(tables)].write_one(records)
            count += 1
        else:
            next_at = time.monotonic()
            tables[turn % len(tables)].write_many(records, per_commit)
            count += per_commit
        turn += 1
        written[slot] = count
        writer_cpu[slot] = time.thread_time()
    deadline = time.monotonic() + 60
    for t in tables:  # the backlog sent before stopping
        t.forwarder.wait_acked(t.journal.last_seq, max(0.0, deadline - time.monotonic()))
    for t in tables:
        t.forwarder.ask_stop()
    forwarding.join(30)
    for t in tables:
        t.journal.close()


async def forward_all(tables: list[SimTable]) -> None:
    """Run the tables' forwarders on this loop, sharing one connection."""
    nc = await tables[0].forwarder.connect()
    try:
        await asyncio.gather(*(t.forwarder.run(nc) for t in tables))
    finally:
        await nc.close()


def stored(db: str) -> int:
    with psycopg.connect(db, autocommit=True) as conn:
        row = conn.execute("SELECT (SELECT count(*) FROM journal_event) + (SELECT count(*) FROM round)").fetchone()
        return int(row[0]) if row else 0


def wait_stored(db: str, target: int, timeout: float) -> float | None:
    """Seconds until the store holds ``target`` records (None: not within ``timeout``)."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if stored(db) >= target:
            return time.monotonic() - start
        time.sleep(0.25)
    return None


def delays(db: str, since: float, until: float) -> list[float]:
    with psycopg.connect(db, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT extract(epoch FROM pg_xact_commit_timestamp(xmin))::float8 - at_epoch FROM journal_event "
            "WHERE at_epoch BETWEEN %s AND %s",
            (since, until),
        ).fetchall()
    return sorted(r[0] for r in rows if r[0] is not None)


STAGES = ("writers", "forwarders", "nats-server", "ingest", "postgres")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--procs", type=int, default=4, help="processes the tables run in")
    parser.add_argument("--rate", type=float, default=2.0, help="records/s per table at the realistic rate")
    parser.add_argument("--realistic", type=float, default=30.0, help="seconds at the realistic rate")
    parser.add_argument("--full", type=float, default=20.0, help="seconds at full speed")
    parser.add_argument(
        "--per-commit", type=int, default=50, help="records per journal transaction at full speed (append_batch)"
    )
    parser.add_argument("--outage", type=float, default=60.0, help="seconds the broker is down")
    parser.add_argument("--workers", type=int, default=2, help="ingest processes")
    parser.add_argument("--floors", type=int, default=20_000, help="records for the floor measurements (0: none)")
    parser.add_argument(
        "--sync",
        choices=["FULL", "NORMAL"],
        default="NORMAL",
        help="the simulated journals' SQLite synchronous setting: a real table has a disk of its own and "
        "syncs every record (FULL); 200 journals sharing this machine's one disk would measure the disk, "
        "so by default they skip the sync (NORMAL) and the link is what is measured",
    )
    args = parser.parse_args()

    base = Path(tempfile.mkdtemp(prefix="bench-floor-"))
    base.chmod(0o711)
    broker = LocalNats(base / "nats")
    postgres = LocalPostgres(base / "postgres", settings={"track_commit_timestamp": "on"})
    workers: list[subprocess.Popen[bytes]] = []
    procs: list[Any] = []
    phase = mp.Value("i", REALISTIC)
    written = mp.Array("q", args.procs)
    writer_cpu = mp.Array("d", args.procs)
    try:
        broker.start()
        postgres.start()
        db = postgres.url
        migrate(db)
        records = template(base)
        print(f"load average at the start: {load()}")
        floors = None
        if args.floors:
            assert broker.proc is not None and postgres.proc is not None
            floors = measure_floors(
                base,
                base / "template.db",
                broker.url,
                broker.proc.pid,
                db,
                postgres.proc.pid,
                n=args.floors,
                per_commit=args.per_commit,
                sync=args.sync,
            )
        for _ in range(args.workers):
            workers.append(
                subprocess.Popen(
                    [sys.executable, "-m", "controller", "floor", "ingest", "--nats", broker.url, "--db", db]
                    + ["--batch", "1000"],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        ids = [f"t{n:03d}" for n in range(args.tables)]
        tables_dir = base / "tables"
        tables_dir.mkdir()
        ctx = mp.get_context("fork")
        for p in range(args.procs):
            proc = ctx.Process(
                target=table_process,
                args=(
                    tables_dir,
                    ids[p :: args.procs],
                    (broker.url,),
                    records,
                    args.rate,
                    phase,
                    written,
                    writer_cpu,
                    p,
                    args.sync,
                    args.per_commit,
                ),
            )
            proc.start()
            procs.append(proc)

        def total() -> int:
            return int(sum(written[:]))

        def cpu() -> dict[str, float]:
            assert broker.proc is not None and postgres.proc is not None
            tables = sum(proc_cpu(p.pid) for p in procs)
            writers = float(sum(writer_cpu[:]))
            return {
                "writers": writers,
                "forwarders": tables - writers,
                "nats-server": proc_cpu(broker.proc.pid),
                "ingest": sum(proc_cpu(w.pid) for w in workers),
                "postgres": postgres_cpu(postgres.proc.pid),
            }

        def per_record(before: dict[str, float], after: dict[str, float], n: int) -> dict[str, float]:
            return {k: (after[k] - before[k]) / max(n, 1) * 1e6 for k in STAGES}

        print(
            f"{args.tables} tables in {args.procs} processes, {args.workers} ingest workers, "
            f"{len(records)} template records, journals synchronous={args.sync}"
        )
        # 1. realistic rate
        time.sleep(5)  # forwarders connected, ingest consumer made
        t0, c0, w0 = time.time(), cpu(), total()
        time.sleep(args.realistic)
        t1 = time.time()
        wait_stored(db, total(), 120)
        real_cpu = per_record(c0, cpu(), total() - w0)
        d = delays(db, t0, t1)
        rate_real = len(d) / (t1 - t0) if d else 0.0
        p50 = statistics.median(d) if d else float("nan")
        p99 = d[int(0.99 * (len(d) - 1))] if d else float("nan")
        print(
            f"realistic   {rate_real:,.0f} records/s stored; journal commit -> PostgreSQL commit "
            f"p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms (target p99 < 1000 ms); load {load()}"
        )
        # 2. full speed: write for --full seconds, then stop writing until the store has it all
        before_written, before_stored, c0 = total(), stored(db), cpu()
        phase.value = FULL
        start = time.monotonic()
        time.sleep(args.full)
        phase.value = IDLE
        time.sleep(0.2)  # the writers see it
        full_written = total() - before_written
        elapsed = time.monotonic() - start
        target = before_stored + full_written
        waited = wait_stored(db, target, 600)
        full_cpu = per_record(c0, cpu(), full_written)
        e2e = full_written / (elapsed + (waited or float("nan")))
        print(
            f"full speed  {full_written / elapsed:,.0f} records/s written to the journals ({args.per_commit} per "
            f"commit); {e2e:,.0f} records/s end to end into PostgreSQL (target >= 20,000); load {load()}"
        )
        print_cpu(real_cpu, full_cpu, floors)
        # 3. broker outage
        phase.value = REALISTIC
        wait_stored(db, total(), 600)
        broker.kill(signal.SIGKILL)
        down_at = total()
        time.sleep(args.outage)
        backlog = total() - down_at
        broker.start()
        phase_target = total()
        drained = wait_stored(db, phase_target, 600)
        drain_text = f"{drained:.1f} s" if drained is not None else "not within 600 s"
        print(
            f"outage      {args.outage:.0f} s broker outage, {backlog:,} records backlog: drained {drain_text} "
            "after the restart (target 120 s)"
        )
        if drained:
            print(
                f"draining    {(phase_target - down_at) / drained:,.0f} records/s end to end "
                "(journals -> NATS -> PostgreSQL)"
            )
        phase.value = STOP
        for proc in procs:
            proc.join(120)
        final = wait_stored(db, total(), 120)
        print(
            f"written     {total():,} records in all; stored {stored(db):,}{'' if final is not None else ' (not all!)'}"
            f"; load average at the end: {load()}"
        )
    finally:
        phase.value = STOP
        for proc in procs:
            proc.join(60)
        for w in workers:
            w.send_signal(signal.SIGTERM)
        for w in workers:
            try:
                w.wait(30)
            except subprocess.TimeoutExpired:
                w.kill()
        broker.kill()
        postgres.stop()
        shutil.rmtree(base, ignore_errors=True)


def load() -> str:
    """The machine's 1, 5 and 15 minute load averages."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def print_cpu(real: dict[str, float], full: dict[str, float], floors: Floors | None) -> None:
    """CPU microseconds per record by stage: the link at each rate, the floor beside it."""
    floor = (
        {
            "writers": floors.sqlite_batch,
            "forwarders": floors.publish,
            "nats-server": floors.publish_server + floors.fetch_server,
            "ingest": floors.fetch,
            "postgres": floors.copy_server,
        }
        if floors
        else {}
    )
    print(
        "CPU us per record   realistic  full speed      floor  full/floor  (floor: the barest use of the same engine)"
    )
    what = {
        "writers": "SQLite WAL inserts, same rows, same commits, no hash/JSON",
        "forwarders": "publish_async of the same messages, no journal",
        "nats-server": "the server's share of that publish + fetch/ack",
        "ingest": "fetch + ack of the same messages, nothing done with them (+ COPY client side below)",
        "postgres": "COPY of the same rows into temporary tables, no upsert",
    }
    for k in STAGES:
        f = floor.get(k)
        ratio = f"{full[k] / f:9.1f}x" if f else ""
        print(
            f"  {k:<17} {real[k]:9.0f}  {full[k]:10.0f}  {f if f is not None else float('nan'):9.0f}  {ratio:>10}  {what[k]}"
        )
    link_sum = sum(full.values())
    print(
        f"  {'sum':<17} {sum(real.values()):9.0f}  {link_sum:10.0f}  "
        f"{floors.total() if floors else float('nan'):9.0f}  "
        f"{link_sum / floors.total() if floors else float('nan'):9.1f}x  "
        "sum of the stages: the CPU one record costs end to end"
    )
    cores = os.cpu_count() or 1
    print(
        f"  at full speed the link costs {link_sum:.0f} us of CPU per record: at most {cores * 1e6 / link_sum:,.0f} "
        f"records/s on this machine's {cores} cores if nothing else ran (the target 20,000/s needs <= "
        f"{cores * 1e6 / 20_000:.0f} us)"
    )
    if floors:
        print(
            f"  the floor (same engines, nothing but the I/O, journal batched, COPY client {floors.copy:.0f} us "
            f"not in the sum; one record per SQLite commit {floors.sqlite_one:.0f} us) is {floors.total():.0f} "
            f"us: at most {cores * 1e6 / floors.total():,.0f} records/s on {cores} cores"
        )


if __name__ == "__main__":
    threading.current_thread().name = "bench_floor"
    main()
