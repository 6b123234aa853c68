"""The floor store over TLS as docs/floor.md's Production section sets it up: ``ssl = on``,
``hostssl`` lines only, and every client URL with ``sslmode=verify-full`` and the CA that signed
the server's certificate. The embedded PostgreSQL is built without SSL, so this runs the
distribution's (``apt-get install postgresql``, binaries under /usr/lib/postgresql/*/bin; .ci/run
installs it), started here on 127.0.0.1 in a temporary folder; without it the tests skip, saying so.
Migrate, ingest (a table's records through NATS into the TLS store), status and reconcile all
connect over TLS; a client without TLS, or trusting another CA, is refused."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nats")
psycopg = pytest.importorskip("psycopg")
pytest.importorskip("cryptography")

from floor_fixtures import FloorLink  # noqa: E402

from controller.floor.certs import make_certs  # noqa: E402
from controller.floor.forwarder import Forwarder  # noqa: E402
from controller.floor.ingest import IngestStats, run_ingest  # noqa: E402
from controller.floor.migrate import migrate, migrations  # noqa: E402
from controller.floor.servers import LocalPostgres, PostgresTls, distribution_postgres_bin_dir  # noqa: E402
from controller.journal import NewRecord, SqliteJournal  # noqa: E402

BIN = distribution_postgres_bin_dir()
pytestmark = pytest.mark.skipif(
    BIN is None,
    reason="the distribution's PostgreSQL is not installed (apt-get install postgresql: .ci/run does it): "
    "the embedded one has no SSL, so the floor store over TLS (sslmode=verify-full) is not tested here",
)


@pytest.fixture(scope="module")
def tls_postgres() -> Iterator[LocalPostgres]:
    base = Path(tempfile.mkdtemp(prefix="tablectl-pgtls-"))
    base.chmod(0o711)  # PostgreSQL's user (nobody, when the tests run as root) passes through
    certs = make_certs(base / "certs")
    server = LocalPostgres(
        base / "postgres", bin_dir=BIN, tls=PostgresTls(Path(certs.server), Path(certs.server_key), Path(certs.ca))
    )
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


def _ssl_in_use(url: str) -> bool:
    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        row = conn.execute("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").fetchone()
        return bool(row and row[0])


def test_every_role_connects_over_verified_tls_and_nothing_else_gets_in(tls_postgres: LocalPostgres) -> None:
    db = tls_postgres.create_database("floor_tls_1")
    for url in (db.owner, db.ingest, db.reader):
        assert "sslmode=verify-full" in url and "sslrootcert=" in url
    assert [m.version for m in migrate(db.migrator)] == [m.version for m in migrations()]
    assert all(_ssl_in_use(url) for url in (db.owner, db.ingest, db.reader))
    plain = db.reader.split("&sslmode=")[0] + "&sslmode=disable"
    with pytest.raises(psycopg.OperationalError, match="no encryption"):
        psycopg.connect(plain, connect_timeout=10).close()
    other = make_certs(tls_postgres.data_dir.parent / "other-ca")
    foreign = db.reader.split("&sslrootcert=")[0] + f"&sslrootcert={other.ca}"
    with pytest.raises(psycopg.OperationalError, match="SSL error"):  # the chain does not verify
        psycopg.connect(foreign, connect_timeout=10).close()


def test_a_table_reaches_the_tls_store_and_status_and_reconcile_read_it(
    tls_postgres: LocalPostgres, floor_link: FloorLink, tmp_path: Path
) -> None:
    db = tls_postgres.create_database("floor_tls_2")
    done = subprocess.run(
        [sys.executable, "-m", "controller", "floor", "migrate", "--db", db.owner],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "applied" in done.stdout, done.stderr
    journal = SqliteJournal(tmp_path / "tls.db")
    journal.append_batch(
        [NewRecord("SpotReport", {"device": "spots", "seat": 1, "spot": "ante", "cents": 500}, event=True)] * 12
    )
    stop = threading.Event()
    stats = IngestStats()
    errors: list[BaseException] = []

    def ingest() -> None:
        try:
            asyncio.run(run_ingest(floor_link.ingest_config(db.ingest), stop, stats))
        except BaseException as exc:  # reported below
            errors.append(exc)

    thread = threading.Thread(target=ingest, daemon=True)
    thread.start()
    forwarder = Forwarder(journal.path, floor_link.floor_config("tls-1")).start()
    try:
        assert forwarder.wait_acked(12, 120)
        for _ in range(2400):
            if forwarder.status().stored == 12:
                break
            threading.Event().wait(0.05)
        assert forwarder.status().stored == 12, forwarder.status()
    finally:
        forwarder.stop(timeout=60)
        stop.set()
        thread.join(60)
        journal.close()
    assert not errors, errors
    args: list[Any] = [sys.executable, "-m", "controller", "floor"]
    status = subprocess.run([*args, "status", "--db", db.reader], capture_output=True, text=True, timeout=120)
    assert status.returncode == 0 and "tls-1" in status.stdout, status.stderr
    reconciled = subprocess.run(
        [*args, "reconcile", "--journal", str(tmp_path / "tls.db"), "--table", "tls-1", "--db", db.reader],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert reconciled.returncode == 0 and "12 records agree" in reconciled.stdout, reconciled.stderr
