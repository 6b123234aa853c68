"""A running table's durable journal on disk: opened as the table's config says, and the devices'
event windows read back from it when the controller starts again."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from controller.configuration import TableConfig
from controller.journal import JournalError, SqliteJournal
from controller.journal.game import GAME_CHANGED, GAME_META, bind_game, bound_game, next_round_no, round_in_play
from controller.journal.keys import read_hmac_key
from controller.journal.store import meta_hash
from controller.journal.writer_lock import WriterLock
from controller.table._carry_over import CarryOver

__all__ = ["open_journal", "journal_key", "journaled_event_windows", "change_game"]


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


def journal_path(table: TableConfig, default_dir: Path | str, path: Path | str | None = None) -> Path:
    """Where the journal of ``table`` is: ``path`` when given (``--journal``), else its
    ``journal.path``, else ``default_dir/<game>.db``."""
    if path is not None:
        return Path(path)
    return Path(table.journal.path) if table.journal.path else Path(default_dir) / f"{table.game}.db"


def open_journal(
    table: TableConfig, default_dir: Path | str, path: Path | str | None = None, command: str = "tablectl run"
) -> SqliteJournal:
    """The durable journal of ``table``, opened for writing by ``command`` (``tablectl run`` and
    ``bench`` both open theirs here): at :func:`journal_path`; signed with the key in
    ``journal.hmac_key_file`` when one is set, whichever the file. Its writer lock is taken first
    and held until the journal is closed (another writer: :class:`~controller.journal.writer_lock.JournalLocked`,
    nothing written); a journal of another game is refused
    (:class:`~controller.journal.game.GameMismatch`), one of no game yet is bound to ``table``'s."""
    where = journal_path(table, default_dir, path)
    key = journal_key(table)  # a key it cannot use: refused before anything is made
    lock = WriterLock.acquire(where, command)
    try:
        journal = SqliteJournal(where, key)
    except BaseException:
        lock.release(remove=True)
        raise
    try:
        bind_game(journal, table.game, str(table.path))
    except BaseException:
        journal.close()
        lock.release(remove=True)
        raise
    journal.writer_lock = lock
    return journal


def change_game(
    table: TableConfig, path: Path | str, reason: str, command: str = "tablectl journal change-game"
) -> tuple[str | None, int]:
    """Bind the journal at ``path`` to ``table``'s game, for ``reason``: only between rounds, and
    with no other process writing it. Journals a ``GameChanged`` record (from, to, the config, the
    reason), sets the game in ``meta`` and keeps the new game's opening snapshot after it, in one
    transaction, so the next start opens the new game's table at the next round number (no round
    number is used twice). Returns (the game before, the number of the new game's first round).
    Raises :class:`JournalError` (nothing written) when a round is in play, the journal is
    missing or another process writes it."""
    lock = WriterLock.acquire(Path(path), command)
    try:
        journal = SqliteJournal(path, journal_key(table), create=False)
    except BaseException:
        lock.release()
        raise
    journal.writer_lock = lock
    try:
        stored = journal.meta("meta_hash")
        if stored is not None and stored != meta_hash(journal.meta_rows(), journal.key):
            raise JournalError(
                f"{journal.path}: its meta does not verify with the key of {table.path} (journal.hmac_key_file): "
                "a journal keeps the key it was written with; give a config with that key"
            )
        before = bound_game(journal)
        if before == table.game:
            raise JournalError(f"{journal.path}: already a journal of {table.game}: nothing to change")
        in_play = round_in_play(journal)
        if in_play is not None:
            raise JournalError(
                f"{journal.path}: a round is in play ({in_play}): the game changes only between rounds "
                "(finish or void the round at the table first)"
            )
        first = next_round_no(journal)
        data = {"from": before, "to": table.game, "table": str(table.path), "reason": reason, "round": first}
        journal.rebind(GAME_CHANGED, data, {GAME_META: table.game}, (first, CarryOver.opening(first)))
        return before, first
    finally:
        journal.close()


_DEVICE_EVENTS = (
    "event = 1 AND json_valid(data) AND (kind IN ('LinkUp', 'EventsOfBoot') OR (json_extract(data, '$.event_no') > 0"
    " AND NOT (kind = 'DeviceFault' AND json_extract(data, '$.kind') IN ('events_reset', 'events_gap'))))"
)
"""The records the windows are read from: a device's ``LinkUp`` or ``EventsOfBoot``, or an event
carrying an event number above 0 (as SQLite compares: any text sorts above the numbers); a record
whose data is not JSON (a damaged file's) passed over, not a failed start. A ``DeviceFault`` about
a break in the numbers (``events_reset``, ``events_gap``) names the event it came with but is
journaled before it, not in its place: the controller may have died between the two, so it is not
that event (a ``bad_event`` fault is the event, delivered in its place)."""


def _device_events(db: sqlite3.Connection) -> Iterator[tuple[Any, ...]]:
    """(seq, kind, device, event number, boot id) of each of the :data:`_DEVICE_EVENTS` records,
    newest first: filtered and taken apart by SQLite, from rows and blocks alike."""
    from controller.journal.stored import select_records

    columns = "kind, json_extract(data, '$.device'), json_extract(data, '$.event_no'), json_extract(data, '$.boot_id')"
    return select_records(db, columns, _DEVICE_EVENTS, checked=False, newest_first=True)


def journaled_event_windows(path: Path, devices: set[str]) -> dict[str, tuple[int, int]]:
    """Each device's event window as the journal at ``path`` left it: the boot id of its last
    ``LinkUp`` or ``EventsOfBoot`` (the events after it are of that boot: a device that rebooted
    sends the events it kept of its earlier boot first) and the number of the last event it sent
    after that (0 if none), so that a controller started again acknowledges what it already
    journaled and takes nothing twice. Read newest first, read-only, stopping once every device's
    last such record is found."""
    windows: dict[str, tuple[int, int]] = {}
    newest: dict[str, int] = {}
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        for _, kind, device, event_no, boot_id in _device_events(db):
            if device not in devices or device in windows:
                continue
            if kind in ("LinkUp", "EventsOfBoot"):
                windows[device] = (int(boot_id), newest.get(device, 0))
                if len(windows) == len(devices):
                    break
            elif device not in newest:
                newest[device] = int(event_no)
    finally:
        db.close()
    return windows
