"""The ingest's side of the floor-to-table channel (controller.floor.channel): the tables'
heartbeats kept in the floor store, and each table told what the store holds of it.

Heartbeats come in on their own subscription (a queue group, so one of several ingest processes
takes each) and wait in :class:`Beats` (the latest per table); the ingest's loop writes them
between batches (:func:`store_heartbeats`), on its own connection's turn, never inside a batch's
transaction. After a batch commits, and after a table's heartbeat, the ingest publishes a
:class:`~controller.floor.channel.Stored` to each table concerned (:func:`tell_stored`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

import orjson
import psycopg
from psycopg.rows import TupleRow

from controller.floor.channel import ChannelError, Heartbeat, Stored, decode_heartbeat, to_table_subject

if TYPE_CHECKING:
    from nats.aio.client import Client
    from nats.aio.msg import Msg

__all__ = ["Beats", "stored_heads", "store_heartbeats", "tell_stored"]

log = logging.getLogger("tablectl.floor.ingest")


class Beats:
    """The tables' heartbeats received and not yet written: the latest of each table."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self._latest: dict[str, Heartbeat] = {}
        self.refused = 0

    async def take(self, msg: Msg) -> None:
        """The subscription's callback: keep a heartbeat that reads, log one that does not."""
        try:
            beat = decode_heartbeat(msg.subject, msg.data, self.prefix)
        except ChannelError as exc:
            self.refused += 1
            log.warning("heartbeat refused (%s): %s", str(msg.subject)[:120], exc)
            return
        self._latest[beat.table] = beat

    @property
    def waiting(self) -> bool:
        """Whether heartbeats wait to be written."""
        return bool(self._latest)

    def drain(self) -> list[Heartbeat]:
        """The heartbeats waiting, each table's latest; none wait afterwards."""
        beats, self._latest = list(self._latest.values()), {}
        return beats


async def store_heartbeats(db: psycopg.AsyncConnection[TupleRow], beats: list[Heartbeat]) -> None:
    """Write each table's latest heartbeat (``floor_table.heartbeat_at``, the floor's clock, and
    ``heartbeat``), making the table's row when it has none (no record stored yet: ``last_seq``
    0, its first and last times the heartbeat's arrival)."""
    if not beats:
        return
    async with db.transaction(), db.cursor() as cur:
        await cur.executemany(
            "INSERT INTO floor_table (table_id, first_at, last_at, last_seq, heartbeat_at, heartbeat) "
            "VALUES (%s, clock_timestamp(), clock_timestamp(), 0, clock_timestamp(), %s::jsonb) "
            "ON CONFLICT (table_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, heartbeat = excluded.heartbeat",
            [(b.table, orjson.dumps(b.status()).decode()) for b in sorted(beats, key=lambda b: b.table)],
        )


async def stored_heads(db: psycopg.AsyncConnection[TupleRow], tables: Iterable[str]) -> list[Stored]:
    """What the store holds of each of ``tables`` (the head of its chain; a table the store does
    not know: nothing)."""
    wanted = sorted(set(tables))
    if not wanted:
        return []
    async with db.transaction(), db.cursor() as cur:
        await cur.execute("SELECT table_id, head_seq, head_hash FROM floor_chain WHERE table_id = ANY(%s)", (wanted,))
        rows = {str(r[0]): r for r in await cur.fetchall()}
    now = time.time()  # the floor's clock (the ingest's machine)
    out = []
    for table in wanted:
        row = rows.get(table)
        seq = int(row[1]) if row and row[1] is not None and row[2] else 0
        out.append(Stored(table, seq, str(row[2]) if seq and row else "", now))
    return out


async def tell_stored(nc: Client, prefix: str, heads: list[Stored]) -> None:
    """Publish each :class:`Stored` on its table's floor-to-table subject (plain NATS: a table
    away hears it with its next heartbeat's answer)."""
    for head in heads:
        await nc.publish(to_table_subject(prefix, head.table, Stored.TYPE), head.payload())
