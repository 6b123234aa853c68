"""A keyed journal is checked with its key at each forwarder start, on the session's servers set
up as in production (tests/floor_fixtures.py): a record changed and its chain linked again by
someone without the key (plain SHA-256 links, as an attacker would compute them) is refused
before anything is published when the forwarder holds the key; a forwarder not given the key
checks the links and the head only, as before. No ingest runs: what the stream holds is exactly
what the forwarder sent. Each test waits for states, never for a time."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("nats")

from floor_fixtures import FloorLink, FloorSite
from floor_helpers import connect, wait_for

from controller.floor.forwarder import Forwarder, LinkState
from controller.journal import NewRecord, SqliteJournal
from controller.journal.store import record_hash

KEY = b"k" * 32
RECORDS = 12
CHANGED = 7


def keyed_journal(path: Path) -> Path:
    """A journal of :data:`RECORDS` cards, keyed with :data:`KEY`, whose record :data:`CHANGED`
    was then changed and every hash from it on computed again with plain SHA-256 (no key), but
    the last record's made up: a plain hash there would tell a reader without the key that the
    journal is not signed (controller.journal.verify), a made-up one passes for an HMAC."""
    journal = SqliteJournal(path, KEY)
    try:
        journal.append_batch([NewRecord("CardDealt", {"card": "As", "n": n}, event=True) for n in range(RECORDS)])
    finally:
        journal.close()
    db = sqlite3.connect(path)
    rows = db.execute("SELECT seq, at, kind, event, data, prev FROM records WHERE seq >= ? ORDER BY seq", (CHANGED,))
    prev = None
    for seq, at, kind, event, text, old_prev in rows.fetchall():
        text = '{"card":"Kd","n":6}' if seq == CHANGED else text
        prev = old_prev if prev is None else prev
        digest = record_hash(prev, seq, at, kind, bool(event), text)
        db.execute("UPDATE records SET data = ?, prev = ?, hash = ? WHERE seq = ?", (text, prev, digest, seq))
        prev = digest
    prev = hashlib.sha256(b"made up").hexdigest()
    db.execute("UPDATE records SET hash = ? WHERE seq = ?", (prev, RECORDS))
    db.execute("UPDATE meta SET value = ? WHERE key = 'head_hash'", (prev,))
    db.commit()
    db.close()
    return path


def held(link: FloorLink, table: str) -> int:
    """Messages the stream holds from ``table``."""

    async def go() -> int:
        nc = await connect(link, link.site.admin_creds)
        try:
            info = await nc.jetstream(timeout=10).stream_info(link.stream, subjects_filter=f"{link.prefix}.{table}.>")
        finally:
            await nc.close()
        return sum(int(n) for n in (info.state.subjects or {}).values())

    return asyncio.run(go())


def test_a_forwarder_with_the_key_refuses_a_relinked_keyed_journal(floor_site: FloorSite, floor_folder: Path) -> None:
    """Before, the run start opened the journal without the forwarder's key: the re-linked chain
    passed the links-only check and the changed record was published."""
    link = floor_site.link()
    link.create_stream()
    path = keyed_journal(floor_folder / "keyed.db")
    forwarder = Forwarder(path, link.floor_config("fk-a"), heartbeat_s=None, journal_key=KEY).start()
    try:
        wait_for(lambda: forwarder.status().error is not None, "the link to say why it is down")
        status = forwarder.status()
        assert status.state is LinkState.DOWN and status.acked == 0
        assert status.error is not None and "does not verify, not published" in status.error, status.error
        assert f"record {CHANGED}" in status.error and "hash mismatch" in status.error, status.error
        wait_for(lambda: forwarder.status().runs >= 2, "a second run start, refused again")
        assert held(link, "fk-a") == 0
    finally:
        forwarder.stop()


def test_a_forwarder_without_the_key_checks_the_links_only(floor_site: FloorSite, floor_folder: Path) -> None:
    """Not given the key, the forwarder cannot tell the re-linked chain from the table's own: it
    checks the links and the head, and publishes (the floor's ingest and ``journal verify`` with
    the key are what see the change)."""
    link = floor_site.link()
    link.create_stream()
    path = keyed_journal(floor_folder / "keyed.db")
    forwarder = Forwarder(path, link.floor_config("fk-b"), heartbeat_s=None).start()
    try:
        wait_for(lambda: forwarder.status().acked == RECORDS, "every record acknowledged")
        # the status says up once the run's start is over, which may come after the acks (a race)
        wait_for(lambda: forwarder.status().state is LinkState.UP, "the link to say it is up")
        assert held(link, "fk-b") == RECORDS
    finally:
        forwarder.stop()
