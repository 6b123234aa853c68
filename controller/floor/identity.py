"""Who may speak on the floor's NATS: one nkey identity per table, one for each ingest, one for
setting up the stream (docs/floor.md, "Identities and TLS").

An identity is an nkey pair: the table keeps the seed (its credential file, mode 0600) and the
broker knows only the public key, in a permission entry. The entries live as one file each under
``<auth dir>/nats/users/`` and are gathered into ``<auth dir>/nats/authorization.conf``, which the
broker's configuration includes; after a change the broker reloads it (``nats-server --signal
reload`` or SIGHUP) without dropping connections.

- a table may publish only its five record subjects ``<prefix>.<table>.{round,meters,fault,supervisor,event}``
  (each its own share of the stream) and its heartbeat, and subscribe only to its own inbox (where the
  publish acknowledgements come back);
- an ingest may publish only the JetStream API requests of its own stream and durable consumer
  (information, creating the consumer, pulling, acknowledging) and subscribe only to its inbox:
  it can consume and cannot publish a table's records;
- the setup identity may use the whole JetStream API (creating the stream) and nothing else.

Every identity's inbox is ``_INBOX.<its public key>``, so no one can read another's replies
(:func:`inbox_prefix`; the clients set nats-py's ``inbox_prefix`` to it).
"""

from __future__ import annotations

import enum
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import nkeys

from controller.floor._secret_file import write_secret
from controller.floor.channel import heartbeat_subject, to_table_subject
from controller.floor.messages import RECORD_SUBJECTS

__all__ = ["FloorAuth", "inbox_prefix", "public_key"]

ADMIN = "floor-admin"
"""The name of the setup identity (creates the stream)."""

_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


class Role(enum.Enum):
    """What an identity is for."""

    TABLE = "table"
    INGEST = "ingest"
    ADMIN = "admin"


def new_seed() -> bytes:
    """A fresh nkey user seed (``SU...``)."""
    return bytes(nkeys.encode_seed(os.urandom(32), nkeys.PREFIX_BYTE_USER))


def public_key(seed: bytes) -> str:
    """The public key (``U...``) of an nkey seed."""
    pair = nkeys.from_seed(bytearray(seed.strip()))
    try:
        return str(pair.public_key.decode())
    finally:
        pair.wipe()


def inbox_prefix(public: str) -> str:
    """The inbox prefix of the identity whose public key is ``public``."""
    return f"_INBOX.{public}"


@dataclass(frozen=True, slots=True)
class Identity:
    """One identity: its name, role, public key and the subjects it may publish and subscribe to."""

    name: str
    role: Role
    public: str
    publish: tuple[str, ...]
    subscribe: tuple[str, ...]

    def entry(self) -> str:
        """The identity's entry in the broker's ``authorization { users: [...] }`` list."""
        pub = ", ".join(json.dumps(s) for s in self.publish)
        sub = ", ".join(json.dumps(s) for s in self.subscribe)
        return (
            f"# {self.role.value} {self.name}\n"
            f"{{ nkey: {json.dumps(self.public)}, permissions: {{ "
            f"publish: {{ allow: [{pub}] }}, subscribe: {{ allow: [{sub}] }} }} }}\n"
        )


def record_subjects(prefix: str, table: str) -> tuple[str, ...]:
    """The subjects table ``table`` publishes its records on, and no other: each has its own share
    of the stream (controller.floor.stream), so a table may not spread a flood over more."""
    return tuple(f"{prefix}.{table}.{kind}" for kind in RECORD_SUBJECTS)


def table_identity(name: str, public: str, prefix: str) -> Identity:
    """A table: publishes its own records and heartbeat only; reads its inbox and what the floor
    tells it (controller.floor.channel), nothing of another table."""
    return Identity(
        name,
        Role.TABLE,
        public,
        (*record_subjects(prefix, name), heartbeat_subject(prefix, name)),
        (f"{inbox_prefix(public)}.>", to_table_subject(prefix, name)),
    )


def ingest_identity(name: str, public: str, stream: str, durable: str, prefix: str = "floor") -> Identity:
    """An ingest: the JetStream API of its stream and durable consumer, and its acknowledgements;
    the tables' heartbeats, and what the floor tells each table (controller.floor.channel)."""
    api = "$JS.API"
    publish = (
        f"{api}.INFO",
        f"{api}.STREAM.INFO.{stream}",
        f"{api}.CONSUMER.INFO.{stream}.{durable}",
        f"{api}.CONSUMER.CREATE.{stream}.{durable}",
        f"{api}.CONSUMER.CREATE.{stream}.{durable}.>",
        f"{api}.CONSUMER.DURABLE.CREATE.{stream}.{durable}",
        f"{api}.CONSUMER.MSG.NEXT.{stream}.{durable}",
        f"$JS.ACK.{stream}.{durable}.>",
        to_table_subject(prefix, "*"),
    )
    subscribe = (f"{inbox_prefix(public)}.>", heartbeat_subject(prefix, "*"))
    return Identity(name, Role.INGEST, public, publish, subscribe)


def admin_identity(public: str) -> Identity:
    """The setup identity: the JetStream API, nothing else."""
    return Identity(ADMIN, Role.ADMIN, public, ("$JS.API.>",), (f"{inbox_prefix(public)}.>",))


class FloorAuth:
    """The floor's identities and certificates in one folder (mode 0700)::

    ca.pem ca-key.pem server.pem server-key.pem   tablectl floor make-certs
    creds/NAME.nk                                  an identity's seed (0600): its credential file
    nats/users/NAME.conf                           its permission entry
    nats/authorization.conf                        every entry: the file the broker includes
    """

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)

    @property
    def authorization_conf(self) -> Path:
        return self.folder / "nats" / "authorization.conf"

    @property
    def ca(self) -> Path:
        return self.folder / "ca.pem"

    def creds(self, name: str) -> Path:
        """The credential file (nkey seed) of identity ``name``."""
        return self.folder / "creds" / f"{name}.nk"

    def _make(self) -> None:
        for folder in (self.folder, self.folder / "creds", self.folder / "nats", self.folder / "nats" / "users"):
            folder.mkdir(parents=True, exist_ok=True)
        os.chmod(self.folder, 0o700)
        os.chmod(self.folder / "creds", 0o700)

    def _seed(self, name: str, rotate: bool) -> str:
        """The public key of ``name``'s seed, made when missing (or when ``rotate``)."""
        path = self.creds(name)
        if rotate or not path.exists():
            write_secret(path, new_seed() + b"\n")
        return public_key(path.read_bytes())

    def _write(self, identity: Identity) -> Path:
        entry = self.folder / "nats" / "users" / f"{identity.name}.conf"
        entry.write_text(identity.entry())
        self.write_authorization()
        return self.creds(identity.name)

    @staticmethod
    def _check(name: str) -> None:
        if not _NAME.fullmatch(name):
            raise ValueError(f"identity name must be 1-64 letters, digits, _ or -, got {name!r}")

    def add_table(self, name: str, prefix: str = "floor", rotate: bool = False) -> Path:
        """Make (or keep) table ``name``'s credential file and permission entry; returns the file."""
        self._check(name)
        if name == ADMIN:
            raise ValueError(f"{name!r} is the setup identity's name")
        self._make()
        return self._write(table_identity(name, self._seed(name, rotate), prefix))

    def add_simulator(self, name: str, tables: tuple[str, ...], prefix: str = "floor") -> Path:
        """One identity publishing for several tables: a simulator of many tables in one process
        over one connection (``Forwarder.run``, benchmarks/bench_floor.py), never a real table."""
        self._check(name)
        self._make()
        public = self._seed(name, False)
        for table in tables:
            self._check(table)
        identity = Identity(
            name,
            Role.TABLE,
            public,
            tuple(s for t in tables for s in (*record_subjects(prefix, t), heartbeat_subject(prefix, t))),
            (f"{inbox_prefix(public)}.>", *(to_table_subject(prefix, t) for t in tables)),
        )
        return self._write(identity)

    def add_ingest(
        self,
        name: str = "floor-ingest",
        stream: str = "FLOOR",
        durable: str = "floor-ingest",
        rotate: bool = False,
        prefix: str = "floor",
    ) -> Path:
        """Make (or keep) an ingest identity for ``stream`` and ``durable`` (and the heartbeats and
        floor-to-table messages under ``prefix``); returns its credential file."""
        self._check(name)
        self._make()
        return self._write(ingest_identity(name, self._seed(name, rotate), stream, durable, prefix))

    def add_admin(self, rotate: bool = False) -> Path:
        """Make (or keep) the setup identity; returns its credential file."""
        self._make()
        return self._write(admin_identity(self._seed(ADMIN, rotate)))

    def remove(self, name: str) -> None:
        """Remove identity ``name`` (its entry and its seed): after a reload the broker refuses it."""
        (self.folder / "nats" / "users" / f"{name}.conf").unlink(missing_ok=True)
        self.creds(name).unlink(missing_ok=True)
        self.write_authorization()

    def write_authorization(self) -> Path:
        """Gather every permission entry into the file the broker includes."""
        users = sorted((self.folder / "nats" / "users").glob("*.conf"))
        body = "".join(p.read_text() for p in users)
        text = (
            "# Made by tablectl floor add-table / init-auth from nats/users/*.conf: edit those, not this.\n"
            "authorization {\n  timeout: 5\n  users: [\n" + body + "  ]\n}\n"
        )
        path = self.authorization_conf
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
        return path
