"""A copy of a live journal, safe while the table writes it (``tablectl journal backup``).

SQLite's online backup API copies every page from one read transaction of the journal (in WAL
mode a reader neither blocks the table's commits nor sees half of one), so the copy is the
journal as it was at one commit. The copy is written beside its final name (``.partial``, mode
0600), turned into a single file (rollback journal mode: no ``-wal`` to carry along), synced,
and moved into place; it is then opened read-only and verified as ``tablectl journal verify``
does (chain, round index, meters), and its last record is checked against the same record of the
journal it came from.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from controller.journal.store import FILE_MODE, JournalError, SqliteJournal
from controller.journal.verify import VerifyReport, verify_journal

__all__ = ["backup_journal"]


@dataclass(frozen=True, slots=True)
class BackupResult:
    """What was copied: the copy's path, its last record, and the verification of the copy."""

    path: Path
    last_seq: int
    report: VerifyReport


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def backup_journal(source: SqliteJournal, target: Path, hmac_key: bytes | None = None) -> BackupResult:
    """Copy ``source`` (open, read-only or not) to ``target`` (which must not exist), then verify
    the copy; raises :class:`JournalError` when it cannot be written."""
    target = Path(target)
    if target.exists() or target.is_symlink():
        raise JournalError(f"{target}: already exists: a backup never replaces a file (name a new one)")
    if not target.parent.is_dir():
        raise JournalError(f"{target.parent}: no such folder")
    if target.resolve() == source.path.resolve():
        raise JournalError(f"{target}: the journal itself: name another file")
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    os.close(fd)
    try:
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
        os.replace(partial, target)
        _sync_folder(target.parent)
    except (sqlite3.Error, OSError) as exc:
        partial.unlink(missing_ok=True)
        raise JournalError(f"{target}: cannot write the backup: {exc}") from exc
    copied = SqliteJournal.open_readonly(target, hmac_key)
    try:
        report = verify_journal(copied)
        last = copied.last_seq
        mine = copied.db.execute("SELECT hash FROM records WHERE seq = ?", (last,)).fetchone()
    finally:
        copied.close()
    with source.lock:
        theirs = source.db.execute("SELECT hash FROM records WHERE seq = ?", (last,)).fetchone()
    if last and theirs is not None and mine != theirs:
        report.bad(last, f"record {last}: not the same as record {last} of {source.path}: not a copy of it")
    return BackupResult(target, last, report)
