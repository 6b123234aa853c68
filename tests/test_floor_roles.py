"""Least privilege in the floor store (issue 33, item 4; migration 0012, docs/floor.md, "Database
roles"), on the session's PostgreSQL: every statement that rewrites history is refused to every
role that must not run it, the evidence tables are append-only for the owner too (triggers),
and the ingest still does all its work as its own role."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nats")
psycopg = pytest.importorskip("psycopg")

from test_floor_hostile import (  # noqa: E402
    assert_real_records_stored,
    body_of,
    forged,
    journal,
    real_messages,
    rows,
    store,
)

from controller.floor.chain import Verdict  # noqa: E402

REWRITES = (
    "UPDATE round SET win = 0",
    "DELETE FROM round",
    "UPDATE journal_event SET data = '{}'",
    "DELETE FROM journal_event",
    "UPDATE floor_record SET hash = repeat('f', 64)",
    "DELETE FROM floor_record",
    "UPDATE meter SET value = 0",
    "DELETE FROM meter",
    "UPDATE wager SET net = 0",
    "DELETE FROM card",
    "DELETE FROM round_seat",
    "TRUNCATE round",
    "DELETE FROM floor_chain",
    "UPDATE floor_chain SET public_key = repeat('a', 64)",
    "UPDATE floor_chain SET registered_by = 'x'",
    "INSERT INTO floor_chain (table_id, registered_by, public_key) VALUES ('new', 'x', repeat('a', 64))",
    "DELETE FROM floor_table",
    "UPDATE floor_pending SET payload = 'x'",
    "INSERT INTO floor_resolution (table_id, fork_seq, removed, replayed, quarantine_through) VALUES ('x', 1, 0, 0, 0)",
    "INSERT INTO schema_migrations (version, name) VALUES (999, 'x')",
    "CREATE TABLE mine (a int)",
    "DROP TRIGGER floor_quarantine_append_only ON floor_quarantine",
)
"""What the ingest may not do (it may INSERT records and evidence, UPDATE the chain head,
floor_table and nothing else, DELETE only pending rows)."""

EVIDENCE = (
    "UPDATE floor_quarantine SET reason = 'nothing to see'",
    "DELETE FROM floor_quarantine",
    "TRUNCATE floor_quarantine",
    "UPDATE ingest_reject SET error = 'fine'",
    "DELETE FROM ingest_reject",
    "TRUNCATE ingest_reject",
    "UPDATE floor_resolution SET removed = 0",
    "DELETE FROM floor_resolution",
    "TRUNCATE floor_resolution",
)
"""What no role may do (the owner included: triggers, not grants)."""

WRITES = (
    "INSERT INTO round (table_id, seq, round_no, game, started_at, ended_at, void, seats, handle, win, paid, "
    "collected, commission, late_bets, faults, first_seq, recall) "
    "VALUES ('x', 99, 1, 'g', now(), now(), false, 1, 0, 0, 0, 0, 0, 0, 0, 99, '{}')",
    "INSERT INTO floor_quarantine (table_id, seq, subject, reason, prev, hash, payload) "
    "VALUES ('x', 1, 's', 'r', 'p', 'h', 'x')",
    "INSERT INTO ingest_reject (subject, payload, error) VALUES ('s', 'p', 'e')",
    "UPDATE floor_chain SET head_seq = head_seq",
    "UPDATE floor_table SET last_seq = last_seq",
    "DELETE FROM floor_pending",
    "INSERT INTO floor_table (table_id, first_at, last_at, last_seq) VALUES ('y', now(), now(), 1)",
)
"""What the reader may not do either (it only reads)."""


def refused(url: str, statements: tuple[str, ...]) -> list[str]:
    """The statements of ``statements`` that ran (each in its own transaction, rolled back)."""
    ran = []
    with psycopg.connect(url) as conn:
        for statement in statements:
            try:
                conn.execute(statement)
            except psycopg.errors.InsufficientPrivilege:
                conn.rollback()
                continue
            ran.append(statement)
            conn.rollback()
    return ran


@pytest.fixture
def stocked(floor_db: Any, tmp_path: Path) -> Any:
    """A database holding one table's stored rounds, a quarantined record, a reject and a pending
    record, all written by the ingest's own role."""
    path = tmp_path / "j.db"
    journal(path, 2).close()
    real = real_messages(path, "ms-01")
    last = body_of(real[-1])
    fork = forged("ms-01", 3, "SpotReport", {"seat": 9}, body_of(real[2])["prev"])
    ahead = forged("ms-01", last["seq"] + 2, "SpotReport", {"seat": 1}, "ab" * 32)
    junk = ("floor.ms-01.event", "ms-01/77", b"{not json")
    _, outcome = store(floor_db.ingest, [*real, fork, ahead, junk])
    assert outcome.verdicts[-3:] == [Verdict.QUARANTINED, Verdict.PENDING, Verdict.REJECTED]
    assert_real_records_stored(floor_db.owner, "ms-01", path)
    # The head moves and a pending record is stored when its gap fills, as the ingest's role.
    gap = forged("ms-01", last["seq"] + 1, "SpotReport", {"seat": 2}, last["hash"])
    filled = forged("ms-01", last["seq"] + 2, "SpotReport", {"seat": 1}, body_of(gap)["hash"])
    store(floor_db.ingest, [gap])
    _, outcome = store(floor_db.ingest, [filled])
    assert rows(floor_db.owner, "SELECT head_seq FROM floor_chain") == [(last["seq"] + 2,)]
    with psycopg.connect(floor_db.owner, autocommit=True) as conn:  # what `floor resolve` writes
        conn.execute(
            "INSERT INTO floor_resolution (table_id, fork_seq, removed, replayed, quarantine_through) "
            "VALUES ('ms-01', 3, 1, 1, 0)"
        )
    return floor_db


def test_the_ingest_may_not_rewrite_history(stocked: Any) -> None:
    assert refused(stocked.ingest, REWRITES + EVIDENCE) == []
    # ... and does what it must: each of these runs (then is rolled back).
    allowed = (
        "INSERT INTO ingest_reject (subject, payload, error) VALUES ('s', 'p', 'e')",
        "UPDATE floor_chain SET head_seq = head_seq, head_hash = head_hash",
        "UPDATE floor_table SET last_seq = last_seq",
        "DELETE FROM floor_pending",
    )
    assert refused(stocked.ingest, allowed) == list(allowed)


def test_the_reader_only_reads(stocked: Any) -> None:
    assert refused(stocked.reader, REWRITES + EVIDENCE + WRITES) == []
    with psycopg.connect(stocked.reader, autocommit=True) as conn:
        for name in ("round", "floor_record", "floor_quarantine", "floor_quarantine_open", "floor_resolution"):
            conn.execute(f"SELECT count(*) FROM {name}").fetchone()


def test_the_evidence_is_append_only_for_the_owner_too(stocked: Any) -> None:
    assert refused(stocked.owner, EVIDENCE) == []
    assert rows(stocked.owner, "SELECT count(*) FROM floor_quarantine") == [
        (2,)
    ]  # the fork, the pending one that did not chain
    assert rows(stocked.owner, "SELECT count(*) FROM ingest_reject") == [(1,)]
    assert rows(stocked.owner, "SELECT removed FROM floor_resolution") == [(1,)]
    with psycopg.connect(stocked.owner) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege) as err:
        conn.execute("DELETE FROM floor_quarantine")
    assert "floor_quarantine is evidence: append-only (DELETE refused" in str(err.value)
