"""A table the broker refuses (its share of the stream full: docs/floor.md, "One table, one
feed"), on the session's servers set up as in production (tests/floor_fixtures.py): what the
broker took behind a refused record is not sent again, and a table refused before the broker
took any of its records is connected and throttled, not "never connected".

The share is filled beforehand with the table's own identity and no ingest runs, so what the
stream holds is exactly what the forwarder sent; each test waits for states, never for a time."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nats")

from deadlines import STATE_TIMEOUT_S
from floor_fixtures import FloorLink, FloorSite
from floor_helpers import connect, wait_for

from controller.floor.forwarder import Forwarder, LinkState
from controller.journal import NewRecord, SqliteJournal

SHARE = 30
"""Messages a table may have waiting on each of its subjects in these tests."""
SPOT = {"device": "spots", "seat": 1, "spot": "ante", "cents": 500}
DOWN = {"device": "shoe", "reason": "serial port closed"}


def journal_of(path: Path, records: list[NewRecord]) -> Path:
    journal = SqliteJournal(path)
    journal.append_batch(records)
    journal.close()
    return path


def fill_share(link: FloorLink, creds: str, table: str, subject: str) -> None:
    """The table's share of ``subject`` filled with its own identity (nothing ingests it)."""

    async def go() -> None:
        nc = await connect(link, Path(creds))
        try:
            js = nc.jetstream(timeout=10)
            for i in range(SHARE):
                await js.publish(f"{link.prefix}.{table}.{subject}", b'{"filler": %d}' % i)
        finally:
            await nc.close()

    asyncio.run(go())


def held(link: FloorLink, table: str) -> dict[str, int]:
    """Messages the stream holds on each of ``table``'s subjects (by its last token)."""

    async def go() -> dict[str, int]:
        nc = await connect(link, link.site.admin_creds)
        try:
            info = await nc.jetstream(timeout=10).stream_info(link.stream, subjects_filter=f"{link.prefix}.{table}.>")
        finally:
            await nc.close()
        return {s.rsplit(".", 1)[1]: int(n) for s, n in (info.state.subjects or {}).items()}

    return asyncio.run(go())


def empty(link: FloorLink, table: str, subject: str) -> None:
    """The filler taken away (as an ingest settling it would): the share has room again."""

    async def go() -> None:
        nc = await connect(link, link.site.admin_creds)
        try:
            await nc.jetstream(timeout=10).purge_stream(link.stream, subject=f"{link.prefix}.{table}.{subject}")
        finally:
            await nc.close()

    asyncio.run(go())


def throttled(floor_site: FloorSite, table: str) -> tuple[FloorLink, Any]:
    """A link to a stream that keeps ``SHARE`` messages a subject, and ``table``'s floor config,
    its share of events already full: the broker refuses the table's next event."""
    link = floor_site.link()
    link.create_stream(table_share=SHARE)
    config = link.floor_config(table)
    fill_share(link, config.credentials, table, "event")
    return link, config


def an_event_then_faults(path: Path, faults: int) -> Path:
    """A journal at ``path``: one event (refused while the share is full), then ``faults`` link faults."""
    return journal_of(path, [NewRecord("SpotReport", SPOT, event=True)] + [NewRecord("LinkDown", DOWN)] * faults)


def sent_once_with_room(forwarder: Forwarder, link: FloorLink, table: str, faults: int) -> None:
    """``forwarder`` throttled, nothing acknowledged; once ``table``'s share has room again its
    refused event is sent and the ``faults`` the broker took behind it are not sent again."""
    assert forwarder.status().state is LinkState.THROTTLED and forwarder.status().acked == 0
    empty(link, table, "event")
    wait_for(lambda: forwarder.status().acked == 1 + faults, "every record acknowledged")
    assert held(link, table) == {"event": 1, "fault": faults}
    assert forwarder.status().state is LinkState.UP


def test_what_the_broker_took_behind_a_refused_record_is_not_sent_again(
    floor_site: FloorSite, floor_folder: Path
) -> None:
    """Record 1 (an event) is refused, its subject full; records 2-13 (faults, another subject)
    are taken behind it. When the share has room again, record 1 is sent and 2-13 are not sent
    again: the stream holds each record once. Before, the forwarder resent from its acknowledged
    position everything after the refused record (up to its window of 256), each one a duplicate
    the floor settled."""
    link, config = throttled(floor_site, "fr-a")
    faults = 12  # twice as many still fit in the share: the bug shows as doubles, not as a refusal
    path = an_event_then_faults(floor_folder / "a.db", faults)
    forwarder = Forwarder(path, config, max_backoff_s=0.2, heartbeat_s=None).start()
    try:
        wait_for(lambda: forwarder.status().refused >= 2, "record 1 refused, and refused again when tried alone")
        sent_once_with_room(forwarder, link, "fr-a", faults)
    finally:
        forwarder.stop()


def test_a_table_throttled_before_any_acknowledgement_is_connected_not_never_connected(
    floor_site: FloorSite, floor_folder: Path
) -> None:
    """The broker refuses the table's very first record: ``tablectl status`` and the bench's
    summary say the link is throttled (and why), not that it never connected."""
    from controller.cli._bench import floor_line

    link, config = throttled(floor_site, "fr-b")
    path = journal_of(floor_folder / "b.db", [NewRecord("SpotReport", SPOT, event=True)] * 3)
    forwarder = Forwarder(path, config, max_backoff_s=0.2, heartbeat_s=None).start()
    try:
        wait_for(lambda: forwarder.status().state is LinkState.THROTTLED, "the link throttled")
        link_status = forwarder.status()
        assert link_status.acked == 0 and link_status.published == 0
        line = floor_line("fr-b", link_status, path)
        assert "never connected" not in line and "fr-b: throttled" in line, line
        assert "maximum messages per subject exceeded" in line, line
        status = subprocess.run(
            [sys.executable, "-m", "controller", "status", "--journal", str(path)],
            capture_output=True,
            text=True,
            timeout=STATE_TIMEOUT_S,
        )
        assert "never connected" not in status.stdout, status.stdout
        (floor,) = [ln for ln in status.stdout.splitlines() if ln.startswith("floor: link")]
        assert floor.startswith("floor: link throttled") and "maximum messages per subject exceeded" in floor, floor
        assert "backlog 3 records" in floor, floor
    finally:
        forwarder.stop()


class CountingForwarder(Forwarder):
    """A forwarder that counts its verifications of the journal's backlog."""

    verified = 0

    def _check_journal(self, outbox: Any, sent: int) -> str | None:
        self.verified += 1
        return super()._check_journal(outbox, sent)


def test_a_refusal_does_not_verify_the_backlog_again(floor_site: FloorSite, floor_folder: Path) -> None:
    """The broker refuses record 1 again and again (its share full): the forwarder goes back to
    its acknowledged position on the same run, and verifies the journal once, when the run
    starts, not once a refusal. Before, each refusal ended the run and the next one verified the
    backlog from the last snapshot again: at full speed, thousands of records hashed again a
    refusal (benchmarks/bench_floor.py). What the broker took behind it is still not sent again."""
    link, config = throttled(floor_site, "fr-c")
    faults = 5
    path = an_event_then_faults(floor_folder / "c.db", faults)
    forwarder = CountingForwarder(path, config, max_backoff_s=0.2, heartbeat_s=None).start()
    try:
        wait_for(lambda: forwarder.status().refused >= 3, "record 1 refused three times")
        sent_once_with_room(forwarder, link, "fr-c", faults)
        assert forwarder.verified == 1
    finally:
        forwarder.stop()
