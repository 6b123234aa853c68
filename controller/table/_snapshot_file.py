"""The snapshot file beside a durable journal (``GAME.snapshot.json``): what ``tablectl status``
reads of a running table, written atomically and only when what it shows changed."""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from pathlib import Path

from controller.table.snapshot import HoldView, TableSnapshot

__all__ = ["SnapshotFile", "snapshot_path"]

log = logging.getLogger("tablectl.runtime")

StatusKey = tuple[int, str, HoldView | None, bool, tuple[tuple[str, str], ...], str]
"""What ``tablectl status`` shows of a snapshot: round, step, hold, key, devices not back, prompt."""


def snapshot_path(journal_path: Path | str) -> Path:
    """Where a running table keeps its latest snapshot as JSON: beside its journal
    (``boston5.db`` -> ``boston5.snapshot.json``), read by ``tablectl status``."""
    path = Path(journal_path)
    return path.with_name(f"{path.stem}.snapshot.json")


BLOCK = 4096
"""The file is padded (with spaces, which JSON ignores) to whole blocks, with a block to spare."""


def _padded(text: str) -> bytes:
    """``text`` and a newline, padded with spaces to whole :data:`BLOCK` s with a block to spare."""
    raw = text.encode() + b"\n"
    return raw + b" " * ((len(raw) // BLOCK + 2) * BLOCK - len(raw))


def write_snapshot_file(path: Path, snapshot: TableSnapshot) -> None:
    """Write ``snapshot`` to ``path`` atomically (a temporary file in the same folder, mode 0600,
    renamed over the old one): a reader sees the old file or the new one, never a part.

    The file is padded to whole blocks with one to spare, so that when its disk is full (the
    temporary file cannot be written: the table holds for its journal then) the snapshot is
    written over the old file in place, in the blocks it already has: ``tablectl status`` shows
    the hold for the full disk, not the last snapshot from before it filled. A reader may then
    see a part written (and reads it again: :func:`controller.cli._status.table_status`)."""
    data = {"written_at": time.time(), "pid": os.getpid(), "snapshot": snapshot.to_json()}
    text = json.dumps(data, separators=(",", ":"))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        _write_in_place(path, text, exc)
        return
    try:
        with os.fdopen(fd, "wb") as f:  # mkstemp makes it 0600
            f.write(_padded(text))
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        _write_in_place(path, text, exc)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_in_place(path: Path, text: str, error: OSError) -> None:
    """The temporary file could not be written (``error``: a full disk): write ``text`` over
    the file at ``path`` in place, within its size; raises ``error`` when there is no such file
    or ``text`` does not fit in it."""
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError:
        raise error from None
    try:
        size = os.fstat(fd).st_size
        raw = text.encode() + b"\n"
        if len(raw) > size:
            raise error
        os.pwrite(fd, raw + b" " * (size - len(raw)), 0)  # the blocks it has: none to allocate
    finally:
        os.close(fd)


class SnapshotFile:
    """The snapshot file at ``path``, written again whenever the round, step, hold, key, prompt
    or a device's return changed since it was last written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._written: StatusKey | None = None

    def update(self, snapshot: TableSnapshot) -> None:
        """Write ``snapshot`` if what ``tablectl status`` shows of it changed; a file that cannot
        be written is logged (and tried again with the next snapshot), never fatal."""
        key = (
            snapshot.round_no,
            snapshot.step,
            snapshot.hold,
            snapshot.key_on,
            snapshot.links_pending,
            snapshot.asked,
        )
        if key != self._written:
            try:
                write_snapshot_file(self.path, snapshot)
                self._written = key
            except OSError as exc:
                log.warning("cannot write the table's snapshot to %s: %s", self.path, exc)
