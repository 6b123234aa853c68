"""The floor's servers for the tests, started once per session and set up as in production
(docs/floor.md): one NATS server with TLS and per-identity nkeys, one PostgreSQL with SCRAM
passwords and the owner, ingest and reader roles.

Tests stay apart on the shared pair: each ``floor_link`` has its own subject prefix, stream,
durable consumer and ingest identity, each ``floor_db`` its own migrated database. A test that
kills or stops a server starts its own with :meth:`FloorSite.own_nats` / :meth:`FloorSite.own_postgres`
(same certificates and identities). The fixtures are imported by tests/conftest.py."""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
_COUNT = itertools.count(1)

MEMORY = Path("/dev/shm")
"""A memory-backed folder, where there is one, for the session's servers' data."""

MEMORY_ROOM = 2 * 2**30
"""The free room ``MEMORY`` must have to be used (each worker's servers hold some 60 MB once each
test's database is dropped at its end; a container's 64 MB ``/dev/shm`` is not used)."""


def data_folder() -> str | None:
    """Where the session's servers (and a test module's own) keep their data: ``MEMORY`` when it
    is there, writable and has ``MEMORY_ROOM``, else the system's temporary folder (None). The data
    is deleted at the session's end and no test crashes the machine under it (as ``fsync = off``):
    on disk, the tests' databases were written out only to be deleted (docs/benchmarks.md, "The
    test suite")."""
    try:
        if os.access(MEMORY, os.W_OK) and shutil.disk_usage(MEMORY).free >= MEMORY_ROOM:
            return str(MEMORY)
    except OSError:
        pass
    return None


THROWAWAY_POSTGRES = {"fsync": "off"}
"""The shared PostgreSQL's settings beside production's: its data is deleted at the session's end
and no test crashes the machine under it (a test that kills or stops a server kills its own, with
these settings too), so
it never asks the disk to keep a write. What ``fsync`` keeps only matters when the machine itself
stops: a server killed still leaves its writes to the operating system, which the server replays
them from. Syncing cost the suite most of a minute per worker at the end of its run (the
session's teardown, with the tests' hundred databases: a shutdown checkpoint syncing each one,
then their half a gigabyte deleted after being written out; docs/benchmarks.md, "The test suite")."""


@dataclass
class FloorLink:
    """One test's corner of the broker: prefix, stream, durable, the ingest's and the setup identities."""

    site: FloorSite
    servers: tuple[str, ...]
    prefix: str
    stream: str
    durable: str
    ingest_creds: Path
    brokers: list[Any] = field(default_factory=list)
    """The brokers to reload after an identity is added (the shared one, or the test's own)."""

    def auth(self, credentials: Path | None) -> Any:
        from controller.floor.connect import NatsAuth

        return NatsAuth(str(credentials) if credentials else None, str(self.site.auth.ca))

    @property
    def admin(self) -> Any:
        return self.auth(self.site.admin_creds)

    @property
    def ingest(self) -> Any:
        return self.auth(self.ingest_creds)

    def _reload(self) -> None:
        for broker in self.brokers:
            if broker.proc is not None:
                broker.reload()

    def table(self, table_id: str) -> Path:
        """Table ``table_id``'s credential file (``tablectl floor add-table``), the broker reloaded."""
        creds = self.site.auth.add_table(table_id, self.prefix)
        self._reload()
        return creds

    def simulator(self, name: str, tables: tuple[str, ...]) -> Path:
        creds = self.site.auth.add_simulator(name, tables, self.prefix)
        self._reload()
        return creds

    def floor_config(self, table_id: str, servers: tuple[str, ...] | None = None) -> Any:
        from controller.configuration import FloorConfig

        return FloorConfig(
            table_id, servers or self.servers, str(self.table(table_id)), self.prefix, str(self.site.auth.ca)
        )

    def ingest_config(self, db_url: str, servers: tuple[str, ...] | None = None, **kw: Any) -> Any:
        from controller.floor.ingest import IngestConfig

        return IngestConfig(
            servers or self.servers,
            db_url,
            subject_prefix=self.prefix,
            stream=self.stream,
            durable=self.durable,
            credentials=str(self.ingest_creds),
            ca=str(self.site.auth.ca),
            **kw,
        )

    def ingest_args(self) -> list[str]:
        """The ``tablectl floor ingest`` options of this link (no secret among them)."""
        return [
            "--creds",
            str(self.ingest_creds),
            "--ca",
            str(self.site.auth.ca),
            "--prefix",
            self.prefix,
            "--stream",
            self.stream,
            "--durable",
            self.durable,
        ]

    def create_stream(self, servers: tuple[str, ...] | None = None, replicas: int = 1, table_share: int = 0) -> None:
        """The link's stream, made by the setup identity (an ingest may not); ``table_share``: the
        messages one table may have waiting per subject (0: the default)."""
        from controller.floor.connect import create_stream

        servers = servers or self.servers
        config = replace(self.ingest_config("unused", servers), replicas=replicas)
        if table_share:
            config = replace(config, stream_max_per_subject=table_share)
        asyncio.run(create_stream(servers, self.admin, config))

    def yaml(self, folder: Path, table_id: str, game: str = "mississippi_stud", servers: tuple[str, ...] = ()) -> Path:
        """A bench table config publishing to this link with its own identity."""
        text = (REPO / "config" / "bench" / f"{game}.yaml").read_text()
        text = text.replace("paytables_dir: ../paytables", f"paytables_dir: {REPO / 'config' / 'paytables'}")
        text += (
            f"floor:\n  table_id: {table_id}\n  servers: [{', '.join(servers or self.servers)}]\n"
            f"  credentials: {self.table(table_id)}\n  ca: {self.site.auth.ca}\n  subject_prefix: {self.prefix}\n"
        )
        path = folder / f"{table_id}.yaml"
        path.write_text(text)
        return path


@dataclass
class FloorSite:
    """The session's floor servers and the auth folder behind them."""

    base: Path
    auth: Any
    admin_creds: Path
    nats: Any
    postgres: Any

    def link(self, brokers: list[Any] | None = None, servers: tuple[str, ...] | None = None) -> FloorLink:
        """A fresh prefix, stream, durable and ingest identity (on the shared broker unless ``brokers``)."""
        n = next(_COUNT)
        prefix, stream, durable = f"t{n}", f"T{n}", f"ingest-t{n}"
        creds = self.auth.add_ingest(f"ingest-t{n}", stream, durable, prefix=prefix)
        brokers = [self.nats] if brokers is None else brokers
        link = FloorLink(self, servers or (self.nats.url,), prefix, stream, durable, creds, brokers)
        link._reload()
        return link

    def own_nats(self, folder: Path, **kw: Any) -> Any:
        """A broker of the test's own (not started), with the session's certificates and identities."""
        from controller.floor.servers import LocalNats

        return LocalNats(folder, auth=self.auth, **kw)

    def own_postgres(self, folder: Path) -> Any:
        """A PostgreSQL of the test's own (not started), with the same roles and settings."""
        from controller.floor.servers import LocalPostgres

        return LocalPostgres(folder, settings=THROWAWAY_POSTGRES)

    def database(self, postgres: Any = None) -> Any:
        """A new migrated database (``FloorDatabase``: a URL per role)."""
        from controller.floor.migrate import migrate, migrations

        postgres = postgres or self.postgres
        db = postgres.create_database(f"floor_{next(_COUNT)}")
        assert [m.version for m in migrate(db.migrator)] == [m.version for m in migrations()]
        assert migrate(db.migrator) == []  # twice: nothing to do
        return db

    def drop(self, db: Any) -> None:
        """Drop database ``db`` of the shared server, ending any connection still open to it."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.postgres.url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(db.name)))


@pytest.fixture(scope="session")
def floor_site() -> Iterator[FloorSite]:
    """The session's NATS (TLS, nkeys) and PostgreSQL (SCRAM, roles), started on first use."""
    pytest.importorskip("nats")
    pytest.importorskip("psycopg")
    pytest.importorskip("nkeys")
    pytest.importorskip("cryptography")
    from controller.floor.certs import make_certs
    from controller.floor.identity import FloorAuth
    from controller.floor.servers import LocalNats, LocalPostgres

    base = Path(tempfile.mkdtemp(prefix="tablectl-floor-", dir=data_folder()))
    base.chmod(0o711)  # PostgreSQL's user (nobody, when the tests run as root) passes through
    auth = FloorAuth(base / "auth")
    make_certs(auth.folder)
    admin = auth.add_admin()
    nats = LocalNats(base / "nats", auth=auth)
    postgres = LocalPostgres(base / "postgres", settings=THROWAWAY_POSTGRES)
    try:
        nats.start()
        postgres.start()
        yield FloorSite(base, auth, admin, nats, postgres)
    finally:
        nats.kill()
        postgres.stop()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def floor_link(floor_site: FloorSite) -> FloorLink:
    """This test's prefix, stream (made) and ingest identity on the shared broker."""
    link = floor_site.link()
    link.create_stream()
    return link


@pytest.fixture
def floor_db(floor_site: FloorSite) -> Iterator[Any]:
    """A fresh, migrated database for one test (``.owner``, ``.ingest``, ``.reader`` URLs),
    dropped when the test ends (the tests make about a hundred, some 13 MB each)."""
    db = floor_site.database()
    yield db
    floor_site.drop(db)


@pytest.fixture
def floor_folder(floor_site: FloorSite, request: pytest.FixtureRequest) -> Path:
    """A folder of the test's own under the floor site's (PostgreSQL's user passes through it)."""
    path = floor_site.base / request.node.name
    path.mkdir()
    path.chmod(0o711)
    return path
