"""One table's flood of bad messages cannot fill the store (issue 44 item 3; docs/floor.md, "One
table, one feed"): the ingest keeps at most ``max_reject_rows`` rejects per table in
``ingest_reject`` and only counts the rest (``ingest_reject_tally``), while another table's rejects
are still kept and its records stored; on the session's PostgreSQL, as the ingest's role."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nats")
psycopg = pytest.importorskip("psycopg")

from test_floor_hostile import assert_real_records_stored, journal, real_messages, rows, store  # noqa: E402

from controller.floor.chain import ChainPolicy, Verdict  # noqa: E402

CAP = 5


def junk(table: str, n: int, start: int = 0) -> list[tuple[str, str, bytes]]:
    return [(f"floor.{table}.event", f"{table}/{start + i}", b"{not json %d" % (start + i)) for i in range(n)]


def test_a_tables_rejects_past_its_bound_are_counted_not_kept(floor_db: Any, tmp_path: Path) -> None:
    policy = ChainPolicy(max_reject_rows=CAP)
    path = tmp_path / "j.db"
    journal(path, 2).close()
    real = real_messages(path, "ms-02")
    # the flood: three batches of the noisy table's junk, the quiet table's records and one junk of its own between
    _, first = store(floor_db.ingest, junk("ms-01", 4), policy)
    _, second = store(floor_db.ingest, [*junk("ms-01", 4, 4), *real[:3], *junk("ms-02", 1)], policy)
    _, third = store(floor_db.ingest, [*junk("ms-01", 100, 8), *real[3:], *junk("", 2)], policy)
    assert first.rejects_not_kept == 0 and second.rejects_not_kept == 3 and third.rejects_not_kept == 100
    assert third.verdicts.count(Verdict.REJECTED) == 102  # each still rejected (terminated at the broker)
    assert rows(
        floor_db.reader, "SELECT coalesce(table_id, ''), count(*) FROM ingest_reject GROUP BY 1 ORDER BY 1"
    ) == [
        ("", 2),
        ("ms-01", CAP),
        ("ms-02", 1),
    ]
    assert rows(floor_db.reader, "SELECT table_key, kept, dropped FROM ingest_reject_tally ORDER BY 1") == [
        ("", 2, 0),
        ("ms-01", CAP, 103),
        ("ms-02", 1, 0),
    ]
    # the kept ones are the first ones: the start of the flood is the evidence
    kept = rows(floor_db.reader, "SELECT msg_id FROM ingest_reject WHERE table_id = 'ms-01' ORDER BY id")
    assert kept == [(f"ms-01/{i}",) for i in range(CAP)]
    assert_real_records_stored(floor_db.reader, "ms-02", path)


def test_the_reader_may_not_change_the_tally(floor_db: Any) -> None:
    """The tally is the ingest's bookkeeping: the reader only reads it."""
    with psycopg.connect(floor_db.reader) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("UPDATE ingest_reject_tally SET kept = 0")


def test_the_broker_refuses_a_message_larger_than_the_ingest_reads(floor_link: Any) -> None:
    """The stream's ``max_msg_size`` is the ingest's bound (``MAX_MESSAGE_BYTES``): a table's
    larger message is refused at the broker (the table's own feed waits), never stored there;
    one at the bound is taken."""
    import nats
    import nats.js.errors
    from floor_helpers import connect

    from controller.floor.validate import MAX_MESSAGE_BYTES

    creds = floor_link.table("big-01")

    async def go() -> str:
        nc = await connect(floor_link, creds)
        try:
            js = nc.jetstream(timeout=10)
            subject = f"{floor_link.prefix}.big-01.event"
            with pytest.raises(nats.js.errors.APIError) as err:
                await js.publish(subject, b"x" * (MAX_MESSAGE_BYTES + 1))
            await js.publish(subject, b"x" * MAX_MESSAGE_BYTES)
            return str(err.value)
        finally:
            await nc.close()

    why = asyncio.run(go())
    assert "maximum" in why.lower() or "size" in why.lower(), why


def test_the_rejects_not_kept_are_one_log_line(caplog: pytest.LogCaptureFixture) -> None:
    from controller.floor.chain import Outcome
    from controller.floor.ingest import _log, parse_batch

    batch = parse_batch(junk("ms-01", 50))
    outcome = Outcome([Verdict.REJECTED] * 50, ["not JSON"] * 50, rejects_not_kept=47)
    with caplog.at_level("WARNING", logger="tablectl.floor"):
        _log(batch, outcome)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 4 and lines[-1].startswith("47 more rejected messages counted, not kept"), lines
