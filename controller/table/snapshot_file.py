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

__all__ = ["SnapshotFile", "snapshot_path", "write_snapshot_file"]

log = logging.getLogger("tablectl.runtime")

StatusKey = tuple[int, str, HoldView | None, bool, tuple[tuple[str, str], ...], str]
"""What ``tablectl status`` shows of a snapshot: round, step, hold, key, devices not back, prompt."""


def snapshot_path(journal_path: Path | str) -> Path:
    """Where a running table keeps its latest snapshot as JSON: beside its journal
    (``boston5.db`` -> ``boston5.snapshot.json``), read by ``tablectl status``."""
    path = Path(journal_path)
    return path.with_name(f"{path.stem}.snapshot.json")


def write_snapshot_file(path: Path, snapshot: TableSnapshot) -> None:
    """Write ``snapshot`` to ``path`` atomically (a temporary file in the same folder, mode 0600,
    renamed over the old one): a reader sees the old file or the new one, never a part."""
    data = {"written_at": time.time(), "pid": os.getpid(), "snapshot": snapshot.to_json()}
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:  # mkstemp makes it 0600
            json.dump(data, f, separators=(",", ":"))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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
