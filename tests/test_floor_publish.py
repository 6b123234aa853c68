"""The forwarder's publisher (controller/floor/publish.py) gives each message's future what the
broker answered: its acknowledgement (duplicate or not), the error it names, no responders, or an
unreadable answer as an error; never a future left waiting for an answer that came. Driven with a
stand-in connection (the real broker: tests/test_floor.py)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest

pytest.importorskip("nats")

import nats.errors
import nats.js.errors

from controller.floor.publish import Ack, Publisher


@dataclass
class Msg:
    subject: str
    data: bytes
    headers: dict[str, str] | None = None


@dataclass
class Connection:
    """What the publisher uses of a nats-py connection."""

    published: list[tuple[str, bytes, str, dict[str, str]]] = field(default_factory=list)
    subscribed: list[str] = field(default_factory=list)
    cb: Any = None

    def new_inbox(self) -> str:
        return "_INBOX.UKEY.abc"

    async def subscribe(self, subject: str, cb: Any) -> None:
        self.subscribed.append(subject)
        self.cb = cb

    async def publish(self, subject: str, payload: bytes, reply: str, headers: dict[str, str]) -> None:
        self.published.append((subject, payload, reply, headers))


ANSWERS: list[tuple[bytes, dict[str, str] | None, Any]] = [
    (b'{"stream":"FLOOR","seq":7}', None, Ack("FLOOR", 7, False)),
    (b'{"stream":"FLOOR","seq":7,"duplicate":true}', None, Ack("FLOOR", 7, True)),
    (b'{"error":{"code":503,"err_code":10077,"description":"x"}}', None, nats.js.errors.ServiceUnavailableError),
    (b'{"error":{"code":400,"description":"bad"}}', None, nats.js.errors.BadRequestError),
    (b'{"error":{"code":409,"description":"other"}}', None, nats.js.errors.APIError),
    (b"", {"Status": "503"}, nats.js.errors.NoStreamResponseError),
    (b"not json", None, nats.errors.Error),
    (b"[1]", None, nats.errors.Error),
    (b'{"stream":"FLOOR"}', None, nats.errors.Error),
    (b'{"error":"text"}', None, nats.errors.Error),
]


@pytest.mark.parametrize(("data", "headers", "expected"), ANSWERS)
def test_each_answer_settles_its_future(data: bytes, headers: dict[str, str] | None, expected: Any) -> None:
    async def go() -> None:
        nc = Connection()
        p = Publisher(nc)
        first = await p.publish("floor.t1.event", b"{}", {"Nats-Msg-Id": "t1/1"})
        second = await p.publish("floor.t1.event", b"{}", {"Nats-Msg-Id": "t1/2"})
        assert nc.subscribed == ["_INBOX.UKEY.abc.*"] and p.pending == 2
        reply = nc.published[1][2]
        assert reply.startswith("_INBOX.UKEY.abc.") and reply != nc.published[0][2]
        await nc.cb(Msg(reply, data, headers))
        assert second.done() and not first.done() and p.pending == 1
        if isinstance(expected, Ack):
            assert second.result() == expected
        else:
            assert isinstance(second.exception(), expected)
        await nc.cb(Msg(reply, data, headers))  # the same answer again: nothing waits for it
        await nc.cb(Msg("_INBOX.UKEY.abc.999", data, headers))  # an answer nobody asked for
        first.cancel()
        p.forget()
        assert p.pending == 0

    asyncio.run(go())
