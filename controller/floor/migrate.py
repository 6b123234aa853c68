"""The floor store's schema as versioned migrations: ``floor/migrations/NNNN_name.sql``,
applied in order, each in its own transaction, recorded in ``schema_migrations``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import psycopg

__all__ = ["migrate"]

MIGRATIONS_DIR = Path(__file__).parent / "migrations"

_LOCK = 0x715_F100  # advisory lock: one migrator at a time


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step: its version, name and SQL."""

    version: int
    name: str
    sql: str


def migrations(folder: Path = MIGRATIONS_DIR) -> list[Migration]:
    """The migrations shipped in the package, in order."""
    out = []
    for path in sorted(folder.glob("*.sql")):
        match = re.fullmatch(r"(\d{4})_(\w+)\.sql", path.name)
        if match is None:
            raise ValueError(f"{path}: a migration is named NNNN_name.sql")
        out.append(Migration(int(match[1]), match[2], path.read_text()))
    return out


def applied(conn: psycopg.Connection) -> list[int]:
    """The versions already applied to the database (empty for a new one)."""
    row = conn.execute("SELECT to_regclass('schema_migrations')").fetchone()
    if row is None or row[0] is None:
        return []
    return [v for (v,) in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]


def migrate(url: str) -> list[Migration]:
    """Bring the database at ``url`` to the newest schema; returns the migrations applied now."""
    done = []
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK,))
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, "
                "applied_at timestamptz NOT NULL DEFAULT now())"
            )
            have = set(applied(conn))
            newest = max(have, default=0)
            shipped = migrations()
            if newest > max((m.version for m in shipped), default=0):
                raise ValueError(
                    f"the floor database is at schema version {newest}, newer than this tablectl knows; use a newer one"
                )
            for m in shipped:
                if m.version in have:
                    continue
                with conn.transaction():
                    conn.execute(m.sql.encode())
                    conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (m.version, m.name))
                done.append(m)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK,))
    return done
