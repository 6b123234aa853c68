"""The floors under the floor link, for ``bench_floor.py``: CPU time per record of each stage
done the barest way the same engines allow, with the same records, in the same run.

- SQLite: the journal's rows inserted with no hashing or JSON, WAL, one commit per batch;
- NATS publish: nats-py ``publish_async`` of the same messages (subjects, sizes, ``Nats-Msg-Id``)
  into a stream of their own, no journal behind them;
- NATS fetch + ack: the same messages pulled back from that stream by a durable pull consumer
  (``fetch``) and acknowledged, nothing done with them;
- PostgreSQL COPY: the rows the ingest makes of those messages, COPYed into temporary tables
  (no parsing, no upsert), one transaction per 1,000 messages.

Beside it, the **required-work floor** (:func:`measure_required`): the bare engines plus only the
work the floor link must do, each done the barest way: the journal's SHA-256 chain over each
record's canonical text as the rows are inserted, with the journal's ``synchronous`` (FULL, as a
table runs it); each record's messages built from the journal rows (``messages_for``) and
published over one TLS connection per table with nkey identities on the production broker (the
link's own, with its permissions), connections made before the measurement as a table keeps
its own open; fetch and ack over TLS; every message validated
(:func:`controller.floor.validate.check_message`, which also makes the rows) and its hash
recomputed over its canonical content (``content_hash_ok``); every record signed with the
table's Ed25519 key as its messages are built (``sign_record``), and one signature verified per
table per batch (``signature_ok``: each hash binds the one before it, so the signature on a
table's last record of a batch vouches for the run; a table's run is ``per_commit`` records, as
the simulated tables write them at full speed); after each batch, one ``stored`` message per
table of the batch published to that table and read there (``Stored``, ``decode_to_table``: the
acknowledgement traffic); and the rows COPYed into the
store's real tables (indexed, logged: ``journal_event``, ``round`` and its children,
``floor_record``) with each table's chain head and ``floor_table`` row written per batch, by the
store's own writer (:func:`controller.floor.chain._write`) without the chain's checks. What is
left between it and the link is work the link does beyond what is mandated.

Each figure is CPU seconds of the Python process doing it (``time.process_time``) plus those of
the server it talks to (``/proc/<pid>/stat``), per journal record. CPU rather than wall time,
because this machine is shared: the sum over the stages bounds the records per second two
cores can carry, whatever else runs.
"""

from __future__ import annotations

import asyncio
import functools
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nats
import psycopg
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from nats.js.api import AckPolicy, ConsumerConfig, StorageType, StreamConfig

from controller.floor.ingest import parse_batch
from controller.floor.messages import Message, messages_for
from controller.floor.signing import public_hex, sign_record
from controller.floor.validate import check_message, content_hash_ok
from controller.journal.outbox import Outbox
from controller.journal.store import GENESIS, record_hash

__all__ = [
    "proc_cpu",
    "postgres_cpu",
    "Floors",
    "Required",
    "RequiredLink",
    "measure_floors",
    "measure_required",
    "template_messages",
]

_TICK = os.sysconf("SC_CLK_TCK")

STORED_WAIT_S = 600.0
"""How long the stored-message floor waits for its messages before it gives up (a loaded machine's
delivery, not the figure: the figure is CPU time)."""


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
class Load:
    """What the floors are measured over, the same for each measure: ``records`` journal records
    (the template's, repeated), inserted ``per_commit`` a transaction with SQLite's ``synchronous``
    set to ``sync``."""

    records: int = 20_000
    per_commit: int = 50
    sync: str = "FULL"


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


@dataclass(frozen=True, slots=True)
class Required:
    """CPU microseconds per journal record of the required-work floor's stages (the COPY is the
    bare floor's: the same rows)."""

    records: int
    sqlite_chain: float
    """SQLite as the bare floor, plus the journal's SHA-256 chain of each record's canonical text."""
    publish: float
    publish_server: float
    fetch: float
    """fetch + ack over TLS with the ingest's identity (the client's CPU)."""
    fetch_server: float
    checks: float
    """Every message validated and its record's hash recomputed over its canonical content."""
    store: float = 0.0
    """The rows COPYed into the store's real tables, the chain heads written (the client's CPU)."""
    store_server: float = 0.0
    signatures: float = 0.0
    """One signature verified per table per batch (included in ``checks``; shown on its own)."""
    tell: float = 0.0
    """The ``stored`` messages published after each batch, one per table, and read at the tables
    (both clients' CPU)."""
    tell_server: float = 0.0

    def stages(self, bare: Floors) -> dict[str, float]:
        """By stage, as ``bench_floor.py`` prints them (the store's when measured, else the bare COPY)."""
        stored = self.store or self.store_server
        return {
            "writers": self.sqlite_chain,
            "forwarders": self.publish,
            "nats-server": self.publish_server + self.fetch_server + self.tell_server,
            "ingest": self.fetch + self.checks + self.tell + (self.store if stored else bare.copy),
            "postgres": self.store_server if stored else bare.copy_server,
        }

    def total(self, bare: Floors) -> float:
        """The required-work floor of the whole path."""
        return sum(self.stages(bare).values())


@dataclass(frozen=True, slots=True)
class RequiredLink:
    """Where the required-work floor talks to the production broker: its URL and PID, the CA,
    and the identities it uses (a publisher allowed ``<prefix>.<table>.>``, the setup identity that
    makes the stream, an ingest identity of ``stream`` and ``durable``)."""

    url: str
    pid: int
    ca: str
    publisher: str
    admin: str
    ingest: str
    prefix: str = "floorreq"
    table_id: str = "t-floor"
    stream: str = "FLOORREQ"
    durable: str = "floor-required"


def template_messages(
    journal: Path, table_id: str = "t-floor", prefix: str = "floorraw"
) -> tuple[list[tuple[int, str, str]], list[Message]]:
    """The template journal's records (seq, kind, data text) and the messages they make."""
    outbox = Outbox(journal)
    try:
        raw = outbox.after(0, 1_000_000)
        messages = [m for r in raw for m in messages_for(r, table_id, prefix, outbox.between)]
    finally:
        outbox.close()
    return [(r.seq, r.kind, r.data) for r in raw], messages


def _cpu_us(run: Callable[[], None], server: Callable[[], float], n: int) -> tuple[float, float]:
    c0, s0 = time.process_time(), server()
    run()
    return (time.process_time() - c0) / n * 1e6, (server() - s0) / n * 1e6


def _sqlite(
    path: Path, rows: list[tuple[int, str, str]], n: int, per_commit: int, sync: str, chain: bool = False
) -> None:
    db = sqlite3.connect(str(path), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={sync}")
    db.execute(
        "CREATE TABLE IF NOT EXISTS records (seq INTEGER PRIMARY KEY, at REAL, kind TEXT, event INTEGER, data TEXT, "
        "prev TEXT, hash TEXT)"
    )
    start = int(db.execute("SELECT coalesce(max(seq), 0) FROM records").fetchone()[0])
    h = GENESIS
    for first in range(0, n, per_commit):
        db.execute("BEGIN IMMEDIATE")
        if chain:  # the journal's chain: each record's hash over the one before and its canonical text
            batch = []
            for i in range(first, min(n, first + per_commit)):
                _, kind, text = rows[i % len(rows)]
                prev, h = h, record_hash(h, start + i + 1, 0.0, kind, True, text)
                batch.append((start + i + 1, 0.0, kind, text, prev, h))
        else:
            batch = [
                (start + i + 1, 0.0, rows[i % len(rows)][1], rows[i % len(rows)][2], h, h)
                for i in range(first, min(n, first + per_commit))
            ]
        db.executemany("INSERT INTO records VALUES (?, ?, ?, 1, ?, ?, ?)", batch)
        db.execute("COMMIT")
    db.close()


async def _publish(
    url: str,
    messages: list[Message],
    n_records: int,
    per_record: float,
    window: int,
    options: dict[str, Any] | None = None,
) -> None:
    """Publish the messages (repeated to ``n_records`` records); without ``options`` (the bare
    broker) the stream is made here too."""
    nc = await nats.connect(url, **(options or {}))
    js = nc.jetstream(publish_async_max_pending=window)
    try:
        if options is None:
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


async def _fetch(
    url: str,
    count: int,
    batch: int,
    options: dict[str, Any] | None = None,
    where: tuple[str, str, str] = ("floorraw.>", "FLOORRAW", "raw"),
) -> list[tuple[str, str | None, bytes]]:
    """Pull ``count`` messages (``where``: subjects, stream, durable) and acknowledge them."""
    nc = await nats.connect(url, **(options or {}))
    got: list[tuple[str, str | None, bytes]] = []
    subjects, stream, durable = where
    try:
        js = nc.jetstream()
        sub = await js.pull_subscribe(
            subjects, durable=durable, stream=stream, config=ConsumerConfig(ack_policy=AckPolicy.EXPLICIT)
        )
        deadline = time.monotonic() + STORED_WAIT_S
        while len(got) < count:
            try:
                taken = await sub.fetch(batch, timeout=5.0)
            except nats.errors.TimeoutError:
                # Nothing within the pull's wait: a loaded machine's delivery; wait for the state.
                if time.monotonic() > deadline:
                    raise RuntimeError(f"pull floor: {len(got)} of {count} messages in {STORED_WAIT_S:.0f} s") from None
                continue
            for m in taken:
                await m.ack()
                got.append((m.subject, (m.headers or {}).get("Nats-Msg-Id"), m.data))
        await nc.flush()
    finally:
        await nc.close()
    return got


def _copy(
    db_url: str, messages: list[tuple[str, str | None, bytes]]
) -> tuple[Callable[[], None], psycopg.Connection[Any]]:
    """COPY the rows of ``messages`` (parsed now, outside the measurement) when called, over the
    connection returned beside it (open, its temporary tables made): the caller closes it after
    reading the server's CPU, so the backend's share is still a live process's (an ended one's
    reaches the postmaster's count only once it reaps it: under load, after the reading)."""
    batch_rows = [parse_batch(messages[i : i + 1000], "floorraw").rows() for i in range(0, len(messages), 1000)]
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

    conn = psycopg.connect(db_url)
    for name, cols in columns.items():
        conn.execute(f"CREATE TEMP TABLE floor_{name} ({cols}) ON COMMIT DELETE ROWS")
    conn.commit()

    def run() -> None:
        for batch in batch_rows:
            with conn.transaction(), conn.cursor() as cur:
                for name in columns:
                    rows: list[tuple[Any, ...]] = getattr(batch, name)
                    if rows:
                        with cur.copy(f"COPY floor_{name} FROM STDIN") as copy:
                            for row in rows:
                                copy.write_row(row)

    return run, conn


def measure_floors(
    folder: Path,
    template_journal: Path,
    nats_url: str,
    nats_pid: int,
    db_url: str,
    postgres_pid: int,
    load: Load,
    window: int = 256,
) -> Floors:
    """Measure every floor over ``load`` (``window``: the publishes in flight)."""
    n, per_commit, sync = load.records, load.per_commit, load.sync
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
    copying, conn = _copy(db_url, fetched)
    try:
        copy, copy_server = _cpu_us(copying, lambda: postgres_cpu(postgres_pid), n)
    finally:
        conn.close()
    return Floors(n, sqlite_one, sqlite_batch, publish, publish_server, fetch_us, fetch_server, copy, copy_server)


async def _publish_per_table(
    url: str,
    raw: list[Any],
    n: int,
    tables: int,
    table_id: str,
    prefix: str,
    options: dict[str, Any],
    server: Callable[[], float],
    sign: Callable[[str, int, str, str, str], str] | None = None,
) -> tuple[float, float, int]:
    """Build every record's messages (``messages_for``, as the forwarder does, each record signed
    with ``sign``) and publish them over
    ``tables`` connections (one per table, made before the measurement), the template's records
    dealt out to them in turn; CPU microseconds per record of this process and of the server, and
    the messages published (what the pull floor then takes: counted, not estimated from the
    template's average, which could ask for one message more than there is and wait for it)."""
    from controller.floor.forwarder import RECORD_HEADER
    from controller.floor.publish import Publisher

    by_seq = {r.seq: r for r in raw}

    def between(first: int, last: int) -> list[Any]:
        return [by_seq[s] for s in range(first, last + 1) if s in by_seq]

    conns = [await nats.connect(url, **options) for _ in range(max(1, tables))]
    publishers = [Publisher(nc) for nc in conns]
    try:
        c0, s0 = time.process_time(), server()
        futures: list[asyncio.Future[Any]] = []
        published = 0
        for i in range(n):
            record = raw[i % len(raw)]
            p = publishers[(i // len(raw)) % len(publishers)]
            for m in messages_for(record, table_id, prefix, between, 0, sign):
                futures.append(await p.publish(m.subject, m.payload, {RECORD_HEADER: m.msg_id}))
                published += 1
            if len(futures) >= 4096:
                await asyncio.gather(*futures)
                futures.clear()
        await asyncio.gather(*futures)
        return (time.process_time() - c0) / n * 1e6, (server() - s0) / n * 1e6, published
    finally:
        for nc in conns:
            await nc.close()


def _store_writes(messages: list[tuple[str, str | None, bytes]], prefix: str) -> list[Any]:
    """The store's writes (``chain._Writes``) of ``messages`` in batches of 1,000, made before the
    measurement: each repetition of the template is a table of its own (the k-th message of a
    record goes to table k: its own keys, whatever order the stream kept), each batch's chain
    heads and ``floor_table`` rows as the ingest writes them."""
    from controller.floor.chain import _seen, _Writes
    from controller.floor.validate import FloorRecord

    out: list[Any] = []
    seen_before: dict[int, int] = {}
    for first in range(0, len(messages), 1000):
        w = _Writes()
        heads: dict[str, tuple[int, str]] = {}
        for subject, msg_id, payload in messages[first : first + 1000]:
            r = check_message(subject, msg_id, payload, prefix)
            if not isinstance(r, FloorRecord) or r.cls == "meters":
                continue  # a round's meters are checked against its stored round: no rows of their own
            k = seen_before.get(r.seq, 0)
            seen_before[r.seq] = k + 1
            table = f"{r.table}-{k}"
            for name in ("events", "seats", "wagers", "cards", "meters", "rounds"):
                getattr(w.rows, name).extend((table, *row[1:]) for row in getattr(r.rows, name))
            w.records.append((table, r.seq, r.prev, r.hash, r.mac, True, r.body_sha256, r.cls, r.sig))
            if table in w.tables:
                w.tables[r.table] = w.tables.pop(table)
            _seen(w, r)
            w.tables[table] = w.tables.pop(r.table)
            if r.seq > heads.get(table, (0, ""))[0]:
                heads[table] = (r.seq, r.hash)
        w.chains = [(t, seq, h, 0, "0" * 64) for t, (seq, h) in sorted(heads.items())]
        out.append(w)
    return out


def _store(db_url: str, writes: list[Any], server: Callable[[], float], n: int) -> tuple[float, float]:
    """Write ``writes`` into the store's real tables, one transaction a batch, as the ingest does."""
    from controller.floor.chain import _write

    async def go() -> tuple[float, float]:
        async with await psycopg.AsyncConnection.connect(db_url) as conn:
            c0, s0 = time.process_time(), server()
            for w in writes:
                async with conn.transaction(), conn.cursor() as cur:
                    await _write(cur, w)
            return (time.process_time() - c0) / n * 1e6, (server() - s0) / n * 1e6

    return asyncio.run(go())


def _checks(
    messages: list[tuple[str, str | None, bytes]], prefix: str, public_key: str | None = None, run_length: int = 50
) -> Callable[[], None]:
    """Validate every message and recompute its record's hash over its canonical content; with
    ``public_key``, verify the signature of the last record of each run of ``run_length`` records
    in a batch of 1,000 messages, and of each batch's last (one a table a batch)."""
    from controller.floor.signing import signature_ok
    from controller.floor.validate import FloorRecord

    def run() -> None:
        for first in range(0, len(messages), 1000):
            in_run = 0
            last: FloorRecord | None = None
            for subject, msg_id, payload in messages[first : first + 1000]:
                r = check_message(subject, msg_id, payload, prefix)
                content_hash_ok(r, None)
                if public_key is None or not isinstance(r, FloorRecord) or r.cls == "meters":
                    continue
                last, in_run = r, in_run + 1
                if in_run == run_length:
                    _verify(public_key, r)
                    in_run, last = 0, None
            if public_key is not None and last is not None:
                _verify(public_key, last)

    def _verify(key: str, r: FloorRecord) -> None:
        if not signature_ok(key, r.sig, r.table, r.seq, r.prev, r.hash, r.mac):
            raise AssertionError(f"seq {r.seq}: the required floor's own signature does not verify")

    return run


def _runs(messages: int, run_length: int) -> list[int]:
    """The tables (runs of ``run_length`` records) in each batch of 1,000 of ``messages``."""
    return [max(1, -(-min(1000, messages - first) // run_length)) for first in range(0, messages, 1000)]


async def _tell(
    url: str,
    ingest: dict[str, Any],
    table: dict[str, Any],
    prefix: str,
    table_id: str,
    runs: list[int],
    server: Callable[[], float],
    n: int,
) -> tuple[float, float]:
    """After each batch, one ``stored`` message a table of the batch (``runs``) published by the
    ingest's identity and read and checked by the table's; CPU microseconds per record of this
    process (both sides) and of the server."""
    from controller.floor.channel import Stored, decode_to_table, to_table_subject

    sender = await nats.connect(url, **ingest)
    receiver = await nats.connect(url, **table)
    want = sum(runs)
    got = 0
    done = asyncio.Event()

    async def take(msg: Any) -> None:
        nonlocal got
        decode_to_table(msg.subject, msg.data, prefix)
        got += 1
        if got >= want:
            done.set()

    try:
        await receiver.subscribe(to_table_subject(prefix, table_id), cb=take)
        await receiver.flush()
        subject = to_table_subject(prefix, table_id, Stored.TYPE)
        c0, s0 = time.process_time(), server()
        seq = 0
        for tables in runs:
            for _ in range(tables):
                seq += 1
                await sender.publish(subject, Stored(table_id, seq, f"{seq:064x}", time.time()).payload())
            await sender.flush()
        try:
            # A wait for a state, not a time: on a loaded machine the messages take long to arrive.
            await asyncio.wait_for(done.wait(), STORED_WAIT_S)
        except TimeoutError:
            raise RuntimeError(
                f"stored floor: {got} of {want} stored messages arrived in {STORED_WAIT_S:.0f} s"
            ) from None
        return (time.process_time() - c0) / n * 1e6, (server() - s0) / n * 1e6
    finally:
        await sender.close()
        await receiver.close()


def measure_required(
    folder: Path,
    template_journal: Path,
    link: RequiredLink,
    load: Load,
    tables: int = 200,
    store: tuple[str, int] | None = None,
) -> Required:
    """Measure the required-work floor over ``load``, on the production broker of ``link`` (TLS,
    nkey identities), publishing over ``tables`` connections; with ``store`` (a migrated store's URL
    for the ingest role, and the postmaster's PID) the rows go into its real tables, else the COPY
    is the bare floor's (:func:`measure_floors`)."""
    from controller.floor.connect import NatsAuth, create_stream, nats_auth_options
    from controller.floor.ingest import IngestConfig

    n, per_commit, sync = load.records, load.per_commit, load.sync
    rows, _ = template_messages(template_journal, link.table_id, link.prefix)
    sqlite_chain, _ = _cpu_us(lambda: _sqlite(folder / "required.db", rows, n, per_commit, sync, chain=True), float, n)
    # published in full before it is pulled back: the stream holds all of it (a table's share of a
    # production stream is far smaller: the tables wait for the ingest instead)
    stream = IngestConfig(
        (link.url,), "", subject_prefix=link.prefix, stream=link.stream, stream_max_per_subject=10 * n + 10_000
    )
    asyncio.run(create_stream((link.url,), NatsAuth(link.admin, link.ca), stream))
    publisher = nats_auth_options(NatsAuth(link.publisher, link.ca))
    ingest = nats_auth_options(NatsAuth(link.ingest, link.ca))
    outbox = Outbox(template_journal)
    try:
        raw = outbox.after(0, 1_000_000)
    finally:
        outbox.close()
    key = Ed25519PrivateKey.generate()
    sign = functools.partial(sign_record, key)
    publish, publish_server, published = asyncio.run(
        _publish_per_table(
            link.url, raw, n, tables, link.table_id, link.prefix, publisher, lambda: proc_cpu(link.pid), sign
        )
    )
    fetched: list[tuple[str, str | None, bytes]] = []
    where = (f"{link.prefix}.>", link.stream, link.durable)

    def fetch() -> None:
        fetched.extend(asyncio.run(_fetch(link.url, published, 1000, ingest, where)))

    fetch_us, fetch_server = _cpu_us(fetch, lambda: proc_cpu(link.pid), n)
    public = public_hex(key)
    checks, _ = _cpu_us(_checks(fetched, link.prefix, public, per_commit), float, n)
    unsigned, _ = _cpu_us(_checks(fetched, link.prefix), float, n)
    runs = _runs(len(fetched), per_commit)
    tell, tell_server = asyncio.run(
        _tell(link.url, ingest, publisher, link.prefix, link.table_id, runs, lambda: proc_cpu(link.pid), n)
    )
    stored = stored_server = 0.0
    if store is not None:
        writes = _store_writes(fetched, link.prefix)
        stored, stored_server = _store(store[0], writes, lambda: postgres_cpu(store[1]), n)
    return Required(
        n,
        sqlite_chain,
        publish,
        publish_server,
        fetch_us,
        fetch_server,
        checks,
        stored,
        stored_server,
        max(0.0, checks - unsigned),
        tell,
        tell_server,
    )
