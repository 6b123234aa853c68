"""Migrations and table registration by roles of their own (issue 44 item 4; docs/floor.md,
"Database roles"), on the session's PostgreSQL: the migrator (``floor migrate``, which owns the
schema) and the registrar (``add-table --db``, ``floor resolve``) are each refused every UPDATE,
DELETE and TRUNCATE of a stored round or record, every way to switch off the triggers that refuse
it (disable, drop, replace their function, rewrite or drop the table or a column), and the same
against the evidence; each still does its own job."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nats")
psycopg = pytest.importorskip("psycopg")

import test_floor_roles  # noqa: E402
from test_floor_roles import EVIDENCE, refused  # noqa: E402

from controller.floor.chain import register_table, replace_public_key  # noqa: E402
from controller.floor.migrate import migrate  # noqa: E402
from controller.floor.resolve import resolve_fork  # noqa: E402

stocked_db = test_floor_roles.stocked  # the same stocked database (a fixture)

RECORD_TABLES = ("journal_event", "round", "round_seat", "wager", "card", "meter", "floor_record")

STORED = (
    "UPDATE round SET win = win + 100",
    "UPDATE floor_record SET hash = repeat('f', 64)",
    "UPDATE journal_event SET data = '{}'",
    "DELETE FROM round",
    "DELETE FROM floor_record",
    "DELETE FROM card",
    "TRUNCATE round",
    "TRUNCATE floor_record CASCADE",
    "UPDATE meter SET value = 0",
    "UPDATE wager SET net = 0",
    "DELETE FROM round_seat",
)
"""Rewrites of stored rounds and records: refused to the migrator and the registrar."""

GUARD_OFF = (
    "ALTER TABLE round DISABLE TRIGGER ALL",
    "ALTER TABLE round DISABLE TRIGGER USER",
    "ALTER TABLE floor_record DISABLE TRIGGER floor_stored_record",
    "ALTER TABLE round DISABLE TRIGGER floor_stored_record",
    "ALTER TABLE round ENABLE REPLICA TRIGGER floor_stored_record",
    "DROP TRIGGER floor_stored_record ON round",
    "DROP TRIGGER floor_stored_no_truncate ON floor_record",
    "ALTER TABLE floor_quarantine DISABLE TRIGGER floor_quarantine_append_only",
    "DROP TRIGGER ingest_reject_append_only ON ingest_reject",
    "CREATE OR REPLACE FUNCTION floor_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$",
    "CREATE OR REPLACE FUNCTION floor_guard.stored_only() RETURNS trigger LANGUAGE plpgsql "
    "AS $$ BEGIN RETURN NEW; END $$",
    "ALTER TABLE round ALTER COLUMN win TYPE numeric USING win + 100",
    "ALTER TABLE round DROP COLUMN win",
    "DROP TABLE card",
    "DROP TABLE floor_quarantine CASCADE",
    "ALTER TABLE round RENAME TO round_old",
    "DROP EVENT TRIGGER floor_guard_ddl_end",
    "DROP SCHEMA floor_guard CASCADE",
    "SET session_replication_role = replica",
)
"""Ways to switch the guard off: refused to the migrator (the schema's owner) and the registrar."""


def test_the_migrator_and_the_registrar_cannot_rewrite_stored_records(stocked_db: Any) -> None:
    for url in (stocked_db.migrator, stocked_db.registrar):
        assert refused(url, STORED) == []
        assert refused(url, GUARD_OFF) == []
        assert refused(url, EVIDENCE) == []
    # the refusal names the record and the role
    with psycopg.connect(stocked_db.migrator) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege) as err:
        conn.execute("UPDATE round SET win = win + 100")
    assert "round is a stored record: UPDATE refused for floor_migrator" in str(err.value)
    with psycopg.connect(stocked_db.migrator) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege) as err:
        conn.execute("ALTER TABLE round DISABLE TRIGGER ALL")
    assert "disabling trigger" in str(err.value) and "floor_migrator" in str(err.value)
    # still there, each stored round unchanged
    with psycopg.connect(stocked_db.reader) as conn:
        for name in RECORD_TABLES:
            triggers = conn.execute(
                "SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = %s::regclass AND NOT tgisinternal "
                "ORDER BY tgname",
                (name,),
            ).fetchall()
            assert triggers == [("floor_stored_no_truncate", "O"), ("floor_stored_record", "O")], name


def test_the_migrator_owns_the_schema_and_the_owner_owns_nothing_of_it(stocked_db: Any) -> None:
    with psycopg.connect(stocked_db.reader) as conn:
        owners = conn.execute(
            "SELECT DISTINCT pg_get_userbyid(relowner) FROM pg_class WHERE relnamespace = 'public'::regnamespace"
        ).fetchall()
    assert owners == [("floor_migrator",)]
    # a later migration may still change the schema: add a column, a table, an index
    with psycopg.connect(stocked_db.migrator) as conn:
        conn.execute("ALTER TABLE round ADD COLUMN note text")
        conn.execute("CREATE TABLE later (a int)")
        conn.execute("CREATE INDEX round_by_win ON round (win)")
        conn.rollback()
    assert migrate(stocked_db.migrator) == []


def test_the_registrar_registers_tables_and_closes_quarantines(stocked_db: Any, tmp_path: Path) -> None:
    async def register() -> None:
        async with await psycopg.AsyncConnection.connect(stocked_db.registrar, autocommit=True) as conn:
            assert await register_table(conn, "ms-02", "ab" * 32)
            await replace_public_key(conn, "ms-02", "cd" * 32)

    asyncio.run(register())
    with psycopg.connect(stocked_db.reader) as conn:
        assert conn.execute("SELECT public_key FROM floor_chain WHERE table_id = 'ms-02'").fetchone() == ("cd" * 32,)
    # resolve as the registrar reads and decides; ms-02 has nothing to resolve
    report = asyncio.run(resolve_fork(stocked_db.registrar, "ms-02"))
    assert report.fork_seq is None
    # what it may not do: rewrite a registration's history, or the ingest's work
    assert (
        refused(
            stocked_db.registrar,
            (
                "UPDATE floor_chain SET head_seq = 0",
                "DELETE FROM floor_chain",
                "INSERT INTO floor_record (table_id, seq, prev, hash, mac, verified, body_sha256, class) "
                "VALUES ('x', 1, 'p', 'h', 'm', true, 's', 'event')",
                "UPDATE floor_table SET last_seq = 0",
                "DELETE FROM floor_pending",
                "CREATE TABLE mine (a int)",
            ),
        )
        == []
    )


def test_the_owner_alone_removes_a_stored_record(stocked_db: Any) -> None:
    """What must stay the owner's (a fork's records leave the store): allowed, and logged
    (tests/test_floor_owner_audit.py)."""
    with psycopg.connect(stocked_db.owner) as conn:
        conn.execute("DELETE FROM card")
        conn.rollback()


def test_a_database_the_owner_migrated_is_handed_to_the_migrator(floor_site: Any) -> None:
    """A floor database made before these roles (migrated by the owner, no guard): the
    superuser's set-up (``floor serve`` at every start) moves its schema to the migrator and
    guards it; the migrator then migrates on and still cannot rewrite a stored round."""
    from psycopg import sql

    from controller.floor.migrate import migrations

    postgres = floor_site.postgres
    name = f"floor_old_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(postgres.url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} OWNER floor_owner").format(sql.Identifier(name)))
        for role in ("floor_ingest", "floor_reader", "floor_migrator", "floor_registrar"):
            conn.execute(
                sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(name), sql.Identifier(role))
            )
    db = postgres.database(name)
    before = [m for m in migrations() if m.version < 14]
    with psycopg.connect(db.owner, autocommit=True) as conn:  # what an older tablectl did, as the owner
        conn.execute(
            "CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, "
            "applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for m in before:
            with conn.transaction():
                conn.execute(m.sql.encode())
                conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (m.version, m.name))
        conn.execute(test_floor_roles.WRITES[0])  # a stored round and record to try to rewrite
        conn.execute(
            "INSERT INTO floor_record (table_id, seq, prev, hash, mac, verified, body_sha256, class) "
            "VALUES ('x', 99, 'p', 'h', 'm', true, 's', 'round')"
        )
    postgres.guard(name)
    postgres.guard(name)  # idempotent
    assert [m.version for m in migrate(db.migrator)] == [m.version for m in migrations() if m.version >= 14]
    with psycopg.connect(db.reader) as conn:
        owners = conn.execute(
            "SELECT DISTINCT pg_get_userbyid(relowner) FROM pg_class WHERE relnamespace = 'public'::regnamespace"
        ).fetchall()
    assert owners == [("floor_migrator",)]
    rewrites = (
        "UPDATE round SET win = win + 100",
        "DELETE FROM round",
        "UPDATE floor_record SET hash = repeat('f', 64)",
        "DELETE FROM floor_record",
        "TRUNCATE card",
        "TRUNCATE journal_event",
    )
    for url in (db.migrator, db.registrar):
        assert refused(url, rewrites) == []
        assert refused(url, GUARD_OFF) == []
