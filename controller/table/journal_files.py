"""A running table's durable journal on disk: opened as the table's config says, and the devices'
event windows read back from it when the controller starts again."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from controller.journal import JournalError, SqliteJournal
from controller.journal.keys import read_hmac_key
from controller.table_config import TableConfig

__all__ = ["open_journal", "journal_key", "journaled_event_windows"]


def journal_key(table: TableConfig) -> bytes | None:
    """The key in ``table``'s ``journal.hmac_key_file`` (``None`` when none is set); raises
    :class:`JournalError` naming the config and the key when it cannot be used (missing, readable
    by others, empty: :func:`controller.journal.keys.read_hmac_key`)."""
    if not table.journal.hmac_key_file:
        return None
    try:
        return read_hmac_key(table.journal.hmac_key_file)
    except JournalError as exc:
        raise JournalError(f"{table.path}: journal.hmac_key_file: {exc}") from exc


def open_journal(table: TableConfig, default_dir: Path | str, path: Path | str | None = None) -> SqliteJournal:
    """The durable journal of ``table`` (``tablectl run`` and ``bench`` both open theirs here): at
    ``path`` when given (``--journal``), else its ``journal.path``, else ``default_dir/<game>.db``;
    signed with the key in ``journal.hmac_key_file`` when one is set, whichever the file."""
    if path is None:
        path = Path(table.journal.path) if table.journal.path else Path(default_dir) / f"{table.game}.db"
    return SqliteJournal(path, journal_key(table))


def journaled_event_windows(path: Path, devices: set[str]) -> dict[str, tuple[int, int]]:
    """Each device's event window as the journal at ``path`` left it: the boot id of its last
    ``LinkUp`` and the number of the last event it sent after that (0 if none), so that a
    controller started again acknowledges what it already journaled and takes nothing twice.
    Read newest first, read-only, stopping once every device's last link-up is found."""
    windows: dict[str, tuple[int, int]] = {}
    newest: dict[str, int] = {}
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT kind, json_extract(data, '$.device'), json_extract(data, '$.event_no'), "
            "json_extract(data, '$.boot_id') FROM records WHERE event = 1 "
            "AND (kind = 'LinkUp' OR json_extract(data, '$.event_no') > 0) ORDER BY seq DESC"
        )
        for kind, device, event_no, boot_id in rows:
            if device not in devices or device in windows:
                continue
            if kind == "LinkUp":
                windows[device] = (int(boot_id), newest.get(device, 0))
                if len(windows) == len(devices):
                    break
            elif device not in newest:
                newest[device] = int(event_no)
    finally:
        db.close()
    return windows
