"""Tables isolated from each other at the broker, and the floor-to-table channel (docs/floor.md,
"What the floor has stored, and heartbeats"), on the session's servers set up as in production
(tests/floor_fixtures.py): another table's identity pre-publishing every de-duplication id a
table will use neither drops nor delays one of its records; the floor tells each table what it
has stored, on a subject only that table may read; heartbeats reach the floor store."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nats")
psycopg = pytest.importorskip("psycopg")


from floor_fixtures import FloorLink, FloorSite  # noqa: E402
from floor_helpers import IngestThread, connect, count, wait_for  # noqa: E402

from controller.floor.channel import (  # noqa: E402
    ChannelError,
    Heartbeat,
    Stored,
    decode_heartbeat,
    decode_to_table,
    heartbeat_subject,
    to_table_subject,
)
from controller.floor.forwarder import Forwarder, LinkState  # noqa: E402
from controller.journal import NewRecord, SqliteJournal  # noqa: E402
from controller.journal.outbox import Outbox  # noqa: E402

TIMEOUT = 120.0
SPOT = {"device": "spots", "seat": 1, "spot": "ante", "cents": 500}


def test_another_tables_identity_cannot_drop_or_delay_a_tables_records(
    floor_folder: Path, floor_link: FloorLink, floor_db: Any
) -> None:
    """Table iso-b's identity publishes, on its own subject, a message with every
    ``Nats-Msg-Id`` table iso-a's forwarder used to send (``iso-a/SEQ``, ``iso-a/SEQ/meters``)
    before iso-a publishes: every one of iso-a's records is stored, none is sent twice (no
    resend, no 'duplicate'), and the floor tells iso-a it stored them all."""
    n = 40
    journal = SqliteJournal(floor_folder / "a.db")
    journal.append_batch([NewRecord("SpotReport", SPOT, event=True)] * n)
    config_a = floor_link.floor_config("iso-a")
    creds_b = floor_link.table("iso-b")

    async def squat() -> int:
        nc = await connect(floor_link, creds_b)
        try:
            js = nc.jetstream(timeout=10)
            taken = 0
            for seq in range(1, n + 10):
                for msg_id in (f"iso-a/{seq}", f"iso-a/{seq}/meters"):
                    ack = await js.publish(f"{floor_link.prefix}.iso-b.event", b"junk", headers={"Nats-Msg-Id": msg_id})
                    taken += not ack.duplicate
            return taken
        finally:
            await nc.close()

    assert asyncio.run(squat()) == 2 * (n + 9)  # the broker took every id first
    ingest = IngestThread(floor_link.ingest_config(floor_db.ingest, batch=50))
    forwarder = Forwarder(journal.path, config_a, ack_timeout_s=5.0).start()
    try:
        assert forwarder.wait_acked(n, TIMEOUT)
        wait_for(lambda: forwarder.status().stored == n, "the floor telling iso-a it stored every record")
        status = forwarder.status()
        assert (status.published, status.duplicates, status.resent, status.state) == (n, 0, 0, LinkState.UP)
        assert count(floor_db.reader, "SELECT count(*) FROM floor_record WHERE table_id = 'iso-a'") == n
        assert count(floor_db.reader, "SELECT count(*) FROM floor_quarantine WHERE table_id = 'iso-a'") == 0
        assert count(floor_db.reader, "SELECT count(*) FROM ingest_reject WHERE table_id = 'iso-b'") == 2 * (n + 9)
        forwarder.stop(timeout=TIMEOUT)
        box = Outbox(journal.path)
        try:
            assert box.acked() == n and box.stored()[0] == n  # the journal keeps what the floor stored
        finally:
            box.close()
    finally:
        forwarder.stop(timeout=TIMEOUT)
        ingest.stop()
        journal.close()


def test_the_floor_tells_each_table_only_its_own_and_keeps_its_heartbeat(
    floor_folder: Path, floor_link: FloorLink, floor_db: Any
) -> None:
    """A table's identity may read only its own floor-to-table subject and publish only its own
    heartbeat (the broker refuses the rest); a heartbeat reaches ``floor_table`` with the table's
    step, hold and backlog and no card, and is answered with what the floor stored."""
    creds_c = floor_link.table("iso-c")
    floor_link.table("iso-d")
    ingest = IngestThread(floor_link.ingest_config(floor_db.ingest))

    async def go() -> Stored:
        errors: list[str] = []
        nc = await connect(floor_link, creds_c, errors)
        try:
            await nc.subscribe(to_table_subject(floor_link.prefix, "iso-d"))
            await nc.publish(heartbeat_subject(floor_link.prefix, "iso-d"), b"{}")
            told: asyncio.Queue[bytes] = asyncio.Queue()

            async def take(msg: Any) -> None:
                await told.put(msg.data)

            await nc.subscribe(to_table_subject(floor_link.prefix, "iso-c"), cb=take)
            beat = Heartbeat("iso-c", time.time(), "betting", "shoe jammed", 12, 3)
            deadline = time.monotonic() + TIMEOUT
            while told.empty() and time.monotonic() < deadline:  # the ingest's subscription may come later
                await nc.publish(heartbeat_subject(floor_link.prefix, "iso-c"), beat.payload())
                await asyncio.sleep(0.5)
            answer = decode_to_table(
                to_table_subject(floor_link.prefix, "iso-c", "stored"), await told.get(), floor_link.prefix
            )
            for text in (
                f'permissions violation for subscription to "{to_table_subject(floor_link.prefix, "iso-d")}"',
                f'permissions violation for publish to "{heartbeat_subject(floor_link.prefix, "iso-d")}"',
            ):
                while not any(text in e for e in errors) and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                assert any(text in e for e in errors), (text, errors)
            return answer
        finally:
            await nc.close()

    try:
        answer = asyncio.run(go())
    finally:
        ingest.stop()
    assert (answer.table, answer.seq, answer.hash) == ("iso-c", 0, "")  # nothing stored of it yet
    with psycopg.connect(floor_db.reader, autocommit=True) as conn:
        rows = conn.execute("SELECT table_id, heartbeat, heartbeat_at IS NOT NULL FROM floor_table").fetchall()
    assert rows == [("iso-c", {"step": "betting", "hold": "shoe jammed", "round": 12, "backlog": 3}, True)]
    from datetime import UTC, datetime

    from controller.web.pit_store import PgFloorReader  # the pit's read model takes a table that only beat

    assert "iso-c" in [
        t.table_id for t in PgFloorReader(floor_db.reader).tables(datetime(2000, 1, 1, tzinfo=UTC), datetime.now(UTC))
    ]


def test_a_duplicate_answer_for_a_record_the_floor_has_not_stored_is_sent_again(floor_folder: Path) -> None:
    """The broker answering 'duplicate' is not success unless the floor confirmed the record:
    the forwarder resends from its last acknowledged record (and says why)."""
    from controller.floor.forwarder import _Resend
    from controller.floor.publish import Ack

    journal = SqliteJournal(floor_folder / "d.db")
    forwarder = Forwarder(journal.path, _config())
    outbox = Outbox(journal.path)

    async def complete(seq: int, duplicate: bool) -> None:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        future.set_result(Ack("FLOOR", 1, duplicate))
        forwarder._complete((seq, True, future, f"iso-e/{seq}"), outbox)

    try:
        asyncio.run(complete(1, False))
        assert forwarder.status().acked == 1
        with pytest.raises(_Resend, match="'duplicate' for record 2, not confirmed stored"):
            asyncio.run(complete(2, True))
        assert forwarder.status().acked == 1
        forwarder._stored = 2  # the floor said it stored record 2: a duplicate of it is a resend's
        asyncio.run(complete(2, True))
        assert forwarder.status().acked == 2
    finally:
        outbox.close()
        journal.close()


def _config() -> Any:
    from controller.configuration import FloorConfig

    return FloorConfig("iso-e", ("tls://127.0.0.1:1",))


BAD_TO_TABLE: list[tuple[str, bytes, str]] = [
    ("p-to-table.t1.stored", b"not json", "not JSON"),
    ("p-to-table.t1.stored", b"[1]", "not a JSON object"),
    ("p-to-table.t1.stored", b'{"v": 2, "type": "stored"}', "version 2 unknown"),
    ("p-to-table.t1.limits", b'{"v": 1, "type": "limits", "table": "t1"}', "not a known type"),
    (
        "p-to-table.t1.stored",
        b'{"v": 1, "type": "stored", "table": "t2", "seq": 0, "hash": "", "at": 1}',
        "subject's table",
    ),
    ("p-to-table.t1.stored", b'{"v": 1, "type": "stored", "table": "t1", "seq": -1, "hash": "", "at": 1}', "$.seq"),
    ("p-to-table.t1.stored", b'{"v": 1, "type": "stored", "table": "t1", "seq": 3, "hash": "", "at": 1}', "$.hash"),
    (
        "p-to-table.t1.stored",
        b'{"v": 1, "type": "stored", "table": "t1", "seq": 0, "hash": "", "at": 1e400}',
        "not JSON",
    ),
    ("p-to-table.t1.stored", b'{"v": 1, "type": "stored", "table": "t1", "seq": 0, "hash": "", "at": -5}', "$.at"),
    ("p.t1.stored", b"{}", "not a floor-to-table subject"),
    ("p-to-table.t1.stored", b"x" * 5000, "more than 4096"),
]


@pytest.mark.parametrize(("subject", "payload", "reason"), BAD_TO_TABLE)
def test_a_floor_message_that_is_not_one_is_refused_with_its_reason(subject: str, payload: bytes, reason: str) -> None:
    with pytest.raises(ChannelError, match=reason.replace("$", r"\$").replace("(", r"\(")):
        decode_to_table(subject, payload, "p")


def test_channel_messages_read_back_as_written() -> None:
    stored = Stored("t1", 7, "a" * 64, 1_800_000_000.5)
    assert decode_to_table("p-to-table.t1.stored", stored.payload(), "p") == stored
    beat = Heartbeat("t1", 1_800_000_000.0, "dealing", None, 3, 0)
    assert decode_heartbeat("p-heartbeat.t1", beat.payload(), "p") == beat
    with pytest.raises(ChannelError, match="subject's table"):
        decode_heartbeat("p-heartbeat.t2", beat.payload(), "p")
    with pytest.raises(ChannelError, match=r"\$.round"):
        decode_heartbeat("p-heartbeat.t1", beat.payload().replace(b'"round":3', b'"round":true'), "p")


def test_the_heartbeat_says_step_hold_round_and_what_the_floor_has_not_stored(floor_folder: Path) -> None:
    """From the table's snapshot beside its journal; no snapshot yet: no step; never a card."""
    import json

    journal = SqliteJournal(floor_folder / "hb.db")
    journal.append_batch([NewRecord("SpotReport", SPOT, event=True)] * 7)
    forwarder = Forwarder(journal.path, _config())
    forwarder._head, forwarder._stored = 7, 4
    try:
        beat = forwarder.heartbeat()
        assert (beat.step, beat.hold, beat.round, beat.backlog) == (None, None, 0, 3)
        snapshot = {"step": "dealing", "round_no": 5, "hold": {"reason": "shoe jammed"}, "hidden": ["As"]}
        forwarder.snapshot_path.write_text(json.dumps({"written_at": 1.0, "snapshot": snapshot}))
        beat = forwarder.heartbeat()
        assert (beat.table, beat.step, beat.hold, beat.round, beat.backlog) == ("iso-e", "dealing", "shoe jammed", 5, 3)
        assert b"As" not in beat.payload()
        forwarder.snapshot_path.write_text("{half a fi")  # being replaced: the heartbeat still goes
        assert forwarder.heartbeat().step is None
    finally:
        journal.close()


def test_status_alerts_when_what_the_broker_took_is_not_stored_in_time(floor_folder: Path) -> None:
    """``tablectl status``: the backlog is counted from the floor's stored position; records the
    broker took and the floor has not confirmed for longer than the patience are an ALERT."""
    import sqlite3
    from contextlib import closing

    from controller.cli._status import STORED_PATIENCE_S, floor_link

    journal = SqliteJournal(floor_folder / "st.db")
    journal.append_batch([NewRecord("SpotReport", SPOT, event=True)] * 10)
    box = Outbox(journal.path)
    box.ack(10)
    box.confirm(6)
    _, since = box.stored()
    box.close()
    assert since is not None
    try:
        with closing(sqlite3.connect(journal.path)) as db:
            calm = floor_link(db, 10, now=since + STORED_PATIENCE_S - 1)
            late = floor_link(db, 10, now=since + STORED_PATIENCE_S + 1)
        assert calm is not None and late is not None
        assert (calm["acked_seq"], calm["stored_seq"], calm["backlog"], calm["alert"]) == (10, 6, 4, None)
        assert late["alert"] is not None and late["alert"].startswith("4 records the broker took (up to record 10)")
        box = Outbox(journal.path)
        box.confirm(10)
        box.close()
        with closing(sqlite3.connect(journal.path)) as db:
            done = floor_link(db, 10, now=since + 10 * STORED_PATIENCE_S)
        assert done is not None and (done["backlog"], done["alert"]) == (0, None)
    finally:
        journal.close()


def test_create_stream_and_an_ingest_that_says_once_why_it_waits(floor_site: FloorSite) -> None:
    """Production order: the ingest starts before the stream exists and may not make it: it says
    so once, clearly (not ``nats: timeout`` in a loop); ``tablectl floor create-stream`` with the
    setup identity makes it (a second run finds it there; a table's identity is refused with the
    broker's reason), and the ingest starts ingesting."""
    import signal
    import subprocess
    import sys

    link = floor_site.link()
    ca = str(floor_site.auth.ca)
    ingest = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "controller",
            "floor",
            "ingest",
            "--nats",
            link.servers[0],
            "--db",
            "postgresql://x@127.0.0.1:1/x",
        ]
        + link.ingest_args(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(ingest.stdout.readline, "")) if ingest.stdout else None)
    reader.start()

    def create(creds: Path) -> subprocess.CompletedProcess[str]:
        args = [
            "--nats",
            link.servers[0],
            "--creds",
            str(creds),
            "--ca",
            ca,
            "--prefix",
            link.prefix,
            "--stream",
            link.stream,
        ]
        return subprocess.run(
            [sys.executable, "-m", "controller", "floor", "create-stream", *args],
            capture_output=True,
            text=True,
            timeout=120,
        )

    try:
        wait_for(
            lambda: any("does not exist and this identity may not make it" in line for line in lines),
            "the ingest saying why",
        )
        refused = create(floor_link_table := link.table("iso-f"))
        assert refused.returncode == 2 and "permissions violation" in refused.stderr.lower(), refused
        assert "Traceback" not in refused.stderr and floor_link_table.exists()
        made = create(floor_site.admin_creds)
        assert made.returncode == 0 and f"made the stream {link.stream}: subjects {link.prefix}.>" in made.stdout, made
        again = create(floor_site.admin_creds)
        assert again.returncode == 0 and "is there already" in again.stdout, again
        wait_for(
            lambda: any(f"the floor stream {link.stream} is there: ingesting" in line for line in lines), "ingesting"
        )
    finally:
        ingest.send_signal(signal.SIGTERM)
        ingest.wait(60)
        reader.join(60)
    text = "".join(lines)
    assert text.count("does not exist and this identity may not make it") == 1, text
    assert "permissions violation" in text.lower() and "timeout; retrying" not in text, text


def test_the_ingest_logs_a_broker_outage_and_its_end(
    floor_folder: Path, floor_site: FloorSite, floor_db: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The broker SIGKILLed under a running ingest and started again: one line when the
    connection goes, one when it is back (with how long), nothing in between."""
    import logging

    broker = floor_site.own_nats(floor_folder / "nats").start()
    try:
        link = floor_site.link(brokers=[broker], servers=(broker.url,))
        link.create_stream()
        caplog.set_level(logging.INFO, logger="tablectl.floor.ingest")
        ingest = IngestThread(link.ingest_config(floor_db.ingest))
        try:
            wait_for(lambda: ingest.stats.batches >= 0 and _consumer_made(link), "the ingest's consumer")
            broker.kill()
            wait_for(lambda: "NATS connection lost" in caplog.text, "the outage logged")
            broker.start()
            wait_for(lambda: "NATS connection back after" in caplog.text, "its end logged")
        finally:
            ingest.stop()
    finally:
        broker.kill()
    assert caplog.text.count("NATS connection lost") == 1 and caplog.text.count("NATS connection back") == 1


def _consumer_made(link: FloorLink) -> bool:
    async def look() -> bool:
        nc = await connect(link, link.site.admin_creds)
        try:
            await nc.jetstream(timeout=5).consumer_info(link.stream, link.durable)
            return True
        except Exception:  # not made yet
            return False
        finally:
            await nc.close()

    return asyncio.run(look())
