"""Tests' helper: journals written record by record for a test, without a table; a journal's rounds read back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.journal import SqliteJournal
from controller.journal.meters import meters_for_round


def filled(path: Path, key: bytes | None, rounds: int, first: int = 1, snapshots: bool = False) -> SqliteJournal:
    """A journal of ``rounds`` one-seat rounds from round ``first`` on, all of 1970 (older than any
    retention), with a snapshot at each round's start if ``snapshots``."""
    clock = iter(float(t) for t in range(1_000 + 1_000 * first, 10**6, 10))
    j = SqliteJournal(path, key, clock=lambda: next(clock))
    for r in range(first, first + rounds):
        if snapshots:
            j.snapshot(j.last_seq, r, {"round": r})
        j.append("SpotReport", {"device": "spots", "seat": 1, "spot": "ante", "cents": 500}, event=True)
        data = {
            "round": r,
            "game": "mississippi_stud",
            "record": {"seats": {"1": {"wagers": {"ante": 500}}}},
            "settlement": None,
            "late_bets": [],
            "faults": 0,
            "first_seq": j.last_seq,
        }
        j.append_round(r, data, meters_for_round(data))
    return j


def events_journal(path: Path, records: list[tuple[str, dict[str, object]]], device: str) -> None:
    """A journal at ``path`` of ``records`` (kind, data) as ``device``'s events, each at 1.0 and
    numbered 0 unless its data says otherwise."""
    journal = SqliteJournal(path)
    try:
        for kind, data in records:
            journal.append(kind, {"device": device, "at": 1.0, "event_no": 0, **data}, event=True)
    finally:
        journal.close()


def settled_rounds(path: Path) -> list[tuple[int, float, dict[str, Any]]]:
    """Each round the journal at ``path`` (opened read-only) settled: its number, the time it was
    journaled and its ``RoundSettled`` data, in the journal's order."""
    journal = SqliteJournal.open_readonly(path)
    try:
        found = []
        for number, seq in journal.round_seqs():
            record = journal.record(seq)
            assert record is not None
            found.append((number, record.at, record.data))
        return found
    finally:
        journal.close()
