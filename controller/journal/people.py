"""Who, as far as the journal knows it: a round's dealer and each supervisor act of the round with
the person who authorized it (``tablectl export``).

The round's dealer is ``dealer_id`` in its ``RoundSettled`` record, and an act's person is
``supervisor_id`` in its ``SupervisorAction`` record, once the table records who is signed in; a
round journaled before then has no dealer, and its acts were authorized by the supervisor's key
alone (``person`` None). The acts are the round's own, as ``tablectl recall`` lists them.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from controller.journal.recall import own_events
from controller.journal.records import JournalRecord
from controller.journal.store import JournalDamaged, JournalError, SqliteJournal
from controller.journal.stored import read_records

__all__ = ["round_people"]

DEALER_KEY = "dealer_id"
"""Where a ``RoundSettled`` record names the round's dealer."""
PERSON_KEY = "supervisor_id"
"""Where a ``SupervisorAction`` record names the supervisor who authorized it."""


@dataclass(frozen=True, slots=True)
class SupervisorAct:
    """One supervisor act of a round: what (``misdeal``, ``cards accepted``, ...) and by whom
    (None: the journal does not say; the key was turned)."""

    action: str
    person: str | None

    def shown(self) -> str:
        """``misdeal by S-0042``, or ``misdeal by the key`` when no person was recorded."""
        return f"{self.action} by {self.person or 'the key'}"


@dataclass(frozen=True, slots=True)
class RoundPeople:
    """A round's dealer (None: not recorded) and its supervisor acts, in the order journaled."""

    dealer: str | None
    acts: tuple[SupervisorAct, ...]


NOBODY = RoundPeople(None, ())
"""A round of which the journal names no one."""


def _name(value: object) -> str | None:
    return (value.strip()[:64] or None) if isinstance(value, str) else None


def round_people(journal: SqliteJournal, number: int, seq: int, data: dict[str, object]) -> RoundPeople:
    """Who dealt round ``number`` (its ``RoundSettled`` record ``seq`` with ``data``) and who
    authorized each of its supervisor acts; raises :class:`JournalDamaged` when an act's record is
    not readable."""
    first = data.get("first_seq")
    start = first if isinstance(first, int) and not isinstance(first, bool) and 0 < first <= seq else seq
    with journal.lock:
        try:
            rows = [
                (r.seq, r.at, r.kind, r.data, r.event)
                for r in read_records(journal.db, start - 1, seq - 1, kinds=("SupervisorAction",), key=journal.key)
            ]
        except (sqlite3.DatabaseError, JournalError) as exc:
            raise JournalDamaged(f"{journal.path}: round {number}: cannot read its records: {exc}") from exc
    records = []
    for s, at, kind, text, event in rows:
        try:
            records.append(JournalRecord(s, at, kind, json.loads(text), bool(event)))
        except (ValueError, TypeError, RecursionError) as exc:
            raise JournalDamaged(f"{journal.path}: record {s}: unreadable data: {exc}") from exc
    acts = tuple(
        SupervisorAct(str(r.data.get("action", "?")), _name(r.data.get(PERSON_KEY)))
        for r in own_events(records, number)
        if isinstance(r.data, dict)
    )
    return RoundPeople(_name(data.get(DEALER_KEY)), acts)
