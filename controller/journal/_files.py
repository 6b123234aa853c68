"""The journal's files at the bottom of the package: their modes, the private folder they live
in, and the error every journal failure is (controller.journal.store names them to others; the
writer's lock, controller.journal.writer_lock, uses them too)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["FILE_MODE", "DIR_MODE", "JournalError", "private_folder"]

FILE_MODE = 0o600
"""Journal files: read and written by their owner only (they hold every wager and card)."""
DIR_MODE = 0o700
"""A folder the journal creates for itself."""


class JournalError(Exception):
    """The journal cannot be opened, read or written (the message names the file and why)."""


def private_folder(folder: Path) -> None:
    """Create ``folder`` (and missing parents) 0700 whatever the umask; an existing one is left."""
    missing = []
    for parent in (folder, *folder.parents):
        if parent.exists():
            break
        missing.append(parent)
    folder.mkdir(parents=True, exist_ok=True)
    for created in missing:
        os.chmod(created, DIR_MODE)
