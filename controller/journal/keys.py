"""The journal's HMAC key: read from a file that only its owner may read.

A key that others can read signs nothing: anyone who can read it can rewrite the journal and
sign it again. So a key file readable by its group or by others is refused, as are an empty
file and one too long to be a key.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from controller.journal.store import JournalError

__all__ = ["read_hmac_key"]

MAX_KEY_BYTES = 4096
"""The longest key file read (a key is 32 to 64 random bytes, often written in hex)."""


def read_hmac_key(path: Path | str) -> bytes:
    """The key in ``path`` (surrounding whitespace removed); raises :class:`JournalError` saying
    what is wrong: missing, unreadable, readable by others, empty or too long."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise JournalError(f"{path}: the HMAC key file is not a regular file")
            if info.st_mode & 0o044:
                raise JournalError(
                    f"{path}: the HMAC key file is readable by others (mode {stat.S_IMODE(info.st_mode):04o}); "
                    f"`chmod 600 {path}` and keep it to the table's own user"
                )
            raw = f.read(MAX_KEY_BYTES + 1)
    except OSError as exc:
        raise JournalError(f"{path}: cannot read the HMAC key file: {exc.strerror or exc}") from exc
    if len(raw) > MAX_KEY_BYTES:
        raise JournalError(f"{path}: the HMAC key file is over {MAX_KEY_BYTES} bytes: not a key")
    key = raw.strip()
    if not key:
        raise JournalError(f"{path}: the HMAC key file is empty")
    return key
