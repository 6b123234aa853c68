"""The owner's acts are audited by configuration the project ships (issue 44 item 4; docs/floor.md,
"Database roles"): every statement ``floor_owner`` runs, DML and DDL, rolled back or not, is in the
server's log with the role's name (``log_statement = all`` set on the role by the superuser, the
log line prefix naming the role); the owner can neither switch it off in its session nor reset its
role's setting; the ingest's statements are not logged (its volume is the records')."""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import pytest

psycopg = pytest.importorskip("psycopg")

from deadlines import STATE_TIMEOUT_S  # noqa: E402
from floor_fixtures import FloorSite  # noqa: E402


def _log(site: FloorSite) -> Path:
    return Path(site.postgres.data_dir) / "postgres.log"


def _wait_logged(site: FloorSite, marker: str) -> str:
    deadline = time.monotonic() + STATE_TIMEOUT_S
    while True:
        text = _log(site).read_text(errors="replace")
        if marker in text:
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"{marker} not in the server's log")
        time.sleep(0.05)


def test_the_owners_statements_are_logged_and_it_cannot_stop_it(floor_site: FloorSite, floor_db: Any) -> None:
    quiet, update, ddl = (f"audit-{uuid.uuid4().hex}" for _ in range(3))
    with psycopg.connect(floor_db.ingest, autocommit=True) as conn:
        conn.execute(f"SELECT 1 /* {quiet} */")
    with psycopg.connect(floor_db.owner, autocommit=True) as conn:
        assert conn.execute("SHOW log_statement").fetchone() == ("all",)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SET log_statement = 'none'")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("ALTER ROLE floor_owner RESET log_statement")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(f"ALTER DATABASE {floor_db.name} SET log_statement = 'none'")
        conn.execute(f"UPDATE round SET win = win + 100 WHERE false /* {update} */")
        # refused (the owner owns no table: the migrator does) or rolled back: in the log all the same
        with pytest.raises(psycopg.errors.Error), conn.transaction():
            conn.execute(f"ALTER TABLE floor_quarantine DISABLE TRIGGER floor_quarantine_append_only /* {ddl} */")
            raise psycopg.errors.Error("rolled back")
    text = _wait_logged(floor_site, ddl)
    lines = [line for line in text.splitlines() if (update in line or ddl in line) and "LOG:" in line]
    assert len(lines) == 2 and all("user=floor_owner" in line and "statement:" in line for line in lines), lines
    assert f"db={floor_db.name}" in lines[0]
    assert quiet not in text  # the ingest's statements are not logged
