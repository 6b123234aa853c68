"""The table checks the floor's hash (issue 44 item 5): a ``stored`` message whose hash is not the
journal's own record at that seq (the floor holds a record the table never wrote) holds the
table's floor feed, with an alert on the table (``tablectl status``), in its heartbeat (so
``floor status`` and the pit show it), kept across a restart; ``journal prune`` never counts that
record as stored. The feed goes on once the floor says it holds the journal's own record there."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nats")
pytest.importorskip("psycopg")

import nats
import psycopg
from floor_fixtures import FloorLink
from floor_helpers import wait_for

from controller.cli._status import floor_link as table_floor_link
from controller.floor._tell import store_heartbeats
from controller.floor.channel import Heartbeat, Stored, decode_heartbeat, heartbeat_subject, to_table_subject
from controller.floor.connect import nats_auth_options
from controller.floor.forwarder import Forwarder, LinkState
from controller.journal import NewRecord, SqliteJournal
from controller.journal.retention import floor_acknowledged
from controller.journal.stored import hash_at

SPOT = {"device": "spots", "seat": 1, "spot": "ante", "cents": 500}


class Floor:
    """The floor's side of the channel, played by the test with the ingest's identity: it tells
    the table what it "holds" and hears the table's heartbeats."""

    def __init__(self, link: FloorLink, table: str) -> None:
        self.link, self.table = link, table
        self.loop = asyncio.new_event_loop()
        self.beats: list[Heartbeat] = []
        self.nc: Any = self.loop.run_until_complete(self._connect())

    async def _connect(self) -> Any:
        nc = await nats.connect(
            servers=list(self.link.servers), connect_timeout=5, **nats_auth_options(self.link.ingest)
        )

        async def take(msg: Any) -> None:
            self.beats.append(decode_heartbeat(msg.subject, msg.data, self.link.prefix))

        await nc.subscribe(heartbeat_subject(self.link.prefix, self.table), cb=take)
        await nc.flush()
        return nc

    def tell(self, seq: int, digest: str) -> None:
        subject = to_table_subject(self.link.prefix, self.table, Stored.TYPE)
        payload = Stored(self.table, seq, digest, time.time()).payload()
        self.loop.run_until_complete(self.nc.publish(subject, payload))
        self.loop.run_until_complete(self.nc.flush())

    def pump(self) -> None:
        """Let the subscription's callbacks run (the heartbeats that arrived)."""
        self.loop.run_until_complete(asyncio.sleep(0.02))

    def heard_since(self, at: float) -> bool:
        """Whether a heartbeat the table sent at ``at`` or later has arrived. A forwarder listens
        to the floor once one has: it subscribes before its first heartbeat, on the same
        connection, and showing its state does not wait for either to be sent."""
        self.pump()
        return any(b.at >= at for b in self.beats)

    def close(self) -> None:
        self.loop.run_until_complete(self.nc.close())
        self.loop.close()


def _hash(journal: Path, seq: int) -> str:
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        return str(hash_at(db, seq, checked=False))  # a row, or a record of a folded round
    finally:
        db.close()


def _stored_position(path: Path) -> int | None:
    journal = SqliteJournal.open_readonly(path)
    try:
        return floor_acknowledged(journal)
    finally:
        journal.close()


def _table_status(path: Path) -> dict[str, Any] | None:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return table_floor_link(db, 0)
    finally:
        db.close()


def test_a_stored_message_with_another_hash_holds_the_feed_until_the_floor_holds_the_tables_record(
    floor_folder: Path, floor_link: FloorLink, floor_db: Any
) -> None:
    table = "sh-a"
    journal = SqliteJournal(floor_folder / "sh.db")
    journal.append_batch([NewRecord("SpotReport", SPOT, event=True)] * 5)
    config = floor_link.floor_config(table)
    floor = Floor(floor_link, table)
    try:
        _held_and_released(journal, config, floor)
    finally:
        floor.close()
        journal.close()


def _held_and_released(journal: SqliteJournal, config: Any, floor: Floor) -> None:
    forwarder = Forwarder(journal.path, config, heartbeat_s=0.2).start()
    try:
        wait_for(lambda: forwarder.status().acked == 5, "the five records acknowledged")
        floor.tell(2, _hash(journal.path, 2))  # the table's own record 2: stored, as it should be
        wait_for(lambda: forwarder.status().stored == 2, "record 2 confirmed")
        forged = "f" * 64
        floor.tell(4, forged)  # the floor holds another record 4 than the table's
        wait_for(lambda: forwarder.status().state is LinkState.HELD, "the feed held")
        status = forwarder.status()
        assert status.stored == 2 and "record 4" in (status.error or ""), status
        # written to the journal at the forwarder's next write, not with its status: waited for
        wait_for(lambda: _stored_position(journal.path) == 2, "record 2 stored in the journal")
        told = _table_status(journal.path)
        assert told is not None and told["held_seq"] == 4, told
        assert told["alert"] and "held on record 4" in told["alert"] and "never wrote" in told["alert"], told

        # The heartbeat says so, and the floor keeps it where `floor status` and the pit read it.
        def held_beat() -> bool:
            floor.pump()
            return any(b.feed_held for b in floor.beats)

        wait_for(held_beat, "a heartbeat saying the feed is held")
        beat = next(b for b in floor.beats if b.feed_held)
        assert "record 4" in (beat.feed_held or "")

        # Held: records written now are not published (two more heartbeats: the loop went round).
        journal.append_batch([NewRecord("SpotReport", SPOT, event=True)] * 3)
        beats = len(floor.beats)
        wait_for(lambda: (floor.pump(), len(floor.beats) >= beats + 2)[1], "two more heartbeats")
        assert forwarder.status().acked == 5

        # A stored message for an earlier record of the table's own does not release it; nor does the
        # forged hash said again.
        floor.tell(3, _hash(journal.path, 3))
        floor.tell(4, forged)
        beats = len(floor.beats)
        wait_for(lambda: (floor.pump(), len(floor.beats) >= beats + 2)[1], "two more heartbeats")
        assert forwarder.status().state is LinkState.HELD
    finally:
        forwarder.stop()
    assert _stored_position(journal.path) == 2

    # A restart stays held (the hold is in the journal).
    restarted = time.time()
    forwarder = Forwarder(journal.path, config, heartbeat_s=0.2).start()
    try:
        wait_for(lambda: forwarder.status().state is LinkState.HELD, "the restarted feed held")
        # The floor put it right (resolve, resend): it holds the table's own record 4. It says so
        # in answer to a heartbeat, as the ingest does: told before the restarted forwarder
        # listens, the word is lost (the ingest says it again at the next heartbeat; this floor
        # says it once).
        wait_for(lambda: floor.heard_since(restarted), "a heartbeat of the restarted forwarder")
        floor.tell(4, _hash(journal.path, 4))
        wait_for(lambda: forwarder.status().acked == 8, "the feed going on: records 6 to 8 acknowledged")
        assert forwarder.status().stored == 4
        told = _table_status(journal.path)
        assert told is not None and told["held_seq"] is None and told["alert"] is None, told
        wait_for(lambda: _stored_position(journal.path) == 4, "record 4 stored in the journal")
    finally:
        forwarder.stop()


def test_a_stored_message_for_a_record_the_table_never_wrote_holds_the_feed(
    floor_folder: Path, floor_link: FloorLink
) -> None:
    table = "sh-b"
    journal = SqliteJournal(floor_folder / "sh-b.db")
    journal.append_batch([NewRecord("SpotReport", SPOT, event=True)] * 3)
    floor = Floor(floor_link, table)
    forwarder = Forwarder(journal.path, floor_link.floor_config(table), heartbeat_s=0.2).start()
    try:
        wait_for(lambda: forwarder.status().acked == 3, "the three records acknowledged")
        floor.tell(9, "a" * 64)  # beyond the journal's head: the floor holds records the table never wrote
        wait_for(lambda: forwarder.status().state is LinkState.HELD, "the feed held")
        assert "record 9, which this journal has not written" in (forwarder.status().error or "")
        assert _stored_position(journal.path) == 0
    finally:
        forwarder.stop()
        floor.close()
        journal.close()


def test_floor_status_and_the_pit_show_a_table_holding_its_feed(floor_db: Any) -> None:
    """The heartbeat's word, as the ingest keeps it, reaches ``floor status`` and the pit's alerts."""
    from controller.floor.alerts import floor_status
    from controller.web.pit_app import _alerts
    from controller.web.pit_store import PgFloorReader

    why = "the floor says it holds record 4 with hash ffff..., not this journal's 1234...: the feed is held"

    async def beat() -> None:
        async with await psycopg.AsyncConnection.connect(floor_db.ingest) as conn:
            await store_heartbeats(conn, [Heartbeat("sh-c", time.time(), "betting", None, 3, 2, why)])

    asyncio.run(beat())
    with psycopg.connect(floor_db.owner, autocommit=True) as conn:
        conn.execute("INSERT INTO floor_chain (table_id, registered_by) VALUES ('sh-c', 'add-table')")
    with psycopg.connect(floor_db.reader, autocommit=True) as conn:
        status = {t.table_id: t for t in floor_status(conn)}
    assert status["sh-c"].feed_held == why
    tables = PgFloorReader(floor_db.reader).tables(datetime(2000, 1, 1, tzinfo=UTC), datetime.now(UTC))
    state = next(t for t in tables if t.table_id == "sh-c")
    assert _alerts(state) == [f"floor feed held: {why}"]
