"""The tests' shared floor servers (tests/floor_fixtures.py) as the suite's time needs them: the
shared PostgreSQL keeps production's authentication and roles, and never syncs to disk what the
session deletes at its end (``THROWAWAY_POSTGRES``)."""

from __future__ import annotations

import pytest

psycopg = pytest.importorskip("psycopg")

from floor_fixtures import THROWAWAY_POSTGRES, FloorSite  # noqa: E402


def test_the_shared_postgres_never_syncs_what_the_session_deletes(floor_site: FloorSite) -> None:
    """Each sync of the session's hundred databases cost the run's end most of a minute per worker."""
    with psycopg.connect(floor_site.postgres.url, autocommit=True) as conn:
        for name, value in THROWAWAY_POSTGRES.items():
            assert conn.execute(f"SHOW {name}").fetchone() == (value,), name
        assert conn.execute("SHOW password_encryption").fetchone() == ("scram-sha-256",)
