"""Who may speak on the floor (docs/floor.md, "Identities and TLS", "Database roles"), on the
session's servers started as in production (tests/floor_fixtures.py): NATS refuses a client
without credentials or without TLS; a table's identity publishes its own subjects only and reads
nothing; the ingest's identity consumes and cannot publish a table's records; PostgreSQL refuses
a wrong password and the reader role cannot write."""

from __future__ import annotations

import asyncio
import re
import ssl
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nats")
psycopg = pytest.importorskip("psycopg")
pytest.importorskip("nkeys")
x509 = pytest.importorskip("cryptography.x509")

import nats  # noqa: E402
import nats.errors  # noqa: E402
from floor_fixtures import FloorLink, FloorSite  # noqa: E402

from controller.configuration import load_table  # noqa: E402
from controller.floor.certs import make_certs  # noqa: E402
from controller.floor.connect import NatsAuth, nats_auth_options  # noqa: E402
from controller.floor.identity import FloorAuth  # noqa: E402
from controller.floor.servers import FloorDatabase, LocalPostgres  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


class Errors:
    """What the server told a client asynchronously (permission violations)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def cb(self, exc: Exception) -> None:
        self.seen.append(str(exc))

    async def wait(self, text: str, timeout: float = 30.0) -> None:
        for _ in range(int(timeout / 0.02)):
            if any(text in e.lower() for e in self.seen):
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"the server never said {text!r}: {self.seen}")


async def connect(link: FloorLink, auth: NatsAuth, errors: Errors | None = None, **kw: Any) -> Any:
    return await nats.connect(
        servers=list(link.servers),
        connect_timeout=5,
        allow_reconnect=False,
        error_cb=(errors or Errors()).cb,
        **nats_auth_options(auth),
        **kw,
    )


async def stream_count(link: FloorLink) -> int:
    nc = await connect(link, link.admin)
    try:
        return int(
            (await nc.jetstream().stream_info(link.stream)).state.last_seq
        )  # every message it took (a work queue)
    finally:
        await nc.close()


def run(coro: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(coro())  # type: ignore[arg-type]


# --- NATS ------------------------------------------------------------------------------------------


def test_a_client_without_credentials_is_refused(floor_link: FloorLink) -> None:
    async def go() -> None:
        with pytest.raises(nats.errors.Error, match="Authorization Violation"):
            await connect(floor_link, NatsAuth(None, str(floor_link.site.auth.ca)))

    run(go)


def test_a_client_without_tls_is_refused(floor_link: FloorLink) -> None:
    """The broker requires TLS: the same identity over plain TCP gets nowhere."""
    creds = floor_link.table("plain-1")
    url = floor_link.servers[0].replace("tls://", "nats://")

    async def go() -> None:
        with pytest.raises(Exception):  # noqa: B017  (nats-py raises its own error for a TLS-only server)
            nc = await nats.connect(
                url, connect_timeout=5, allow_reconnect=False, nkeys_seed=str(creds), error_cb=Errors().cb
            )
            await nc.close()

    run(go)


def test_a_broker_certificate_from_another_ca_is_refused(floor_link: FloorLink, tmp_path: Path) -> None:
    """The client trusts the floor's CA only: a certificate signed by another CA fails the handshake."""
    other = make_certs(tmp_path / "other")
    creds = floor_link.table("other-ca-1")

    async def go() -> None:
        with pytest.raises((ssl.SSLError, OSError, nats.errors.Error)):
            nc = await connect(floor_link, NatsAuth(str(creds), str(other.ca)))
            await nc.close()

    run(go)


def test_a_table_cannot_publish_as_another_table(floor_link: FloorLink) -> None:
    creds = floor_link.table("ta-1")
    floor_link.table("tb-1")

    async def go() -> None:
        errors = Errors()
        nc = await connect(floor_link, floor_link.auth(creds), errors)
        try:
            js = nc.jetstream()
            ack = await js.publish(f"{floor_link.prefix}.ta-1.event", b"{}")  # its own subject: stored
            assert ack.stream == floor_link.stream
            with pytest.raises(nats.errors.TimeoutError):  # refused: no acknowledgement ever comes
                await js.publish(f"{floor_link.prefix}.tb-1.event", b'{"table": "tb-1"}', timeout=3)
            await errors.wait(f'permissions violation for publish to "{floor_link.prefix}.tb-1.event"')
            await nc.publish(f"{floor_link.prefix}.tb-1.round", b"{}")
            await errors.wait(f'permissions violation for publish to "{floor_link.prefix}.tb-1.round"')
        finally:
            await nc.close()
        assert await stream_count(floor_link) == 1  # only ta-1's own message

    run(go)


def test_a_table_reads_nothing_of_the_floor(floor_link: FloorLink) -> None:
    """Round messages carry every card: a table's identity may not subscribe to them, nor use the
    JetStream API (no consumer of its own)."""
    creds = floor_link.table("reader-1")

    async def go() -> None:
        errors = Errors()
        nc = await connect(floor_link, floor_link.auth(creds), errors)
        try:
            await nc.subscribe(f"{floor_link.prefix}.>")
            await errors.wait(f'permissions violation for subscription to "{floor_link.prefix}.>"')
            with pytest.raises(nats.errors.TimeoutError):
                await nc.jetstream(timeout=3).stream_info(floor_link.stream)
        finally:
            await nc.close()

    run(go)


def test_the_ingest_consumes_and_cannot_publish_table_records(floor_link: FloorLink) -> None:
    table = floor_link.table("tc-1")

    async def go() -> None:
        nc = await connect(floor_link, floor_link.auth(table))
        await nc.jetstream().publish(f"{floor_link.prefix}.tc-1.event", b"{}")
        await nc.close()
        errors = Errors()
        ingest = await connect(floor_link, floor_link.ingest, errors)
        try:
            sub = await ingest.jetstream().pull_subscribe(
                f"{floor_link.prefix}.>", durable=floor_link.durable, stream=floor_link.stream
            )
            [msg] = await sub.fetch(1, timeout=10)  # it may consume
            await msg.ack()
            assert msg.subject == f"{floor_link.prefix}.tc-1.event"
            with pytest.raises(nats.errors.TimeoutError):
                await ingest.jetstream().publish(f"{floor_link.prefix}.tc-1.round", b"{}", timeout=3)
            await errors.wait(f'permissions violation for publish to "{floor_link.prefix}.tc-1.round"')
            with pytest.raises(nats.errors.TimeoutError):  # nor make the stream or another consumer
                await ingest.jetstream(timeout=3).delete_stream(floor_link.stream)
        finally:
            await ingest.close()
        assert await stream_count(floor_link) == 1

    run(go)


def test_add_table_writes_a_0600_credential_and_its_permission_entry(floor_site: FloorSite, tmp_path: Path) -> None:
    folder = tmp_path / "auth"
    result = subprocess.run(
        [sys.executable, "-m", "controller", "floor", "add-table", "ms-09", "--auth", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    creds = folder / "creds" / "ms-09.nk"
    assert creds.stat().st_mode & 0o777 == 0o600 and creds.read_bytes().startswith(b"SU")
    entry = (folder / "nats" / "users" / "ms-09.conf").read_text()
    # The broker holds the public key only: no nkey seed (a quoted string starting "SU"), whatever
    # letters the random public key happens to hold.
    assert '"floor.ms-09.event"' in entry and not re.search(r'"SU[A-Z2-7]+"', entry)
    assert '"floor.ms-09.>"' not in entry  # its five record subjects only: one share of the stream each
    assert entry in (folder / "nats" / "authorization.conf").read_text()
    bad = subprocess.run(
        [sys.executable, "-m", "controller", "floor", "add-table", "ms 09", "--auth", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "ms 09" in bad.stderr and "Traceback" not in bad.stderr


def test_a_rotated_or_removed_identity_is_refused_after_reload(floor_link: FloorLink) -> None:
    old = floor_link.table("rot-1").read_bytes()
    auth: FloorAuth = floor_link.site.auth
    old_file = floor_link.site.base / "rot-1-old.nk"
    old_file.write_bytes(old)
    old_file.chmod(0o600)
    auth.add_table("rot-1", floor_link.prefix, rotate=True)
    floor_link.site.nats.reload()

    async def go() -> None:
        with pytest.raises(nats.errors.Error, match="Authorization Violation"):
            await connect(floor_link, floor_link.auth(old_file))
        nc = await connect(floor_link, floor_link.auth(auth.creds("rot-1")))  # the new key is admitted
        await nc.close()
        auth.remove("rot-1")
        floor_link.site.nats.reload()
        with pytest.raises(nats.errors.Error, match="Authorization Violation"):
            await connect(floor_link, floor_link.auth(old_file))

    run(go)


def test_a_broker_that_verifies_clients_wants_a_certificate(floor_site: FloorSite, tmp_path: Path) -> None:
    made = make_certs(floor_site.auth.folder, clients=("table-ms-10",))
    broker = floor_site.own_nats(tmp_path / "nats", verify_clients=True).start()
    try:
        link = floor_site.link(brokers=[broker], servers=(broker.url,))
        creds = link.table("ms-10")
        [(cert, key)] = made.clients

        async def go() -> None:
            with pytest.raises((ssl.SSLError, OSError, nats.errors.Error)):
                nc = await connect(link, link.auth(creds))
                await nc.close()
            nc = await connect(link, NatsAuth(str(creds), str(floor_site.auth.ca), str(cert), str(key)))
            await nc.close()

        run(go)
    finally:
        broker.kill()


def test_make_certs_names_the_brokers_hosts(tmp_path: Path) -> None:
    folder = tmp_path / "certs"
    result = subprocess.run(
        [sys.executable, "-m", "controller", "floor", "make-certs", str(folder)]
        + ["--host", "nats-1.floor.example", "--host", "10.1.2.3", "--client", "ms-01"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    cert = x509.load_pem_x509_certificate((folder / "server.pem").read_bytes())
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert set(san.get_values_for_type(x509.DNSName)) == {"localhost", "nats-1.floor.example"}
    assert {str(a) for a in san.get_values_for_type(x509.IPAddress)} == {"127.0.0.1", "10.1.2.3"}
    for secret in ("ca-key.pem", "server-key.pem", "clients/ms-01-key.pem"):
        assert (folder / secret).stat().st_mode & 0o777 == 0o600
    ca_before = (folder / "ca.pem").read_bytes()
    make_certs(folder, ("nats-2.floor.example",))  # again: the CA is kept, the broker's certificate made anew
    assert (folder / "ca.pem").read_bytes() == ca_before


def test_the_floor_section_takes_credentials_and_tls_files(tmp_path: Path) -> None:
    text = (REPO / "config" / "bench" / "mississippi_stud.yaml").read_text()
    text = text.replace("paytables_dir: ../paytables", f"paytables_dir: {REPO / 'config' / 'paytables'}")
    path = tmp_path / "t.yaml"
    path.write_text(
        text + "floor:\n  table_id: ms-01\n  servers: [tls://10.0.0.5:4222]\n  credentials: ms-01.nk\n"
        "  ca: certs/ca.pem\n  cert: certs/ms-01.pem\n  key: certs/ms-01-key.pem\n"
    )
    floor = load_table(path).floor
    assert floor is not None
    assert (floor.credentials, floor.ca, floor.cert, floor.key) == (
        str(tmp_path / "ms-01.nk"),
        str(tmp_path / "certs" / "ca.pem"),
        str(tmp_path / "certs" / "ms-01.pem"),
        str(tmp_path / "certs" / "ms-01-key.pem"),
    )


def test_a_bad_credentials_file_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.nk"
    bad.write_text("not a seed\n")
    with pytest.raises(ValueError, match="bad.nk: not an nkey seed"):
        nats_auth_options(NatsAuth(str(bad)))
    with pytest.raises(ValueError, match="missing.nk: cannot read"):
        nats_auth_options(NatsAuth(str(tmp_path / "missing.nk")))


# --- PostgreSQL ------------------------------------------------------------------------------------


def test_a_wrong_password_is_refused(floor_site: FloorSite, floor_db: FloorDatabase) -> None:
    wrong = floor_site.postgres.url_for("floor_reader", floor_db.name).split("?")[0]
    for url in (wrong.replace("floor_reader@", "floor_reader:wrong@"), wrong.replace("floor_reader@", "postgres:x@")):
        with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
            psycopg.connect(url, connect_timeout=10)
    with pytest.raises(psycopg.OperationalError, match="password"):  # no password at all
        psycopg.connect(wrong + "?passfile=/nonexistent", connect_timeout=10)


def test_the_reader_only_reads_and_the_ingest_only_writes_rows(floor_db: FloorDatabase) -> None:
    with psycopg.connect(floor_db.reader, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM round").fetchone() == (0,)
        for statement in (
            "INSERT INTO floor_table (table_id, first_at, last_at, last_seq) VALUES ('x', now(), now(), 1)",
            "INSERT INTO ingest_reject (subject, payload, error) VALUES ('s', 'p', 'e')",
            "UPDATE floor_table SET last_seq = 0",
            "DELETE FROM round",
            "CREATE TABLE mine (a int)",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
    with psycopg.connect(floor_db.ingest, autocommit=True) as conn:
        conn.execute("INSERT INTO ingest_reject (subject, payload, error) VALUES ('s', 'p', 'e')")
        for statement in (
            "CREATE TABLE mine (a int)",
            "DROP TABLE round",
            "ALTER TABLE round ADD COLUMN x int",
            "INSERT INTO schema_migrations (version, name) VALUES (999, 'x')",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)


def test_a_table_a_later_migration_makes_is_granted_too(floor_db: FloorDatabase) -> None:
    """ALTER DEFAULT PRIVILEGES: a floor table the migrator makes after 0009 is writable by the
    ingest and readable by the reader without a new grant."""
    with psycopg.connect(floor_db.migrator, autocommit=True) as conn:
        conn.execute("CREATE TABLE later_table (id bigserial PRIMARY KEY, note text)")
    with psycopg.connect(floor_db.ingest, autocommit=True) as conn:
        conn.execute("INSERT INTO later_table (note) VALUES ('x')")
    with psycopg.connect(floor_db.reader, autocommit=True) as conn:
        assert conn.execute("SELECT note FROM later_table").fetchall() == [("x",)]
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO later_table (note) VALUES ('y')")


def test_the_passwords_are_in_a_0600_file_and_only_scram_is_stored(floor_site: FloorSite) -> None:
    postgres: LocalPostgres = floor_site.postgres
    assert postgres.passfile.stat().st_mode & 0o777 == 0o600
    with psycopg.connect(postgres.url, autocommit=True) as conn:
        stored = dict(conn.execute("SELECT rolname, rolpassword FROM pg_authid WHERE rolname LIKE 'floor_%'"))
        hba = conn.execute("SELECT DISTINCT auth_method FROM pg_hba_file_rules").fetchall()
    assert set(stored) == {"floor_owner", "floor_ingest", "floor_reader", "floor_migrator", "floor_registrar"}
    assert all(v.startswith("SCRAM-SHA-256$") for v in stored.values())
    assert hba == [("scram-sha-256",)]


def test_the_deployed_configs_hold_no_secret_and_parse(tmp_path: Path) -> None:
    """deploy/tablectl-floor-ingest.service runs an ingest the CLI accepts with no password in
    its arguments; deploy/nats-floor.conf is a configuration nats-server reads (paths made local)."""
    import configparser
    import shlex

    from controller.cli import build_parser
    from controller.cli._floor import secret_in_url
    from controller.floor.servers import nats_server_binary

    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.read_string((REPO / "deploy" / "tablectl-floor-ingest.service").read_text())
    argv = shlex.split(unit["Service"]["ExecStart"])
    args = build_parser().parse_args(argv[1:])
    assert args.floor_command == "ingest" and args.creds and args.ca and len(args.nats) == 3
    assert secret_in_url(args.db) is None and "passfile=" in args.db
    certs = make_certs(tmp_path)
    auth = FloorAuth(tmp_path)
    auth.add_admin()
    conf = (REPO / "deploy" / "nats-floor.conf").read_text()
    for name in ("server.pem", "server-key.pem", "ca.pem"):
        conf = conf.replace(f"/etc/nats/{name}", str(tmp_path / name))
    conf = conf.replace("/var/lib/nats", str(tmp_path / "js")).replace("/var/run/nats", str(tmp_path))
    conf = conf.replace('include "authorization.conf"', 'include "nats/authorization.conf"')
    (tmp_path / "nats-floor.conf").write_text(conf)
    assert certs.server.exists()
    checked = subprocess.run(
        [str(nats_server_binary()), "-t", "-c", str(tmp_path / "nats-floor.conf")], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _journal(path: Path) -> Any:
    from controller.journal import NewRecord, SqliteJournal

    journal = SqliteJournal(path)
    journal.append_batch([NewRecord("SpotReport", {"device": "spots", "seat": 1, "spot": "ante", "cents": 5}, True)])
    return journal


def _wait_down(forwarder: Any, text: str) -> None:
    from controller.floor.forwarder import LinkState

    for _ in range(6000):
        status = forwarder.status()
        if status.state is LinkState.DOWN and text in (status.error or ""):
            return
        asyncio.run(asyncio.sleep(0.02))
    raise AssertionError(f"the link never went down with {text!r}: {forwarder.status()}")


def test_a_forwarder_with_another_tables_identity_gets_nothing_stored(floor_link: FloorLink, tmp_path: Path) -> None:
    """Table td-1's credential file in a config that claims to be te-1: every publish is refused,
    the link shows down, nothing is acknowledged and nothing lands in the stream."""
    from dataclasses import replace

    from controller.floor.forwarder import Forwarder

    journal = _journal(tmp_path / "j.db")
    floor_link.table("te-1")
    config = replace(floor_link.floor_config("te-1"), credentials=str(floor_link.table("td-1")))
    forwarder = Forwarder(journal.path, config, ack_timeout_s=2.0).start()
    try:
        _wait_down(forwarder, "permissions violation for publish to")
        assert forwarder.status().acked == 0
    finally:
        forwarder.stop()
        journal.close()
    assert asyncio.run(stream_count(floor_link)) == 0


def test_a_missing_credential_file_shows_the_link_down_with_its_name(floor_link: FloorLink, tmp_path: Path) -> None:
    from dataclasses import replace

    from controller.floor.forwarder import Forwarder

    journal = _journal(tmp_path / "j.db")
    config = replace(floor_link.floor_config("tf-1"), credentials=str(tmp_path / "gone.nk"))
    forwarder = Forwarder(journal.path, config).start()
    try:
        _wait_down(forwarder, "gone.nk: cannot read the NATS credentials")
    finally:
        forwarder.stop()
        journal.close()


def test_init_auth_makes_the_ingest_and_setup_identities(tmp_path: Path) -> None:
    folder = tmp_path / "auth"
    result = subprocess.run(
        [sys.executable, "-m", "controller", "floor", "init-auth", str(folder), "--name", "ingest-2"]
        + ["--stream", "FLOOR2", "--durable", "d2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    for name in ("ingest-2", "floor-admin"):
        assert (folder / "creds" / f"{name}.nk").stat().st_mode & 0o777 == 0o600
    conf = (folder / "nats" / "authorization.conf").read_text()
    assert '"$JS.API.CONSUMER.MSG.NEXT.FLOOR2.d2"' in conf and '"$JS.ACK.FLOOR2.d2.>"' in conf
    assert '"$JS.API.>"' in conf  # the setup identity's, for creating the stream
    assert (folder.stat().st_mode & 0o777) == 0o700


def test_the_stream_has_age_and_size_limits_that_keep_at_least_30_days(floor_link: Any) -> None:
    async def config() -> Any:
        nc = await connect(floor_link, floor_link.admin)
        try:
            return (await nc.jetstream().stream_info(floor_link.stream)).config
        finally:
            await nc.close()

    made = asyncio.run(config())
    assert made.max_age >= 30 * 86400 and made.max_age == 90 * 86400
    assert made.max_bytes in (None, -1)  # no byte limit unless asked: JetStream refuses one over its storage
