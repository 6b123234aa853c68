"""The durable journal: SQLite (stdlib ``sqlite3``) in WAL mode with ``synchronous=FULL``,
append-only and hash-chained.

Every record holds the SHA-256 (or, with a key, the HMAC-SHA-256) of the previous record's hash
and of its own content, so any changed, removed or reordered record breaks the chain at that
record (:mod:`controller.journal.verify` finds it). Each append is one transaction: when
``append`` returns, the record is on disk.

Besides the chained ``records`` the file keeps derived tables, each written in the same
transaction as the record it follows from: ``snapshots`` (the table's state at each round's
start, so a restart replays only the open round), ``rounds`` (where each finished round's
record is) and ``meters`` (running totals; ``verify`` recomputes them from the round records).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from controller.table.journal import JournalRecord

__all__ = ["SCHEMA_VERSION", "GENESIS", "JournalError", "Snapshot", "SqliteJournal", "record_hash", "canonical"]

SCHEMA_VERSION = 2
"""Version 1 had only ``meta`` and ``records``; version 2 adds the derived tables and the
``head`` trigger (the last record's number and hash in ``meta``, so removing the last records
is seen too)."""

GENESIS = "0" * 64
"""The "previous hash" of the first record."""

_SCHEMA_V1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE records (
    seq INTEGER PRIMARY KEY, at REAL NOT NULL, kind TEXT NOT NULL, event INTEGER NOT NULL,
    data TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL
);
"""
_SCHEMA_V2 = """
CREATE TABLE snapshots (seq INTEGER PRIMARY KEY, round_no INTEGER NOT NULL, state TEXT NOT NULL);
CREATE TABLE rounds (round_no INTEGER PRIMARY KEY, seq INTEGER NOT NULL, at REAL NOT NULL);
CREATE TABLE meters (scope TEXT NOT NULL, name TEXT NOT NULL, value INTEGER NOT NULL, PRIMARY KEY (scope, name));
CREATE TRIGGER head AFTER INSERT ON records BEGIN
    INSERT OR REPLACE INTO meta VALUES ('head_seq', NEW.seq), ('head_hash', NEW.hash);
END;
"""


def _statements(script: str) -> list[str]:
    """The SQL statements of ``script`` (a trigger's body holds semicolons of its own)."""
    out, buf = [], ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    return out


class JournalError(Exception):
    """The journal cannot be opened, read or written (the message names the file and why)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The table's state at a round's start, after record ``seq``."""

    seq: int
    round_no: int
    state: dict[str, Any]


def canonical(data: Mapping[str, Any]) -> str:
    """The JSON text a record's data is stored and hashed as."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def record_hash(
    prev: str, seq: int, at: float, kind: str, event: bool, data_text: str, key: bytes | None = None
) -> str:
    """The hash of one record, chained to ``prev``."""
    message = f"{prev}\n{seq}\n{at!r}\n{kind}\n{int(event)}\n{data_text}".encode()
    if key is not None:
        return hmac.new(key, message, hashlib.sha256).hexdigest()
    return hashlib.sha256(message).hexdigest()


MeterDelta = Mapping[tuple[str, str], int]


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _locked(method: Callable[Concatenate[SqliteJournal, _P], _R]) -> Callable[Concatenate[SqliteJournal, _P], _R]:
    """One thread at a time on the connection (the controller writes while others read)."""

    @functools.wraps(method)
    def wrapper(journal: SqliteJournal, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with journal.lock:
            return method(journal, *args, **kwargs)

    return wrapper


class SqliteJournal:
    """The journal of one table in the SQLite file at ``path`` (created when missing)."""

    def __init__(
        self,
        path: Path | str,
        hmac_key: bytes | None = None,
        clock: Callable[[], float] = time.time,
        create: bool = True,
    ) -> None:
        self.path = Path(path)
        self.key = hmac_key
        self.clock = clock
        self.lock = threading.RLock()
        if not create and not self.path.is_file():
            raise JournalError(f"{self.path}: no journal there")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self._open_schema()
            row = self.db.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        except (sqlite3.Error, OSError, JournalError) as exc:
            if hasattr(self, "db"):
                self.db.close()
            if isinstance(exc, JournalError):
                raise
            raise JournalError(f"{self.path}: cannot open the journal: {exc}") from exc
        anchor = self.meta("anchor_hash") or GENESIS
        self.last_seq: int = int(row[0]) if row else int(self.meta("anchor_seq") or 0)
        self.last_hash: str = str(row[1]) if row else anchor

    # --- schema ---------------------------------------------------------------------------------

    def _open_schema(self) -> None:
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "meta" not in tables:
            with self._txn():
                for statement in _statements(_SCHEMA_V1 + _SCHEMA_V2):
                    self.db.execute(statement)
                self.db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
                self.db.execute("INSERT INTO meta VALUES ('created', ?)", (repr(self.clock()),))
            return
        version = int(self.meta("schema_version") or 0)
        if version > SCHEMA_VERSION:
            raise JournalError(
                f"{self.path}: journal schema version {version} is newer than this tablectl reads ({SCHEMA_VERSION}); "
                "use the tablectl that wrote it, or a newer one"
            )
        while version < SCHEMA_VERSION:
            MIGRATIONS[version](self)
            version += 1
            with self._txn():
                self.db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))

    @_locked
    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _txn(self) -> _Transaction:
        return _Transaction(self.db)

    # --- writing --------------------------------------------------------------------------------

    def _insert(self, kind: str, data: Mapping[str, Any], event: bool) -> int:
        seq, at, text = self.last_seq + 1, self.clock(), canonical(data)
        digest = record_hash(self.last_hash, seq, at, kind, event, text, self.key)
        self.db.execute(
            "INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)",
            (seq, at, kind, int(event), text, self.last_hash, digest),
        )
        self._pending = (seq, digest)
        return seq

    @_locked
    def _commit(self, write: Callable[[], int]) -> int:
        try:
            with self._txn():
                seq = write()
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot write the journal: {exc}") from exc
        self.last_seq, self.last_hash = self._pending
        return seq

    def append(self, kind: str, data: dict[str, Any], event: bool = False) -> int:
        """Record ``data`` of ``kind`` (``event``: taken from the queue, replayed on recovery);
        returns its sequence number once it is on disk."""
        return self._commit(lambda: self._insert(kind, data, event))

    def append_round(self, round_no: int, data: dict[str, Any], meters: MeterDelta) -> int:
        """Record a finished round (``RoundSettled``), index it and add ``meters`` to the running
        totals, in one transaction."""

        def write() -> int:
            seq = self._insert("RoundSettled", data, False)
            self.db.execute("INSERT OR REPLACE INTO rounds VALUES (?, ?, ?)", (round_no, seq, self.clock()))
            for (scope, name), value in meters.items():
                self.db.execute(
                    "INSERT INTO meters VALUES (?, ?, ?) ON CONFLICT (scope, name) DO UPDATE SET value = value + excluded.value",
                    (scope, name, value),
                )
            return seq

        return self._commit(write)

    @_locked
    def snapshot(self, seq: int, round_no: int, state: dict[str, Any]) -> None:
        """Keep the table's state at a round's start, after record ``seq``."""
        try:
            with self._txn():
                self.db.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?)", (seq, round_no, canonical(state)))
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot write the journal: {exc}") from exc

    # --- reading --------------------------------------------------------------------------------

    def records(self, after: int = 0, until: int | None = None) -> Iterator[JournalRecord]:
        """Records after sequence number ``after`` (up to ``until``), in order."""
        query = (
            "SELECT seq, at, kind, data, event FROM records WHERE seq > ?"
            + (" AND seq <= ?" if until is not None else "")
            + " ORDER BY seq"
        )
        args = (after,) if until is None else (after, until)
        with self.lock:
            rows = self.db.execute(query, args).fetchall()
        return iter(
            [JournalRecord(seq, at, kind, json.loads(data), bool(event)) for seq, at, kind, data, event in rows]
        )

    def record(self, seq: int) -> JournalRecord | None:
        return next(self.records(seq - 1, seq), None)

    @_locked
    def last_snapshot(self) -> Snapshot | None:
        row = self.db.execute("SELECT seq, round_no, state FROM snapshots ORDER BY seq DESC LIMIT 1").fetchone()
        return Snapshot(row[0], row[1], json.loads(row[2])) if row else None

    @_locked
    def round_seqs(self) -> list[tuple[int, int]]:
        """(round number, seq of its ``RoundSettled`` record) of every finished round kept, in order."""
        return [(r, s) for r, s in self.db.execute("SELECT round_no, seq FROM rounds ORDER BY round_no")]

    @_locked
    def round_count(self) -> int:
        """How many finished rounds the journal keeps."""
        return int(self.db.execute("SELECT count(*) FROM rounds").fetchone()[0])

    @_locked
    def has_round(self, round_no: int) -> bool:
        return self.db.execute("SELECT 1 FROM rounds WHERE round_no = ?", (round_no,)).fetchone() is not None

    @_locked
    def meters(self) -> dict[tuple[str, str], int]:
        """The running totals kept with the round records."""
        return {(scope, name): value for scope, name, value in self.db.execute("SELECT scope, name, value FROM meters")}

    def close(self) -> None:
        try:
            self.db.close()
        except sqlite3.Error:
            pass


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on error) on an autocommit connection."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        if kind is None:
            try:
                self.db.execute("COMMIT")
                return
            except sqlite3.Error:
                self.db.execute("ROLLBACK")
                raise
        try:
            self.db.execute("ROLLBACK")
        except sqlite3.Error:
            pass


def _migrate_1_to_2(journal: SqliteJournal) -> None:
    """Add the derived tables and fill them from the chained records (rounds and meters from the
    ``RoundSettled`` records; no snapshot: the first start replays from the beginning)."""
    from controller.journal.meters import meters_for_round

    with journal._txn():
        for statement in _statements(_SCHEMA_V2):
            journal.db.execute(statement)
        for seq, at, data in journal.db.execute(
            "SELECT seq, at, data FROM records WHERE kind = 'RoundSettled' ORDER BY seq"
        ).fetchall():
            round_data = json.loads(data)
            journal.db.execute("INSERT OR REPLACE INTO rounds VALUES (?, ?, ?)", (round_data["round"], seq, at))
            for (scope, name), value in meters_for_round(round_data).items():
                journal.db.execute(
                    "INSERT INTO meters VALUES (?, ?, ?) ON CONFLICT (scope, name) DO UPDATE SET value = value + excluded.value",
                    (scope, name, value),
                )


MIGRATIONS: dict[int, Callable[[SqliteJournal], None]] = {1: _migrate_1_to_2}
"""Schema migrations: version -> the step to the next version."""
