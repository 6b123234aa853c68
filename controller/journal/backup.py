"""A copy of a live journal, safe while the table writes it (``tablectl journal backup``).

SQLite's online backup API copies every page from one read transaction of the journal (in WAL
mode a reader neither blocks the table's commits nor sees half of one), so the copy is the
journal as it was at one commit. The copy is written beside its final name (``.NAME.*.partial``,
mode 0600), turned into a single file (rollback journal mode: no ``-wal`` to carry along), synced,
and linked into place (never over a file, not even one made meanwhile); it is then opened read-only and verified as ``tablectl journal verify``
does (chain, round index, meters), and its last record is checked against the same record of the
journal it came from. A journal signed with a key the backup was not given is checked as far as
a reader without the key can (the chain's links and the head), and the result says so.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from controller.journal._files import FILE_MODE
from controller.journal.store import JournalError, SqliteJournal
from controller.journal.stored import hash_at
from controller.journal.verify import VerifyReport, verify_journal, verify_reader

__all__ = ["backup_journal"]


@dataclass(frozen=True, slots=True)
class BackupResult:
    """What was copied: the copy's path, its last record, and the verification of the copy."""

    path: Path
    last_seq: int
    report: VerifyReport
    whole: bool = True
    """Verified whole; False: the journal is signed with a key the backup was not given, and only
    what a reader without it checks was checked (``report.notes`` says so)."""


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _check_target(source: SqliteJournal, target: Path) -> None:
    """Refuse a copy's name that is not a new file in an existing folder (the message names it)."""
    try:
        if target.is_dir():
            raise JournalError(f"{target}: a folder: name a new file in it for the copy")
        if target.exists() or target.is_symlink():
            raise JournalError(f"{target}: already exists: a backup never replaces a file (name a new one)")
        if not target.parent.is_dir():
            raise JournalError(f"{target.parent}: no such folder")
        mine = source.path.resolve()
        beside = {mine, *(mine.with_name(mine.name + end) for end in ("-wal", "-shm", "-journal", ".lock"))}
        if target.resolve() in beside:
            raise JournalError(f"{target}: the journal's own file: name another file")
    except OSError as exc:
        raise JournalError(f"{str(target)[:120]}: {exc.strerror or exc}") from None


def _publish(partial: Path, target: Path) -> None:
    """Give the finished copy its name, never over a file made there meanwhile (a hard link fails
    on an existing name; where the file system has none, a rename after one more look)."""
    try:
        os.link(partial, target)
    except FileExistsError:
        raise JournalError(
            f"{target}: already exists (made while the copy was written): a backup never replaces a file"
        ) from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK):
            raise
        if target.exists() or target.is_symlink():
            raise JournalError(
                f"{target}: already exists (made while the copy was written): a backup never replaces a file"
            ) from None
        os.rename(partial, target)
        return
    partial.unlink()


def _copy(source: SqliteJournal, target: Path) -> None:
    """The online backup of ``source`` written beside ``target`` and published under its name."""
    fd, name = tempfile.mkstemp(prefix=f".{target.name[:64]}.", suffix=".partial", dir=target.parent)
    partial = Path(name)
    try:
        os.fchmod(fd, FILE_MODE)
        os.close(fd)
        copy = sqlite3.connect(str(partial), isolation_level=None)
        try:
            with source.lock:
                source.db.backup(copy)  # every page in one step: one read transaction of the source
            copy.execute("PRAGMA journal_mode=DELETE")
            copy.execute("PRAGMA synchronous=FULL")
        finally:
            copy.close()
        with open(partial, "rb") as f:
            os.fsync(f.fileno())
        _publish(partial, target)
        _sync_folder(target.parent)
    except (sqlite3.Error, OSError) as exc:
        raise JournalError(f"{target}: cannot write the backup: {exc}") from exc
    finally:
        partial.unlink(missing_ok=True)


def backup_journal(source: SqliteJournal, target: Path, hmac_key: bytes | None = None) -> BackupResult:
    """Copy ``source`` (open, read-only or not) to ``target`` (which must not exist), then verify
    the copy; raises :class:`JournalError` when it cannot be written."""
    target = Path(target)
    _check_target(source, target)
    try:
        _copy(source, target)
    except OSError as exc:  # the folder refuses even the partial copy
        raise JournalError(f"{target}: cannot write the backup: {exc.strerror or exc}") from exc
    copied = SqliteJournal.open_readonly(target, hmac_key)
    whole = True
    try:
        report = verify_reader(copied) if hmac_key is None else VerifyReport()
        if report.notes:  # signed with a key not given: checked as a reader without it checks
            whole = False
        else:
            report = verify_journal(copied)
        last = copied.last_seq
        mine = hash_at(copied.db, last, checked=False)
    finally:
        copied.close()
    with source.lock:
        theirs = hash_at(source.db, last, checked=False)
    if last and theirs is not None and mine != theirs:
        report.bad(last, f"record {last}: not the same as record {last} of {source.path}: not a copy of it")
    return BackupResult(target, last, report, whole)
