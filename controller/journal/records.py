"""The journal's types: a record, the interface every journal offers, the in-memory journal.

Every event is recorded before the controller acts on it. :class:`MemoryJournal` keeps records
in a list; the durable one (:class:`controller.journal.store.SqliteJournal`) implements the same
interface. The journal depends on nothing above it: the table imports these, never the reverse.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["JournalRecord", "Journal", "MemoryJournal", "event_record"]


@dataclass(frozen=True, slots=True)
class JournalRecord:
    """One journaled thing: its sequence number, when, what kind, and its data."""

    seq: int
    at: float
    kind: str
    data: dict[str, Any]
    event: bool = False
    """Taken from the controller's queue (replayed on recovery), not written by the controller."""


class Journal(Protocol):
    """Where the controller records what happened, in order."""

    def append(self, kind: str, data: dict[str, Any], event: bool = False) -> int:
        """Record ``data`` of ``kind`` (``event``: an event taken from the queue); returns its
        sequence number once it is recorded. Raises ``JournalError`` when it cannot be."""
        ...

    def records(self, after: int = 0) -> Iterator[JournalRecord]:
        """Everything recorded after sequence number ``after``, in order."""
        ...


class MemoryJournal:
    """A journal kept in a list (tests and in-process benchmarks)."""

    def __init__(self) -> None:
        self._fields: list[Any] = []
        """Each record's time, kind, data and whether it is an event, four items a record in
        one list (made a :class:`JournalRecord` when read: most are never read); its sequence
        number is its place + 1. No tuple kept a record: a tuple holding a dict is walked by
        every full collection of the garbage collector for good, and each object kept counts
        towards the next collection."""

    def append(self, kind: str, data: dict[str, Any], event: bool = False) -> int:
        fields = self._fields
        fields.extend((time.time(), kind, data, event))  # the tuple goes at once
        return len(fields) // _FIELDS

    def records(self, after: int = 0) -> Iterator[JournalRecord]:
        kept = iter(self._fields[_FIELDS * after :])
        return (
            JournalRecord(seq, at, kind, data, event)
            for seq, (at, kind, data, event) in enumerate(zip(kept, kept, kept, kept), start=after + 1)
        )


_FIELDS = 4
"""The items a record of :class:`MemoryJournal` takes in its list."""


_Entry = tuple[str, dict[str, Any]]
"""An event as a journal entry: its kind and data (:func:`event_record`)."""


def event_record(event: object) -> _Entry:
    """An event as a journal entry: its class name and fields (events are frozen, so a shallow
    copy of the fields is enough). A field marked secret (``metadata={"secret": True}``: a PIN, a
    badge id) is never in it. How an event of each class is recorded is decided once for the
    class (:func:`_recorder`)."""
    kind = type(event)
    record = _RECORDERS.get(kind)
    if record is None:
        record = _RECORDERS[kind] = _recorder(kind)
    return record(event)


_Recorder = Callable[[object], _Entry]
"""How the events of one class are recorded (:func:`event_record`)."""


def _recorder(kind: type) -> _Recorder:
    """How :func:`event_record` journals an event of class ``kind``: a class that is not a
    dataclass as its ``repr``; a dataclass by the fields journaled (a secret one left out), read
    as a copy of its ``__dict__`` when every field is an attribute of its own (set by
    ``__init__``) and there is nothing else (the same mapping, at a fifth of the cost)."""
    name = kind.__name__
    if not dataclasses.is_dataclass(kind):
        return lambda event: (name, {"repr": repr(event)})
    every = dataclasses.fields(kind)
    names = tuple(f.name for f in every if not f.metadata.get("secret"))

    def by_field(event: object) -> _Entry:
        return name, {field: getattr(event, field) for field in names}

    if len(names) != len(every):  # a secret field: its ``__dict__`` is never copied whole
        return by_field
    plain = len(names)

    def own_fields(event: object) -> _Entry:
        own = getattr(event, "__dict__", None)
        if own is not None and len(own) == plain:
            return name, dict(own)
        return by_field(event)

    return own_fields


_RECORDERS: dict[type, _Recorder] = {}
"""How each event class is journaled (``dataclasses.fields`` is slow to call for every event)."""
