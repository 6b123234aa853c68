"""Pulling a batch from the floor's durable consumer bounded by bytes as well as by messages
(docs/floor.md, "The ingest").

nats-py's ``fetch`` bounds a pull by messages only: with messages of up to 512 KiB
(:data:`controller.floor.validate.MAX_MESSAGE_BYTES`) a batch of 1,000 could be 512 MB. Here a pull
request also carries JetStream's ``max_bytes``, so the batch can be long in messages (a table's
run in it longer: one signature verification and one chain update a table a batch) and still
small in memory. The request is the one ``fetch`` makes (first ``no_wait``; when nothing is ready,
one that waits up to ``wait_s``), answered on a reply subject of its own, so a late status answer
to an earlier request is never taken for this one's end; a message delivered late for an earlier
request is kept for the next batch (it is this worker's to settle).
"""

from __future__ import annotations

import asyncio
import itertools
from typing import TYPE_CHECKING

import orjson

if TYPE_CHECKING:
    from nats.aio.client import Client
    from nats.aio.msg import Msg
    from nats.aio.subscription import Subscription

__all__ = ["Puller"]

_STATUS = "Status"
_ENDS = frozenset({"404", "408", "409"})
"""No messages, the request expired, a limit of the request reached (``max_bytes``): the request is over."""


class Puller:
    """Pulls batches from durable ``durable`` of stream ``stream`` over connection ``nc``."""

    def __init__(self, nc: Client, stream: str, durable: str, api_prefix: str = "$JS.API") -> None:
        self.nc = nc
        self.request_subject = f"{api_prefix}.CONSUMER.MSG.NEXT.{stream}.{durable}"
        self._inbox = ""
        self._sub: Subscription | None = None
        self._requests = itertools.count(1)
        self._reply = ""
        self._got: list[Msg] = []
        self._want = 0
        self._over = asyncio.Event()

    async def _take(self, msg: Msg) -> None:
        status = msg.headers.get(_STATUS) if msg.headers else None
        if status is None:
            self._got.append(msg)
            if len(self._got) >= self._want:
                self._over.set()
        elif status in _ENDS and msg.subject == self._reply:
            self._over.set()  # heartbeats and answers to earlier requests are not this request's end

    async def pull(self, batch: int, max_bytes: int, wait_s: float) -> list[Msg]:
        """Up to ``batch`` messages and about ``max_bytes`` (at least one message whatever its size
        below that): what is ready at once, or, when nothing is, what comes within ``wait_s``."""
        if self._sub is None:
            self._inbox = self.nc.new_inbox()
            self._sub = await self.nc.subscribe(f"{self._inbox}.*", cb=self._take)
        if self._got:
            return self._take_all()  # delivered late for an earlier request
        await self._request({"batch": batch, "max_bytes": max_bytes, "no_wait": True}, batch, wait_s)
        if not self._got:
            expires = int(wait_s * 1e9)
            await self._request({"batch": batch, "max_bytes": max_bytes, "expires": expires}, batch, wait_s)
        return self._take_all()

    async def _request(self, body: dict[str, object], batch: int, wait_s: float) -> None:
        self._reply = f"{self._inbox}.{next(self._requests)}"
        self._want = batch
        self._over.clear()
        await self.nc.publish(self.request_subject, orjson.dumps(body), reply=self._reply)
        try:
            await asyncio.wait_for(self._over.wait(), wait_s + 2.0)  # the broker's answer, or its silence
        except TimeoutError:
            pass

    def _take_all(self) -> list[Msg]:
        got, self._got = self._got, []
        return got
