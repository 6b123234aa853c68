"""Publishing to JetStream with the acknowledgements on one reply subscription, for the forwarder
(docs/floor.md, "The table side").

nats-py's ``publish_async`` does the same, but per message it draws random bytes from the kernel
for the reply token, waits on a semaphore, registers a callback, and reads each acknowledgement
with the standard library's JSON and a dataclass built field by field: a fifth of a forwarder's
CPU at full speed (benchmarks/bench_floor.py). Here a reply subject is the connection's inbox, a
random part drawn once, and a counter; an acknowledgement is read with orjson. What a message
becomes is the same: a future that gets the broker's acknowledgement (:class:`Ack`), or an error
when the broker answers with one, or with no responders (no stream takes the subject).
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import nats.errors
import nats.js.errors
import orjson

if TYPE_CHECKING:
    from nats.aio.client import Client
    from nats.aio.msg import Msg

__all__ = ["Publisher"]

_STATUS = "Status"
_NO_RESPONDERS = "503"


@dataclass(frozen=True, slots=True)
class Ack:
    """The broker's acknowledgement of one published message."""

    stream: str
    seq: int
    duplicate: bool
    """JetStream already held a message with this ``Nats-Msg-Id`` (within its duplicate window)."""


class Publisher:
    """Publishes on connection ``nc`` (a nats-py client), each message's acknowledgement a future."""

    def __init__(self, nc: Client) -> None:
        self.nc = nc
        self._prefix = ""
        self._futures: dict[str, asyncio.Future[Ack]] = {}
        self._tokens = itertools.count(1)

    async def publish(self, subject: str, payload: bytes, headers: dict[str, str]) -> asyncio.Future[Ack]:
        """Publish ``payload`` on ``subject``; the future gets the acknowledgement or the error."""
        if not self._prefix:
            prefix = self.nc.new_inbox()  # the identity's inbox prefix and a random part, once
            await self.nc.subscribe(f"{prefix}.*", cb=self._reply)
            self._prefix = prefix + "."
        token = str(next(self._tokens))
        future: asyncio.Future[Ack] = asyncio.get_running_loop().create_future()
        self._futures[token] = future
        try:
            await self.nc.publish(subject, payload, reply=self._prefix + token, headers=headers)
        except BaseException:
            self._futures.pop(token, None)
            raise
        return future

    def forget(self) -> None:
        """Drop the futures nobody waits for any more (cancelled, or already settled)."""
        self._futures = {t: f for t, f in self._futures.items() if not f.done()}

    @property
    def pending(self) -> int:
        """Messages published and not acknowledged yet."""
        return len(self._futures)

    async def _reply(self, msg: Msg) -> None:
        future = self._futures.pop(msg.subject[len(self._prefix) :], None)
        if future is None or future.done():
            return
        if msg.headers and msg.headers.get(_STATUS) == _NO_RESPONDERS:
            future.set_exception(nats.js.errors.NoStreamResponseError())
            return
        try:
            resp = orjson.loads(msg.data)
            if not isinstance(resp, dict):
                raise ValueError(f"not an acknowledgement: {msg.data[:80]!r}")
            if "error" in resp:
                try:
                    nats.js.errors.APIError.from_error(resp["error"])  # raises the error's class
                except nats.js.errors.APIError as exc:
                    future.set_exception(exc)
                    return
                raise ValueError(f"an error without its class: {resp['error']!r:.80}")
            future.set_result(Ack(str(resp["stream"]), int(resp["seq"]), bool(resp.get("duplicate", False))))
        except (orjson.JSONDecodeError, ValueError, KeyError, TypeError) as exc:
            future.set_exception(nats.errors.Error(f"unreadable publish acknowledgement: {exc}"))
