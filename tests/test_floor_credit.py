"""The forwarder's credit (docs/floor.md, "One table, one feed"): once the floor has said what it
stores, a table sends at most three quarters of its share of the stream past the last record the
floor confirmed storing, so a table that writes faster than the floor stores is never refused by
the broker and sends nothing twice; a floor that stops saying it stores more leaves the broker's
share to decide again. Driven on its own asyncio loop against a stand-in broker and floor (no
server: the broker answers one message a turn of the loop, the floor stores one message every
other turn and says so every few records)."""

from __future__ import annotations

import asyncio
import logging
import math
from collections import deque
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nats")

import nats.js.errors

import controller.floor.forwarder as forwarder_module
from controller.configuration import FloorConfig
from controller.floor.channel import Stored, to_table_subject
from controller.floor.forwarder import FULL_CODE, LINK_SHARE, Forwarder, LinkState, _LinkShare, _Refused, _Run
from controller.journal import NewRecord, SqliteJournal
from controller.journal.outbox import Outbox

WINDOW = 32
SHARE = 40
"""Messages of one subject the stand-in stream holds for the table; past it the broker refuses."""
RECORDS = 400
TELL_EVERY = 5
"""The stand-in floor says what it stores after every this many records."""
NO_CONNECTION: Any = None
"""No heartbeat is sent and nothing listens: the connection is not used."""
DOWN = {"device": "shoe", "reason": "serial port closed"}
PREFIX = "floor"


class Ack:
    duplicate = False


class Told:
    """A floor-to-table message as nats-py hands it to the forwarder."""

    def __init__(self, subject: str, data: bytes) -> None:
        self.subject = subject
        self.data = data


class Stream:
    """The broker and the floor: a message is refused when its subject already holds ``SHARE``
    of the table's, else kept until the floor stores it; the floor stores the oldest message
    every other turn (while ``storing``) and tells the forwarder every ``TELL_EVERY`` records."""

    def __init__(self, forwarder: Forwarder, outbox: Outbox) -> None:
        self.forwarder = forwarder
        self.outbox = outbox
        self.unanswered: deque[tuple[str, str, asyncio.Future[Any]]] = deque()
        self.queued: deque[tuple[str, str]] = deque()
        self.taken: list[str] = []
        self.refused = 0
        self.most_queued = 0
        self.storing = True
        self.done = asyncio.Event()

    async def publish(self, subject: str, payload: bytes, headers: dict[str, str]) -> asyncio.Future[Any]:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.unanswered.append((subject, headers[forwarder_module.RECORD_HEADER], future))
        return future

    def forget(self) -> None:
        pass

    def on(self, subject: str) -> int:
        return sum(1 for s, _ in self.queued if s == subject)

    async def tell(self, seq: int) -> None:
        digest = (self.outbox.hash_of(seq) or "") if seq else ""
        told: Any = Told(to_table_subject(PREFIX, "t1", Stored.TYPE), Stored("t1", seq, digest, 1.0e9).payload())
        await self.forwarder._from_floor(told)

    async def run(self, records: int) -> None:
        await self.tell(0)  # the floor's answer to the table's first heartbeat: nothing stored yet
        stored: set[int] = set()
        head = turn = 0
        while head < records:
            await asyncio.sleep(0)
            turn += 1
            if self.unanswered:
                subject, msg_id, future = self.unanswered.popleft()
                if not future.cancelled():
                    if self.on(subject) >= SHARE:
                        self.refused += 1
                        full = "maximum messages per subject exceeded"
                        future.set_exception(nats.js.errors.APIError(code=503, err_code=FULL_CODE, description=full))
                    else:
                        self.queued.append((subject, msg_id))
                        self.taken.append(msg_id)
                        self.most_queued = max(self.most_queued, self.on(subject))
                        future.set_result(Ack())
            if self.storing and turn % 2 == 0 and self.queued:
                _, msg_id = self.queued.popleft()
                stored.add(int(msg_id.rsplit("/", 1)[1]))
                while head + 1 in stored:
                    head += 1
                    if head % TELL_EVERY == 0 or head == records:
                        await self.tell(head)
        self.done.set()


def forwarder_and_journal(
    tmp_path: Path, share: int | None | _LinkShare, heartbeat_s: float = 5.0, table_share: int = 1000
) -> tuple[Forwarder, Outbox]:
    """A forwarder on a journal of ``RECORDS`` records; ``share`` given (``LINK_SHARE``: the
    config's ``table_share``)."""
    path = tmp_path / "t1.db"
    journal = SqliteJournal(path)
    journal.append_batch([NewRecord("LinkDown", DOWN)] * RECORDS)
    journal.close()
    f = Forwarder(
        path,
        FloorConfig("t1", ("nats://127.0.0.1:1",), subject_prefix=PREFIX, table_share=table_share),
        window=WINDOW,
        heartbeat_s=heartbeat_s,
        max_backoff_s=0.0,
        share=share,
    )
    f._beat_due = math.inf  # no heartbeat: the stand-in floor speaks on its own
    outbox = Outbox(path)
    f._outbox = outbox
    return f, outbox


def forward_all(tmp_path: Path, share: int | None | _LinkShare, table_share: int = 1000) -> tuple[Forwarder, Stream]:
    """The forwarder of ``forwarder_and_journal`` sends all ``RECORDS`` records to the stand-in
    floor until it has stored them; its outbox closed after."""
    f, outbox = forwarder_and_journal(tmp_path, share, table_share=table_share)
    stream = Stream(f, outbox)

    async def go() -> None:
        publisher: Any = stream  # what the forwarder uses of a Publisher
        run = _Run(publisher, 0, outbox.anchor_seq(), None, outbox)
        floor = asyncio.create_task(stream.run(RECORDS))

        async def forward() -> None:
            while not stream.done.is_set():
                try:
                    await f._forward(NO_CONNECTION, run, outbox)
                except _Refused as exc:
                    await f._refused_in_run(run, outbox, exc)

        forwarding = asyncio.create_task(forward())
        await stream.done.wait()
        f._stopping.set()
        await asyncio.wait_for(forwarding, 60)
        await floor

    try:
        asyncio.run(go())
    finally:
        outbox.close()
    return f, stream


@pytest.fixture(autouse=True)
def _no_refusal_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forwarder_module, "REFUSED_WAIT_S", 0.0)  # the stand-in's share has room at once


def test_a_table_faster_than_the_floor_is_never_refused_and_sends_each_record_once(tmp_path: Path) -> None:
    f, stream = forward_all(tmp_path, share=SHARE)
    assert stream.taken == [f"t1/{seq}" for seq in range(1, RECORDS + 1)]  # each once, in order
    assert stream.refused == 0 and f.status().refused == 0 and f.status().resent == 0
    assert stream.most_queued <= SHARE * 3 // 4, stream.most_queued
    assert stream.most_queued >= SHARE // 2, "the stream never filled: the test shows nothing"


def test_the_share_is_the_table_configs_table_share(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The forwarder's share is ``floor.table_share`` of the table's config (the floor's
    ``--table-share``): set to the stream's, nothing is refused or sent twice; larger than the
    stream's (the default 1,000 against a stream of 40), the broker refuses records the credit
    allowed, and the forwarder says once that the setting disagrees with the stream."""
    f, stream = forward_all(tmp_path, share=LINK_SHARE, table_share=SHARE)
    assert f.share == SHARE
    assert stream.taken == [f"t1/{seq}" for seq in range(1, RECORDS + 1)]
    assert stream.refused == 0 and f.status().refused == 0 and f.status().resent == 0

    caplog.set_level(logging.WARNING, logger="tablectl.floor")
    f, stream = forward_all(tmp_path / "larger", share=LINK_SHARE, table_share=2 * SHARE)
    assert f.share == 2 * SHARE
    assert stream.refused > 1 and f.status().refused > 1
    said = [r.getMessage() for r in caplog.records if "within the credit of floor.table_share" in r.getMessage()]
    assert len(said) == 1 and "floor.table_share 80" in said[0] and "--table-share" in said[0], said


def test_without_the_credit_the_same_table_is_refused_and_sends_again(tmp_path: Path) -> None:
    """What the credit prevents (the stand-in refuses as the broker does): the forwarder without it
    fills the share, is refused and sends records again; each is still stored once."""
    f, stream = forward_all(tmp_path, share=None)
    assert sorted(set(stream.taken)) == sorted(f"t1/{seq}" for seq in range(1, RECORDS + 1))
    assert len(stream.taken) == RECORDS
    assert stream.refused > 0 and f.status().resent > 0


def test_a_floor_that_stores_nothing_new_leaves_the_share_to_the_broker(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The floor says it stores nothing yet and then nothing more (away, or storing none of what it
    takes): after a few heartbeats without news the credit no longer holds the table back; it
    sends until the broker refuses (THROTTLED, as before the credit), its records kept in its
    journal. The refusal is the broker's share deciding, not the table's share set wrong: that
    is not said."""
    caplog.set_level(logging.WARNING, logger="tablectl.floor")
    f, outbox = forwarder_and_journal(tmp_path, share=SHARE, heartbeat_s=0.02)
    stream = Stream(f, outbox)
    stream.storing = False

    async def go() -> None:
        publisher: Any = stream
        run = _Run(publisher, 0, outbox.anchor_seq(), None, outbox)
        floor = asyncio.create_task(stream.run(RECORDS))
        await stream.tell(0)

        async def forward() -> None:
            while f.status().refused == 0 and not f._stopping.is_set():
                try:
                    await f._forward(NO_CONNECTION, run, outbox)
                except _Refused as exc:
                    await f._refused_in_run(run, outbox, exc)

        forwarding = asyncio.create_task(forward())
        try:  # the state: the first refusal (a generous bound for a loaded machine)
            await asyncio.wait_for(asyncio.shield(forwarding), 60)
        finally:
            f._stopping.set()
            floor.cancel()
            await asyncio.wait_for(forwarding, 60)

    try:
        asyncio.run(go())
    finally:
        outbox.close()
    assert f.status().refused >= 1 and f.status().state is LinkState.THROTTLED
    assert stream.on(f"{PREFIX}.t1.fault") == SHARE  # the share filled past the credit
    assert f.status().acked == SHARE
    assert not [r for r in caplog.records if "floor.table_share" in r.getMessage()]
