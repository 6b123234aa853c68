"""``journal verify``: the hash chain, record by record, and the meters against the round records.

A changed record fails its own hash; a removed record leaves a gap in the sequence numbers (or,
at the end, a chain that no longer reaches the last hash written to ``meta``); a reordered pair
fails at the first of the two, since every hash covers the record's sequence number and the
previous record's hash. The first bad record is named.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

from controller.journal.meters import add_meters
from controller.journal.store import GENESIS, SqliteJournal, record_hash

__all__ = ["VerifyReport", "verify_journal", "check_tail"]


@dataclass
class VerifyReport:
    """What ``verify`` checked and the problems found (empty: the journal is intact)."""

    records: int = 0
    rounds: int = 0
    first_seq: int = 0
    last_seq: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _walk(journal: SqliteJournal, after: int, prev: str, report: VerifyReport, stop_at_first: bool = True) -> str:
    expected_seq = after + 1
    rows = journal.db.execute(
        "SELECT seq, at, kind, event, data, prev, hash FROM records WHERE seq > ? ORDER BY seq", (after,)
    )
    for seq, at, kind, event, data, stored_prev, stored_hash in rows:
        report.records += 1
        report.last_seq = seq
        if not report.first_seq:
            report.first_seq = seq
        if seq != expected_seq:
            report.problems.append(f"record {expected_seq}: missing (the next record is {seq}): removed")
        elif stored_prev != prev:
            report.problems.append(
                f"record {seq} ({kind}): does not follow record {seq - 1}: removed, inserted or reordered"
            )
        elif record_hash(prev, seq, at, kind, bool(event), data, journal.key) != stored_hash:
            report.problems.append(
                f"record {seq} ({kind}): hash mismatch: the record was changed"
                + (" (or the HMAC key is wrong)" if journal.key else "")
            )
        if report.problems and stop_at_first:
            return prev
        prev, expected_seq = stored_hash, seq + 1
    return prev


def verify_journal(journal: SqliteJournal) -> VerifyReport:
    """Check the whole chain (from the pruning anchor, if any) and the meters."""
    report = VerifyReport()
    anchor_seq = int(journal.meta("anchor_seq") or 0)
    last = _walk(journal, anchor_seq, journal.meta("anchor_hash") or GENESIS, report)
    if report.problems:
        return report
    head_seq = int(journal.meta("head_seq") or 0)
    if head_seq > max(report.last_seq, anchor_seq):
        report.problems.append(
            f"record {max(report.last_seq, anchor_seq) + 1}: missing (the journal was written up to record {head_seq}): removed"
        )
        return report
    if head_seq and journal.meta("head_hash") != last:
        report.problems.append(f"record {head_seq}: does not match the last hash written: changed or replaced")
        return report
    try:
        rounds = [
            json.loads(d)
            for (d,) in journal.db.execute("SELECT data FROM records WHERE kind = 'RoundSettled' ORDER BY seq")
        ]
    except sqlite3.Error as exc:
        report.problems.append(f"round records: {exc}")
        return report
    report.rounds = len(rounds)
    baseline = json.loads(journal.meta("pruned_meters") or "[]")
    expected = add_meters(rounds)
    for scope, name, value in baseline:
        expected[(scope, name)] = expected.get((scope, name), 0) + value
    kept = journal.meters()
    for key in sorted(set(expected) | set(kept)):
        if expected.get(key, 0) != kept.get(key, 0):
            report.problems.append(
                f"meter {key[0]} {key[1]}: kept {kept.get(key, 0)}, the round records give {expected.get(key, 0)}"
            )
    indexed = dict(journal.round_seqs())
    for r in rounds:
        if r["round"] not in indexed:
            report.problems.append(f"round {r['round']}: its record is not in the round index")
    return report


def check_tail(journal: SqliteJournal, after: int) -> list[str]:
    """The chain from record ``after`` (a snapshot's) to the end: what a start checks, so the
    time to ready does not grow with the journal."""
    report = VerifyReport()
    if after:
        row = journal.db.execute("SELECT hash FROM records WHERE seq = ?", (after,)).fetchone()
        if row is None:
            return [f"record {after}: missing (the last snapshot follows it)"]
        prev = row[0]
    else:
        after, prev = int(journal.meta("anchor_seq") or 0), journal.meta("anchor_hash") or GENESIS
    _walk(journal, after, prev, report)
    return report.problems
