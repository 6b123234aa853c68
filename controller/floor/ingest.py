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
import nats.aio.client
import nats.errors
import nats.js.errors
import psycopg
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from psycopg.rows import TupleRow

from controller.floor._tell import Beats, store_heartbeats, stored_heads, tell_stored
from controller.floor.chain import ChainPolicy, Outcome, Reject, Verdict, store_messages
from controller.floor.channel import heartbeat_subject
from controller.floor.connect import NatsAuth, nats_auth_options
from controller.floor.messages import TABLE_ID
from controller.floor.pull import Puller
from controller.floor.stream import STREAM_MAX_PER_SUBJECT, ensure_stream, missing_limits, tables_queued
from controller.floor.validate import BadMessage, FloorRecord, Rows, check_message, excerpt

__all__ = ["IngestConfig", "parse_batch", "run_ingest"]

if TYPE_CHECKING:
    from nats.aio.client import Client
    from nats.aio.msg import Msg
    from nats.js import JetStreamContext

    from controller.floor.metrics import IngestMetrics

log = logging.getLogger("tablectl.floor.ingest")

STOP_POLL_S = 0.2
"""How often a wait that no message ends (NATS connecting) looks whether the ingest was told to stop."""


@dataclass(frozen=True, slots=True)
class IngestConfig:
    """Where the ingest reads and writes, and how."""

    servers: tuple[str, ...]
    db_url: str
    subject_prefix: str = "floor"
    stream: str = "FLOOR"
    durable: str = "floor-ingest"
    batch: int = 5000
    """Messages per PostgreSQL transaction at most (a pull is bounded by ``pull_max_bytes`` too, so a
    long batch stays small in memory; docs/benchmarks.md measures the floor at this batch)."""
    ack_wait_s: float = 30.0
    replicas: int = 1
    stream_max_age_days: float = 90.0
    """The stream keeps messages this long (its ``max_age``): well past the 30 days a table's
    journal may wait for a floor that is down, and the tables keep their own journals anyway."""
    stream_max_bytes: int = -1
    """At most this much is kept on each broker (its ``max_bytes``; past it the broker refuses new
    messages, which wait in the tables' journals; -1: no byte limit, only the age: JetStream refuses
    a limit larger than the storage it has)."""
    stream_max_per_subject: int = STREAM_MAX_PER_SUBJECT
    """A table's share of the stream: messages waiting on one of its subjects, past which the broker
    refuses its next ones there (controller.floor.stream; docs/floor.md, "One table, one feed")."""
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
    pull_max_bytes: int = 8 * 1024 * 1024
    """At most about this many bytes a batch (the pull's ``max_bytes``: controller.floor.pull), so a
    batch long in messages stays small in memory whatever the messages' sizes."""
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
    doing: str = "starting"
    """What the ingest is doing (or was, when it stopped): said in the log line of a stop."""

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


TELL_EVERY_S = 0.5
"""The tables whose records a batch stored are told what the floor holds at most this often (one
query for all of them), not after every batch."""

SHARES_EVERY_S = 5.0
"""How often the ingest looks at each table's share of the stream (:class:`_Shares`)."""


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


async def _wait_for_stream(js: JetStreamContext, config: IngestConfig, broker: _Broker, stop: threading.Event) -> bool:
    """Until the stream is there (made here when this identity may: an open broker); says once,
    clearly, why not (missing and not allowed to make it, or the identity refused). False when
    stopped first."""
    missing = f"the floor stream {config.stream} does not exist"
    while not stop.is_set():
        try:
            info = await js.stream_info(config.stream)
            if broker.said:
                log.info("the floor stream %s is there: ingesting", config.stream)
            lacks = missing_limits(info.config)
            if lacks:
                broker.once(
                    logging.WARNING,
                    f"the floor stream {config.stream} was made without the tables' shares ({lacks}): one "
                    'table\'s flood delays every other table; make it again (docs/floor.md, "One table, one feed")',
                )
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


async def _tell(nc: Client, db: psycopg.AsyncConnection[TupleRow] | None, prefix: str, tables: set[str]) -> None:
    """Tell ``tables`` what the store holds of each; a failure is logged (the next batch or heartbeat tells again)."""
    if not tables or db is None or db.closed:
        return
    try:
        await tell_stored(nc, prefix, await stored_heads(db, tables))
    except (psycopg.Error, nats.errors.Error, OSError) as exc:
        log.warning("could not tell %d tables what is stored: %s", len(tables), str(exc).strip()[:200])


async def _heartbeats(nc: Client, db: psycopg.AsyncConnection[TupleRow] | None, beats: Beats, prefix: str) -> None:
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


async def write_batch(
    conn: psycopg.AsyncConnection[TupleRow], batch: Batch, policy: ChainPolicy | None = None
) -> Outcome:
    """Store ``batch`` in one transaction by the chain's rules (:mod:`controller.floor.chain`)."""
    return await store_messages(conn, batch.items, policy or ChainPolicy())


async def _one_by_one(db: psycopg.AsyncConnection[TupleRow], batch: Batch, policy: ChainPolicy) -> Outcome:
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


async def _settle(m: Msg, verdict: Verdict) -> None:
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


class _Shares:
    """Each table's share of the stream as the broker holds it (controller.floor.stream): looked up
    every :data:`SHARES_EVERY_S`, a table at its limit said once in the log and named in the
    metrics until it is under it again."""

    def __init__(self, config: IngestConfig, metrics: IngestMetrics | None) -> None:
        self.config = config
        self.metrics = metrics
        self.full: set[str] = set()
        """The tables with a subject at its limit: the broker refuses their next records there."""
        self.queued: dict[str, int] = {}
        self.seen = 0.0

    def due(self) -> bool:
        return time.monotonic() - self.seen >= SHARES_EVERY_S

    async def look(self, js: JetStreamContext) -> None:
        """Read the stream's per-subject counts and update :attr:`full`, :attr:`queued`."""
        self.seen = time.monotonic()
        try:
            info = await js.stream_info(self.config.stream, subjects_filter=f"{self.config.subject_prefix}.>")
        except (TimeoutError, nats.errors.Error):
            return
        shares = tables_queued(info.state.subjects, self.config.subject_prefix)
        limit = info.config.max_msgs_per_subject or 0
        full = {t for t, (_, fullest) in shares.items() if limit > 0 and fullest >= limit}
        for table in sorted(full - self.full):
            log.warning(
                "table %s fills its share of the stream (%d messages waiting on one subject): the broker refuses "
                "its next records, which wait in its journal; the other tables are not held up",
                table,
                limit,
            )
        for table in sorted(self.full - full):
            log.warning("table %s is back within its share of the stream", table)
        if self.metrics is not None:
            for table in set(self.queued) | set(shares):
                self.metrics.table_queued.labels(table).set(shares.get(table, (0, 0))[0])
                self.metrics.table_full.labels(table).set(1 if table in full else 0)
        self.full, self.queued = full, {t: q for t, (q, _) in shares.items()}


class _Loop:
    """One ingest's state between batches: its database connection, the heartbeats waiting, the
    tables to tell what is stored, and when it last looked at the stream."""

    def __init__(
        self, config: IngestConfig, nc: Client, stats: IngestStats, metrics: IngestMetrics | None, broker: _Broker
    ) -> None:
        self.config = config
        self.nc = nc
        self.js = nc.jetstream(timeout=10)
        self.stats = stats
        self.metrics = metrics
        self.broker = broker
        self.policy = ChainPolicy(
            keys=dict(config.journal_keys),
            require_registration=config.require_registration,
            require_signed=config.require_signed,
            max_pending=config.max_pending,
            prefix=config.subject_prefix,
            max_reject_rows=config.max_reject_rows,
        )
        self.db: psycopg.AsyncConnection[TupleRow] | None = None
        self.beats = Beats(config.subject_prefix)
        self.shares = _Shares(config, metrics)
        self.to_tell: set[str] = set()
        self.puller = Puller(nc, config.stream, config.durable)
        self.told_at = self.beats_seen = self.db_tried = self.backlog_seen = 0.0

    async def between_batches(self) -> None:
        """Tell the tables what is stored (at most every :data:`TELL_EVERY_S`), store the heartbeats
        waiting (every second), and look at the tables' shares of the stream."""
        prefix = self.config.subject_prefix
        if self.to_tell and time.monotonic() - self.told_at >= TELL_EVERY_S:
            self.told_at = time.monotonic()
            await _tell(self.nc, self.db, prefix, self.to_tell)
            self.to_tell = set()
        if time.monotonic() - self.beats_seen >= 1.0 and self.beats.waiting:
            self.beats_seen = time.monotonic()
            if (self.db is None or self.db.closed) and time.monotonic() - self.db_tried >= 5.0:
                self.db_tried = time.monotonic()  # an idle floor has no batch to connect
                try:
                    self.db = await psycopg.AsyncConnection.connect(self.config.db_url, connect_timeout=5)
                except psycopg.OperationalError:
                    self.db = None  # the batch loop says why, and keeps its batch
            await _heartbeats(self.nc, self.db, self.beats, prefix)
        if self.shares.due():
            await self.shares.look(self.js)

    async def write(self, batch: Batch, msgs: list[Msg], stop: threading.Event) -> Outcome | None:
        """Store ``batch`` (the messages ``msgs``), keeping it while the database is away; None when
        stopped first (nothing acknowledged: delivered again)."""
        last_progress, backoff = time.monotonic(), 0.2
        while True:
            try:
                if self.db is None or self.db.closed:
                    self.db = await psycopg.AsyncConnection.connect(self.config.db_url, connect_timeout=5)
                outcome = await write_batch(self.db, batch, self.policy)
                self.stats.doing = "ingesting"
                return outcome
            except psycopg.OperationalError as exc:
                self.stats.db_retries += 1
                if self.metrics is not None:
                    self.metrics.db_retries.inc()
                log.warning("floor database: %s; keeping the batch", str(exc).strip().splitlines()[0])
                self.stats.doing = "keeping a batch while the floor database is away"
                if self.db is not None:
                    await self.db.close()
                    self.db = None
                if stop.is_set():
                    return None
                if time.monotonic() - last_progress > self.config.ack_wait_s / 3:
                    for m in msgs:  # still ours: JetStream must not hand them to another worker yet
                        await m.in_progress()
                    last_progress = time.monotonic()
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)
            except psycopg.Error:  # a message the store refuses: each alone, the refused ones kept aside
                assert self.db is not None
                return await _one_by_one(self.db, batch, self.policy)

    async def settle(
        self, batch: Batch, msgs: list[Msg], outcome: Outcome, sub: JetStreamContext.PullSubscription
    ) -> None:
        """Log, acknowledge and count a written batch."""
        _log(batch, outcome)
        for m, verdict in zip(msgs, outcome.verdicts, strict=True):
            await _settle(m, verdict)
        self.to_tell.update(r.table for r in batch.records)  # told at most every TELL_EVERY_S, not per batch
        self.stats.batches += 1
        self.stats.messages += len(msgs)
        self.stats.add(outcome)
        if self.metrics is not None:
            self.metrics.observe(batch.items, outcome)
            if time.monotonic() - self.backlog_seen > 5.0:
                self.backlog_seen = time.monotonic()
                try:
                    self.metrics.backlog.set((await sub.consumer_info()).num_pending or 0)
                except (TimeoutError, nats.errors.Error):
                    pass

    async def step(self, sub: JetStreamContext.PullSubscription, stop: threading.Event) -> bool:
        """One turn: the work between batches, then a batch pulled, written and acknowledged.
        False when stopped in the middle of a batch."""
        await self.between_batches()
        config = self.config
        try:
            msgs = await self.puller.pull(config.batch, config.pull_max_bytes, config.fetch_wait_s)
        except nats.errors.Error as exc:  # the broker is away: the client reconnects by itself
            log.warning("fetch: %s", exc)
            await asyncio.sleep(0.5)
            return True
        if not msgs:
            return True
        prefix = self.config.subject_prefix
        batch = parse_batch(((m.subject, _record_id(m.headers), m.data) for m in msgs), prefix)
        outcome = await self.write(batch, msgs, stop)
        if outcome is None:
            return False
        await self.settle(batch, msgs, outcome, sub)
        return True

    async def close(self) -> None:
        self.broker.closing = True
        try:
            await asyncio.wait_for(self.nc.close(), 5)
        except Exception:  # already gone
            pass
        if self.db is not None:
            await self.db.close()


async def _connect(config: IngestConfig, broker: _Broker, stop: threading.Event) -> Client | None:
    """The ingest's NATS connection, retried with backoff until it is made (None: stopped first,
    also in the middle of an attempt: nats-py's own connect retries for ever while reconnects are allowed)."""
    options: dict[str, Any] = {
        "servers": list(config.servers),
        "allow_reconnect": True,
        "max_reconnect_attempts": -1,
        "reconnect_time_wait": 0.5,
        "connect_timeout": 2,
        "name": "tablectl-floor-ingest",
    }
    options.update(nats_auth_options(NatsAuth(config.credentials, config.ca, config.cert, config.key)))
    log.info("connecting to NATS %s", ", ".join(config.servers))
    backoff = 0.2
    while not stop.is_set():
        nc = nats.aio.client.Client()
        attempt = asyncio.ensure_future(
            nc.connect(
                **options,
                error_cb=broker.error,
                disconnected_cb=broker.disconnected,
                reconnected_cb=broker.reconnected,
            )
        )
        try:
            if await _unless_stopped(attempt, stop):
                return nc
        except (TimeoutError, OSError, nats.errors.Error) as exc:
            if stop.is_set():
                break
            log.warning("NATS unreachable (%s); retrying in %.1f s", exc, backoff)
            if not await _unless_stopped(asyncio.ensure_future(asyncio.sleep(backoff, True)), stop):
                break
            backoff = min(backoff * 2, 5.0)
            continue
        broker.closing = True  # no outage to say: the ingest is stopping
        await _abandon(nc)  # stopped in the middle of the attempt
        return None
    return None


async def _unless_stopped(work: asyncio.Future[Any], stop: threading.Event) -> bool:
    """Wait for ``work`` (True, or its exception) unless ``stop`` is set first: then cancel it (False).
    ``stop`` is a ``threading.Event`` (a signal handler's or another thread's), so it is looked at
    every :data:`STOP_POLL_S`."""
    while not stop.is_set():
        done, _ = await asyncio.wait({work}, timeout=STOP_POLL_S)
        if done:
            work.result()
            return True
    work.cancel()
    try:
        await work
    except (asyncio.CancelledError, Exception):  # cancelled, or failed while it was: stopping either way
        pass
    return False


async def _abandon(nc: Client) -> None:
    """Close a client whose connect was cancelled (its reader and pinger tasks, if any)."""
    try:
        await asyncio.wait_for(nc.close(), 5)
    except Exception:  # never connected: nothing to close
        pass


async def _consumer(
    js: JetStreamContext, config: IngestConfig, broker: _Broker, stop: threading.Event
) -> JetStreamContext.PullSubscription | None:
    """The durable consumer's pull subscription once the stream is there (None: stopped first)."""
    while True:
        try:
            if not await _wait_for_stream(js, config, broker, stop):
                return None
            return await js.pull_subscribe(
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
        except (TimeoutError, nats.errors.Error) as exc:
            if stop.is_set():
                return None
            broker.once(
                logging.ERROR,
                f"cannot open the durable consumer {config.durable} on {config.stream} "
                f"({broker.refused or exc}); retrying",
            )
            await asyncio.sleep(1.0)


async def run_ingest(
    config: IngestConfig,
    stop: threading.Event,
    stats: IngestStats | None = None,
    metrics: IngestMetrics | None = None,
) -> IngestStats:
    """Ingest until ``stop`` is set; returns what was done (and counts it in ``metrics``)."""
    stats = stats or IngestStats()
    broker = _Broker()
    stats.doing = "connecting to NATS"
    nc = await _connect(config, broker, stop)
    if nc is None:
        return stats
    loop = _Loop(config, nc, stats, metrics, broker)
    try:
        await nc.subscribe(heartbeat_subject(config.subject_prefix, "*"), queue=config.durable, cb=loop.beats.take)
        stats.doing = "waiting for the floor stream"
        sub = await _consumer(loop.js, config, broker, stop)
        stats.doing = "ingesting"
        while sub is not None and not stop.is_set():
            if not await loop.step(sub, stop):
                break
        return stats
    finally:
        await loop.close()
