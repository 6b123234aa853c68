"""A table's forwarder waits out a busy broker instead of resending its whole window into it, and
still resends at once when the broker is silent or an acknowledgement was lost (driven on its
own asyncio loop with stand-in futures and a stand-in connection: no broker, no clock jumps;
each case waits for a state, never for a time)."""

from __future__ import annotations

import asyncio
from collections import deque
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nats")

import controller.floor.forwarder as forwarder_module
from controller.configuration import FloorConfig
from controller.floor.forwarder import Forwarder, _Resend
from controller.floor.publish import Publisher

TIMEOUT = 0.1
NO_OUTBOX: Any = None
"""The outbox is not touched: the stand-in messages are not the last of their records."""


class Connection:
    """What the forwarder reads of a nats-py connection: its counters."""

    def __init__(self) -> None:
        self.stats = {"in_msgs": 0}


class Ack:
    duplicate = False


def forwarder(tmp_path: Path, nc: Connection) -> Forwarder:
    f = Forwarder(tmp_path / "unused.db", FloorConfig("t1", ("nats://127.0.0.1:1",)), ack_timeout_s=TIMEOUT)
    f._js = (nc, Publisher(nc))
    return f


Pending = deque[tuple[int, bool, asyncio.Future[Any], str]]


def test_a_busy_broker_that_still_answers_is_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forwarder_module, "ACK_PATIENCE", 1000)  # the broker's pace, not the patience, decides
    nc = Connection()
    f = forwarder(tmp_path, nc)

    async def go() -> None:
        oldest: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        pending: Pending = deque([(1, False, oldest, "t/1")])

        async def busy_broker() -> None:  # others' acknowledgements keep coming, ours after 3 timeouts' worth
            for _ in range(30):
                nc.stats["in_msgs"] += 1
                await asyncio.sleep(TIMEOUT / 10)
            oldest.set_result(Ack())

        task = asyncio.create_task(busy_broker())
        await f._complete_oldest(pending, NO_OUTBOX)
        await task
        assert not pending and f.status().published == 1

    asyncio.run(go())


def test_a_silent_broker_means_resend(tmp_path: Path) -> None:
    f = forwarder(tmp_path, Connection())

    async def go() -> None:
        pending: Pending = deque([(1, False, asyncio.get_running_loop().create_future(), "t/1")])
        with pytest.raises(_Resend, match="no publish acknowledgement"):
            await f._complete_oldest(pending, NO_OUTBOX)

    asyncio.run(go())


async def answering(nc: Connection) -> None:
    """The broker answering all the while: a message in every tenth of the timeout, until cancelled."""
    while True:
        nc.stats["in_msgs"] += 1
        await asyncio.sleep(TIMEOUT / 10)


def test_a_lost_acknowledgement_means_resend_even_while_the_broker_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(forwarder_module, "ACK_PATIENCE", 1000)  # not the end of patience: the lost one
    nc = Connection()
    f = forwarder(tmp_path, nc)

    async def go() -> None:
        loop = asyncio.get_running_loop()
        later: asyncio.Future[Any] = loop.create_future()
        later.set_result(Ack())  # a later message acknowledged, the oldest never: it was lost
        pending: Pending = deque([(1, False, loop.create_future(), "t/1"), (2, False, later, "t/2")])

        task = asyncio.create_task(answering(nc))
        try:
            with pytest.raises(_Resend):  # at the first timeout; patience would be 100 s
                await asyncio.wait_for(f._complete_oldest(pending, NO_OUTBOX), 30)
        finally:
            task.cancel()

    asyncio.run(go())


def test_patience_has_an_end(tmp_path: Path) -> None:
    nc = Connection()
    f = forwarder(tmp_path, nc)

    async def go() -> None:
        pending: Pending = deque([(1, False, asyncio.get_running_loop().create_future(), "t/1")])

        task = asyncio.create_task(answering(nc))
        try:
            with pytest.raises(_Resend):
                await f._complete_oldest(pending, NO_OUTBOX)
        finally:
            task.cancel()

    asyncio.run(go())
