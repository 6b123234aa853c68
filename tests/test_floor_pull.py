"""The ingest's pull bounded by bytes (controller/floor/pull.py), on the session's broker set up
as in production (TLS, the ingest's own identity and durable): a batch long in messages stops at
its byte bound, and every message still comes, once, in the pulls after it."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("nats")

import nats
from floor_fixtures import FloorLink
from nats.js.api import AckPolicy, ConsumerConfig

from controller.floor.connect import nats_auth_options
from controller.floor.pull import Puller

KIB = 1024


def test_a_pull_stops_at_its_byte_bound_and_the_rest_comes_after(floor_link: FloorLink) -> None:
    creds = floor_link.table("pl-a")
    sizes = [100 * KIB] * 10 + [1 * KIB] * 30

    async def go() -> list[list[int]]:
        table = await nats.connect(servers=list(floor_link.servers), **nats_auth_options(floor_link.auth(creds)))
        ingest = await nats.connect(servers=list(floor_link.servers), **nats_auth_options(floor_link.ingest))
        try:
            js = table.jetstream(timeout=10)
            for n, size in enumerate(sizes):
                await js.publish(f"{floor_link.prefix}.pl-a.event", n.to_bytes(4, "big") + b"x" * (size - 4))
            await ingest.jetstream(timeout=10).pull_subscribe(
                f"{floor_link.prefix}.>",
                durable=floor_link.durable,
                stream=floor_link.stream,
                config=ConsumerConfig(ack_policy=AckPolicy.EXPLICIT),
            )
            puller = Puller(ingest, floor_link.stream, floor_link.durable)
            batches: list[list[int]] = []
            while sum(len(b) for b in batches) < len(sizes):
                msgs = await puller.pull(1000, 350 * KIB, 0.1)
                batches.append([int.from_bytes(m.data[:4], "big") for m in msgs])
                for m in msgs:
                    await m.ack()
            assert await puller.pull(1000, 350 * KIB, 0.1) == []  # nothing left: an empty batch
            return batches
        finally:
            await table.close()
            await ingest.close()

    batches = asyncio.run(go())
    assert all(len(b) <= 3 for b in batches[:3]), batches  # three of 100 KiB at most under 350 KiB
    assert [n for b in batches for n in b] == list(range(len(sizes)))  # each once, in order
    assert len(batches[-1]) > 3  # the small ones: many a batch
