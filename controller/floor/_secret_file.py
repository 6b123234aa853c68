"""A secret written to a file only its owner may read: a private key, a seed, a password file."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["write_secret"]


def write_secret(path: Path, data: bytes, *, replace: bool = True) -> None:
    """Write ``data`` to ``path`` readable by its owner only (0600, made so before any byte is
    written), synced to disk. ``replace``: written beside it and put in place whole (a file there is
    replaced); otherwise written in place and a file already there refused (``FileExistsError``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    target = path.with_name(path.name + ".tmp") if replace else path
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if replace else os.O_EXCL), 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    if replace:
        os.replace(target, path)
