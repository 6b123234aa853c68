"""The floor ingest: a durable JetStream consumer that writes every table's messages into the
PostgreSQL floor store (docs/floor.md).

Messages are pulled in batches from the durable consumer; each batch is written in one
transaction with upserts keyed by (table, journal seq), so a message stored twice changes
nothing; the batch is acknowledged only after the transaction commits. Several ingest
processes may share the durable consumer. While PostgreSQL is unreachable the batch is kept
(JetStream told it is still in progress) and written when the database is back.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import nats
import nats.errors
import nats.js.errors
import orjson
import psycopg
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, StorageType, StreamConfig

from controller.floor.connect import NatsAuth, nats_auth_options
from controller.journal.meters import meters_for_round

__all__ = ["IngestConfig", "Batch", "parse_batch", "write_batch", "ensure_stream", "run_ingest", "IngestStats"]

log = logging.getLogger("tablectl.floor.ingest")


@dataclass(frozen=True, slots=True)
class IngestConfig:
    """Where the ingest reads and writes, and how."""

    servers: tuple[str, ...]
    db_url: str
    subject_prefix: str = "floor"
    stream: str = "FLOOR"
    durable: str = "floor-ingest"
    batch: int = 500
    ack_wait_s: float = 30.0
    replicas: int = 1
    credentials: str | None = None
    """The ingest's NATS credentials (an nkey seed or a ``.creds`` file: controller.floor.connect)."""
    ca: str | None = None
    """The CA file that signed the brokers' certificates (TLS)."""
    cert: str | None = None
    key: str | None = None
    fetch_wait_s: float = 0.1
    """How long one pull waits for messages when none is ready. nats-py's ``fetch`` returns at once
    what is ready, but when nothing is it waits this long, or until the batch is full, before
    handing over what came meanwhile: at a table's pace (a few records a second) this wait is
    the message's delay, so it stays short (1 s made a p99 delay of about 1 s)."""


@dataclass
class IngestStats:
    """What an ingest process has done so far."""

    batches: int = 0
    messages: int = 0
    rejected: int = 0
    db_retries: int = 0


@dataclass
class Batch:
    """One batch of messages as rows for the floor store's tables."""

    events: list[tuple[Any, ...]] = field(default_factory=list)
    rounds: list[tuple[Any, ...]] = field(default_factory=list)
    seats: list[tuple[Any, ...]] = field(default_factory=list)
    wagers: list[tuple[Any, ...]] = field(default_factory=list)
    cards: list[tuple[Any, ...]] = field(default_factory=list)
    meters: list[tuple[Any, ...]] = field(default_factory=list)
    tables: dict[str, list[Any]] = field(default_factory=dict)
    rejects: list[tuple[Any, ...]] = field(default_factory=list)


def _table_seen(
    batch: Batch, table: str, seq: int, at: float, game: str | None, config: str | None, round_no: int | None
) -> None:
    seen = batch.tables.get(table)
    if seen is None:
        batch.tables[table] = [game, config, at, at, seq, round_no]
        return
    seen[0] = seen[0] or game
    seen[1] = seen[1] or config
    seen[2], seen[3], seen[4] = min(seen[2], at), max(seen[3], at), max(seen[4], seq)
    if round_no is not None:
        seen[5] = max(seen[5] or 0, round_no)


def _add_round(batch: Batch, table: str, seq: int, at: float, data: dict[str, Any]) -> None:
    recall = data["recall"]
    number = int(recall["round"])
    settlement = recall["settlement"]
    record = {k: v for k, v in data.items() if k != "recall"}
    meters = meters_for_round(
        {"record": record, "settlement": settlement, "late_bets": recall["late_bets"], "faults": recall["faults"]}
    )
    events = recall["events"]
    handle = 0
    for seat, entry in record["seats"].items():
        wagered = sum(entry["wagers"].values())
        handle += wagered
        settled = settlement["seats"][seat] if settlement else None
        batch.seats.append(
            (table, seq, number, int(seat), str(entry.get("cards", "")), wagered, settled["net"] if settled else None)
        )
        for spot, cents in entry["wagers"].items():
            w = settled["wagers"].get(spot) if settled else None
            batch.wagers.append(
                (
                    table,
                    seq,
                    number,
                    int(seat),
                    spot,
                    cents,
                    w["result"] if w else None,
                    w["net"] if w else None,
                    (w or {}).get("commission", 0),
                )
            )
    for card in recall["cards"]:
        batch.cards.append((table, seq, number, int(card["index"]), card["card"], card["to"]))
    batch.rounds.append(
        (
            table,
            seq,
            number,
            record["game"],
            record.get("table"),
            recall["started"],
            recall["ended"],
            bool(recall["void"]),
            len(record["seats"]),
            handle,
            settlement["house_net"] if settlement else 0,
            meters.get(("table", "paid"), 0),
            meters.get(("table", "collected"), 0),
            meters.get(("table", "commission"), 0),
            len(recall["late_bets"]),
            int(recall["faults"]),
            int(events[0]["seq"]) if events else seq,
            orjson.dumps(data).decode(),
        )
    )
    _table_seen(batch, table, seq, at, record["game"], record.get("table"), number)


def parse_batch(messages: Iterable[tuple[str, str | None, bytes]]) -> Batch:
    """Rows for the messages (subject, message id, payload); a message that cannot be read is
    kept in ``rejects``."""
    batch = Batch()
    for subject, msg_id, payload in messages:
        try:
            m = orjson.loads(payload)
            table, seq, at, kind, data = m["table"], int(m["seq"]), float(m["at"]), m["kind"], m["data"]
            cls = subject.rsplit(".", 1)[-1]
            if cls == "round":
                _add_round(batch, table, seq, at, data)
            elif cls == "meters":
                number = int(data["round"])
                batch.meters.extend((table, seq, number, scope, name, int(v)) for scope, name, v in data["meters"])
                _table_seen(batch, table, seq, at, None, None, number)
            elif cls in ("event", "fault", "supervisor"):
                batch.events.append((table, seq, at, at, kind, cls, orjson.dumps(data).decode()))
                _table_seen(batch, table, seq, at, None, None, None)
            else:
                raise ValueError(f"unknown subject kind {cls!r}")
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
            batch.rejects.append((subject, msg_id, payload, f"{type(exc).__name__}: {exc}"))
    return batch


_SQL = {
    "events": "INSERT INTO journal_event (table_id, seq, at, at_epoch, kind, class, data) "
    "VALUES (%s, %s, to_timestamp(%s), %s, %s, %s, %s::jsonb) ON CONFLICT DO NOTHING",
    "rounds": "INSERT INTO round (table_id, seq, round_no, game, config, started_at, ended_at, void, seats, handle, win, "
    "paid, collected, commission, late_bets, faults, first_seq, recall) VALUES (%s, %s, %s, %s, %s, to_timestamp(%s), "
    "to_timestamp(%s), %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb) ON CONFLICT DO NOTHING",
    "seats": "INSERT INTO round_seat (table_id, seq, round_no, seat, cards, wagered, net) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
    "wagers": "INSERT INTO wager (table_id, seq, round_no, seat, spot, cents, result, net, commission) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
    "cards": "INSERT INTO card (table_id, seq, round_no, idx, card, dealt_to) "
    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
    "meters": "INSERT INTO meter (table_id, seq, round_no, scope, name, value) "
    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
    "rejects": "INSERT INTO ingest_reject (subject, msg_id, payload, error) VALUES (%s, %s, %s, %s)",
}

_TABLE_SQL = (
    "INSERT INTO floor_table (table_id, game, config, first_at, last_at, last_seq, last_round) "
    "VALUES (%s, %s, %s, to_timestamp(%s), to_timestamp(%s), %s, %s) ON CONFLICT (table_id) DO UPDATE SET "
    "game = coalesce(excluded.game, floor_table.game), config = coalesce(excluded.config, floor_table.config), "
    "first_at = least(floor_table.first_at, excluded.first_at), last_at = greatest(floor_table.last_at, excluded.last_at), "
    "last_seq = greatest(floor_table.last_seq, excluded.last_seq), "
    "last_round = greatest(floor_table.last_round, excluded.last_round)"
)


_STAGED = {
    # rows -> (stage table columns, target table, target columns, select expressions)
    "events": (
        "table_id text, seq bigint, at float8, at_epoch float8, kind text, class text, data jsonb",
        "journal_event",
        "table_id, seq, at, at_epoch, kind, class, data",
        "table_id, seq, to_timestamp(at), at_epoch, kind, class, data",
    ),
    "seats": (
        "table_id text, seq bigint, round_no bigint, seat integer, cards text, wagered bigint, net bigint",
        "round_seat",
        "table_id, seq, round_no, seat, cards, wagered, net",
        "table_id, seq, round_no, seat, cards, wagered, net",
    ),
    "wagers": (
        "table_id text, seq bigint, round_no bigint, seat integer, spot text, cents bigint, result text, net bigint, "
        "commission bigint",
        "wager",
        "table_id, seq, round_no, seat, spot, cents, result, net, commission",
        "table_id, seq, round_no, seat, spot, cents, result, net, commission",
    ),
    "cards": (
        "table_id text, seq bigint, round_no bigint, idx integer, card text, dealt_to text",
        "card",
        "table_id, seq, round_no, idx, card, dealt_to",
        "table_id, seq, round_no, idx, card, dealt_to",
    ),
    "meters": (
        "table_id text, seq bigint, round_no bigint, scope text, name text, value bigint",
        "meter",
        "table_id, seq, round_no, scope, name, value",
        "table_id, seq, round_no, scope, name, value",
    ),
}
"""The high-volume rows go in with COPY into a temporary table, then one idempotent INSERT."""


async def write_batch(conn: psycopg.AsyncConnection[Any], batch: Batch) -> None:
    """Write ``batch`` in one transaction (every insert idempotent)."""
    async with conn.transaction():
        async with conn.cursor() as cur:
            for name, (columns, _, _, _) in _STAGED.items():
                await cur.execute(f"CREATE TEMP TABLE IF NOT EXISTS stage_{name} ({columns}) ON COMMIT DELETE ROWS")
            for name, (_, target, cols, exprs) in _STAGED.items():
                rows = getattr(batch, name)
                if not rows:
                    continue
                async with cur.copy(f"COPY stage_{name} ({cols}) FROM STDIN") as copy:
                    for row in rows:
                        await copy.write_row(row)
                await cur.execute(
                    f"INSERT INTO {target} ({cols}) SELECT {exprs} FROM stage_{name} ON CONFLICT DO NOTHING"
                )
            for name in ("rounds", "rejects"):
                rows = getattr(batch, name)
                if rows:
                    await cur.executemany(_SQL[name], rows)
            if batch.tables:
                rows = [
                    (t, *v) for t, v in sorted(batch.tables.items())
                ]  # one lock order: no deadlocks between workers
                await cur.executemany(_TABLE_SQL, rows)


async def ensure_stream(js: Any, config: IngestConfig) -> None:
    """Create the floor stream when it is missing."""
    try:
        await js.stream_info(config.stream)
        return
    except nats.js.errors.NotFoundError:
        pass
    await js.add_stream(
        StreamConfig(
            name=config.stream,
            subjects=[f"{config.subject_prefix}.>"],
            storage=StorageType.FILE,
            num_replicas=config.replicas,
            duplicate_window=120.0,
        )
    )


async def _one_by_one(db: psycopg.AsyncConnection[Any], msgs: list[Any]) -> Batch:
    """Write each message in its own transaction; keep the ones refused in ``ingest_reject``."""
    total = Batch()
    for m in msgs:
        msg_id = (m.headers or {}).get("Nats-Msg-Id")
        one = parse_batch([(m.subject, msg_id, m.data)])
        try:
            await write_batch(db, one)
        except psycopg.OperationalError:
            raise
        except psycopg.Error as exc:
            refused = Batch(rejects=[(m.subject, msg_id, m.data, f"{type(exc).__name__}: {exc}")])
            await write_batch(db, refused)
            one = refused
        total.rejects += one.rejects
    return total


async def run_ingest(config: IngestConfig, stop: threading.Event, stats: IngestStats | None = None) -> IngestStats:
    """Ingest until ``stop`` is set; returns what was done."""
    stats = stats or IngestStats()
    options: dict[str, Any] = {
        "servers": list(config.servers),
        "allow_reconnect": True,
        "max_reconnect_attempts": -1,
        "reconnect_time_wait": 0.5,
        "connect_timeout": 2,
        "name": "tablectl-floor-ingest",
    }
    options.update(nats_auth_options(NatsAuth(config.credentials, config.ca, config.cert, config.key)))

    async def quiet(*_: Any) -> None:
        pass

    backoff = 0.2
    while True:
        try:
            nc = await nats.connect(**options, error_cb=quiet, disconnected_cb=quiet, reconnected_cb=quiet)
            break
        except (TimeoutError, OSError, nats.errors.Error) as exc:
            if stop.is_set():
                return stats
            log.warning("NATS unreachable (%s); retrying in %.1f s", exc, backoff)
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 5.0)
    js = nc.jetstream(timeout=10)
    db: psycopg.AsyncConnection[Any] | None = None
    try:
        while True:
            try:
                await ensure_stream(js, config)
                sub = await js.pull_subscribe(
                    f"{config.subject_prefix}.>",
                    durable=config.durable,
                    stream=config.stream,
                    config=ConsumerConfig(
                        ack_policy=AckPolicy.EXPLICIT,
                        deliver_policy=DeliverPolicy.ALL,
                        ack_wait=config.ack_wait_s,
                        max_ack_pending=20_000,
                        max_deliver=-1,
                    ),
                )
                break
            except (TimeoutError, nats.errors.Error) as exc:
                if stop.is_set():
                    return stats
                log.warning("floor stream not ready (%s); retrying", exc)
                await asyncio.sleep(1.0)
        while not stop.is_set():
            try:
                msgs = await sub.fetch(config.batch, timeout=config.fetch_wait_s)
            except (TimeoutError, nats.errors.TimeoutError):
                continue
            except nats.errors.Error as exc:  # the broker is away: the client reconnects by itself
                log.warning("fetch: %s", exc)
                await asyncio.sleep(0.5)
                continue
            batch = parse_batch((m.subject, (m.headers or {}).get("Nats-Msg-Id"), m.data) for m in msgs)
            last_progress, backoff = time.monotonic(), 0.2
            while True:
                try:
                    if db is None or db.closed:
                        db = await psycopg.AsyncConnection.connect(config.db_url, connect_timeout=5)
                    await write_batch(db, batch)
                    break
                except psycopg.OperationalError as exc:
                    stats.db_retries += 1
                    log.warning("floor database: %s; keeping the batch", str(exc).strip().splitlines()[0])
                    if db is not None:
                        await db.close()
                        db = None
                    if stop.is_set():
                        return stats  # not acknowledged: delivered again
                    if time.monotonic() - last_progress > config.ack_wait_s / 3:
                        for m in msgs:  # still ours: JetStream must not hand them to another worker yet
                            await m.in_progress()
                        last_progress = time.monotonic()
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, 5.0)
                except psycopg.Error:  # a message the store refuses: each alone, the refused ones kept aside
                    assert db is not None
                    batch = await _one_by_one(db, msgs)
                    break
            for m in msgs:
                await m.ack()
            stats.batches += 1
            stats.messages += len(msgs)
            stats.rejected += len(batch.rejects)
        return stats
    finally:
        try:
            await asyncio.wait_for(nc.close(), 5)
        except Exception:  # already gone
            pass
        if db is not None:
            await db.close()
