"""The floor ingest: a durable JetStream consumer that writes every table's messages into the
PostgreSQL floor store (docs/floor.md).

Messages are pulled in batches from the durable consumer; each is checked alone
(:mod:`controller.floor.validate`: a bad one is recorded in ``ingest_reject``, logged and
terminated on the stream, the rest of its batch goes on); the batch's records are written in one
transaction by the chain's rules (:mod:`controller.floor.chain`: stored, an identical
redelivery, quarantined, or waiting for a gap), and acknowledged only after it commits. Several ingest
processes may share the durable consumer. While PostgreSQL is unreachable the batch is kept
(JetStream told it is still in progress) and written when the database is back.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import nats
import nats.errors
import nats.js.errors
import psycopg
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, StorageType, StreamConfig

from controller.floor.chain import ChainPolicy, Outcome, Reject, Verdict, store_messages
from controller.floor.channel import heartbeat_subject
from controller.floor.connect import NatsAuth, nats_auth_options
from controller.floor.messages import TABLE_ID
from controller.floor.tell import Beats, store_heartbeats, stored_heads, tell_stored
from controller.floor.validate import MAX_MESSAGE_BYTES, BadMessage, FloorRecord, Rows, check_message, excerpt

__all__ = [
    "IngestConfig",
    "Batch",
    "check_one",
    "parse_batch",
    "write_batch",
    "ensure_stream",
    "run_ingest",
    "IngestStats",
]

if TYPE_CHECKING:
    from controller.floor.metrics import IngestMetrics

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
    stream_max_age_days: float = 90.0
    """The stream keeps messages this long (its ``max_age``): well past the 30 days a table's
    journal may wait for a floor that is down, and the tables keep their own journals anyway."""
    stream_max_bytes: int = -1
    """At most this much is kept on each broker (its ``max_bytes``; the oldest goes first; -1: no
    byte limit, only the age: JetStream refuses a limit larger than the storage it has)."""
    credentials: str | None = None
    """The ingest's NATS credentials (an nkey seed or a ``.creds`` file: controller.floor.connect)."""
    ca: str | None = None
    """The CA file that signed the brokers' certificates (TLS)."""
    cert: str | None = None
    key: str | None = None
    journal_keys: Mapping[str, bytes] = field(default_factory=dict)
    """Journal HMAC keys by table id: those tables' records must carry a valid HMAC."""
    require_registration: bool = False
    """Store only tables registered beforehand (``tablectl floor add-table --db``)."""
    require_signed: bool = False
    """Store only records signed by their table's registered public key (docs/floor.md, "Signed records")."""
    max_pending: int = 10_000
    """Records of one table that may wait for a gap to fill (past that: delivered again later)."""
    max_reject_rows: int = 10_000
    """Rejected messages kept per table in ``ingest_reject``; past that only counted
    (``ingest_reject_tally``: docs/floor.md, "One table, one feed")."""
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
    stored: int = 0
    duplicates: int = 0
    quarantined: int = 0
    pending: int = 0
    deferred: int = 0
    released: int = 0

    def add(self, outcome: Outcome) -> None:
        """Count one batch's outcome."""
        self.rejected += outcome.count(Verdict.REJECTED)
        self.stored += outcome.count(Verdict.STORED)
        self.duplicates += outcome.count(Verdict.DUPLICATE)
        self.quarantined += len(outcome.quarantined)
        self.pending += outcome.count(Verdict.PENDING)
        self.deferred += outcome.count(Verdict.DEFERRED)
        self.released += outcome.released


@dataclass
class Batch:
    """One batch of messages, each checked: the records (with their rows) and the rejects, in
    the order they came (``items``)."""

    items: list[FloorRecord | Reject] = field(default_factory=list)

    @property
    def records(self) -> list[FloorRecord]:
        return [i for i in self.items if isinstance(i, FloorRecord)]

    @property
    def rejects(self) -> list[Reject]:
        return [i for i in self.items if isinstance(i, Reject)]

    def rows(self) -> Rows:
        """Every record's rows together (what the batch would store if every record chains)."""
        rows = Rows()
        for r in self.records:
            rows.extend(r.rows)
        return rows

    @property
    def events(self) -> list[tuple[Any, ...]]:
        return self.rows().events

    @property
    def rounds(self) -> list[tuple[Any, ...]]:
        return self.rows().rounds

    @property
    def seats(self) -> list[tuple[Any, ...]]:
        return self.rows().seats

    @property
    def wagers(self) -> list[tuple[Any, ...]]:
        return self.rows().wagers

    @property
    def cards(self) -> list[tuple[Any, ...]]:
        return self.rows().cards

    @property
    def meters(self) -> list[tuple[Any, ...]]:
        return self.rows().meters


TELL_EVERY_S = 0.5
"""The tables whose records a batch stored are told what the floor holds at most this often (one
query for all of them), not after every batch."""


def _record_id(headers: Mapping[str, str] | None) -> str | None:
    """The record a message names (``Tablectl-Record``; ``Nats-Msg-Id`` from a forwarder before it)."""
    if not headers:
        return None
    return headers.get("Tablectl-Record") or headers.get("Nats-Msg-Id")


class _Broker:
    """The ingest's view of its NATS connection, for its log: an outage said once when it starts
    and once when it ends (with how long), the broker's permission refusals kept for the reason
    a request timed out."""

    def __init__(self) -> None:
        self.down_since: float | None = None
        self.refused: str | None = None
        self.said: set[str] = set()
        self.closing = False
        """The ingest is closing its connection: a disconnection then is no outage."""

    async def error(self, exc: Exception) -> None:
        text = str(exc)
        if "permissions violation" in text.lower():
            self.refused = text.strip()
            self.once(logging.ERROR, f"the broker refused the ingest's identity: {self.refused}")

    async def disconnected(self) -> None:
        if self.down_since is None and not self.closing:
            self.down_since = time.monotonic()
            log.warning("NATS connection lost: broker outage or network; reconnecting (records wait in the stream)")

    async def reconnected(self) -> None:
        if self.down_since is not None:
            log.warning("NATS connection back after %.1f s", time.monotonic() - self.down_since)
            self.down_since = None

    def once(self, level: int, text: str) -> None:
        """Log ``text`` the first time only (a state that lasts is said once, not at every retry)."""
        if text not in self.said:
            self.said.add(text)
            log.log(level, "%s", text)


async def _wait_for_stream(js: Any, config: IngestConfig, broker: _Broker, stop: threading.Event) -> bool:
    """Until the stream is there (made here when this identity may: an open broker); says once,
    clearly, why not (missing and not allowed to make it, or the identity refused). False when
    stopped first."""
    missing = f"the floor stream {config.stream} does not exist"
    while not stop.is_set():
        try:
            await js.stream_info(config.stream)
            if broker.said:
                log.info("the floor stream %s is there: ingesting", config.stream)
            return True
        except nats.js.errors.NotFoundError:
            if broker.said:  # it tried and was refused: wait for the setup identity to make it
                await asyncio.sleep(2.0)
                continue
            try:
                await ensure_stream(js, config)
                log.info("made the floor stream %s (subjects %s.>)", config.stream, config.subject_prefix)
                return True
            except (TimeoutError, nats.errors.Error) as exc:
                why = broker.refused or f"{type(exc).__name__}: {exc}"
                broker.once(
                    logging.ERROR,
                    f"{missing} and this identity may not make it ({why}): make it with `tablectl floor "
                    "create-stream` as the setup identity (docs/floor.md, Production); waiting for it",
                )
        except (TimeoutError, nats.errors.Error) as exc:
            if broker.refused:
                broker.once(
                    logging.ERROR,
                    f"the ingest's identity may not read the floor stream {config.stream} ({broker.refused}): "
                    f"is it the identity made for stream {config.stream} and durable {config.durable} "
                    "(tablectl floor init-auth --stream --durable)? waiting",
                )
            elif broker.down_since is None:
                broker.once(logging.WARNING, f"the floor stream {config.stream}: no answer ({exc}); retrying")
        await asyncio.sleep(2.0)
    return False


async def _tell(nc: Any, db: psycopg.AsyncConnection[Any] | None, prefix: str, tables: set[str]) -> None:
    """Tell ``tables`` what the store holds of each; a failure is logged (the next batch or heartbeat tells again)."""
    if not tables or db is None or db.closed:
        return
    try:
        await tell_stored(nc, prefix, await stored_heads(db, tables))
    except (psycopg.Error, nats.errors.Error, OSError) as exc:
        log.warning("could not tell %d tables what is stored: %s", len(tables), str(exc).strip()[:200])


async def _heartbeats(nc: Any, db: psycopg.AsyncConnection[Any] | None, beats: Beats, prefix: str) -> None:
    """Write the heartbeats waiting and answer each table with what the store holds of it."""
    waiting = beats.drain()
    if not waiting or db is None or db.closed:
        return
    try:
        await store_heartbeats(db, waiting)
    except psycopg.Error as exc:
        log.warning("could not store %d heartbeats: %s", len(waiting), str(exc).strip()[:200])
        return
    await _tell(nc, db, prefix, {b.table for b in waiting})


def check_one(subject: str, msg_id: str | None, payload: bytes, prefix: str = "floor") -> FloorRecord | Reject:
    """One message checked (:func:`controller.floor.validate.check_message`), or why it is refused."""
    try:
        return check_message(subject, msg_id, payload, prefix)
    except BadMessage as exc:
        token = subject[len(prefix) + 1 :].split(".")[0] if subject.startswith(prefix + ".") else None
        table = token if token and TABLE_ID.fullmatch(token) else None
        return Reject(subject, msg_id, payload, exc.reason, table)


def parse_batch(messages: Iterable[tuple[str, str | None, bytes]], prefix: str = "floor") -> Batch:
    """The messages (subject, message id, payload) checked, in order; one that cannot be read or
    fails a check is kept as a :class:`Reject` with the reason."""
    return Batch([check_one(subject, msg_id, payload, prefix) for subject, msg_id, payload in messages])


async def write_batch(conn: psycopg.AsyncConnection[Any], batch: Batch, policy: ChainPolicy | None = None) -> Outcome:
    """Store ``batch`` in one transaction by the chain's rules (:mod:`controller.floor.chain`)."""
    return await store_messages(conn, batch.items, policy or ChainPolicy())


async def ensure_stream(js: Any, config: IngestConfig) -> bool:
    """Create the floor stream when it is missing; True when it made it."""
    try:
        await js.stream_info(config.stream)
        return False
    except nats.js.errors.NotFoundError:
        pass
    await js.add_stream(
        StreamConfig(
            name=config.stream,
            subjects=[f"{config.subject_prefix}.>"],
            storage=StorageType.FILE,
            num_replicas=config.replicas,
            duplicate_window=120.0,
            max_age=config.stream_max_age_days * 86400,
            max_bytes=config.stream_max_bytes if config.stream_max_bytes > 0 else None,
            max_msg_size=MAX_MESSAGE_BYTES,  # a larger one is refused at the broker, never stored
        )
    )
    return True


async def _one_by_one(db: psycopg.AsyncConnection[Any], batch: Batch, policy: ChainPolicy) -> Outcome:
    """Each message in its own transaction; one the store refuses is kept in ``ingest_reject``."""
    total = Outcome()
    for item in batch.items:
        try:
            one = await store_messages(db, [item], policy)
        except psycopg.OperationalError:
            raise
        except psycopg.Error as exc:
            reason = f"the floor store refused it: {type(exc).__name__}: {str(exc).strip()[:300]}"
            table = item.table if isinstance(item, FloorRecord) else item.table
            one = await store_messages(db, [Reject(item.subject, item.msg_id, item.payload, reason, table)], policy)
        total.verdicts += one.verdicts
        total.reasons += one.reasons
        total.released += one.released
        total.quarantined += one.quarantined
        total.rejects_not_kept += one.rejects_not_kept
    return total


def _log(batch: Batch, outcome: Outcome) -> None:
    lines = outcome.verdicts.count(Verdict.REJECTED) - outcome.rejects_not_kept  # a line per reject kept
    for item, verdict, reason in zip(batch.items, outcome.verdicts, outcome.reasons, strict=True):
        if verdict is Verdict.REJECTED and lines > 0:
            lines -= 1
            log.warning("rejected %s (%s): %s; %s", item.subject[:200], item.msg_id, reason, excerpt(item.payload, 160))
    if outcome.rejects_not_kept:
        log.warning(
            "%d more rejected messages counted, not kept (their tables' --max-reject-rows reached: ingest_reject_tally)",
            outcome.rejects_not_kept,
        )
    for table, seq, subject, reason in outcome.quarantined:
        log.warning("quarantined %s seq %d (%s): %s", table, seq, subject[:200], reason)


async def _settle(m: Any, verdict: Verdict) -> None:
    """Tell JetStream what became of a message: a reject is terminated (never delivered again), a
    deferred one handed back for later, every other acknowledged (its fate is in the store)."""
    try:
        if verdict is Verdict.REJECTED:
            await m.term()
        elif verdict is Verdict.DEFERRED:
            await m.nak(delay=5.0)
        else:
            await m.ack()
    except nats.errors.Error as exc:  # the broker will deliver it again: the store makes that harmless
        log.warning("could not settle %s: %s", m.subject, exc)


async def run_ingest(
    config: IngestConfig,
    stop: threading.Event,
    stats: IngestStats | None = None,
    metrics: IngestMetrics | None = None,
) -> IngestStats:
    """Ingest until ``stop`` is set; returns what was done (and counts it in ``metrics``)."""
    stats = stats or IngestStats()
    policy = ChainPolicy(
        keys=dict(config.journal_keys),
        require_registration=config.require_registration,
        require_signed=config.require_signed,
        max_pending=config.max_pending,
        prefix=config.subject_prefix,
        max_reject_rows=config.max_reject_rows,
    )
    options: dict[str, Any] = {
        "servers": list(config.servers),
        "allow_reconnect": True,
        "max_reconnect_attempts": -1,
        "reconnect_time_wait": 0.5,
        "connect_timeout": 2,
        "name": "tablectl-floor-ingest",
    }
    options.update(nats_auth_options(NatsAuth(config.credentials, config.ca, config.cert, config.key)))

    broker = _Broker()
    backoff = 0.2
    while True:
        try:
            nc = await nats.connect(
                **options,
                error_cb=broker.error,
                disconnected_cb=broker.disconnected,
                reconnected_cb=broker.reconnected,
            )
            break
        except (TimeoutError, OSError, nats.errors.Error) as exc:
            if stop.is_set():
                return stats
            log.warning("NATS unreachable (%s); retrying in %.1f s", exc, backoff)
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 5.0)
    js = nc.jetstream(timeout=10)
    db: psycopg.AsyncConnection[Any] | None = None
    beats = Beats(config.subject_prefix)
    try:
        await nc.subscribe(heartbeat_subject(config.subject_prefix, "*"), queue=config.durable, cb=beats.take)
        while True:
            try:
                if not await _wait_for_stream(js, config, broker, stop):
                    return stats
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
                broker.once(
                    logging.ERROR,
                    f"cannot open the durable consumer {config.durable} on {config.stream} "
                    f"({broker.refused or exc}); retrying",
                )
                await asyncio.sleep(1.0)
        backlog_seen = beats_seen = db_tried = told_at = 0.0
        to_tell: set[str] = set()
        while not stop.is_set():
            if to_tell and time.monotonic() - told_at >= TELL_EVERY_S:
                told_at = time.monotonic()
                await _tell(nc, db, config.subject_prefix, to_tell)
                to_tell = set()
            if time.monotonic() - beats_seen >= 1.0 and beats.waiting:
                beats_seen = time.monotonic()
                if (
                    db is None or db.closed
                ) and time.monotonic() - db_tried >= 5.0:  # an idle floor has no batch to connect
                    db_tried = time.monotonic()
                    try:
                        db = await psycopg.AsyncConnection.connect(config.db_url, connect_timeout=5)
                    except psycopg.OperationalError:
                        db = None  # the batch loop below says why, and keeps its batch
                await _heartbeats(nc, db, beats, config.subject_prefix)
            try:
                msgs = await sub.fetch(config.batch, timeout=config.fetch_wait_s)
            except (TimeoutError, nats.errors.TimeoutError):
                continue
            except nats.errors.Error as exc:  # the broker is away: the client reconnects by itself
                log.warning("fetch: %s", exc)
                await asyncio.sleep(0.5)
                continue
            batch = parse_batch(((m.subject, _record_id(m.headers), m.data) for m in msgs), config.subject_prefix)
            last_progress, backoff = time.monotonic(), 0.2
            while True:
                try:
                    if db is None or db.closed:
                        db = await psycopg.AsyncConnection.connect(config.db_url, connect_timeout=5)
                    outcome = await write_batch(db, batch, policy)
                    break
                except psycopg.OperationalError as exc:
                    stats.db_retries += 1
                    if metrics is not None:
                        metrics.db_retries.inc()
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
                    outcome = await _one_by_one(db, batch, policy)
                    break
            _log(batch, outcome)
            for m, verdict in zip(msgs, outcome.verdicts, strict=True):
                await _settle(m, verdict)
            to_tell.update(r.table for r in batch.records)  # told at most every TELL_EVERY_S, not per batch
            stats.batches += 1
            stats.messages += len(msgs)
            stats.add(outcome)
            if metrics is not None:
                metrics.observe(batch.items, outcome)
                if time.monotonic() - backlog_seen > 5.0:
                    backlog_seen = time.monotonic()
                    try:
                        metrics.backlog.set((await sub.consumer_info()).num_pending or 0)
                    except (TimeoutError, nats.errors.Error):
                        pass
        return stats
    finally:
        broker.closing = True
        try:
            await asyncio.wait_for(nc.close(), 5)
        except Exception:  # already gone
            pass
        if db is not None:
            await db.close()
