"""The tests' shared floor servers (tests/floor_fixtures.py) as the suite's time needs them: the
shared PostgreSQL keeps production's authentication and roles, and never syncs to disk what the
session deletes at its end (``THROWAWAY_POSTGRES``), nor the cluster it makes at its start."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

psycopg = pytest.importorskip("psycopg")

from floor_fixtures import THROWAWAY_POSTGRES, FloorSite  # noqa: E402


def test_the_shared_postgres_never_syncs_what_the_session_deletes(floor_site: FloorSite) -> None:
    """Each sync of the session's hundred databases cost the run's end most of a minute per worker."""
    with psycopg.connect(floor_site.postgres.url, autocommit=True) as conn:
        for name, value in THROWAWAY_POSTGRES.items():
            assert conn.execute(f"SHOW {name}").fetchone() == (value,), name
        assert conn.execute("SHOW password_encryption").fetchone() == ("scram-sha-256",)


@pytest.mark.parametrize("settings, synced", [({"fsync": "off"}, False), ({}, True), ({"fsync": "on"}, True)])
def test_a_server_that_never_syncs_makes_its_cluster_without_syncing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: dict[str, str], synced: bool
) -> None:
    """``initdb`` syncs the new cluster (some seconds a start on a busy disk) unless the server
    will not sync its writes anyway; a production server's cluster is synced."""
    from controller.floor import servers

    ran: list[list[str]] = []

    def run(argv: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        ran.append(argv)
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(servers.subprocess, "run", run)
    monkeypatch.setattr(servers.LocalPostgres, "_prepare", lambda self: self.data_dir.mkdir(parents=True))
    servers.LocalPostgres(tmp_path / "pg", settings=settings).initdb()
    ((initdb, *args),) = ran
    assert Path(initdb).name == "initdb" and "-D" in args
    assert ("--no-sync" not in args) == synced
