"""The floor link at scale, all on this machine, set up as in production: simulated tables
writing their journals and publishing them through NATS JetStream (TLS, per-identity nkeys), two
ingest workers (chain checks, validation) writing PostgreSQL (SCRAM roles).

Run ``python benchmarks/bench_floor.py [--tables 200] [--procs 4] [--outage 60]``. First the
bare-engines floor is measured (``benchmarks/floor_floors.py``: the same records through SQLite,
nats-py and COPY the barest way, on a broker of its own without auth or TLS) and the
required-work floor (the same plus only the mandated work: the journal's SHA-256 chain, TLS and
nkey identities on the production broker, every record signed at the table, every message
validated and its hash recomputed, a signature verified per table per batch, the chain heads
written, a ``stored`` message to each table per batch), then, on the authenticated broker and
store, every table's records signed with its own registered key and the ingest storing only
signed records of registered tables:

1. realistic rate: every table deals one round a minute (``--round-s``): the template's records
   of one round spread evenly over the minute, in real time (no clock is compressed: 200 tables
   at one round a minute is the rate the floor sees, so the bench sends that rate); the delay from
   journal commit (the record's time) to PostgreSQL commit (``track_commit_timestamp``), p50 / p99;
2. full speed: every table writes as fast as its journal takes it (SQLite, WAL, ``--sync``,
   ``--per-commit`` records a transaction) for ``--full`` s, then stops: records written per
   second, and records stored in PostgreSQL per second end to end (counted until the store
   holds every record written in the phase); the CPU each stage spent per record beside the
   floor's, and the ratio: floor CPU / link CPU per record is the link's records/s as a fraction of
   the floor's on the same cores (what the target is about on a shared machine; the wall-clock
   ratio is printed too);
3. a broker outage of ``--outage`` s at the realistic rate (the NATS server SIGKILLed, then
   restarted on its store): the time from the restart until the store holds every record;
4. exactly once: every table's journal against the store (count, no doubles, no gaps, nothing
   quarantined, rejected or waiting) and what each of the ``--workers`` ingest processes on the
   one durable consumer stored.

The records are a real bench table's journal (``tablectl bench``) replayed with the sequence
numbers and round numbers of each simulated table, so messages have the real sizes (a round's
``.round`` message carries all its events). Tables run in ``--procs`` processes, each table
with its own journal file and its own forwarder (``controller.floor.forwarder.Forwarder``, as a
table runs it), the forwarders of a process on one asyncio loop and one NATS connection (one
simulator identity allowed those tables' subjects only); the ingest workers are ``tablectl floor
ingest`` processes sharing the durable consumer.

Prints figures beside the targets; exits 1 when the store does not hold every record exactly
once (``--tiny`` runs every phase in seconds with 4 tables: a check that the bench runs).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import multiprocessing as mp
import os
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg

from benchmarks.floor_floors import (
    Floors,
    Load,
    Required,
    RequiredLink,
    measure_floors,
    measure_required,
    postgres_cpu,
    proc_cpu,
)
from controller.configuration import FloorConfig
from controller.floor.certs import make_certs
from controller.floor.chain import register_table
from controller.floor.connect import NatsAuth, create_stream
from controller.floor.forwarder import Forwarder
from controller.floor.identity import FloorAuth
from controller.floor.ingest import IngestConfig
from controller.floor.migrate import migrate
from controller.floor.servers import LocalNats, LocalPostgres
from controller.floor.signing import new_signing_key
from controller.floor.stream import STREAM_MAX_PER_SUBJECT
from controller.journal import NewRecord, SqliteJournal
from controller.journal.meters import meters_for_round
from controller.journal.stored import seq_bounds

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


@dataclass(frozen=True, slots=True)
class Link:
    """How a process of simulated tables reaches the broker: its servers, its identity (one
    simulator identity allowed its tables' subjects only) and the floor's CA."""

    servers: tuple[str, ...]
    credentials: str
    ca: str
    keys: Path
    """The tables' Ed25519 signing keys, TABLE.pem each (every record is signed, as a table does)."""
    share: int = STREAM_MAX_PER_SUBJECT
    """A table's share of the stream (``--table-share``): what the forwarder's credit is made of."""


class SimTable:
    """One simulated table: a journal fed from the template, a forwarder publishing it."""

    def __init__(self, folder: Path, table_id: str, link: Link, sync: str) -> None:
        self.journal = SqliteJournal(folder / f"{table_id}.db")
        self.journal.db.execute(f"PRAGMA synchronous={sync}")
        config = FloorConfig(
            table_id, link.servers, link.credentials, ca=link.ca, signing_key=str(link.keys / f"{table_id}.pem")
        )
        self.forwarder = Forwarder(self.journal.path, config, share=link.share)
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
    link: Link,
    records: list[tuple[str, dict[str, Any], bool]],
    rate: float,
    phase: Any,
    written: Any,
    writer_cpu: Any,
    resent: Any,
    acked: Any,
    refused: Any,
    runs: Any,
    slot: int,
    sync: str,
    per_commit: int,
    profile: Path | None = None,
    patience: float = 600.0,
) -> None:
    """The tables ``ids`` in one process: one writer thread, and one thread running every
    table's forwarder on one asyncio loop over one NATS connection (the forwarder's code as a
    table runs it, without 50 threads fighting over the GIL). ``writer_cpu[slot]``: the writer
    thread's CPU seconds (the forwarders have the rest)."""
    tables = [SimTable(folder, t, link, sync) for t in ids]

    def forwarders() -> None:
        if profile is None:
            asyncio.run(forward_all(tables))
            return
        profiler = cProfile.Profile(time.thread_time)  # the forwarders' thread's CPU, not the wall clock
        try:
            profiler.runcall(asyncio.run, forward_all(tables))
        finally:
            profiler.dump_stats(profile / f"forwarders-{slot}.prof")

    forwarding = threading.Thread(target=forwarders, name="forwarders")
    forwarding.start()
    next_at = time.monotonic()
    count = turn = 0
    while phase.value != STOP:
        if phase.value == IDLE:
            resent[slot] = sum(t.forwarder.status().resent for t in tables)
            acked[slot] = sum(t.forwarder.status().acked for t in tables)
            refused[slot] = sum(t.forwarder.status().refused for t in tables)
            runs[slot] = sum(t.forwarder.status().runs for t in tables)
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
        if turn % 500 == 0:
            resent[slot] = sum(t.forwarder.status().resent for t in tables)
            acked[slot] = sum(t.forwarder.status().acked for t in tables)
            refused[slot] = sum(t.forwarder.status().refused for t in tables)
            runs[slot] = sum(t.forwarder.status().runs for t in tables)
    deadline = time.monotonic() + patience
    for t in tables:  # the backlog sent before stopping
        t.forwarder.wait_acked(t.journal.last_seq, max(0.0, deadline - time.monotonic()))
    for t in tables:
        t.forwarder.ask_stop()
    forwarding.join(30)
    for t in tables:
        t.journal.close()


async def forward_all(tables: list[SimTable]) -> None:
    """Run the tables' forwarders on this loop, each over its own TLS connection (as in production:
    a table is a computer of its own)."""
    conns = [await t.forwarder.connect() for t in tables]
    try:
        await asyncio.gather(*(t.forwarder.run(nc) for t, nc in zip(tables, conns, strict=True)))
    finally:
        for nc in conns:
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


def journal_heads(folder: Path, ids: list[str]) -> dict[str, int]:
    """Each table's last journal record (read only)."""
    heads = {}
    for t in ids:
        db = sqlite3.connect(f"file:{folder / f'{t}.db'}?mode=ro", uri=True)
        try:
            heads[t] = int((seq_bounds(db) or (0, 0))[1])
        finally:
            db.close()
    return heads


def exactly_once(db: str, heads: dict[str, int]) -> tuple[bool, str]:
    """Every table's journal records stored once: per table as many records as the journal
    holds, seq 1 to its last, none twice; nothing quarantined, rejected or left waiting."""
    with psycopg.connect(db, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT table_id, count(*), count(DISTINCT seq), min(seq), max(seq) FROM floor_record GROUP BY table_id"
        ).fetchall()
        others = conn.execute(
            "SELECT (SELECT count(*) FROM floor_quarantine), (SELECT count(*) FROM ingest_reject), "
            "(SELECT count(*) FROM floor_pending), (SELECT count(*) FROM journal_event) + (SELECT count(*) FROM round)"
        ).fetchone()
    assert others is not None
    quarantined, rejected, waiting, rows_stored = (int(x) for x in others)
    got = {str(t): (int(n), int(d), int(lo), int(hi)) for t, n, d, lo, hi in rows}
    missing = doubled = gaps = wrong = 0
    for t, head in heads.items():
        n, distinct, lo, hi = got.get(t, (0, 0, 1, 0))
        missing += max(0, head - distinct)
        doubled += n - distinct
        gaps += (hi - lo + 1) - distinct if n else 0
        wrong += hi != head
    extra = sum(n for t, (n, *_) in got.items() if t not in heads)
    total = sum(heads.values())
    ok = not (missing or doubled or gaps or wrong or extra or quarantined or rejected or waiting) and (
        rows_stored == total
    )
    return ok, (
        f"{total:,} journal records of {len(heads)} tables; stored {sum(n for n, *_ in got.values()):,} "
        f"(event and round rows {rows_stored:,}): missing {missing}, doubled {doubled}, gaps {gaps}, "
        f"heads differing {wrong}, extra {extra}, quarantined {quarantined}, rejected {rejected}, waiting {waiting}"
    )


def worker_stats(path: Path) -> str:
    """What an ingest process said when it stopped (``ingested ... N stored, ...``)."""
    lines = [line for line in path.read_text(errors="replace").splitlines() if line.startswith("ingested")]
    return lines[-1] if lines else "(said nothing)"


def stored_by(line: str) -> int:
    """Records an ingest process stored: as they came, or once their gap filled."""
    return sum(int(n) for n in re.findall(r"(\d+) stored", line))


STAGES = ("writers", "forwarders", "nats-server", "ingest", "postgres")


def tiny(args: argparse.Namespace) -> None:
    """Every phase in seconds, to check the bench runs end to end (nothing it prints is a figure)."""
    args.tables, args.procs, args.workers = 4, 2, 2
    args.realistic, args.full, args.outage, args.settle = 2.0, 1.0, 2.0, 1.0
    args.floors, args.per_commit = 300, 10


def setup_auth(base: Path, ids: list[str], procs: int) -> tuple[FloorAuth, Path, Path, list[Path]]:
    """The floor's CA and identities: the setup one, the ingest's, one simulator per process, and
    the required-work floor's publisher and ingest (their own subjects, stream and durable)."""
    auth = FloorAuth(base / "auth")
    make_certs(auth.folder)
    admin = auth.add_admin()
    ingest = auth.add_ingest("floor-ingest", "FLOOR", "floor-ingest")
    sims = [auth.add_simulator(f"sim-{p}", tuple(ids[p::procs])) for p in range(procs)]
    spec = RequiredLink("", 0, "", "", "", "")
    auth.add_simulator("required-publisher", (spec.table_id,), spec.prefix)
    auth.add_ingest("required-ingest", spec.stream, spec.durable, prefix=spec.prefix)
    return auth, admin, ingest, sims


def signing_keys(folder: Path, ids: list[str]) -> dict[str, str]:
    """A signing key for each table (``folder/TABLE.pem``, 0600): the public keys by table."""
    return {t: new_signing_key(folder / f"{t}.pem") for t in ids}


def register(owner: str, public: dict[str, str]) -> None:
    """Register each table with its public key (``tablectl floor add-table --db``): the ingest,
    run with ``--require-registration --require-signed``, stores only records signed by it."""

    async def go() -> None:
        async with await psycopg.AsyncConnection.connect(owner) as conn:
            async with conn.transaction():
                for table, key in public.items():
                    await register_table(conn, table, key)

    asyncio.run(go())


def required_link(auth: FloorAuth, broker: LocalNats, admin: Path) -> RequiredLink:
    """Where the required-work floor runs: the production broker, with the identities
    :func:`setup_auth` made for it."""
    assert broker.proc is not None
    return RequiredLink(
        broker.url,
        broker.proc.pid,
        str(auth.ca),
        str(auth.creds("required-publisher")),
        str(admin),
        str(auth.creds("required-ingest")),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--procs", type=int, default=4, help="processes the tables run in")
    parser.add_argument("--round-s", type=float, default=60.0, help="seconds between a table's rounds (realistic)")
    parser.add_argument("--realistic", type=float, default=30.0, help="seconds at the realistic rate")
    parser.add_argument("--full", type=float, default=20.0, help="seconds at full speed")
    parser.add_argument(
        "--per-commit", type=int, default=50, help="records per journal transaction at full speed (append_batch)"
    )
    parser.add_argument("--outage", type=float, default=60.0, help="seconds the broker is down")
    parser.add_argument("--workers", type=int, default=2, help="ingest processes on the one durable consumer")
    parser.add_argument(
        "--batch", type=int, default=5000, help="the ingest's messages per transaction (a pull is bounded by bytes too)"
    )
    parser.add_argument("--floors", type=int, default=20_000, help="records for the floor measurements")
    parser.add_argument(
        "--table-share",
        type=int,
        default=STREAM_MAX_PER_SUBJECT,
        help="messages one table may have waiting in the stream on each subject (the broker refuses past it; "
        f"default {STREAM_MAX_PER_SUBJECT}, production's)",
    )
    parser.add_argument("--settle", type=float, default=5.0, help="seconds for connections before measuring")
    parser.add_argument(
        "--profile", type=Path, metavar="DIR", help="write cProfile stats of the ingest workers and forwarders to DIR"
    )
    parser.add_argument(
        "--patience",
        type=float,
        default=600.0,
        help="seconds to wait for a state at the end (the tables' backlog acknowledged, the store holding every "
        "record, the ingest stopped) before the exactly-once check counts what is there",
    )
    parser.add_argument("--tiny", action="store_true", help="every phase in seconds: checks the bench runs")
    parser.add_argument(
        "--sync",
        choices=["FULL", "NORMAL"],
        default="FULL",
        help="the simulated journals' SQLite synchronous setting, and the floors' (default FULL: a real "
        "table syncs every record; NORMAL skips the sync, when 200 journals on this machine's one disk "
        "would measure the disk)",
    )
    args = parser.parse_args()
    if args.tiny:
        tiny(args)
    ok = run(args)
    sys.exit(0 if ok else 1)


@dataclass
class _Run:
    """One run's servers, processes and shared counters (:func:`run`)."""

    args: argparse.Namespace
    broker: LocalNats
    postgres: LocalPostgres
    phase: Any
    written: Any
    resent: Any
    acked: Any
    refused: Any
    runs: Any
    writer_cpu: Any
    db: str = ""
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    procs: list[Any] = field(default_factory=list)

    def total(self) -> int:
        """Records the tables have written so far."""
        return int(sum(self.written[:]))

    def cpu(self) -> dict[str, float]:
        """CPU seconds each stage has spent so far."""
        assert self.broker.proc is not None and self.postgres.proc is not None
        tables = sum(proc_cpu(p.pid) for p in self.procs)
        writers = float(sum(self.writer_cpu[:]))
        return {
            "writers": writers,
            "forwarders": tables - writers,
            "nats-server": proc_cpu(self.broker.proc.pid),
            "ingest": sum(proc_cpu(w.pid) for w in self.workers),
            "postgres": postgres_cpu(self.postgres.proc.pid),
        }

    def start_workers(self, floor_db: Any, ingest_creds: Path, ca: Path, logs: list[Path]) -> None:
        """The ``tablectl floor ingest`` processes on the one durable consumer."""
        args = self.args
        for n, log_path in enumerate(logs):
            profile = ["-m", "cProfile", "-o", str(args.profile / f"ingest-{n}.prof")] if args.profile else []
            with open(log_path, "wb") as out:
                self.workers.append(
                    subprocess.Popen(
                        [sys.executable, *profile]
                        + ["-m", "controller", "floor", "ingest", "--nats", self.broker.url]
                        + ["--db", floor_db.ingest, "--creds", str(ingest_creds), "--ca", str(ca)]
                        + ["--batch", str(args.batch), "--require-registration", "--require-signed"],
                        stdout=out,
                        stderr=subprocess.STDOUT,
                    )
                )

    def start_tables(self, base: Path, ids: list[str], sims: list[Path], ca: Path, records: Any, rate: float) -> Path:
        """The table processes, each a share of the tables; returns their journals' folder."""
        args = self.args
        tables_dir = base / "tables"
        tables_dir.mkdir()
        ctx = mp.get_context("fork")
        for p in range(args.procs):
            link = Link((self.broker.url,), str(sims[p]), str(ca), base / "keys", args.table_share)
            proc = ctx.Process(
                target=table_process,
                args=(
                    tables_dir,
                    ids[p :: args.procs],
                    link,
                    records,
                    rate,
                    self.phase,
                    self.written,
                    self.writer_cpu,
                    self.resent,
                    self.acked,
                    self.refused,
                    self.runs,
                    p,
                    args.sync,
                    args.per_commit,
                    args.profile,
                    args.patience,
                ),
            )
            proc.start()
            self.procs.append(proc)
        return tables_dir

    def realistic(self, rate: float) -> dict[str, float]:
        """Phase 1: every table at a round a minute; prints the delays; the CPU per record."""
        args = self.args
        time.sleep(args.settle)  # forwarders connected, ingest consumer made
        t0, c0, w0 = time.time(), self.cpu(), self.total()
        time.sleep(args.realistic)
        t1 = time.time()
        wait_stored(self.db, self.total(), 120)
        real_cpu = _per_record(c0, self.cpu(), self.total() - w0)
        d = delays(self.db, t0, t1)
        rate_real = len(d) / (t1 - t0) if d else 0.0
        p50 = statistics.median(d) if d else float("nan")
        p99 = d[int(0.99 * (len(d) - 1))] if d else float("nan")
        print(
            f"realistic   {args.tables} tables, a round each every {args.round_s:.0f} s ({rate * args.tables:,.0f} "
            f"records/s): {rate_real:,.0f} event records/s stored; journal commit -> PostgreSQL commit "
            f"p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms over {len(d):,} records (target p99 < 250 ms); "
            f"load {load()}"
        )
        return real_cpu

    def full_speed(self) -> tuple[dict[str, float], float]:
        """Phase 2: write for --full seconds, then stop writing until the store has it all; the CPU
        per record and the records/s end to end."""
        args = self.args
        before_written, before_stored, c0 = self.total(), stored(self.db), self.cpu()
        r0, f0, s0 = sum(self.resent[:]), sum(self.refused[:]), sum(self.runs[:])
        self.phase.value = FULL
        start = time.monotonic()
        time.sleep(args.full)
        self.phase.value = IDLE
        time.sleep(0.2)  # the writers see it
        full_written = self.total() - before_written
        elapsed = time.monotonic() - start
        target = before_stored + full_written
        deadline = time.monotonic() + 600
        while sum(self.acked[:]) < self.total() and time.monotonic() < deadline:
            time.sleep(0.1)  # every record in the broker: the tables' share is done
        c_tables = self.cpu()
        waited = wait_stored(self.db, target, max(0.0, deadline - time.monotonic()))
        c1 = self.cpu()
        # The tables' stages until the broker has every record (after that they only poll their idle
        # journals while the ingest catches up), the floor's own until the store has every record.
        c1_tables = {**c1, **{k: c_tables[k] for k in ("writers", "forwarders")}}
        full_cpu = _per_record(c0, c1_tables, full_written)
        wall = elapsed + (waited if waited is not None else float("nan"))
        e2e = full_written / wall
        used = sum(c1[k] - c0[k] for k in STAGES) / wall
        print(
            f"full speed  {full_written / elapsed:,.0f} records/s written to the journals ({args.per_commit} per "
            f"commit); {e2e:,.0f} records/s end to end into PostgreSQL, the link using {used:.2f} of "
            f"{os.cpu_count()} cores; load {load()}"
        )
        print(
            f"            records sent again (the floor store keeps each once): {sum(self.resent[:]) - r0:,} at full "
            f"speed, {r0:,} before (after a refusal or a timed-out acknowledgement); the broker refused a record "
            f"(a table's share of the stream full) {sum(self.refused[:]) - f0:,} times at full speed, {f0:,} before; "
            f"publishing runs started (each verifies the journal's new records) {sum(self.runs[:]) - s0:,} at full "
            f"speed, {s0:,} before"
        )
        return full_cpu, e2e

    def outage(self) -> None:
        """Phase 3: the broker SIGKILLed for --outage seconds at the realistic rate; the drain time."""
        args = self.args
        self.phase.value = REALISTIC
        wait_stored(self.db, self.total(), 600)
        self.broker.kill(signal.SIGKILL)
        down_at = self.total()
        time.sleep(args.outage)
        backlog = self.total() - down_at
        self.broker.start()
        phase_target = self.total()
        drained = wait_stored(self.db, phase_target, 600)
        drain_text = f"{drained:.1f} s" if drained is not None else "not within 600 s"
        print(
            f"outage      {args.outage:.0f} s broker outage (SIGKILL), {backlog:,} records of backlog: drained "
            f"{drain_text} after the restart (target < 120 s)"
        )
        if drained:
            print(
                f"draining    {(phase_target - down_at) / drained:,.0f} records/s end to end "
                "(journals -> NATS -> PostgreSQL)"
            )

    def exactly_once(self, tables_dir: Path, ids: list[str], logs: list[Path]) -> bool:
        """Phase 4: every table's journal against the store, and what each ingest process stored."""
        args = self.args
        self.phase.value = STOP
        for proc in self.procs:
            proc.join(args.patience)
        wait_stored(self.db, self.total(), args.patience)
        for w in self.workers:
            w.send_signal(signal.SIGTERM)
        for w in self.workers:
            w.wait(args.patience)
        exact, text = exactly_once(self.db, journal_heads(tables_dir, ids))
        said = [worker_stats(path) for path in logs]
        print(f"exactly once {'yes' if exact else 'NO'}: {text}")
        for n, line in enumerate(said):
            print(f"  ingest {n + 1}: {line}")
        share = [stored_by(line) for line in said]
        print(
            f"  the {args.workers} ingest processes stored {' + '.join(f'{x:,}' for x in share)} = {sum(share):,} "
            f"records; load average at the end: {load()}"
        )
        return exact

    def stop(self) -> None:
        """Every process of the run stopped."""
        self.phase.value = STOP
        for proc in self.procs:
            proc.join(60)
        for w in self.workers:
            if w.poll() is None:
                w.send_signal(signal.SIGTERM)
        for w in self.workers:
            try:
                w.wait(30)
            except subprocess.TimeoutExpired:
                w.kill()


def _per_record(before: dict[str, float], after: dict[str, float], n: int) -> dict[str, float]:
    """CPU microseconds a record, by stage, between two looks."""
    return {k: (after[k] - before[k]) / max(n, 1) * 1e6 for k in STAGES}


def _clear_required_rows(owner: str) -> None:
    """The required floor's rows out of the way, before the link's run."""
    with psycopg.connect(owner, autocommit=True) as conn:
        for table in ("journal_event", "round_seat", "wager", "card", "meter", "round", "floor_record"):
            conn.execute(f"TRUNCATE {table}")
        conn.execute("DELETE FROM floor_chain")
        conn.execute("DELETE FROM floor_table")


def run(args: argparse.Namespace) -> bool:
    """One run of every phase; False when the store does not hold every record exactly once."""
    base = Path(tempfile.mkdtemp(prefix="bench-floor-"))
    base.chmod(0o711)
    ids = [f"t{n:03d}" for n in range(args.tables)]
    auth, admin, ingest_creds, sims = setup_auth(base, ids, args.procs)
    broker = LocalNats(base / "nats", auth=auth)
    bare = LocalNats(base / "nats-bare")  # the floor's: the bare engine, no auth, no TLS
    postgres = LocalPostgres(base / "postgres", settings={"track_commit_timestamp": "on"})
    arrays = tuple(mp.Array("q", args.procs) for _ in range(5))
    bench = _Run(args, broker, postgres, mp.Value("i", REALISTIC), *arrays, mp.Array("d", args.procs))
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    try:
        broker.start()
        bare.start()
        postgres.start()
        floor_db = postgres.create_database("floor")
        migrate(floor_db.migrator)
        bench.db = postgres.url_for("postgres", "floor")  # the bench's own look at the store
        config = IngestConfig((broker.url,), floor_db.ingest, stream_max_per_subject=args.table_share)
        asyncio.run(create_stream((broker.url,), NatsAuth(str(admin), str(auth.ca)), config))
        records = template(base)
        rounds = sum(1 for kind, _, _ in records if kind == "RoundSettled")
        rate = len(records) / max(rounds, 1) / args.round_s
        print(f"load average at the start: {load()}")
        assert bare.proc is not None and postgres.proc is not None and broker.proc is not None
        floor_load = Load(args.floors, args.per_commit, args.sync)
        floors = measure_floors(
            base, base / "template.db", bare.url, bare.proc.pid, bench.db, postgres.proc.pid, floor_load
        )
        bare.stop()
        required = measure_required(
            base,
            base / "template.db",
            required_link(auth, broker, admin),
            floor_load,
            tables=args.tables,
            store=(floor_db.ingest, postgres.proc.pid),
        )
        _clear_required_rows(floor_db.owner)
        register(floor_db.registrar, signing_keys(base / "keys", ids))
        logs = [base / f"ingest-{w}.log" for w in range(args.workers)]
        bench.start_workers(floor_db, ingest_creds, auth.ca, logs)
        tables_dir = bench.start_tables(base, ids, sims, auth.ca, records, rate)
        print(
            f"{args.tables} tables in {args.procs} processes, {args.workers} ingest workers (batch {args.batch}), "
            f"{len(records)} template records ({rounds} rounds), journals synchronous={args.sync}; "
            "NATS with TLS and per-identity nkeys, PostgreSQL with SCRAM roles, chain checks on, every record signed "
            "(Ed25519, a key per table, registered; the ingest --require-registration --require-signed); "
            f"a table's share of the stream {args.table_share} messages a subject"
        )
        real_cpu = bench.realistic(rate)
        full_cpu, e2e = bench.full_speed()
        print_cpu(real_cpu, full_cpu, floors, required, e2e)
        bench.outage()
        return bench.exactly_once(tables_dir, ids, logs)
    finally:
        bench.stop()
        broker.kill()
        bare.kill()
        postgres.stop()
        shutil.rmtree(base, ignore_errors=True)


def load() -> str:
    """The machine's 1, 5 and 15 minute load averages."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def print_cpu(real: dict[str, float], full: dict[str, float], floors: Floors, required: Required, e2e: float) -> None:
    """CPU microseconds per record by stage: the link at each rate, the bare-engines floor and the
    required-work floor beside it, and the link's records/s as a fraction of each floor's."""
    floor = {
        "writers": floors.sqlite_batch,
        "forwarders": floors.publish,
        "nats-server": floors.publish_server + floors.fetch_server,
        "ingest": floors.fetch + floors.copy,
        "postgres": floors.copy_server,
    }
    need = required.stages(floors)
    print(
        "CPU us per record   realistic  full speed       bare   required  full/bare  full/required  "
        "(bare: the barest use of the same engine; required: bare + the mandated work)"
    )
    what = {
        "writers": "SQLite WAL inserts, same rows, same commits | + SHA-256 chain",
        "forwarders": "publish_async of the same messages | + message building, signing, a TLS connection per table",
        "nats-server": "the server's share of that publish + fetch/ack | + TLS, permissions, the stored messages",
        "ingest": "fetch + ack + COPY client | + TLS, validation, hash of the content, a signature a table a "
        "batch, the stored messages",
        "postgres": "COPY of the same rows into temporary tables, no upsert | into the real tables, chain heads",
    }
    for k in STAGES:
        f, r = floor[k], need[k]
        ratio = f"{full[k] / f:9.1f}x" if f > 0 else "        -"  # a server's share can round to no tick
        ratio_r = f"{full[k] / r:13.1f}x" if r > 0 else "             -"
        print(f"  {k:<17} {real[k]:9.0f}  {full[k]:10.0f}  {f:9.0f}  {r:9.0f}  {ratio}  {ratio_r}  {what[k]}")
    link_sum = sum(full.values())
    bare_sum, need_sum = floors.total(), required.total(floors)
    print(
        f"  {'sum':<17} {sum(real.values()):9.0f}  {link_sum:10.0f}  {bare_sum:9.0f}  {need_sum:9.0f}  "
        f"{link_sum / bare_sum:9.1f}x  {link_sum / need_sum:13.1f}x  the CPU one record costs end to end"
    )
    print(
        f"  of the required floor: signature checks {required.signatures:.1f} us, the stored messages "
        f"{required.tell:.1f} us (clients) + {required.tell_server:.1f} us (nats-server) a record"
    )
    cores = os.cpu_count() or 1
    floor_rate = cores * 1e6 / bare_sum
    print(
        f"ratio       end to end / bare-engines floor: {bare_sum / link_sum:.2f}x by CPU per record "
        f"(the link at most {cores * 1e6 / link_sum:,.0f} records/s on {cores} cores, the floor {floor_rate:,.0f}); "
        f"{e2e / floor_rate:.2f}x by wall clock on this shared machine ({e2e:,.0f} records/s measured)"
    )
    print(
        f"            end to end / required-work floor: {need_sum / link_sum:.2f}x (target >= 0.85x); the "
        f"required-work floor / bare-engines floor: {bare_sum / need_sum:.2f}x (the most any link doing the "
        "mandated work can reach)"
    )


if __name__ == "__main__":
    threading.current_thread().name = "bench_floor"
    main()
