"""The journal as an outbox: how far a consumer outside the table (the floor forwarder) has
had the journal's records acknowledged, kept in the journal file itself.

The table ``floor_outbox`` (name, acked_seq, at) sits beside the chained records and is not
part of the chain. Its row ``floor`` is how far the broker has acknowledged the records (what the
forwarder sends next), its row ``floor-stored`` how far the floor store has told the table it
holds them (``Stored`` messages, controller.floor.channel): what ``journal prune`` and
``tablectl status`` take as safe. :class:`Outbox` opens its own connections: one read-only for the records,
one that writes only ``floor_outbox`` (``synchronous=NORMAL``: an acknowledgement lost in a
power cut only means records are sent again, and the receiver drops what it already has).
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from controller.journal.store import OUTBOX_SCHEMA, JournalError
from controller.journal.stored import hash_at, read_records, seq_bounds

__all__ = ["Outbox", "RawRecord"]

_TABLE = OUTBOX_SCHEMA


@dataclass(frozen=True, slots=True)
class RawRecord:
    """One journal record as stored: its data still JSON text."""

    seq: int
    at: float
    kind: str
    data: str
    event: bool = False
    """Taken from the controller's queue (part of the record's hash)."""
    prev: str = ""
    """The previous record's hash (the journal's chain)."""
    hash: str = ""
    """This record's hash: SHA-256, or HMAC-SHA-256 with the journal's key."""


class Outbox:
    """The acknowledged position of consumer ``name`` in the journal at ``path`` (which must exist).
    With the journal's HMAC ``key``, the records of a keyed journal's folded rounds are read with
    their hashes (checked); without it only a block's last record has one (``""`` before it)."""

    def __init__(self, path: Path | str, name: str = "floor", key: bytes | None = None) -> None:
        self.path = Path(path)
        self.name = name
        self.key = key
        if not self.path.is_file():
            raise JournalError(f"{self.path}: no journal there")
        try:
            uri = self.path.resolve().as_uri()
            self.reader = sqlite3.connect(f"{uri}?mode=ro", uri=True, check_same_thread=False, timeout=30)
            self.writer = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=30)
            self.writer.execute("PRAGMA synchronous=NORMAL")
            self.writer.execute(_TABLE)
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot open the journal's outbox: {exc}") from exc

    def acked(self) -> int:
        """The last acknowledged sequence number (0: nothing yet)."""
        row = self.writer.execute("SELECT acked_seq FROM floor_outbox WHERE name = ?", (self.name,)).fetchone()
        return int(row[0]) if row else 0

    def _move(self, name: str, seq: int, update: str, what: str) -> None:
        """Row ``name`` set to ``seq`` and now, or updated by ``update`` (its ``SET ...`` clause)."""
        try:
            self.writer.execute(
                "INSERT INTO floor_outbox (name, acked_seq, at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE "
                + update,
                (name, seq, time.time()),
            )
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot record {what}: {exc}") from exc

    def ack(self, seq: int) -> None:
        """Every record up to ``seq`` is acknowledged (never moves back)."""
        self._move(
            self.name,
            seq,
            "SET acked_seq = max(acked_seq, excluded.acked_seq), at = excluded.at",
            "the floor acknowledgement",
        )

    @property
    def stored_name(self) -> str:
        """The row holding what the floor store holds (``floor-stored``)."""
        return f"{self.name}-stored"

    def stored(self) -> tuple[int, float | None]:
        """The last record the floor store says it holds and when that position last moved (0 and
        None: the floor has said nothing yet)."""
        row = self.writer.execute(
            "SELECT acked_seq, at FROM floor_outbox WHERE name = ?", (self.stored_name,)
        ).fetchone()
        return (int(row[0]), float(row[1])) if row else (0, None)

    def confirm(self, seq: int) -> None:
        """The floor store holds every record up to ``seq`` (never moves back; the time is when it moved)."""
        self._move(
            self.stored_name,
            seq,
            "SET acked_seq = excluded.acked_seq, at = excluded.at WHERE excluded.acked_seq > acked_seq",
            "what the floor stored",
        )

    @property
    def held_name(self) -> str:
        """The row saying the floor feed is held (``floor-held``): the floor said it holds a record
        this journal did not write (its seq, and why, in words)."""
        return f"{self.name}-held"

    def hold_feed(self, seq: int, reason: str) -> None:
        """Hold the floor feed on record ``seq`` (the first hold stays until :meth:`release_feed`)."""
        try:
            self.writer.execute(
                "INSERT INTO floor_outbox (name, acked_seq, at, state, error) VALUES (?, ?, ?, 'held', ?) "
                "ON CONFLICT (name) DO NOTHING",
                (self.held_name, seq, time.time(), reason),
            )
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot record the floor feed's hold: {exc}") from exc

    def feed_held(self) -> tuple[int, str] | None:
        """The record the floor feed is held on and why (None: not held)."""
        row = self.writer.execute(
            "SELECT acked_seq, error FROM floor_outbox WHERE name = ?", (self.held_name,)
        ).fetchone()
        return (int(row[0]), str(row[1])) if row else None

    def release_feed(self) -> None:
        """The floor holds this journal's own records again: the feed is no longer held."""
        try:
            self.writer.execute("DELETE FROM floor_outbox WHERE name = ?", (self.held_name,))
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot release the floor feed's hold: {exc}") from exc

    def hash_of(self, seq: int) -> str | None:
        """Record ``seq``'s hash in this journal (None: no such record)."""
        return hash_at(self.reader, seq, self.key, checked=self.key is not None)

    def set_state(self, state: str, error: str | None) -> None:
        """Note the link's state (what ``tablectl status`` shows)."""
        try:
            self.writer.execute(
                "INSERT INTO floor_outbox VALUES (?, 0, ?, ?, ?) ON CONFLICT (name) DO UPDATE "
                "SET state = excluded.state, error = excluded.error, at = excluded.at",
                (self.name, time.time(), state, error),
            )
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot record the floor link state: {exc}") from exc

    def state(self) -> tuple[str | None, str | None, float | None]:
        """The link's last noted state, error and when (None when never noted)."""
        row = self.writer.execute("SELECT state, error, at FROM floor_outbox WHERE name = ?", (self.name,)).fetchone()
        return (row[0], row[1], row[2]) if row else (None, None, None)

    def changed(self) -> bool:
        """Whether the journal file may have changed since the last call (``PRAGMA data_version``:
        a cheap look before reading, for a reader that polls)."""
        version = int(self.reader.execute("PRAGMA data_version").fetchone()[0])
        changed = version != getattr(self, "_version", None)
        self._version = version
        return changed

    def head(self) -> int:
        """The journal's last sequence number."""
        bounds = seq_bounds(self.reader)
        return int(bounds[1]) if bounds else 0

    def backlog(self) -> int:
        """Records written but not acknowledged yet."""
        return max(0, self.head() - self.acked())

    def after(self, seq: int, limit: int = 500) -> list[RawRecord]:
        """Up to ``limit`` records after ``seq``, in order."""
        rows = read_records(self.reader, seq, key=self.key, checked=self.key is not None, limit=limit)
        return [RawRecord(r.seq, r.at, r.kind, r.data, bool(r.event), r.prev, r.hash) for r in rows]

    def between(self, first: int, last: int) -> list[RawRecord]:
        """The records ``first`` to ``last``, in order."""
        rows = read_records(self.reader, first - 1, last, key=self.key, checked=self.key is not None)
        return [RawRecord(r.seq, r.at, r.kind, r.data, bool(r.event), r.prev, r.hash) for r in rows]

    def anchor_seq(self) -> int:
        """The journal's pruning anchor: the last record removed from its start (0: none removed)."""
        row = self.reader.execute("SELECT value FROM meta WHERE key = 'anchor_seq'").fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        for db in (self.reader, self.writer):
            try:
                db.close()
            except sqlite3.Error:
                pass
