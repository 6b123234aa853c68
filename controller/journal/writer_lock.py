"""One writer per journal: an OS lock (``flock``) on ``FILE.lock`` beside the journal, held by the
process that writes it (``tablectl run``, ``tablectl bench``, ``tablectl journal change-game``) for
as long as it has the journal open for writing.

The lock file holds who took it (process id, command, since when) so that a second writer is
refused with a message naming the holder. The lock itself is the kernel's: it ends with the
holding process, however that ends (a SIGKILL too), so a lock file left behind never blocks
anyone. It is a separate file because SQLite keeps POSIX locks of its own on the journal file,
and a process that opened and closed that file itself would drop them. Readers (``recall``,
``verify``, ``status``, ``meters``) open the journal read-only and take no lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from controller.journal._files import FILE_MODE, JournalError, private_folder

__all__ = ["WriterLock"]


def lock_path(journal: Path | str) -> Path:
    """The lock file of the journal at ``journal``: ``FILE.lock`` beside it."""
    path = Path(journal)
    return path.with_name(path.name + ".lock")


@dataclass(frozen=True, slots=True)
class Holder:
    """Who holds (or last held) a journal's writer lock, as its lock file says."""

    pid: int
    command: str
    since: float

    def describe(self) -> str:
        """``process 1234 (tablectl bench) since 2026-12-06 01:30:00 UTC``."""
        when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self.since))
        return f"process {self.pid} ({self.command}) since {when}"


def _read_holder(text: str) -> Holder | None:
    try:
        data: object = json.loads(text)
        if not isinstance(data, dict):
            return None
        return Holder(int(data["pid"]), str(data["command"])[:200], float(data["since"]))
    except (ValueError, TypeError, KeyError):
        return None


def holder(journal: Path | str) -> Holder | None:
    """The process holding the writer lock of ``journal`` now, or None when no process holds it
    (the lock file is only read: never created, never locked)."""
    path = lock_path(journal)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_holder(os.read(fd, 4096).decode("utf-8", "replace"))
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


class JournalLocked(JournalError):
    """Another process writes the journal: ``holder`` names it (None when it has not said yet)."""

    def __init__(self, journal: Path, who: Holder | None) -> None:
        named = who.describe() if who is not None else "another process (it has not written its name yet)"
        super().__init__(
            f"{journal}: in use by {named}: one writer per journal; stop it first "
            "(tablectl recall, journal verify, status and meters read it meanwhile)"
        )
        self.holder = who


class WriterLock:
    """The writer lock of one journal, held from :meth:`acquire` to :meth:`release` (or the end of
    the process). A context manager too."""

    def __init__(self, journal: Path, fd: int, created: bool = False) -> None:
        self.journal = journal
        self._fd: int | None = fd
        self.created = created
        """This process made the lock file (there was none)."""

    @classmethod
    def acquire(cls, journal: Path | str, command: str, clock: Callable[[], float] = time.time) -> WriterLock:
        """Take the writer lock of ``journal`` for ``command`` (what the holder is named as), before
        anything of the journal is created or written; raises :class:`JournalLocked` naming the
        holder when another process has it, :class:`JournalError` when the lock file cannot be made."""
        path = Path(journal)
        lock = lock_path(path)
        try:
            private_folder(path.parent)
            try:
                fd, created = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_EXCL, FILE_MODE), True
            except FileExistsError:
                fd, created = os.open(lock, os.O_RDWR), False
        except OSError as exc:
            raise JournalError(f"{lock}: cannot make the journal's writer lock: {exc.strerror or exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                who = _read_holder(os.read(fd, 4096).decode("utf-8", "replace"))
            finally:
                os.close(fd)
            raise JournalLocked(path, who) from None
        except OSError as exc:
            os.close(fd)
            raise JournalError(f"{lock}: cannot take the journal's writer lock: {exc.strerror or exc}") from exc
        try:
            text = json.dumps({"pid": os.getpid(), "command": command, "argv": sys.argv[:20], "since": clock()})
            os.ftruncate(fd, 0)
            os.pwrite(fd, text.encode(), 0)
            os.fsync(fd)
        except OSError:
            pass  # the lock holds all the same; a second writer is refused without the name
        return cls(path, fd, created)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self, remove: bool = False) -> None:
        """Let the lock go. The lock file stays (removing it would race with the next writer), but
        with ``remove`` one this process made is removed first: a writer refused before it wrote
        anything (the file is not a journal, another game's) leaves nothing behind."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        if remove and self.created:
            try:
                lock_path(self.journal).unlink()
            except OSError:
                pass
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def __enter__(self) -> WriterLock:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.release()
