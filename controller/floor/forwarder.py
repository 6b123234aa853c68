"""The table side of the floor link: a thread that publishes the table's journal to NATS
JetStream (docs/floor.md).

It reads the journal read-only after the last acknowledged record (kept in the journal:
:class:`controller.journal.outbox.Outbox`), publishes in journal order with at most ``window``
publish acknowledgements outstanding, and records each acknowledged position as
acknowledgements arrive in order. On any failure it backs off (0.1 s doubling to 5 s),
reconnects if the connection is gone, and resends from the last acknowledged record, skipping
the messages the broker took after the one that failed (a refusal of a full share, a lost
acknowledgement: their acknowledgements came); the floor store keeps each record once. No message carries a broker de-duplication id (``Nats-Msg-Id``):
the broker's duplicate window is one per stream, so an id one table chose could drop another
table's record; a ``duplicate`` answer is therefore never taken as success (the record is sent
again). The floor tells the table what it has stored (:class:`controller.floor.channel.Stored`,
kept in the journal as the ``floor-stored`` position), and the forwarder publishes the table's
heartbeat every ``heartbeat_s`` seconds. It runs in its
own thread with its own asyncio loop, so the controller thread never waits for it.
"""

from __future__ import annotations

import asyncio
import enum
import functools
import itertools
import json
import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import nats
import nats.errors
import nats.js.errors

from controller.configuration import FloorConfig
from controller.floor.channel import ChannelError, Heartbeat, decode_to_table, heartbeat_subject, to_table_subject
from controller.floor.connect import NatsAuth, nats_auth_options
from controller.floor.messages import Message, Signer, mac_of, messages_for
from controller.floor.publish import Publisher
from controller.floor.signing import SigningKeyError, read_signing_key, sign_record
from controller.journal.outbox import Outbox, RawRecord
from controller.journal.store import GENESIS, JournalError, record_hash

if TYPE_CHECKING:
    from nats.aio.client import Client
    from nats.aio.msg import Msg

__all__ = ["LINK_SHARE", "Forwarder", "LinkStatus"]

log = logging.getLogger("tablectl.floor")


ACK_PATIENCE = 6
"""How many times ``ack_timeout_s`` the forwarder waits for an acknowledgement while the broker is
still answering (see :meth:`Forwarder._complete_oldest`)."""


ACK_WRITE_S = 1.0
"""While sending a backlog, the acknowledged position goes to the journal at most this often: each
write is a transaction on the table's journal, taking its write lock from the controller (20 a
second each was 4,000 journal transactions a second for benchmarks/bench_floor.py's 200 tables). A restart resends at most this much again; the
broker drops those as duplicates."""


REFUSED_WAIT_S = 0.05
"""After the broker refuses a record (the table's share of the stream is full) the forwarder waits
this long before trying again, doubling up to ``max_backoff_s`` while it is refused."""


CREDIT_STALE_BEATS = 2
"""While its credit is spent (:attr:`Forwarder.share`), the forwarder waits for the floor to store
more for at most this many heartbeats: the floor answers each heartbeat with what it stores, so a
floor that says nothing new for that long is away or stores nothing of what it takes (a record
quarantined, a chain waiting for a gap), and the broker's share decides again, as it did before
the credit (the table is refused when the share is full, and sends again)."""


RECORD_HEADER = "Tablectl-Record"
"""The header naming a message's record (``<table>/<seq>``, for the floor's logs and evidence): not
``Nats-Msg-Id``, which the broker would de-duplicate on across every table of the stream."""


class _LinkShare(enum.Enum):
    LINK = "link"


LINK_SHARE = _LinkShare.LINK
"""``Forwarder(share=LINK_SHARE)``, the default: the share is the table config's
``floor.table_share`` (:attr:`FloorConfig.table_share`), set to the floor's ``--table-share``."""


class LinkState(enum.Enum):
    """The floor link as the forwarder last saw it."""

    STARTING = "starting"
    UP = "up"
    DOWN = "down"
    THROTTLED = "throttled"
    """The broker refuses the table's records: its share of the floor stream is full (the table
    sends faster than the floor takes, or the floor is away); they wait in the journal and are
    sent again (:meth:`Forwarder._throttled`)."""
    HELD = "held"
    """The floor said it holds a record this journal did not write: nothing is published until it
    holds the journal's own record there again (:meth:`Forwarder._from_floor`)."""
    STOPPED = "stopped"


@dataclass(frozen=True, slots=True)
class LinkStatus:
    """What ``tablectl status`` shows of the link: state, positions, backlog, last error."""

    state: LinkState
    acked: int
    head: int
    published: int
    duplicates: int
    error: str | None
    stored: int = 0
    """The last record the floor store says it holds."""
    resent: int = 0
    """Records published again (after a failed or late acknowledgement, a reconnection)."""
    refused: int = 0
    """Times the broker refused a record because the table's share of the stream was full."""
    runs: int = 0
    """Publishing runs started (the first, then one a reconnection or a late acknowledgement), each
    after the journal's new records are verified."""

    @property
    def backlog(self) -> int:
        """Records the broker has not acknowledged yet."""
        return max(0, self.head - self.acked)

    @property
    def unstored(self) -> int:
        """Records the floor store has not confirmed holding yet."""
        return max(0, self.head - self.stored)


class _Resend(Exception):
    """A publish failed: go back to the last acknowledged record."""


class _Refused(_Resend):
    """The broker refused a record: the table's share of the stream (or the stream) is full."""


FULL_CODE = 10077
"""JetStream's error code for a message the stream refuses to store (its description says which
limit: ``maximum messages per subject exceeded``, ``maximum bytes exceeded``, ...)."""


def _full(exc: BaseException) -> bool:
    """Whether ``exc`` is the broker refusing a message because a limit of the stream is reached."""
    return getattr(exc, "err_code", None) == FULL_CODE and "exceeded" in str(getattr(exc, "description", ""))


class RecentRecords:
    """The journal records the forwarder has read since the last round it published, so that the
    round's message takes the round's records from them instead of reading them again (a round's
    ``.round`` message carries its ~160 records: reading them back was a quarter of making the
    messages). At most ``limit`` are kept (a table that deals no round still writes link records);
    a range not all kept is read from the journal."""

    def __init__(self, read: Callable[[int, int], list[RawRecord]], limit: int = 10_000) -> None:
        self.read = read
        self.limit = limit
        self._records: dict[int, RawRecord] = {}

    def add(self, records: list[RawRecord]) -> None:
        """Keep ``records`` (read in journal order)."""
        for r in records:
            self._records[r.seq] = r
        if len(self._records) > self.limit:
            for seq in list(itertools.islice(self._records, len(self._records) - self.limit // 2)):
                del self._records[seq]

    def between(self, first: int, last: int) -> list[RawRecord]:
        """The records ``first`` to ``last`` in order, as :meth:`Outbox.between` reads them."""
        kept = [self._records.get(seq) for seq in range(first, last + 1)]
        if all(r is not None for r in kept):
            return [r for r in kept if r is not None]
        return self.read(first, last)

    def forget_through(self, seq: int) -> None:
        """Drop the records up to ``seq`` (a round published: the next one starts after it)."""
        for kept in list(itertools.takewhile(lambda s: s <= seq, self._records)):
            del self._records[kept]


_Pending = tuple[int, bool, "asyncio.Future[Any]", str]
"""A message published and not yet settled: its record's seq, whether it is the last message of
that record, the future of its acknowledgement, and its message id (``<table>/<seq>[/meters]``)."""


class _Run:
    """What one publishing run (one connection, from the last acknowledged record) keeps."""

    def __init__(self, js: Publisher, sent: int, anchor_seq: int, linked: str | None, outbox: Outbox) -> None:
        self.js = js
        self.sent = sent
        """The last record published in this run."""
        self.anchor_seq = anchor_seq
        self.linked = linked
        """The hash the next record must follow (None: not known)."""
        self.recent = RecentRecords(outbox.between)
        self.pending: deque[_Pending] = deque()
        self.poll = 0.005
        self.more = True
        """The last read filled its batch: read again without waiting for the journal to change."""


class Forwarder:
    """Publishes the journal at ``journal_path`` over ``link`` until :meth:`stop`."""

    def __init__(
        self,
        journal_path: Path | str,
        link: FloorConfig,
        window: int = 256,
        batch: int = 500,
        idle_poll_s: float = 0.1,
        ack_timeout_s: float = 5.0,
        max_backoff_s: float = 5.0,
        drain_on_stop_s: float = 0.0,
        heartbeat_s: float | None = 5.0,
        hold_feed: bool = True,
        journal_key: bytes | None = None,
        share: int | None | _LinkShare = LINK_SHARE,
    ) -> None:
        self.journal_path = Path(journal_path)
        self.share = link.table_share if share is LINK_SHARE else share
        """The table's share of the floor stream (messages a subject, as the floor's stream is made:
        by default the link's ``table_share``, which the site sets to the floor's ``--table-share``;
        None: not known). Once the floor has said what it stores, the forwarder sends at most three
        quarters of it past the last record the floor confirmed storing (its credit), so the broker
        never has to refuse a record and nothing is sent twice: a record of the table waits in the
        stream until the ingest settles it, and each sends at most one message a subject. Without
        it, a table that writes faster than the floor stores filled its share, was refused, and sent
        the refused records and those behind them again (benchmarks/bench_floor.py at full speed:
        thousands of refusals and records sent again, gaps and duplicates at the ingest)."""
        if self.share is not None and self.share < 1:
            raise ValueError(f"share: {self.share}, not a positive number of messages")
        self._share_warned = False
        """The broker refused a record the credit allowed (said once: :meth:`_throttled`)."""
        self._share_lapsed = False
        """The credit no longer holds the table back (the floor stored nothing new for a while)."""
        self.journal_key = journal_key
        """The journal's HMAC key (None: none, or not given): a keyed journal's folded rounds are read
        with their records' hashes only with it (``tablectl floor resend`` sends them all)."""
        self.link = link
        self.window = window
        self.batch = batch
        self.idle_poll_s = idle_poll_s
        self.ack_timeout_s = ack_timeout_s
        self.max_backoff_s = max_backoff_s
        self.drain_on_stop_s = drain_on_stop_s
        self.heartbeat_s = heartbeat_s
        """Seconds between heartbeats (None: none, e.g. ``floor resend`` publishing a copy)."""
        self.hold_feed = hold_feed
        """Hold the feed when the floor says it holds a record the journal did not write (False:
        ``floor resend``, which publishes the table's records to put such a record right)."""
        self.told: tuple[int, str, bool] | None = None
        """The floor's latest ``stored`` message in this run: (seq, hash, whether the journal's
        record there has that hash)."""
        self._stored = 0
        """The last record the floor store said it holds (controller.floor.channel.Stored)."""
        self._stored_written = -1
        self._held: tuple[int, str] | None = None
        """The record the feed is held on and why (a ``stored`` message whose hash is not the
        journal's: the floor holds a record the table never wrote), kept in the journal."""
        self._heard_floor = 0
        self._stored_moved: asyncio.Event | None = None
        """Set when the floor says it stores more (made on the forwarder's loop)."""
        self._starved: tuple[int, float] | None = None
        """While the credit is spent: the stored position then, and since when (monotonic)."""
        self._verified: tuple[int, str] | None = None
        """The last record (seq, hash) whose chain is verified: by a run start, then each record sent
        that follows it, its hash computed again (:meth:`_send`); the next run start verifies after it."""
        self._links_only = False
        """The journal is signed with a key this forwarder was not given: only its links are checked."""
        self._runs = 0
        self._resent = 0
        self._refused_count = 0
        self._probing = False
        """After a refusal: one message at a time until the broker takes one again."""
        self._refused_wait = REFUSED_WAIT_S
        self._sent_max = 0
        """The highest record published in this run (one at or below it is published again)."""
        self._taken: dict[str, tuple[int, Any]] = {}
        """Messages the broker took past the acknowledged position in an earlier run, which ended on
        a refusal or a failed acknowledgement of a message before them (by message id: their
        record's seq and the broker's acknowledgement). The next run resends from the acknowledged
        position but skips these: without it every message the broker took behind a refused one
        (up to ``window``) was stored twice in the stream, and settled as a duplicate by the floor."""
        """Messages the floor sent this table in this run."""
        self._beat_due = 0.0
        self._listening: Client | None = None
        """The connection whose floor-to-table subscription is open."""
        self.snapshot_path = self.journal_path.with_name(f"{self.journal_path.stem}.snapshot.json")
        """The table's snapshot beside its journal (the heartbeat's step, hold and round)."""
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._state = LinkState.STARTING
        self._error: str | None = None
        self._acked = 0
        self._head = 0
        self._published = 0
        self._duplicates = 0
        self._ack_written = 0.0
        self._acked_written = -1
        self._refused: str | None = None
        self._outbox: Outbox | None = None
        self._ever_up = False
        """The link came up at least once in this run (a stop drains only then)."""
        """Open while forwarding: where a connection error is noted before the link ever came up."""
        """The broker's last permissions violation (the reason a publish was never acknowledged)."""
        self._js: tuple[Any, Publisher] | None = None
        """The connection last published on and its JetStream context."""
        self._caught_up_at = 0.0
        """When the forwarder last found nothing left to send or acknowledge (monotonic)."""
        self._sign: Signer | None = None
        """Signs each record with the table's key (``floor.signing_key``), read here: a key file
        that is missing or readable by others is refused at once (ValueError), as
        ``journal.hmac_key_file`` is."""
        if link.signing_key:
            try:
                self._sign = functools.partial(sign_record, read_signing_key(link.signing_key))
            except SigningKeyError as exc:
                raise ValueError(f"floor.signing_key: {exc}") from exc

    # --- the controller's side ------------------------------------------------------------------

    def start(self) -> Forwarder:
        """Start the forwarder thread (returns at once)."""
        self._thread = threading.Thread(target=self._thread_main, name=f"floor-{self.link.table_id}", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0, drain_s: float | None = None) -> None:
        """Stop: first up to ``drain_s`` for the backlog to be sent (the controller has stopped
        writing), then briefly for outstanding acknowledgements; what is left stays in the journal."""
        asked = time.monotonic()
        drain_s = self.drain_on_stop_s if drain_s is None else drain_s
        while drain_s > 0 and self._thread is not None and self._thread.is_alive():
            # caught up, and the floor (when it has spoken in this run) confirmed storing it all
            confirmed = self._heard_floor == 0 or self._stored >= self._acked
            if (self._caught_up_at > asked and confirmed) or time.monotonic() - asked > drain_s:
                break
            if not self._ever_up and self._error is not None:  # only failed to connect: the journal keeps it
                break
            time.sleep(0.01)
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def status(self) -> LinkStatus:
        return LinkStatus(
            self._state,
            self._acked,
            self._head,
            self._published,
            self._duplicates,
            self._error,
            self._stored,
            self._resent,
            self._refused_count,
            self._runs,
        )

    def wait_told(self, seq: int, timeout: float) -> bool:
        """Wait until the floor has said it holds the journal's record ``seq`` (or more), or has
        said something else about it (a lower head, another record): True when it spoke."""
        deadline = time.monotonic() + timeout
        while self._stored < seq:
            told = self.told
            if told is not None and (told[0] >= seq or not told[2]):
                return True
            if time.monotonic() > deadline:
                return self.told is not None
            time.sleep(0.01)
        return True

    def wait_acked(self, seq: int, timeout: float = 60.0) -> bool:
        """Wait until record ``seq`` is acknowledged (tests, benchmarks, a clean shutdown)."""
        deadline = time.monotonic() + timeout
        while self._acked < seq:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    # --- the forwarder thread -------------------------------------------------------------------

    def _thread_main(self) -> None:
        try:
            asyncio.run(self._main())
        except Exception as exc:  # never silently: the link shows it
            log.exception("floor forwarder %s stopped", self.link.table_id)
            self._state, self._error = LinkState.STOPPED, repr(exc)

    async def run(self, connection: Client) -> None:
        """Forward on the caller's asyncio loop over ``connection`` (a nats-py client the caller
        owns, which may carry other forwarders too) until :meth:`ask_stop`; instead of
        :meth:`start`. A simulator of many tables in one process uses it (benchmarks/bench_floor.py);
        a table's controller uses :meth:`start`."""
        await self._main(connection)

    def ask_stop(self) -> None:
        """Ask a forwarder started with :meth:`run` to stop (the coroutine then returns)."""
        self._stopping.set()

    async def _main(self, shared: Client | None = None) -> None:
        outbox = Outbox(self.journal_path, key=self.journal_key)
        self._acked = outbox.acked()
        self._stored = self._stored_written = outbox.stored()[0]
        self._held = outbox.feed_held()
        self._outbox = outbox
        self._write_state(outbox)  # starting: `tablectl status` shows the link even before it is up
        backoff = 0.1
        nc: Client | None = shared
        try:
            while not self._stopping.is_set():
                try:
                    if nc is None or (nc.is_closed and shared is None):
                        nc = await self.connect()
                    await self._publish(nc, outbox)
                except _Refused as exc:
                    self._throttled(outbox, exc)
                    await self._sleep(self._refused_wait)  # the floor takes what waits meanwhile
                    self._refused_wait = min(self._refused_wait * 2, self.max_backoff_s)
                    continue
                except (TimeoutError, _Resend, OSError, nats.errors.Error, JournalError, sqlite3.Error) as exc:
                    self._set_down(outbox, exc)
                    if nc is not None and nc.is_closed and shared is None:  # else it is reconnecting by itself
                        nc = None
                    await self._sleep(backoff)
                    backoff = min(backoff * 2, self.max_backoff_s)
                    continue
                backoff = 0.1
        finally:
            outbox.ack(self._acked)
            if self._stored:
                outbox.confirm(self._stored)
            self._state = LinkState.STOPPED
            self._write_state(outbox)
            self._outbox = None
            outbox.close()
            if nc is not None and shared is None:
                await self._close(nc)

    async def connect(self) -> Client:
        """A nats-py connection as the forwarder makes its own: to the link's servers, reconnecting
        forever (for :meth:`run`)."""
        options: dict[str, Any] = {
            "servers": list(self.link.servers),
            "connect_timeout": 2,
            "allow_reconnect": True,
            "max_reconnect_attempts": -1,
            "reconnect_time_wait": 0.5,
            "name": f"tablectl-forwarder-{self.link.table_id}",
            "error_cb": self._quiet,
            "disconnected_cb": self._quiet_event,
            "reconnected_cb": self._quiet_event,
        }
        link = self.link
        try:
            options.update(nats_auth_options(NatsAuth(link.credentials, link.ca, link.cert, link.key)))
        except ValueError as exc:  # an unreadable credential or CA file: the link is down and says why
            raise OSError(str(exc)) from exc
        return await nats.connect(**options)

    async def _quiet(self, exc: Exception) -> None:
        changed = repr(exc) != self._error
        self._error = repr(exc)
        if changed and self._state is not LinkState.UP and self._outbox is not None:
            self._write_state(self._outbox)  # so `tablectl status` can say why it never connected
        if "permissions violation" in str(exc).lower():  # the broker refused this identity a subject
            self._refused = str(exc)

    async def _quiet_event(self) -> None:
        pass

    @staticmethod
    async def _close(nc: Client) -> None:
        try:
            await asyncio.wait_for(nc.close(), 2)
        except Exception:  # closing a broken connection: nothing left to do
            pass

    async def _sleep(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not self._stopping.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(min(0.05, seconds))

    def _set_down(self, outbox: Outbox, exc: BaseException) -> None:
        cause = exc.__cause__ or exc
        error = f"{type(cause).__name__}: {cause}".rstrip(": ")
        if self._refused:  # why the acknowledgement never came
            error, self._refused = f"{error} ({self._refused})", None
        if self._state is not LinkState.DOWN or error != self._error:
            log.warning("floor link %s down: %s (backlog kept in the journal)", self.link.table_id, error)
        self._state, self._error = LinkState.DOWN, error
        outbox.ack(self._acked)
        self._write_state(outbox)

    def _throttled(self, outbox: Outbox, exc: _Refused) -> None:
        """The broker refused a record (the table's share of the stream is full): the link stays
        up, the record and those after it wait in the journal, and the forwarder tries again one
        message at a time (after a backoff) until the broker takes one."""
        self._refused_count += 1
        self._probing = True
        if self._within_credit(exc) and not self._share_warned:
            self._share_warned = True
            log.warning(
                "floor link %s: the broker refused a record within the credit of floor.table_share %d: the "
                "floor's stream keeps fewer a subject for a table (its --table-share); set floor.table_share "
                'to that (docs/floor.md, "One table, one feed")',
                self.link.table_id,
                self.share,
            )
        error = f"the broker refuses this table's records: {exc}; they wait in the journal and are sent again"
        if self._state is not LinkState.THROTTLED:
            log.warning("floor link %s: %s", self.link.table_id, error)
        self._state, self._error = LinkState.THROTTLED, error
        outbox.ack(self._acked)
        self._write_state(outbox)

    def _within_credit(self, exc: _Refused) -> bool:
        """Whether the broker refused a record of a full subject while the credit held (the floor
        storing): then the stream's share is smaller than :attr:`share`."""
        cause = exc.__cause__ or exc
        return (
            "per subject" in str(getattr(cause, "description", cause))
            and self.share is not None
            and self.heartbeat_s is not None
            and not self._share_lapsed
        )

    def _write_state(self, outbox: Outbox) -> None:
        try:
            outbox.set_state(self._state.value, self._error)
        except Exception:  # the state is informative; the acknowledged position is what matters
            pass

    async def _publish(self, nc: Client, outbox: Outbox) -> None:
        """Publish from the last acknowledged record until stopped; raises :class:`_Resend` on a
        failed or late acknowledgement."""
        js = self._jetstream(nc)
        await self._listen(nc)
        self._beat_due = 0.0  # a heartbeat at once on each (re)connection: the floor answers with what it stored
        run = _Run(js, self._acked, outbox.anchor_seq(), self._check_journal(outbox, self._acked), outbox)
        self._taken = {k: v for k, v in self._taken.items() if v[0] > self._acked}
        try:
            while not self._stopping.is_set():
                try:
                    await self._forward(nc, run, outbox)
                except _Refused as exc:
                    await self._refused_in_run(run, outbox, exc)
            await self._finish(run.pending, outbox)
        except _Refused:
            await self._settle_in_flight(run.pending)
            raise
        finally:
            self._keep_taken(run.pending)
            for _, _, future, _ in run.pending:
                future.cancel()
            js.forget()
            self._flush_ack(outbox, force=True)

    async def _forward(self, nc: Client, run: _Run, outbox: Outbox) -> None:
        """Publish what the journal holds after ``run.sent`` until stopped (the body of
        :meth:`_publish`); raises :class:`_Resend` on a failed or late acknowledgement."""
        while not self._stopping.is_set():
            if self.heartbeat_s is not None and time.monotonic() >= self._beat_due:
                await self._beat(nc)
            if self._held is not None:  # listening and beating only, until the floor holds ours again
                await self._while_held(run.pending, outbox)
                continue
            if self._state is LinkState.HELD:
                self._state, self._error = LinkState.UP, None
                self._write_state(outbox)
            room = self._credit(run)
            if room is not None and room <= 0:
                await self._await_credit(run, outbox)
                continue
            limit = self.batch if room is None else min(self.batch, room)
            looked_at = time.monotonic()  # before the look: what it finds is all written before then
            # Read only when the journal changed: with acknowledgements outstanding and nothing new,
            # a read per acknowledgement was a query per message.
            records = outbox.after(run.sent, limit) if run.more or outbox.changed() else []
            run.recent.add(records)
            run.more = len(records) == limit
            self._head = max(self._head, records[-1].seq if records else run.sent)
            if records:
                run.poll = 0.005
                await self._send(records, run, outbox)
            else:
                await self._nothing_new(run, outbox, looked_at)

    def _credit(self, run: _Run) -> int | None:
        """How many more records this run may send before the floor confirms storing more (None:
        no limit: the share is not known, no heartbeat asks the floor, or it has said nothing new
        for :data:`CREDIT_STALE_BEATS` heartbeats while the credit was spent). Before the floor has
        spoken in this run, the credit counts from the last record it confirmed in an earlier one
        (kept in the journal): without that, a run's first window went out at once, past a small
        share (a refusal at each start)."""
        if self.share is None or self.heartbeat_s is None:
            return None
        room = self._stored + max(1, self.share * 3 // 4) - run.sent
        if room > 0:
            self._starved, self._share_lapsed = None, False
            return room
        now = time.monotonic()
        if self._starved is None or self._starved[0] != self._stored:
            self._starved = (self._stored, now)
        self._share_lapsed = now - self._starved[1] > CREDIT_STALE_BEATS * self.heartbeat_s
        if self._share_lapsed:
            return None  # the floor stores nothing new: the broker's share decides
        return 0

    async def _await_credit(self, run: _Run, outbox: Outbox) -> None:
        """The credit is spent: take the acknowledgements in flight, else wait (a heartbeat at most)
        for the floor to say it stores more."""
        if run.pending:
            await self._complete_oldest(run.pending, outbox, newest=True)
            return
        self._flush_ack(outbox)
        if self._stored_moved is None:
            self._stored_moved = asyncio.Event()
        moved = self._stored_moved
        moved.clear()
        assert self.heartbeat_s is not None  # no credit without a heartbeat (_credit)
        try:
            await asyncio.wait_for(moved.wait(), min(self.heartbeat_s, self.idle_poll_s * 10))
        except TimeoutError:
            pass

    async def _refused_in_run(self, run: _Run, outbox: Outbox, exc: _Refused) -> None:
        """The broker refused a record (the table's share of the stream is full): the run goes
        back to the last acknowledged record on the same connection, after a backoff, skipping what
        the broker took behind the refused one (:attr:`_taken`). The journal is not verified again:
        nothing about it changed, and every record sent still has to follow the one before it
        (:meth:`_send`). Before, each refusal ended the run, and the next one verified the backlog
        again from the last snapshot: at full speed, thousands of records hashed again a refusal
        (benchmarks/bench_floor.py, docs/benchmarks.md)."""
        await self._settle_in_flight(run.pending)
        self._keep_taken(run.pending)
        for _, _, future, _ in run.pending:
            future.cancel()
        run.pending.clear()
        run.js.forget()
        self._throttled(outbox, exc)
        await self._sleep(self._refused_wait)  # the floor takes what waits meanwhile
        self._refused_wait = min(self._refused_wait * 2, self.max_backoff_s)
        run.sent, run.more = self._acked, True
        run.linked = outbox.hash_of(self._acked) if self._acked else None
        self._taken = {k: v for k, v in self._taken.items() if v[0] > self._acked}

    async def _settle_in_flight(self, pending: deque[_Pending]) -> None:
        """The broker refused a message: wait (up to ``ack_timeout_s``) for its answers to those
        published after it, so that the ones it took are known (:attr:`_taken`) and not sent again."""
        waiting = [future for _, _, future, _ in pending if not future.done()]
        if waiting:
            await asyncio.wait(waiting, timeout=self.ack_timeout_s)

    def _keep_taken(self, pending: deque[_Pending]) -> None:
        """Note the messages of a run that ends whose acknowledgement came (not a ``duplicate``)
        but was not taken in order, behind one that failed: the next run skips them."""
        for seq, _, future, msg_id in pending:
            if future.done() and not future.cancelled() and future.exception() is None:
                if not getattr(future.result(), "duplicate", False):
                    self._taken[msg_id] = (seq, future.result())

    def _complete_done(self, pending: deque[_Pending], outbox: Outbox) -> None:
        """Take the acknowledgements that have come, oldest first, up to the first still awaited;
        then the acknowledged position to the journal (:meth:`_flush_ack`: at most every
        :data:`ACK_WRITE_S`), once for all of them, not a look at the clock each."""
        if not pending or not pending[0][2].done():
            return
        acked = self._acked
        try:
            while pending and pending[0][2].done():
                self._complete(pending.popleft(), outbox)
        finally:
            if self._acked != acked:
                self._flush_ack(outbox)

    async def _while_held(self, pending: deque[_Pending], outbox: Outbox) -> None:
        """One look while the feed is held: the state says so, what was in flight is taken."""
        assert self._held is not None
        if self._state is not LinkState.HELD or self._error != self._held[1]:
            self._state, self._error = LinkState.HELD, self._held[1]
            self._write_state(outbox)
        self._complete_done(pending, outbox)
        self._flush_ack(outbox, force=True)  # what the floor holds of the table's own, up to the hold
        await self._sleep(self.idle_poll_s)

    async def _nothing_new(self, run: _Run, outbox: Outbox, looked_at: float) -> None:
        """Nothing new in the journal: wait for the oldest acknowledgement, or, caught up, say so and
        look again a little later each time (up to ``idle_poll_s``)."""
        self._complete_done(run.pending, outbox)
        if run.pending:
            await self._complete_oldest(run.pending, outbox, newest=True)
            return
        if self._state is not LinkState.UP:
            self._state, self._error, self._ever_up = LinkState.UP, None, True
            self._write_state(outbox)
        self._flush_ack(outbox, force=True)  # caught up: the journal says so at once
        # The look's time, not now: writing the acknowledgement above may have waited
        # for the controller's commits, and those records are not sent yet.
        self._caught_up_at = looked_at
        await asyncio.sleep(run.poll)
        run.poll = min(run.poll * 1.5, self.idle_poll_s)  # idle: look less often, up to idle_poll_s

    async def _send(self, records: list[RawRecord], run: _Run, outbox: Outbox) -> None:
        """Publish ``records`` in order, each after the one before it in the chain, with at most
        ``window`` acknowledgements outstanding (one while the broker has just refused one)."""
        link = self.link
        for record in records:
            if run.linked is not None and record.prev != run.linked:  # each record follows the one sent before
                raise JournalError(
                    f"{self.journal_path}: record {record.seq} does not follow record {record.seq - 1}: "
                    "the journal was changed; not published"
                )
            run.linked = record.hash
            mac = mac_of(record)
            messages: list[Message] = messages_for(
                record, link.table_id, link.subject_prefix, run.recent.between, run.anchor_seq, self._sign, mac
            )
            verified = self._verified
            if (
                verified is not None
                and record.seq == verified[0] + 1
                and record.prev == verified[1]
                and (self._hmac_holds(record) if self.journal_key else (mac == "sha256" or self._links_only))
            ):  # the verified chain goes on: linked, and its hash computed again (what a run start checks)
                self._verified = (record.seq, record.hash)
            if len(messages) > 1:  # a round: the records before it are no round's any more
                run.recent.forget_through(record.seq)
            published = False
            for i, m in enumerate(messages):
                while len(run.pending) >= (1 if self._probing else self.window):
                    await self._complete_oldest(run.pending, outbox)
                taken = self._taken.pop(m.msg_id, None)
                if taken is None:
                    future = await run.js.publish(m.subject, m.payload, {RECORD_HEADER: m.msg_id})
                    published = True
                else:  # the broker took it in an earlier run: its acknowledgement stands, nothing is sent
                    future = asyncio.get_running_loop().create_future()
                    future.set_result(taken[1])
                run.pending.append((m.seq, i == len(messages) - 1, future, m.msg_id))
            run.sent = record.seq
            if run.sent <= self._sent_max and published:
                self._resent += 1
            self._sent_max = max(self._sent_max, run.sent)
            self._complete_done(run.pending, outbox)  # a refusal that came stops the burst at once

    async def _finish(self, pending: deque[_Pending], outbox: Outbox) -> None:
        """Stopping: a short wait for what is in flight (what is not acknowledged stays in the journal)."""
        while pending and not self._stopping.is_set():
            await self._complete_oldest(pending, outbox, newest=True)
        if self._stopping.is_set() and pending:  # a clean stop: a short wait for what is in flight
            try:
                while pending:
                    await self._complete_oldest(pending, outbox, timeout=2.0)
            except _Resend:
                pass

    def _hmac_holds(self, record: RawRecord) -> bool:
        """``record``'s hash is its HMAC under :attr:`journal_key`, computed again (what a run start
        checks of a keyed journal when the forwarder holds its key; a plain SHA-256 there is a
        record written without the key); False without the key."""
        key = self.journal_key
        return key is not None and record.hash == record_hash(
            record.prev, record.seq, record.at, record.kind, record.event, record.data, key
        )

    def _check_journal(self, outbox: Outbox, sent: int) -> str | None:
        """Before publishing the backlog: what can be checked cheaply (``verify_reader``: meta, the
        head, the last snapshot, and the chain over the records not yet acknowledged, whose cost is
        the backlog's, read anyway), the chain only after the last record an earlier run of this
        forwarder verified, or than what it sends again (:attr:`_verified`, carried on by each record
        sent; before, every run start after a reconnection or a late acknowledgement verified it
        again from the last snapshot, and from the first record in a journal that keeps none). A
        keyed journal is read with the forwarder's :attr:`journal_key` when it was given one, so the
        chain's HMACs are checked too (a record changed and its chain linked again without the key
        is refused); without it, only the links and the head. Raises :class:`JournalError` (the
        link goes down saying why, and nothing is published) when it does not verify; returns the
        hash the next record must follow."""
        from controller.journal.store import SqliteJournal
        from controller.journal.stored import hash_at
        from controller.journal.verify import verify_reader

        journal = SqliteJournal.open_readonly(self.journal_path, self.journal_key)
        try:
            head = journal.last_seq
            report = verify_reader(journal, [(sent + 1, head)] if head > sent else [], verified=self._verified)
            found = hash_at(journal.db, sent, checked=False)
            if report.ok:
                self._links_only = bool(report.notes)  # signed with a key the forwarder was not given
                anchor = (int(journal.meta("anchor_seq") or 0), journal.meta("anchor_hash") or GENESIS)
                self._verified = (head, journal.last_hash) if head else anchor  # nothing yet: the chain's start
        finally:
            journal.close()
        self._runs += 1
        if not report.ok:
            raise JournalError(f"{self.journal_path}: does not verify, not published: {report.problems[0]}")
        return found

    def _jetstream(self, nc: Client) -> Publisher:
        """The publisher of connection ``nc``, made once: each subscribes an inbox of its own for
        the publish acknowledgements, so one per resend would pile them up."""
        if self._js is None or self._js[0] is not nc:
            self._js = (nc, Publisher(nc))
        return self._js[1]

    async def _complete_oldest(
        self, pending: deque[_Pending], outbox: Outbox, timeout: float | None = None, newest: bool = False
    ) -> None:
        """Wait for the oldest outstanding acknowledgement, then take every one that has come, in
        order. With ``newest``, first wait for the newest one's (nothing new to send: the
        acknowledgements of a burst are taken at once, not one wake-up each). Past
        ``ack_timeout_s`` without the oldest the link resends from the last acknowledged record,
        unless the broker is only slow: the connection has received something meanwhile
        (acknowledgements queue behind a busy broker) and no later message of this forwarder has
        been acknowledged before it (that one was lost); then it keeps waiting, up to
        :data:`ACK_PATIENCE` times ``ack_timeout_s`` in all. Resending every window into a busy
        broker only makes it busier (benchmarks/bench_floor.py on a loaded machine)."""
        entry = pending[0]
        target = pending[-1][2] if newest else entry[2]
        limit = timeout or self.ack_timeout_s
        started, seen = time.monotonic(), self._received()
        while not entry[2].done():  # done already: no timer, no shield (the steady state at full speed)
            try:
                await asyncio.wait_for(asyncio.shield(target), limit)
            except TimeoutError as exc:
                for _ in range(3):  # a starved loop: let the reader take what has come before judging
                    await asyncio.sleep(0)
                if entry[2].done():
                    break
                now = self._received()
                lost = any(f.done() for _, _, f, _ in itertools.islice(pending, 1, None))
                waited = time.monotonic() - started
                if timeout is not None or lost or now == seen or waited + limit > limit * ACK_PATIENCE:
                    raise _Resend(f"no publish acknowledgement within {waited:.0f} s") from exc
                seen = now
            except Exception:  # the broker's error: taken in order below, by _complete
                pass
            target = entry[2]
        self._complete_done(pending, outbox)

    def _received(self) -> int | None:
        """Messages the current connection has received so far (None: not known)."""
        stats = getattr(self._js[0], "stats", None) if self._js is not None else None
        value = stats.get("in_msgs") if isinstance(stats, dict) else None
        return value if isinstance(value, int) else None

    def _complete(self, entry: _Pending, outbox: Outbox) -> None:
        seq, last, future, _ = entry
        if future.cancelled():
            raise _Resend("publish cancelled")
        exc = future.exception()
        if exc is not None:
            if _full(exc):
                raise _Refused(str(getattr(exc, "description", exc))) from exc
            raise _Resend(f"{type(exc).__name__}: {exc}") from exc
        self._published += 1
        self._ever_up = True  # the broker took a record: the link is up, whatever it said of others
        if self._probing:  # the broker takes this table's records again
            self._probing, self._refused_wait = False, REFUSED_WAIT_S
            if self._state is LinkState.THROTTLED and self._outbox is not None:
                self._state, self._error = LinkState.UP, None
                self._write_state(self._outbox)
        if getattr(future.result(), "duplicate", False):
            self._duplicates += 1
            if seq > self._stored:  # not ours to trust: another identity may have used the id
                log.warning(
                    "floor link %s: the broker answered 'duplicate' for record %d, which the floor has not "
                    "confirmed storing; sending it again",
                    self.link.table_id,
                    seq,
                )
                raise _Resend(f"'duplicate' for record {seq}, not confirmed stored by the floor")
        if last:
            self._acked = seq  # written by _complete_done, once for all it took

    def _flush_ack(self, outbox: Outbox, force: bool = False) -> None:
        """Write the acknowledged position to the journal: while a backlog is being sent at most every
        :data:`ACK_WRITE_S`, when caught up or stopping (``force``) at once, and only when it moved."""
        now = time.monotonic()
        if self._acked == self._acked_written and self._stored == self._stored_written:
            return
        if force or now - self._ack_written >= ACK_WRITE_S:
            outbox.ack(self._acked)
            if self._stored != self._stored_written:
                outbox.confirm(self._stored)
            self._ack_written, self._acked_written, self._stored_written = now, self._acked, self._stored

    # --- the floor-to-table channel and the heartbeat ------------------------------------------------

    async def _listen(self, nc: Client) -> None:
        """Subscribe (once per connection) to what the floor tells this table."""
        if self._listening is nc:
            return
        await nc.subscribe(to_table_subject(self.link.subject_prefix, self.link.table_id), cb=self._from_floor)
        self._listening = nc

    async def _from_floor(self, msg: Msg) -> None:
        try:
            told = decode_to_table(msg.subject, msg.data, self.link.subject_prefix)
        except ChannelError as exc:
            log.warning("floor link %s: a floor message not read: %s", self.link.table_id, exc)
            return
        self._heard_floor += 1
        if told.table != self.link.table_id or self._outbox is None:
            return
        outbox = self._outbox
        mine = outbox.hash_of(told.seq) if told.seq else ""
        self.told = (told.seq, told.hash, mine == told.hash)
        if self._held is not None:
            if told.seq >= self._held[0] and mine == told.hash:
                log.warning(
                    "floor link %s: the floor holds this journal's record %d: the feed held on record %d goes on",
                    self.link.table_id,
                    told.seq,
                    self._held[0],
                )
                outbox.release_feed()
                self._held = None
                self._stored = max(self._stored, told.seq)
            return
        if told.seq <= self._stored:
            return
        if mine == told.hash:
            self._stored = told.seq
            if self._stored_moved is not None:
                self._stored_moved.set()
            return
        if not self.hold_feed:
            return
        if mine is None:
            what = f"record {told.seq}, which this journal has not written (hash {told.hash[:16]}...)"
        else:
            what = f"record {told.seq} with hash {told.hash[:16]}..., not this journal's {mine[:16]}..."
        reason = (
            f"the floor says it holds {what}: a record the table never wrote is on the floor; the feed is held "
            '(tablectl floor status and floor resolve on the floor; docs/floor.md, "A stolen signing key")'
        )
        log.error("floor link %s: %s", self.link.table_id, reason)
        outbox.hold_feed(told.seq, reason)
        self._held = outbox.feed_held()

    def heartbeat(self) -> Heartbeat:
        """The table's heartbeat now: step, hold and round from its snapshot file (none yet: no
        step), and the records the floor has not confirmed storing."""
        step: str | None = None
        hold: str | None = None
        round_no = 0
        try:
            snap = json.loads(self.snapshot_path.read_text())["snapshot"]
            step, round_no = str(snap["step"])[:300], max(0, int(snap["round_no"]))
            hold = None if snap["hold"] is None else str(snap["hold"]["reason"])[:300]
        except (OSError, ValueError, KeyError, TypeError):  # no snapshot yet, or one being replaced
            pass
        head = max(self._head, self._acked)
        held = self._held[1][:300] if self._held is not None else None
        throttled = (
            f"the broker refuses its records: its share of the floor stream is full ({self._refused_count} refusals)"
            if self._state is LinkState.THROTTLED
            else None
        )
        backlog = max(0, head - self._stored)
        return Heartbeat(self.link.table_id, time.time(), step, hold, round_no, backlog, held, throttled)

    async def _beat(self, nc: Client) -> None:
        assert self.heartbeat_s is not None
        self._beat_due = time.monotonic() + self.heartbeat_s
        await nc.publish(heartbeat_subject(self.link.subject_prefix, self.link.table_id), self.heartbeat().payload())
