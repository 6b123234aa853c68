"""The floors under the floor link, for ``bench_floor.py``: CPU time per record of each stage
done the barest way the same engines allow, with the same records, in the same run.

- SQLite: the journal's rows inserted with no hashing or JSON, WAL, one commit per batch;
- NATS publish: nats-py ``publish_async`` of the same messages (subjects, sizes, ``Nats-Msg-Id``)
  into a stream of their own, no journal behind them;
- NATS fetch + ack: the same messages pulled back from that stream by a durable pull consumer
  (``fetch``) and acknowledged, nothing done with them;
- PostgreSQL COPY: the rows the ingest makes of those messages, COPYed into temporary tables
  (no parsing, no upsert), one transaction per 1,000 messages.

Each figure is CPU seconds of the Python process doing it (``time.process_time``) plus those of
the server it talks to (``/proc/<pid>/stat``), per journal record. CPU rather than wall time,
because this machine is shared: the sum over the stages bounds the records per second two
cores can carry, whatever else runs.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nats
import psycopg
from nats.js.api import AckPolicy, ConsumerConfig, StorageType, StreamConfig

from controller.floor.ingest import parse_batch
from controller.floor.messages import Message, messages_for
from controller.journal.outbox import Outbox

__all__ = ["proc_cpu", "postgres_cpu", "Floors", "measure_floors", "template_messages"]

_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used, all its threads."""
    try:
        f = _stat(pid)
    except OSError:
        return 0.0
    return (int(f[11]) + int(f[12])) / _TICK


def postgres_cpu(postmaster: int) -> float:
    """CPU seconds of a PostgreSQL server: the postmaster, its live backends and workers, and
    those that have ended (the postmaster's waited-for children)."""
    try:
        f = _stat(postmaster)
    except OSError:
        return 0.0
    total = sum(int(v) for v in f[11:15]) / _TICK
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                child = _stat(int(entry))
            except OSError:
                continue
            if int(child[1]) == postmaster:
                total += (int(child[11]) + int(child[12])) / _TICK
    return total


@dataclass(frozen=True, slots=True)
class Floors:
    """CPU microseconds per journal record of each stage done the barest way."""

    records: int
    sqlite_one: float
    sqlite_batch: float
    publish: float
    publish_server: float
    fetch: float
    fetch_server: float
    copy: float
    copy_server: float

    def total(self) -> float:
        """The floor of the whole path (batched journal writes)."""
        return (
            self.sqlite_batch
            + self.publish
            + self.publish_server
            + self.fetch
            + self.fetch_server
            + self.copy
            + self.copy_server
        )


def template_messages(journal: Path, table_id: str = "t-floor") -> tuple[list[tuple[int, str, str]], list[Message]]:
    """The template journal's records (seq, kind, data text) and the messages they make."""
    outbox = Outbox(journal)
    try:
        raw = outbox.after(0, 1_000_000)
        messages = [m for r in raw for m in messages_for(r, table_id, "floorraw", outbox.between)]
    finally:
        outbox.close()
    return [(r.seq, r.kind, r.data) for r in raw], messages


def _cpu_us(run: Callable[[], None], server: Callable[[], float], n: int) -> tuple[float, float]:
    c0, s0 = time.process_time(), server()
    run()
    return (time.process_time() - c0) / n * 1e6, (server() - s0) / n * 1e6


def _sqlite(path: Path, rows: list[tuple[int, str, str]], n: int, per_commit: int, sync: str) -> None:
    db = sqlite3.connect(str(path), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={sync}")
    db.execute(
        "CREATE TABLE IF NOT EXISTS records (seq INTEGER PRIMARY KEY, at REAL, kind TEXT, event INTEGER, data TEXT, "
        "prev TEXT, hash TEXT)"
    )
    start = int(db.execute("SELECT coalesce(max(seq), 0) FROM records").fetchone()[0])
    h = "0" * 64
    for first in range(0, n, per_commit):
        db.execute("BEGIN IMMEDIATE")
        db.executemany(
            "INSERT INTO records VALUES (?, ?, ?, 1, ?, ?, ?)",
            [
                (start + i + 1, 0.0, rows[i % len(rows)][1], rows[i % len(rows)][2], h, h)
                for i in range(first, min(n, first + per_commit))
            ],
        )
        db.execute("COMMIT")
    db.close()


async def _publish(url: str, messages: list[Message], n_records: int, per_record: float, window: int) -> None:
    nc = await nats.connect(url)
    js = nc.jetstream(publish_async_max_pending=window)
    try:
        await js.add_stream(
            StreamConfig(name="FLOORRAW", subjects=["floorraw.>"], storage=StorageType.FILE, duplicate_window=120.0)
        )
        count = int(n_records * per_record)
        for i in range(count):
            m = messages[i % len(messages)]
            await js.publish_async(m.subject, m.payload, headers={"Nats-Msg-Id": f"raw/{i}"})
        await js.publish_async_completed()
    finally:
        await nc.close()


async def _fetch(url: str, count: int, batch: int) -> list[tuple[str, str | None, bytes]]:
    nc = await nats.connect(url)
    got: list[tuple[str, str | None, bytes]] = []
    try:
        js = nc.jetstream()
        sub = await js.pull_subscribe(
            "floorraw.>", durable="raw", stream="FLOORRAW", config=ConsumerConfig(ack_policy=AckPolicy.EXPLICIT)
        )
        while len(got) < count:
            for m in await sub.fetch(batch, timeout=5.0):
                await m.ack()
                got.append((m.subject, None, m.data))
        await nc.flush()
    finally:
        await nc.close()
    return got


def _copy(db_url: str, messages: list[tuple[str, str | None, bytes]]) -> Callable[[], None]:
    """COPY the rows of ``messages`` (parsed now, outside the measurement) when called."""
    batches = [parse_batch(messages[i : i + 1000], "floorraw") for i in range(0, len(messages), 1000)]
    columns = {
        "events": "table_id text, seq bigint, at float8, at_epoch float8, kind text, class text, data jsonb",
        "rounds": "table_id text, seq bigint, round_no bigint, game text, config text, started float8, ended float8, "
        "void bool, seats int, handle bigint, win bigint, paid bigint, collected bigint, commission bigint, "
        "late_bets int, faults int, first_seq bigint, recall jsonb",
        "seats": "table_id text, seq bigint, round_no bigint, seat integer, cards text, wagered bigint, net bigint",
        "wagers": "table_id text, seq bigint, round_no bigint, seat integer, spot text, cents bigint, result text, "
        "net bigint, commission bigint",
        "cards": "table_id text, seq bigint, round_no bigint, idx integer, card text, dealt_to text",
        "meters": "table_id text, seq bigint, round_no bigint, scope text, name text, value bigint",
    }

    def run() -> None:
        with psycopg.connect(db_url) as conn:
            for name, cols in columns.items():
                conn.execute(f"CREATE TEMP TABLE floor_{name} ({cols}) ON COMMIT DELETE ROWS")
            conn.commit()
            for batch in batches:
                with conn.transaction(), conn.cursor() as cur:
                    for name in columns:
                        rows: list[tuple[Any, ...]] = getattr(batch, name)
                        if rows:
                            with cur.copy(f"COPY floor_{name} FROM STDIN") as copy:
                                for row in rows:
                                    copy.write_row(row)

    return run


def measure_floors(
    folder: Path,
    template_journal: Path,
    nats_url: str,
    nats_pid: int,
    db_url: str,
    postgres_pid: int,
    n: int = 20_000,
    per_commit: int = 50,
    sync: str = "NORMAL",
    window: int = 256,
) -> Floors:
    """Measure every floor over ``n`` journal records (the template's, repeated)."""
    rows, messages = template_messages(template_journal)
    per_record = len(messages) / len(rows)
    nothing = float
    one_n = min(n, 5_000)
    sqlite_one, _ = _cpu_us(lambda: _sqlite(folder / "floor-one.db", rows, one_n, 1, sync), nothing, one_n)
    sqlite_batch, _ = _cpu_us(lambda: _sqlite(folder / "floor-batch.db", rows, n, per_commit, sync), nothing, n)
    publish, publish_server = _cpu_us(
        lambda: asyncio.run(_publish(nats_url, messages, n, per_record, window)), lambda: proc_cpu(nats_pid), n
    )
    fetched: list[tuple[str, str | None, bytes]] = []

    def fetch() -> None:
        fetched.extend(asyncio.run(_fetch(nats_url, int(n * per_record), 1000)))

    fetch_us, fetch_server = _cpu_us(fetch, lambda: proc_cpu(nats_pid), n)
    copy, copy_server = _cpu_us(_copy(db_url, fetched), lambda: postgres_cpu(postgres_pid), n)
    return Floors(n, sqlite_one, sqlite_batch, publish, publish_server, fetch_us, fetch_server, copy, copy_server)
