"""The durable journal: SQLite (stdlib ``sqlite3``) in WAL mode with ``synchronous=FULL``,
append-only and hash-chained.

Every record holds the SHA-256 (or, with a key, the HMAC-SHA-256) of the previous record's hash
and of its own content, so any changed, removed or reordered record breaks the chain at that
record (:mod:`controller.journal.verify` finds it). Each append is one transaction: when
``append`` returns, the record is on disk.

Besides the chained ``records`` the file keeps derived tables, each written in the same
transaction as the record it follows from: ``snapshots`` (the table's state at each round's
start, so a restart replays only the open round; each bound to the record it follows by a hash),
``rounds`` (where each finished round's record is) and ``meters`` (running totals; ``verify``
recomputes them from the round records). ``meta`` keeps the schema version, the creation time,
the pruning anchor and the pruned rounds' meters under one hash (``meta_hash``, an HMAC with a
key), and the last record's number and hash (``head_seq``, ``head_hash``).

Readers open the file read-only (:meth:`SqliteJournal.open_readonly`): SQLite URI ``mode=ro``, so
nothing they do can change a byte of it, and a file that is not a tablectl journal is refused.
The writer creates its folder 0700 and its files 0600, whatever the umask.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import sqlite3
import stat
import threading
import time
import urllib.parse
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from controller.journal import checkpoint
from controller.journal._files import FILE_MODE, JournalError, private_folder
from controller.journal._hashing import UNSIGNED_META, canonical, meta_hash, record_hash, snapshot_hash
from controller.journal._written import RecordRow, WrittenRows
from controller.journal.records import JournalRecord
from controller.journal.stored import hash_at, last_record, read_records, record_at

if TYPE_CHECKING:
    from controller.journal.writer_lock import WriterLock

__all__ = [
    "SCHEMA_VERSION",
    "GENESIS",
    "JournalError",
    "JournalDamaged",
    "JournalFull",
    "NewRecord",
    "SqliteJournal",
    "Sync",
    "record_hash",
    "snapshot_hash",
    "meta_hash",
    "canonical",
]

SCHEMA_VERSION = 5
"""Version 1 had only ``meta`` and ``records``; version 2 adds the derived tables and the
``head`` trigger (the last record's number and hash in ``meta``, so removing the last records
is seen too); version 3 binds each snapshot to the chain (``snapshots.hash``), keeps a round's
index time equal to its record's, and signs ``meta`` (``meta_hash``); version 4 adds ``blocks``,
a closed round's records kept compact in one row (:mod:`controller.journal.compact`), and
``block_kinds``, the kinds each block holds (read by :mod:`controller.journal.stored`); version 5
keeps the head in place: the ``head`` trigger changes its two rows' values (an upsert) instead of
deleting each and inserting it again under a new rowid, which wrote ``meta``'s key index too at
every record's commit (two pages of the WAL a commit instead of three; the same head)."""

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
_SCHEMA_V3 = """
ALTER TABLE snapshots ADD COLUMN hash TEXT;
"""
_SCHEMA_V4 = """
CREATE TABLE blocks (
    first_seq INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL UNIQUE, prev TEXT NOT NULL, hash TEXT NOT NULL,
    prefixes BLOB NOT NULL, payload BLOB NOT NULL
);
CREATE TABLE block_kinds (kind TEXT NOT NULL, first_seq INTEGER NOT NULL, PRIMARY KEY (kind, first_seq)) WITHOUT ROWID;
"""
_SCHEMA_V5 = """
DROP TRIGGER head;
CREATE TRIGGER head AFTER INSERT ON records BEGIN
    INSERT INTO meta VALUES ('head_seq', NEW.seq), ('head_hash', NEW.hash)
        ON CONFLICT (key) DO UPDATE SET value = excluded.value;
END;
"""
_SCHEMA = _SCHEMA_V1 + _SCHEMA_V2 + _SCHEMA_V3 + _SCHEMA_V4 + _SCHEMA_V5
"""The schema of a journal of this version, as created."""
_SCHEMAS = {
    3: _SCHEMA_V1 + _SCHEMA_V2 + _SCHEMA_V3,
    4: _SCHEMA_V1 + _SCHEMA_V2 + _SCHEMA_V3 + _SCHEMA_V4,
    SCHEMA_VERSION: _SCHEMA,
}
"""The schema of each version ``verify`` compares a journal with (3 on), as created."""


OUTBOX_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS floor_outbox (name TEXT PRIMARY KEY, acked_seq INTEGER NOT NULL, at REAL NOT NULL, "
    "state TEXT, error TEXT)"
)
"""The floor link's outbox (controller/journal/outbox.py): beside the chained records, present
only in the journal of a table that publishes to a floor."""

LINK_KINDS = ("LinkUp", "LinkDown", "LinkStats", "DeviceFault")
"""The records ``tablectl status`` reads for the devices' links."""

LINKS_CONDITION = "(" + " OR ".join(f"kind = {k!r}" for k in LINK_KINDS) + ")"
"""Which records the link records' index holds. Written with ``OR``, not ``kind IN (...)``: SQLite
builds an ``IN`` list's lookup table again for every row inserted, which cost the writer about
2 us a record (a sixth of its CPU); the comparisons cost a tenth of that."""

LINKS_INDEX = f"CREATE INDEX IF NOT EXISTS records_links ON records (kind, seq) WHERE {LINKS_CONDITION}"
"""The link records by kind, in order (a partial index: only those records): ``tablectl status``
reads a device's last ones without scanning a year's journal. The writer makes it when it opens a
journal (once, for a journal written before it existed, or with :data:`OLD_LINKS_INDEX`); not part
of the schema version."""

OLD_LINKS_INDEX = (
    "CREATE INDEX IF NOT EXISTS records_links ON records (kind, seq) "
    f"WHERE kind IN ({', '.join(repr(k) for k in LINK_KINDS)})"
)
"""The index as journals written before 2026-12-07 have it (the same records): ``verify``
accepts it, readers' queries use either, and the writer replaces it with :data:`LINKS_INDEX`."""


@functools.cache
def optional_schema() -> frozenset[tuple[str, str, str, str | None]]:
    """``sqlite_master`` rows a journal may have beside :func:`expected_schema` (the outbox, the
    link records' index)."""
    db = sqlite3.connect(":memory:")
    try:
        for statement in _statements(_SCHEMA_V1):
            db.execute(statement)
        db.execute(OUTBOX_SCHEMA)
        db.execute(OLD_LINKS_INDEX)
        rows = set(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
        db.execute("DROP INDEX records_links")
        db.execute(LINKS_INDEX)
        rows |= set(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    finally:
        db.close()
    return frozenset(r for r in rows if r[1] in ("floor_outbox", "sqlite_autoindex_floor_outbox_1", "records_links"))


@functools.cache
def expected_schema(version: int = SCHEMA_VERSION) -> frozenset[tuple[str, str, str, str | None]]:
    """``sqlite_master`` (type, name, table, SQL) of a journal of schema ``version`` (3 on), as
    SQLite keeps it: ``verify`` compares the file's schema with it."""
    db = sqlite3.connect(":memory:")
    try:
        for statement in _statements(_SCHEMAS[min(max(version, 3), SCHEMA_VERSION)]):
            db.execute(statement)
        return frozenset(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    finally:
        db.close()


@functools.cache
def _as_stored(create: str) -> str:
    """``create`` as SQLite keeps it in ``sqlite_master.sql`` (without ``IF NOT EXISTS``)."""
    db = sqlite3.connect(":memory:")
    try:
        db.execute(_statements(_SCHEMA_V1)[1])  # records
        db.execute(create)
        return str(db.execute("SELECT sql FROM sqlite_master WHERE type = 'index'").fetchone()[0])
    finally:
        db.close()


def _statements(script: str) -> list[str]:
    """The SQL statements of ``script`` (a trigger's body holds semicolons of its own)."""
    out, buf = [], ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    return out


class Sync(Enum):
    """How a commit reaches the disk (SQLite's ``PRAGMA synchronous``), given to
    :class:`SqliteJournal` by its constructor: the journal's durability port."""

    FULL = "FULL"
    """Synced before the commit returns (``fsync`` of the WAL): a record is on disk when its
    append returns, and survives a power cut. Every table's journal."""
    OFF = "OFF"
    """Handed to the operating system, never synced: a commit survives the process (a crash), not
    the machine losing power. Only for a disk that is simulated (``tablectl simulate``: the
    machine does not lose power under a simulation, and the file's bytes are the same)."""


class JournalFull(JournalError):
    """The journal cannot be written because its filesystem is full (SQLite's ``SQLITE_FULL``, or
    ``ENOSPC``): ``reason`` says so in words, ``disk full: N bytes free on FILESYSTEM``."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.reason = reason


def mount_point(path: Path) -> Path:
    """The mount point of the filesystem that holds ``path`` (its nearest existing folder)."""
    here = path.resolve()
    while not here.exists():
        here = here.parent
    device = here.stat().st_dev
    while here.parent != here and here.parent.stat().st_dev == device:
        here = here.parent
    return here


def disk_full_reason(path: Path) -> str:
    """``disk full: N bytes free on FILESYSTEM`` for the filesystem holding ``path``."""
    try:
        folder = path.parent
        stats = os.statvfs(folder)
        return f"disk full: {stats.f_bavail * stats.f_frsize} bytes free on {mount_point(folder)}"
    except OSError:
        return f"disk full on the filesystem of {path.parent}"


def _is_full(exc: BaseException) -> bool:
    """Whether ``exc`` says the journal's filesystem (or its size limit) is full."""
    if isinstance(exc, sqlite3.Error) and getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
        return True
    return isinstance(exc, OSError) and exc.errno == errno.ENOSPC


class JournalDamaged(JournalError):
    """The file is a tablectl journal but SQLite cannot read it whole: damaged or changed."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The table's state at a round's start, after record ``seq``."""

    seq: int
    round_no: int
    state: dict[str, Any]


def _text(raw: bytes) -> str:
    """Text columns as stored: bytes that are not UTF-8 are kept (as surrogates) for verify to name,
    instead of failing the whole query."""
    return raw.decode("utf-8", "surrogateescape")


MeterDelta = Mapping[tuple[str, str], int]

_RecordRow = RecordRow
"""A ``records`` row: seq, at, kind, event, data (canonical text), prev, hash."""

_INSERT_RECORD = "INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)"

_ADD_METER = (
    "INSERT INTO meters VALUES (?, ?, ?) ON CONFLICT (scope, name) DO UPDATE SET value = value + excluded.value"
)
"""Add a round's amount to one running total (a new total starts at it)."""


@dataclass(frozen=True, slots=True)
class NewRecord:
    """One record for :meth:`SqliteJournal.append_batch`: as :meth:`SqliteJournal.append` takes
    it, or, with ``round_no`` (kind ``RoundSettled``), as :meth:`SqliteJournal.append_round` does."""

    kind: str
    data: Mapping[str, Any]
    event: bool = False
    round_no: int | None = None
    meters: MeterDelta | None = None


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _locked(method: Callable[Concatenate[SqliteJournal, _P], _R]) -> Callable[Concatenate[SqliteJournal, _P], _R]:
    """One thread at a time on the connection (the controller writes while others read)."""

    @functools.wraps(method)
    def wrapper(journal: SqliteJournal, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with journal.lock:
            return method(journal, *args, **kwargs)

    return wrapper


def _private_file(path: Path) -> None:
    """Create ``path`` 0600 if missing; make an existing journal file 0600 (and its WAL files)."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE)
        os.close(fd)
    except FileExistsError:
        pass
    for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if p.exists() and p.stat().st_mode & 0o777 != FILE_MODE:
            os.chmod(p, FILE_MODE)


def _check_header(path: Path) -> None:
    """Refuse a folder, a missing file or an empty one, by ``stat`` alone. The header itself is
    SQLite's to read (:func:`_not_a_database`): opening and closing the journal file outside
    SQLite would drop every POSIX lock this process's SQLite connections hold on it (see
    https://www.sqlite.org/howtocorrupt.html, 2.2), and another process could then checkpoint
    and delete the WAL the table is still writing to (records acknowledged, then gone)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise JournalError(f"{path}: no journal there") from None
    except OSError as exc:
        raise JournalError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if stat.S_ISDIR(st.st_mode):
        raise JournalError(f"{path}: a folder, not a tablectl journal")
    if not st.st_size:
        raise JournalError(f"{path}: an empty file, not a tablectl journal")


def _not_a_database(path: Path, exc: BaseException) -> JournalError | None:
    """The error for a file SQLite found is not a database (its first read), else None."""
    if isinstance(exc, sqlite3.DatabaseError) and getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_NOTADB:
        return JournalError(f"{path}: not a SQLite database, so not a tablectl journal")
    return None


class SqliteJournal:
    """The journal of one table in the SQLite file at ``path`` (created when missing), opened for
    writing; :meth:`open_readonly` opens one for reading only."""

    readonly: bool = False
    writer_lock: WriterLock | None = None
    """The writer lock this journal was opened under (:mod:`controller.journal.writer_lock`),
    let go by :meth:`close`."""

    def __init__(
        self,
        path: Path | str,
        hmac_key: bytes | None = None,
        clock: Callable[[], float] = time.time,
        create: bool = True,
        sync: Sync = Sync.FULL,
    ) -> None:
        if not isinstance(sync, Sync):
            raise TypeError(f"sync: a Sync (FULL or OFF), not {sync!r}")
        self.path = Path(path)
        self.key = hmac_key
        self.clock = clock
        self.sync = sync
        """How each commit reaches the disk: :attr:`Sync.FULL` but under a simulated disk."""
        self.lock = threading.RLock()
        if not create and not self.path.is_file():
            raise JournalError(f"{self.path}: no journal there")
        try:
            if self.path.exists() and self.path.stat().st_size:
                _check_header(self.path)  # a folder: refused before SQLite sees it
            private_folder(self.path.parent)
            if not self.path.exists():
                _private_file(self.path)
            self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self.db.text_factory = _text
            tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if tables and not {"meta", "records"} <= tables:  # checked before anything is written
                raise JournalError(f"{self.path}: a SQLite database, but not a tablectl journal (no meta and records)")
            if tables:
                self._refuse_newer()  # no downgrade: a newer tablectl's journal is left as it is
            _private_file(self.path)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute(f"PRAGMA synchronous={sync.value}")  # before the schema: its commits too
            self._open_schema()
            _private_file(self.path)  # the WAL files SQLite just made
            row = last_record(self.db)
        except (sqlite3.Error, OSError, JournalError, UnicodeError) as exc:
            # UnicodeError: SQLite's message about a damaged schema can hold bytes that are not UTF-8.
            if hasattr(self, "db"):
                self.db.close()
            if isinstance(exc, JournalError):
                raise
            if (refused := _not_a_database(self.path, exc)) is not None:  # nothing was written into it
                raise refused from None
            raise JournalError(f"{self.path}: cannot open the journal: {exc}") from exc
        anchor = self.meta("anchor_hash") or GENESIS
        self.last_seq: int = int(row[0]) if row else int(self.meta("anchor_seq") or 0)
        self.last_hash: str = str(row[1]) if row else anchor
        self.written = WrittenRows()
        """The rows this writer committed, as it wrote them (the fold hashes none of them again)."""
        self._txn_rows: list[_RecordRow] = []

    @classmethod
    def open_readonly(cls, path: Path | str, hmac_key: bytes | None = None) -> SqliteJournal:
        """Open the journal at ``path`` for reading only (SQLite URI ``mode=ro``; with no WAL file
        beside it, also ``immutable=1``, so that not even the WAL index is created). Raises
        :class:`JournalError` for a file that is not a tablectl journal, :class:`JournalDamaged`
        for one SQLite cannot read."""
        self = cls.__new__(cls)
        self.path = Path(path)
        self.key = hmac_key
        self.clock = time.time
        self.lock = threading.RLock()
        self.readonly = True
        _check_header(self.path)
        wal = self.path.with_name(self.path.name + "-wal")
        uri = "file:" + urllib.parse.quote(str(self.path.resolve())) + "?mode=ro"
        if not wal.exists():
            uri += "&immutable=1"
        try:
            self.db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot open the journal: {exc}") from exc
        self.db.text_factory = _text
        try:
            self.db.execute("PRAGMA query_only=ON")
            tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not {"meta", "records"} <= tables:
                raise JournalError(f"{self.path}: a SQLite database, but not a tablectl journal (no meta and records)")
            raw = self.meta("schema_version")
            if raw is None or not raw.isdigit():
                raise JournalDamaged(f"{self.path}: meta schema_version {raw!r}: damaged, or not a tablectl journal")
            version = int(raw)
            if version > SCHEMA_VERSION:
                raise JournalError(
                    f"{self.path}: journal schema version {version} is newer than this tablectl reads "
                    f"({SCHEMA_VERSION}); use the tablectl that wrote it, or a newer one"
                )
            if version < 2 or not {"rounds", "meters", "snapshots"} <= tables:
                raise JournalError(
                    f"{self.path}: journal schema version {version}: open it once with `tablectl run` or "
                    "`tablectl bench` (which migrate it) before reading it"
                )
            self.schema_version = version
            row = last_record(self.db)
        except JournalError:
            self.db.close()
            raise
        except (sqlite3.DatabaseError, UnicodeError) as exc:
            # UnicodeError: SQLite's message about a damaged schema can hold bytes that are not UTF-8.
            self.db.close()
            if (refused := _not_a_database(self.path, exc)) is not None:
                raise refused from None
            raise JournalDamaged(f"{self.path}: cannot read the journal: {exc}: the file is damaged") from exc
        self.last_seq = row[0] if row and isinstance(row[0], int) else 0
        self.last_hash = row[1] if row and isinstance(row[1], str) else GENESIS
        return self

    @_locked
    def read_as_of_now(self) -> None:
        """Read the journal as it is now until :meth:`close` (a read-only journal): one read
        transaction, so that a reader checking the head, the chain and the meters of a journal a
        table is writing sees one state of it, not records appended between two of its queries.
        For a one-shot reader (a command): a reader that stays open would never see new records."""
        if not self.readonly:
            raise ValueError("read_as_of_now: only a journal opened read-only")
        try:
            self.db.execute("BEGIN")
            self.db.execute("SELECT count(*) FROM meta").fetchone()
        except sqlite3.DatabaseError as exc:
            raise JournalDamaged(f"{self.path}: cannot read the journal: {exc}: the file is damaged") from exc

    # --- schema ---------------------------------------------------------------------------------

    def _open_schema(self) -> None:
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables and not {"meta", "records"} <= tables:
            raise JournalError(f"{self.path}: a SQLite database, but not a tablectl journal (no meta and records)")
        if not tables:
            with self._txn():
                for statement in _statements(_SCHEMA):
                    self.db.execute(statement)
                self.db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
                self.db.execute("INSERT INTO meta VALUES ('created', ?)", (repr(self.clock()),))
                self.db.execute(LINKS_INDEX)
                self._sign_meta()
            self.schema_version = SCHEMA_VERSION
            return
        version = self._refuse_newer()
        while version < SCHEMA_VERSION:
            with self._txn():  # a step and its version in one transaction: a step is kept whole or not at all
                MIGRATIONS[version](self)
                version += 1
                self.db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
                if version >= 3:
                    self._sign_meta()
        self.schema_version = version
        self._index_links()

    def _refuse_newer(self) -> int:
        """The journal's schema version; raises :class:`JournalError` for one newer than this
        tablectl's (written by a newer tablectl: no downgrade), :class:`JournalDamaged` for none."""
        raw = self.meta("schema_version") or "0"
        if not raw.isdigit() or int(raw) < 1:
            raise JournalDamaged(f"{self.path}: meta schema_version {raw!r}: damaged, or not a tablectl journal")
        version = int(raw)
        if version > SCHEMA_VERSION:
            raise JournalError(
                f"{self.path}: journal schema version {version} is newer than this tablectl reads ({SCHEMA_VERSION}); "
                "use the tablectl that wrote it, or a newer one"
            )
        return version

    def _index_links(self) -> None:
        """Make the link records' index, or replace one of :data:`OLD_LINKS_INDEX` (in one
        transaction: the same records, indexed again)."""
        row = self.db.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'records_links'"
        ).fetchone()
        if row is not None and row[0] == _as_stored(LINKS_INDEX):
            return
        with self._txn():
            if row is not None:
                self.db.execute("DROP INDEX records_links")
            self.db.execute(LINKS_INDEX)

    @_locked
    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    @_locked
    def meta_rows(self) -> dict[str, str]:
        """Every ``meta`` value by key."""
        return {str(k): str(v) for k, v in self.db.execute("SELECT key, value FROM meta")}

    def _sign_meta(self) -> None:
        """Write ``meta_hash`` over the signed values (inside the caller's transaction)."""
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('meta_hash', ?)", (meta_hash(self.meta_rows(), self.key),))

    def _txn(self) -> _Transaction:
        return _Transaction(self.db)

    # --- writing --------------------------------------------------------------------------------

    def _insert(self, kind: str, data: Mapping[str, object], event: bool) -> int:
        row = self._row(kind, data, event)
        self.db.execute(_INSERT_RECORD, row)
        return row[0]

    def _row(self, kind: str, data: Mapping[str, object], event: bool) -> _RecordRow:
        """The ``records`` row of the next record, chained to the last one (not written yet; kept
        in :attr:`written` once its transaction commits)."""
        seq, at, text = self.last_seq + 1, self.clock(), canonical(data)
        digest = record_hash(self.last_hash, seq, at, kind, event, text, self.key)
        self._pending = (seq, digest)
        self._pending_at = at
        row = (seq, at, kind, int(event), text, self.last_hash, digest)
        self._txn_rows.append(row)
        return row

    @_locked
    def _commit(self, write: Callable[[], int], follow_first: bool = False) -> int:
        """Run ``write`` in one transaction, chained after the file's last record; its rows are
        kept in :attr:`written` once it commits.

        Another process may have appended since this writer's last record (``journal prune
        --force-unacknowledged`` journals its reason while the table runs). Looking for that before
        every write cost two queries a record; instead the record is inserted under the next number
        this writer knows, and when that number is taken (the primary key refuses it: the other
        process's record) the writer follows the file's head and writes again, in one transaction.
        ``follow_first``: follow the head before ``write`` (a ``write`` that cannot be run twice,
        :meth:`append_batch`). :meth:`append` writes its one statement without this (and comes
        here when that statement is refused)."""
        start = (self.last_seq, self.last_hash)
        self._txn_rows = []
        try:
            with self._txn():
                if follow_first:
                    self._follow_head()
                    seq = write()
                else:
                    try:
                        seq = write()
                    except sqlite3.IntegrityError as exc:
                        seq = self._write_after_head(write, exc)
        except (sqlite3.Error, OSError) as exc:
            self.last_seq, self.last_hash = start
            raise self._write_error(exc) from exc
        except BaseException:
            self.last_seq, self.last_hash = start
            raise
        self.last_seq, self.last_hash = self._pending
        self.written.add(self._txn_rows)
        return seq

    def _write_after_head(self, write: Callable[[], int], refused: sqlite3.IntegrityError) -> int:
        """``write`` again after the file's last record (inside the caller's transaction), its first
        record's number having been ``refused``: another process's record holds it. When the file's
        head is not past this writer's, the refusal was not that, and is raised."""
        if not self._follow_head():
            raise refused
        self._txn_rows = []
        return write()

    def _follow_head(self) -> bool:
        """Chain to the file's last record (inside the write transaction) when it is past this
        writer's last one (another process appended): a writer that chained to its own last record
        would then fail on every write until restarted. True when it moved."""
        row = last_record(self.db, blocks=self.schema_version >= 4)  # the writer's schema is this version's
        if row is not None and row[0] > self.last_seq:
            self.last_seq, self.last_hash = int(row[0]), str(row[1])
            return True
        return False

    def _write_error(self, exc: sqlite3.Error | OSError) -> JournalError:
        """The error to raise for a failed write: :class:`JournalFull` in words for a full disk."""
        if _is_full(exc):
            return JournalFull(self.path, disk_full_reason(self.path))
        return JournalError(f"{self.path}: cannot write the journal: {exc}")

    @_locked
    def append(self, kind: str, data: dict[str, Any], event: bool = False) -> int:
        """Record ``data`` of ``kind`` (``event``: taken from the queue, replayed on recovery);
        returns its sequence number once it is on disk.

        The record's ``INSERT`` alone, run as a transaction of its own (SQLite's autocommit:
        committed, and synced, when the statement returns, as a ``BEGIN`` ... ``COMMIT`` around it
        would be, two statements fewer a record), written here rather than through
        :meth:`_commit` (a tenth of a simulated record's CPU was the calls around the statement).
        When its number is refused (another process appended) it is written again by
        :meth:`_commit`, after the file's head; inside a transaction someone opened on this
        connection it is :meth:`_commit`'s too."""
        if self.db.in_transaction:
            return self._commit(lambda: self._insert(kind, data, event))
        self._txn_rows = []
        row = self._row(kind, data, event)
        try:
            self.db.execute(_INSERT_RECORD, row)
        except sqlite3.IntegrityError as exc:
            refused = exc
            return self._commit(lambda: self._write_after_head(lambda: self._insert(kind, data, event), refused))
        except (sqlite3.Error, OSError) as exc:
            raise self._write_error(exc) from exc
        self.last_seq, self.last_hash = self._pending
        self.written.add(self._txn_rows)
        return row[0]

    def append_round(self, round_no: int, data: dict[str, Any], meters: MeterDelta) -> int:
        """Record a finished round (``RoundSettled``), index it and add ``meters`` to the running
        totals, in one transaction."""

        def write() -> int:
            seq = self._insert("RoundSettled", data, False)
            self._index_round(round_no, seq, meters)
            return seq

        return self._commit(write)

    def _index_round(self, round_no: int, seq: int, meters: MeterDelta) -> None:
        self.db.execute("INSERT OR REPLACE INTO rounds VALUES (?, ?, ?)", (round_no, seq, self._pending_at))
        # one statement for a round's 28-40 meters, not one each (a fifth of their cost)
        self.db.executemany(_ADD_METER, [(scope, name, value) for (scope, name), value in meters.items()])
        if round_no > 0 and round_no % checkpoint.EVERY == 0:  # the meters checkpoint, right after the round
            self.last_seq, self.last_hash = self._pending
            self._insert(checkpoint.KIND, checkpoint.checkpoint_data(self.db, round_no, seq), False)

    @_locked
    def append_batch(self, records: Sequence[NewRecord]) -> list[int]:
        """Record ``records`` in one transaction (one commit, one sync), each chained to the one
        before exactly as :meth:`append` and :meth:`append_round` would have; returns their
        sequence numbers once all are on disk. When the transaction fails none of them is kept."""
        if not records:
            return []
        for i, r in enumerate(records):
            if r.round_no is not None and r.kind != "RoundSettled":
                raise ValueError(f"batch record {i}: kind {r.kind!r} names round {r.round_no}; only RoundSettled may")
        start = (self.last_seq, self.last_hash)
        seqs: list[int] = []

        def write() -> int:
            rows: list[_RecordRow] = []  # inserted together (one statement), before a round's index reads them
            for r in records:
                row = self._row(r.kind, r.data, r.event)
                rows.append(row)
                if r.round_no is not None:
                    self.db.executemany(_INSERT_RECORD, rows)
                    rows.clear()
                    self._index_round(r.round_no, row[0], r.meters or {})
                self.last_seq, self.last_hash = self._pending  # the next record chains to this one
                seqs.append(row[0])
            if rows:
                self.db.executemany(_INSERT_RECORD, rows)
            return seqs[-1]

        try:
            self._commit(write, follow_first=True)
        except BaseException:
            self.last_seq, self.last_hash = start
            raise
        return seqs

    def rebind(
        self, kind: str, data: dict[str, Any], meta: Mapping[str, str], snapshot: tuple[int, dict[str, Any]]
    ) -> int:
        """Record ``data`` of ``kind``, set ``meta`` values (signed again) and keep ``snapshot``
        (round number, state) after that record, in one transaction: what a journal is bound to
        changes with the record that says so (``tablectl journal change-game``)."""

        def write() -> int:
            seq = self._insert(kind, data, False)
            for key, value in meta.items():
                if key in UNSIGNED_META:
                    raise ValueError(f"meta {key!r} is not set by hand")
                self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
            self._sign_meta()
            round_no, state = snapshot
            text = canonical(state)
            self.db.execute(
                "INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?)",
                (seq, round_no, text, snapshot_hash(self._pending[1], seq, round_no, text, self.key)),
            )
            return seq

        return self._commit(write)

    @_locked
    def set_meta(self, values: Mapping[str, str]) -> None:
        """Set signed ``meta`` values (e.g. the game the journal is bound to), signed again, in one transaction."""
        if bad := [k for k in values if k in UNSIGNED_META]:
            raise ValueError(f"meta {bad[0]!r} is not set by hand")
        try:
            with self._txn():
                for key, value in values.items():
                    self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
                self._sign_meta()
        except (sqlite3.Error, OSError) as exc:
            raise self._write_error(exc) from exc

    @_locked
    def snapshot(self, seq: int, round_no: int, state: dict[str, Any]) -> None:
        """Keep the table's state at a round's start, after record ``seq``, bound to that record's hash."""
        try:
            if seq == self.last_seq:
                after = self.last_hash
            else:
                found = hash_at(self.db, seq, self.key)
                after = found if found is not None else (self.meta("anchor_hash") or GENESIS)
            text = canonical(state)
            with self._txn():
                self.db.execute(
                    "INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?)",
                    (seq, round_no, text, snapshot_hash(after, seq, round_no, text, self.key)),
                )
        except (sqlite3.Error, OSError) as exc:
            raise self._write_error(exc) from exc

    # --- reading --------------------------------------------------------------------------------

    def records(
        self, after: int = 0, until: int | None = None, kinds: Collection[str] | None = None
    ) -> Iterator[JournalRecord]:
        """Records after sequence number ``after`` (up to ``until``; only those of ``kinds``), in order."""
        with self.lock:
            try:
                rows = list(read_records(self.db, after, until, kinds=kinds, key=self.key))
            except sqlite3.DatabaseError as exc:
                raise JournalDamaged(f"{self.path}: cannot read records after {after}: {exc}") from exc
            except JournalError as exc:  # a block that does not decode
                raise JournalDamaged(f"{self.path}: {exc}") from exc
        out = []
        for r in rows:
            try:
                out.append(JournalRecord(r.seq, r.at, r.kind, json.loads(r.data), bool(r.event)))
            except (ValueError, TypeError, RecursionError) as exc:
                raise JournalDamaged(f"{self.path}: record {r.seq}: unreadable data: {exc}") from exc
        return iter(out)

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
    def last_round(self) -> tuple[int, int] | None:
        """(round number, seq of its ``RoundSettled`` record) of the last finished round kept, or
        None: one row of the index, however long the journal."""
        row = self.db.execute("SELECT round_no, seq FROM rounds ORDER BY round_no DESC LIMIT 1").fetchone()
        return (int(row[0]), int(row[1])) if row else None

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
        """Close the file, then let the writer lock go (when one was taken)."""
        try:
            self.db.close()
        except sqlite3.Error:
            pass
        if self.writer_lock is not None:
            self.writer_lock.release()


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
                self._rollback()
                raise  # the COMMIT's error, not the ROLLBACK's
        self._rollback()

    def _rollback(self) -> None:
        """Roll back if a transaction is still open: SQLite rolls a transaction back by itself on
        some errors (``SQLITE_FULL``), and ``ROLLBACK`` would then fail with text of its own
        ("cannot rollback - no transaction is active") that hides the real reason."""
        if self.db.in_transaction:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error:
                pass


def _migrate_1_to_2(journal: SqliteJournal) -> None:
    """Add the derived tables and fill them from the chained records (rounds and meters from the
    ``RoundSettled`` records; no snapshot: the first start replays from the beginning). Run in the
    transaction that moves the version."""
    from controller.journal.meters import meters_for_round

    for statement in _statements(_SCHEMA_V2):
        journal.db.execute(statement)
    for record in list(read_records(journal.db, kinds=("RoundSettled",), key=journal.key)):
        seq, at, round_data = record.seq, record.at, json.loads(record.data)
        journal.db.execute("INSERT OR REPLACE INTO rounds VALUES (?, ?, ?)", (round_data["round"], seq, at))
        for (scope, name), value in meters_for_round(round_data).items():
            journal.db.execute(
                "INSERT INTO meters VALUES (?, ?, ?) ON CONFLICT (scope, name) DO UPDATE SET value = value + excluded.value",
                (scope, name, value),
            )


def _migrate_2_to_3(journal: SqliteJournal) -> None:
    """Bind the snapshots to the chain, set each round's index time to its record's (the meta
    signature is written with the new version). A version-2 journal written before the ``head``
    trigger was part of version 2 gets it, and the head it keeps. Run in the transaction that moves
    the version."""
    if not journal.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = 'head'").fetchone():
        journal.db.execute(next(s for s in _statements(_SCHEMA_V2) if s.startswith("CREATE TRIGGER head")))
        last = last_record(journal.db)
        if last is not None:
            journal.db.execute("INSERT OR REPLACE INTO meta VALUES ('head_seq', ?), ('head_hash', ?)", last)
    for statement in _statements(_SCHEMA_V3):
        journal.db.execute(statement)
    for round_no, seq in journal.db.execute("SELECT round_no, seq FROM rounds").fetchall():
        record = record_at(journal.db, seq, journal.key)
        journal.db.execute("UPDATE rounds SET at = ? WHERE round_no = ?", (record.at if record else None, round_no))
    anchor = journal.meta("anchor_hash") or GENESIS
    for seq, round_no, state in journal.db.execute("SELECT seq, round_no, state FROM snapshots").fetchall():
        found = hash_at(journal.db, seq, journal.key)
        digest = snapshot_hash(found if found is not None else anchor, seq, round_no, state, journal.key)
        journal.db.execute("UPDATE snapshots SET hash = ? WHERE seq = ?", (digest, seq))


def _migrate_3_to_4(journal: SqliteJournal) -> None:
    """Add the tables of compact blocks, empty: the records written so far stay rows, read as
    they were. Run in the transaction that moves the version."""
    for statement in _statements(_SCHEMA_V4):
        journal.db.execute(statement)


def _migrate_4_to_5(journal: SqliteJournal) -> None:
    """Keep the head in place: the ``head`` trigger made again to upsert its rows (the head it
    kept stays as it is). Run in the transaction that moves the version."""
    for statement in _statements(_SCHEMA_V5):
        journal.db.execute(statement)


MIGRATIONS: dict[int, Callable[[SqliteJournal], None]] = {
    1: _migrate_1_to_2,
    2: _migrate_2_to_3,
    3: _migrate_3_to_4,
    4: _migrate_4_to_5,
}
"""Schema migrations: version -> the step to the next version, run inside the transaction that
writes the new version (a step never commits on its own)."""
