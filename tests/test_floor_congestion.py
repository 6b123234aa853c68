"""After the broker refuses a record (the table's share of the stream full), the forwarder halves
what it keeps in flight and grows it back one per window acknowledged (AIMD), instead of opening
its whole window again into the still nearly full share: fewer records sent again, and each
record stored exactly once. Driven on its own asyncio loop against a stand-in broker (no server,
no clock: the broker answers one message per turn of the loop)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nats")

import nats.js.errors

import controller.floor.forwarder as forwarder_module
from controller.configuration import FloorConfig
from controller.floor.forwarder import FULL_CODE, Forwarder, _Refused, _Run
from controller.journal import NewRecord, SqliteJournal
from controller.journal.outbox import Outbox

WINDOW = 32
SHARE = 20
"""The stand-in broker refuses a message published while this many of the table's are unanswered."""
RECORDS = 600
NO_CONNECTION: Any = None
"""No heartbeat and no listening: the connection is not used."""
DOWN = {"device": "shoe", "reason": "serial port closed"}


class Ack:
    duplicate = False


class Broker:
    """Takes a message unless ``SHARE`` are unanswered when it comes (then refuses it, as
    JetStream does a full share); answers the oldest unanswered message once per turn of the loop."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.unanswered: list[tuple[str, bool, asyncio.Future[Any]]] = []
        self.stored: list[str] = []
        self.publishes: list[tuple[int, int]] = []
        """At each publish: messages unanswered (this one too), messages stored before it."""
        self.done = asyncio.Event()

    async def publish(self, subject: str, payload: bytes, headers: dict[str, str]) -> asyncio.Future[Any]:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.unanswered.append((headers[forwarder_module.RECORD_HEADER], len(self.unanswered) < SHARE, future))
        self.publishes.append((len(self.unanswered), len(self.stored)))
        return future

    def forget(self) -> None:
        pass

    async def answer(self) -> None:
        while len(self.stored) < self.expected:
            await asyncio.sleep(0)
            if not self.unanswered:
                continue
            msg_id, room, future = self.unanswered.pop(0)
            if future.cancelled():
                continue
            if room:
                assert msg_id not in self.stored, f"{msg_id} stored twice"
                self.stored.append(msg_id)
                future.set_result(Ack())
            else:
                full = "maximum messages per subject exceeded"
                future.set_exception(nats.js.errors.APIError(code=503, err_code=FULL_CODE, description=full))
        self.done.set()


class Watched(Forwarder):
    """Notes each refusal: messages in flight then (the refused one too), whether it was a probe,
    and how many the broker had stored."""

    broker: Broker
    refusals: list[tuple[int, bool, int]]

    async def _refused_in_run(self, run: _Run, outbox: Outbox, exc: _Refused) -> None:
        self.refusals.append((len(run.pending) + 1, self._probing, len(self.broker.stored)))
        await super()._refused_in_run(run, outbox, exc)


def test_a_refusal_halves_what_is_in_flight_and_fewer_records_are_sent_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(forwarder_module, "REFUSED_WAIT_S", 0.0)  # the stand-in's share has room at once
    path = tmp_path / "t1.db"
    journal = SqliteJournal(path)
    journal.append_batch([NewRecord("LinkDown", DOWN)] * RECORDS)
    journal.close()
    f = Watched(path, FloorConfig("t1", ("nats://127.0.0.1:1",)), window=WINDOW, heartbeat_s=None, max_backoff_s=0.0)
    f.refusals = []
    outbox = Outbox(path)

    async def go() -> Broker:
        broker = Broker(RECORDS)
        f.broker = broker
        publisher: Any = broker  # what the forwarder uses of a Publisher
        run = _Run(publisher, 0, outbox.anchor_seq(), None, outbox)
        answering = asyncio.create_task(broker.answer())

        async def forward() -> None:
            while not broker.done.is_set():
                try:
                    await f._forward(NO_CONNECTION, run, outbox)
                except _Refused as exc:
                    await f._refused_in_run(run, outbox, exc)

        forwarding = asyncio.create_task(forward())
        await broker.done.wait()
        f._stopping.set()
        await asyncio.wait_for(forwarding, 30)
        await answering
        return broker

    try:
        broker = asyncio.run(go())
    finally:
        outbox.close()
    # exactly once, and every record
    assert sorted(broker.stored) == sorted(f"t1/{seq}" for seq in range(1, RECORDS + 1))
    assert f.refusals, "the stand-in refused nothing: the test shows nothing"
    for in_flight, probing, stored in f.refusals:
        if probing:
            continue
        halved = max(1, in_flight // 2)
        until = stored + halved  # one window of acknowledgements grows it by one
        later = [unanswered for unanswered, taken in broker.publishes if stored <= taken < until]
        assert max(later, default=0) <= halved + 1, (in_flight, later)
    # before (the window opened fully after each refusal): 823 records sent again, 28 refusals; now 51 and 4
    assert f.status().resent <= 60, (f.status().resent, len(f.refusals))
