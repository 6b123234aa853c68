"""One table floods the floor (issue 44 item 3; docs/floor.md, "One table, one feed"), on the
session's servers set up as in production (tests/floor_fixtures.py): the broker holds each table
to its share of the stream, so another table's records are all ingested within a bounded number
of the ingest's batches, while the flooding table's excess is refused at the broker, kept in its
journal and sent again until all of it is stored; a third table's junk and an ingest restarted
mid-flood at the same time change nothing of that."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

pytest.importorskip("nats")
psycopg = pytest.importorskip("psycopg")


from floor_fixtures import FloorSite  # noqa: E402
from floor_helpers import IngestThread, connect, count, wait_for  # noqa: E402

from controller.floor.chain import Outcome, Verdict  # noqa: E402
from controller.floor.channel import Heartbeat  # noqa: E402
from controller.floor.forwarder import Forwarder, LinkState  # noqa: E402
from controller.floor.metrics import IngestMetrics  # noqa: E402
from controller.floor.validate import FloorRecord  # noqa: E402
from controller.journal import NewRecord, SqliteJournal  # noqa: E402
from controller.journal.outbox import Outbox  # noqa: E402

SPOT = {"device": "spots", "seat": 1, "spot": "ante", "cents": 500}
SHARE = 20
"""The stream's share per table and subject in this test (the default is 1000)."""
BATCH = 10
"""The ingest's batch: an ingest iteration takes at most this many messages."""


def journal_of(path: Path, n: int) -> Path:
    journal = SqliteJournal(path)
    journal.append_batch([NewRecord("SpotReport", SPOT, event=True)] * n)
    journal.close()
    return path


class StoredAt(IngestMetrics):
    """The ingest's metrics, noting the batch (counted from 1) in which each table's record was
    stored: an ingest iteration, not a time."""

    def __init__(self) -> None:
        super().__init__()
        self.batch = 0
        self.stored_in: dict[tuple[str, int], int] = {}

    def observe(self, items: Sequence[object], outcome: Outcome) -> None:
        super().observe(items, outcome)
        self.batch += 1
        for item, verdict in zip(items, outcome.verdicts, strict=True):
            if isinstance(item, FloorRecord) and verdict in (Verdict.STORED, Verdict.PENDING):
                self.stored_in.setdefault((item.table, item.seq), self.batch)


def test_one_table_flooding_the_floor_holds_up_no_other_table(
    floor_folder: Path, floor_site: FloorSite, caplog: pytest.LogCaptureFixture
) -> None:
    """fl-a sends 75 times its share at full speed, fl-c junk, and the ingest is restarted in the
    middle of it; then fl-b sends its records as a table does. fl-b's records are all stored
    within ceil((two tables' shares of every subject + fl-b's records) / batch) + 2 batches of the
    ingest after the broker took them, whatever fl-a still has to send; fl-a's excess is refused
    by the broker (its link state ``throttled``, noted in its journal, each refusal counted) and
    sent again until every record of its journal is stored once; the ingest names fl-a, and only
    it, as filling its share; fl-c's junk is rejected and counted."""
    caplog.set_level(logging.WARNING, logger="tablectl.floor.ingest")
    n_a, n_b, n_c = 75 * SHARE, SHARE * 3 // 4, 5  # fl-b: a burst within its share
    link = floor_site.link()
    link.create_stream(table_share=SHARE)
    db = floor_site.database()
    a = Forwarder(journal_of(floor_folder / "a.db", n_a), link.floor_config("fl-a"), max_backoff_s=0.2, heartbeat_s=0.2)
    b_config = link.floor_config("fl-b")
    creds_c = link.table("fl-c")
    ingest = IngestThread(link.ingest_config(db.ingest, batch=BATCH, ack_wait_s=5))
    forwarders = [a.start()]
    try:
        # fl-c: junk on its own subject (each rejected), and a subject outside its five refused
        async def junk() -> list[str]:
            errors: list[str] = []
            nc = await connect(link, creds_c, errors)
            try:
                js = nc.jetstream(timeout=10)
                for i in range(n_c):
                    await js.publish(f"{link.prefix}.fl-c.event", b'{"junk": %d}' % i)
                await nc.publish(f"{link.prefix}.fl-c.spread-1", b"{}")
                await nc.flush()
                for _ in range(200):
                    if errors:
                        break
                    await asyncio.sleep(0.05)
            finally:
                await nc.close()
            return errors

        errors = asyncio.run(junk())
        assert any("permissions violation" in e and "fl-c.spread-1" in e for e in errors), errors
        wait_for(lambda: a.status().refused > 0 or a.status().acked >= n_a // 2, "fl-a flooding")
        ingest.stop()  # the second fault: the ingest restarted in the middle of the flood
        refused = a.status().refused
        wait_for(lambda: a.status().refused > refused + 1 or a.status().acked >= n_a, "fl-a refused while away")
        if a.status().state is LinkState.THROTTLED:
            box = Outbox(floor_folder / "a.db")
            state, error, _ = box.state()
            box.close()
            assert state == "throttled" and error and "maximum messages per subject exceeded" in error, (state, error)
        metrics = StoredAt()
        ingest = IngestThread(link.ingest_config(db.ingest, batch=BATCH, ack_wait_s=5), metrics)
        b = Forwarder(journal_of(floor_folder / "b.db", n_b), b_config, heartbeat_s=0.2)
        forwarders.append(b.start())
        wait_for(lambda: b.status().acked >= n_b, "the broker taking fl-b's records")
        taken_at = metrics.batch
        wait_for(lambda: all(("fl-b", s) in metrics.stored_in for s in range(1, n_b + 1)), "fl-b's records stored")
        waited = max(metrics.stored_in[("fl-b", s)] for s in range(1, n_b + 1)) - taken_at
        bound = math.ceil((2 * 5 * SHARE + n_b) / BATCH) + 2
        assert waited <= bound, f"fl-b's records waited {waited} ingest batches behind the flood (bound {bound})"
        assert a.status().acked < n_a, "fl-a was done before fl-b sent: no flood to measure against"
        assert b.status().refused == 0 and b.status().resent == 0

        # nothing fl-a recorded is lost: refused, kept in its journal, sent again, all stored once
        wait_for(lambda: count(db.reader, "SELECT head_seq FROM floor_chain WHERE table_id = 'fl-a'") == n_a, "fl-a")
        assert count(db.reader, "SELECT count(*) FROM journal_event WHERE table_id = 'fl-a'") == n_a
        assert count(db.reader, "SELECT count(*) FROM floor_quarantine") == 0
        assert a.status().refused >= 2
        wait_for(lambda: count(db.reader, "SELECT count(*) FROM ingest_reject WHERE table_id = 'fl-c'") == n_c, "junk")
        # the ingest named the flooding table, and only it
        named = [r.getMessage() for r in caplog.records if "fills its share of the stream" in r.getMessage()]
        assert any(m.startswith("table fl-a fills its share") for m in named), named
        assert not any("fl-b" in m for m in named), named
        assert metrics.registry.get_sample_value("tablectl_floor_table_queued", {"table": "fl-a"}) is not None
    finally:
        for f in forwarders:
            f.stop()
        ingest.stop()


def test_a_throttled_table_says_so_in_its_heartbeat_and_floor_status(floor_site: FloorSite) -> None:
    """The heartbeat of a table the broker refuses carries why; the floor keeps it, and
    ``floor status`` (controller.floor.alerts) names the table."""
    from controller.floor._tell import store_heartbeats
    from controller.floor.alerts import floor_status
    from controller.floor.channel import decode_heartbeat

    why = "the broker refuses its records: its share of the floor stream is full (3 refusals)"
    beat = Heartbeat("fl-d", time.time(), "betting", None, 4, 120, None, why)
    assert decode_heartbeat("floor-heartbeat.fl-d", beat.payload(), "floor") == beat
    quiet = Heartbeat("fl-e", time.time(), "betting", None, 4, 0)
    db = floor_site.database()

    async def store() -> None:
        conn = await psycopg.AsyncConnection.connect(db.ingest)
        try:
            await store_heartbeats(conn, [beat, quiet])
        finally:
            await conn.close()

    with psycopg.connect(db.registrar, autocommit=True) as conn:
        for table in ("fl-d", "fl-e"):
            conn.execute("INSERT INTO floor_chain (table_id, registered_by) VALUES (%s, 'test')", (table,))
    asyncio.run(store())
    with psycopg.connect(db.reader) as conn:
        status = {t.table_id: t for t in floor_status(conn)}
    assert status["fl-d"].throttled == why and status["fl-e"].throttled is None
    # the pit lists it with the table's alerts
    from datetime import UTC, datetime, timedelta

    from controller.web.pit_app import _alerts
    from controller.web.pit_store import PgFloorReader

    now = datetime.now(UTC)
    tables = {t.table_id: t for t in PgFloorReader(db.reader).tables(now - timedelta(days=1), now)}
    assert tables["fl-d"].throttled == why and tables["fl-e"].throttled is None
    assert f"over its share of the floor stream: {why}" in _alerts(tables["fl-d"])
    assert not any("share" in a for a in _alerts(tables["fl-e"]))
