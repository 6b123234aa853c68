"""A seed's journal as the checks at its end read it (the cards, the reference model): read once,
the records they look at and the meters, instead of the whole journal read and decoded again by
each (issue 41 item 6: two full reads of the journal were a tenth of a simulated round's CPU).
``journal verify`` reads the file on its own (:func:`hil.simulate.invariants.check_journal`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from controller.journal import JournalRecord, SqliteJournal

__all__ = ["KINDS", "SeedJournal", "read_seed_journal"]

KINDS = ("RoundSettled", "CardDealt", "CardUnreadable")
"""The records the checks at a seed's end look at: each round's record, each card report."""


@dataclass(frozen=True)
class SeedJournal:
    """The records of :data:`KINDS` of a seed's journal, in order, and its meters."""

    records: tuple[JournalRecord, ...]
    meters: Mapping[tuple[str, str], int]


def read_seed_journal(path: Path) -> SeedJournal:
    """The journal at ``path`` as the checks at a seed's end read it (opened read-only)."""
    journal = SqliteJournal.open_readonly(path)
    try:
        return SeedJournal(tuple(journal.records(kinds=KINDS)), journal.meters())
    finally:
        journal.close()
