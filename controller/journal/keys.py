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

__all__ = ["read_hmac_key", "read_key_file"]

MAX_KEY_BYTES = 4096
"""The longest key file read (a key is 32 to 64 random bytes, often written in hex)."""


def read_hmac_key(path: Path | str) -> bytes:
    """The key in ``path`` (surrounding whitespace removed); raises :class:`JournalError` saying
    what is wrong: missing, unreadable, readable by others, empty or too long."""
    return read_key_file(Path(path), "HMAC key file", MAX_KEY_BYTES).strip()


def read_key_file(
    path: Path, what: str, limit: int, *, private: bool = True, error: type[Exception] = JournalError
) -> bytes:
    """The bytes of the key file ``path`` (``what`` it is, in the messages), as stored; raises
    ``error`` saying what is wrong: missing, unreadable, not a regular file, readable by its group
    or by others (when ``private``), empty, or over ``limit`` bytes. The one reader of a key file
    (the journal's HMAC key, the floor's signing keys)."""
    try:
        with path.open("rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise error(f"{path}: the {what} is not a regular file")
            if private and info.st_mode & 0o044:
                raise error(
                    f"{path}: the {what} is readable by others (mode {stat.S_IMODE(info.st_mode):04o}); "
                    f"`chmod 600 {path}` and keep it to the table's own user"
                )
            raw = f.read(limit + 1)
    except OSError as exc:
        raise error(f"{path}: cannot read the {what}: {exc.strerror or exc}") from exc
    if len(raw) > limit:
        raise error(f"{path}: the {what} is over {limit} bytes: not a key")
    if not raw.strip():
        raise error(f"{path}: the {what} is empty")
    return raw
