"""``journal verify``: the file, the hash chain record by record, the signed ``meta``, the derived
tables (round index, snapshots, meters) against the chained records.

SQLite's own integrity check runs first (it names damaged pages and rows). Then a changed
record fails its own hash; a removed record leaves a gap in the sequence numbers (or, at the
end, a chain that no longer reaches the last hash written to ``meta``); a reordered pair fails at
the first of the two, since every hash covers the record's sequence number and the previous
record's hash. The first bad record is named. Every database error is caught and reported: a
damaged file is a problem found, never a crash.

Readers (``recall``, ``meters``) check the part they show with :func:`verify_journal` too
(``until``: the last record they show; ``full=False``: no head, meters or whole-file checks).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from controller.journal.meters import add_meters
from controller.journal.store import (
    GENESIS,
    SCHEMA_VERSION,
    SqliteJournal,
    expected_schema,
    meta_hash,
    optional_schema,
    record_hash,
    snapshot_hash,
)

__all__ = ["VerifyReport", "verify_journal", "check_tail"]

_DAMAGE = (sqlite3.Error, ValueError, TypeError, KeyError, AttributeError, OverflowError, RecursionError)
"""What reading a damaged file can raise (``UnicodeError`` is a ``ValueError``)."""


@dataclass
class VerifyReport:
    """What ``verify`` checked and the problems found (empty: the journal is intact).

    ``bad_from``: the first record that cannot be trusted (0: none of them; ``None``: all fine).
    """

    records: int = 0
    rounds: int = 0
    first_seq: int = 0
    last_seq: int = 0
    problems: list[str] = field(default_factory=list)
    bad_from: int | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    def bad(self, seq: int, problem: str) -> None:
        """Record ``problem``; records from ``seq`` on are not to be trusted."""
        self.problems.append(problem)
        self.bad_from = seq if self.bad_from is None else min(self.bad_from, seq)


def _integrity(journal: SqliteJournal, report: VerifyReport) -> bool:
    try:
        rows = journal.db.execute("PRAGMA integrity_check(20)").fetchall()
    except _DAMAGE as exc:
        report.bad(0, f"SQLite integrity check: {exc}: the file is damaged")
        return False
    lines = [str(r[0]) for r in rows]
    if lines == ["ok"]:
        return True
    for line in lines:
        report.bad(0, f"SQLite integrity check: {line}")
    return False


def _schema(journal: SqliteJournal, report: VerifyReport) -> bool:
    if getattr(journal, "schema_version", SCHEMA_VERSION) != SCHEMA_VERSION:
        return True
    try:
        found = set(journal.db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    except _DAMAGE as exc:
        report.bad(0, f"schema: unreadable ({exc}): the file is damaged")
        return False
    expected = expected_schema()
    for kind, name, _, _ in sorted(found - expected - optional_schema(), key=str):
        report.bad(0, f"schema: {kind} {str(name)[:60]} is not as tablectl creates it: changed")
    for kind, name, _, _ in sorted(expected - found, key=str):
        if name not in {n for _, n, _, _ in found}:
            report.bad(0, f"schema: {kind} {name} is missing: removed")
    return report.ok


def _anchor(journal: SqliteJournal, report: VerifyReport) -> tuple[int, str] | None:
    """The pruning anchor, once ``meta`` is checked against its hash (schema 3 on)."""
    try:
        meta = journal.meta_rows()
    except _DAMAGE as exc:
        report.bad(0, f"meta: unreadable: {exc}")
        return None
    if getattr(journal, "schema_version", 3) >= 3:
        stored = meta.get("meta_hash")
        if stored is None:
            report.bad(0, "meta: meta_hash is missing: removed")
            return None
        if stored != meta_hash(meta, journal.key):
            report.bad(
                0,
                "meta: the schema version, creation time, pruning anchor or pruned meters do not match meta_hash: "
                "changed" + (" (or the HMAC key is wrong)" if journal.key else ""),
            )
            return None
    raw_seq = meta.get("anchor_seq", "0")
    if not raw_seq.isdigit():
        report.bad(0, f"meta: anchor_seq {raw_seq!r} is not a record number: changed")
        return None
    return int(raw_seq), meta.get("anchor_hash", GENESIS)


def _walk(
    journal: SqliteJournal,
    after: int,
    prev: str,
    report: VerifyReport,
    until: int | None = None,
    hashes: dict[int, str] | None = None,
) -> str:
    """Check the chain from record ``after`` (hash ``prev``) on, stopping at the first problem."""
    expected_seq = after + 1
    query = "SELECT seq, at, kind, event, data, prev, hash FROM records WHERE seq > ?"
    args: tuple[int, ...] = (after,)
    if until is not None:
        query, args = query + " AND seq <= ?", (after, until)
    try:
        rows = journal.db.execute(query + " ORDER BY seq", args)
        for seq, at, kind, event, data, stored_prev, stored_hash in rows:
            report.records += 1
            report.last_seq = seq if isinstance(seq, int) else report.last_seq
            if not report.first_seq:
                report.first_seq = seq
            where = f"record {seq} ({str(kind)[:40]})"
            if seq != expected_seq:
                report.bad(expected_seq, f"record {expected_seq}: missing (the next record is {seq}): removed")
            elif stored_prev != prev:
                report.bad(seq, f"{where}: does not follow record {seq - 1}: removed, inserted or reordered")
            else:
                try:
                    digest = record_hash(prev, seq, at, kind, bool(event), data, journal.key)
                except UnicodeError:
                    report.bad(seq, f"{where}: holds bytes that are not UTF-8 text: the record was changed")
                else:
                    if digest != stored_hash:
                        report.bad(
                            seq,
                            f"{where}: hash mismatch: the record was changed"
                            + (" (or the HMAC key is wrong)" if journal.key else ""),
                        )
            if report.problems:
                return prev
            if hashes is not None:
                hashes[seq] = stored_hash
            prev, expected_seq = stored_hash, seq + 1
    except _DAMAGE as exc:
        report.bad(expected_seq, f"records from {expected_seq}: unreadable ({exc}): the file is damaged")
    return prev


def _rounds(journal: SqliteJournal, report: VerifyReport, only: Iterable[int] | None = None) -> list[Any]:
    """The round index against the ``RoundSettled`` records; the round records' data."""
    v3 = getattr(journal, "schema_version", 3) >= 3
    try:
        index = journal.db.execute("SELECT round_no, seq, at FROM rounds ORDER BY round_no").fetchall()
        settled = {
            seq: (at, data)
            for seq, at, data in journal.db.execute(
                "SELECT seq, at, data FROM records WHERE kind = 'RoundSettled' ORDER BY seq"
            )
        }
    except _DAMAGE as exc:
        report.bad(0, f"round index: unreadable ({exc}): the file is damaged")
        return []
    wanted = set(only) if only is not None else None
    rounds: dict[int, Any] = {}
    for seq, (_, data) in settled.items():
        try:
            rounds[seq] = json.loads(data)
            rounds[seq]["round"]
        except _DAMAGE as exc:
            report.bad(seq, f"record {seq} (RoundSettled): unreadable round data: {exc}")
            return []
    indexed: set[int] = set()
    for round_no, seq, at in index:
        if wanted is not None and round_no not in wanted:
            indexed.add(seq)
            continue
        where = f"round index: round {round_no}"
        if seq not in settled:
            report.bad(0, f"{where}: points at record {seq}, which is not a round record: changed")
        elif rounds[seq].get("round") != round_no:
            report.bad(seq, f"{where}: points at record {seq}, the record of round {rounds[seq].get('round')}: changed")
        elif v3 and at != settled[seq][0]:
            report.bad(seq, f"{where}: its time {at!r} is not its record's ({settled[seq][0]!r}): changed")
        indexed.add(seq)
    if wanted is None:
        for seq, data in rounds.items():
            if seq not in indexed:
                report.bad(seq, f"round {data.get('round')}: its record {seq} is not in the round index: removed")
    return list(rounds.values())


def _snapshots(journal: SqliteJournal, report: VerifyReport, anchor: tuple[int, str]) -> None:
    if getattr(journal, "schema_version", 3) < 3:
        return
    try:
        rows = journal.db.execute(
            "SELECT s.seq, s.round_no, s.state, s.hash, r.hash FROM snapshots s LEFT JOIN records r ON r.seq = s.seq"
        ).fetchall()
    except _DAMAGE as exc:
        report.bad(0, f"snapshots: unreadable ({exc}): the file is damaged")
        return
    for seq, round_no, state, stored, after in rows:
        if after is None:
            if seq != anchor[0]:
                report.bad(0, f"snapshot after record {seq}: that record is missing: changed")
                continue
            after = anchor[1]
        try:
            ok = snapshot_hash(after, seq, round_no, state, journal.key) == stored
        except UnicodeError:
            ok = False
        if not ok:
            report.bad(0, f"snapshot after record {seq} (round {round_no}): hash mismatch: the snapshot was changed")


def _meters(journal: SqliteJournal, report: VerifyReport, rounds: list[Any]) -> None:
    try:
        baseline = json.loads(journal.meta("pruned_meters") or "[]")
        expected = add_meters(rounds)
        for scope, name, value in baseline:
            expected[(scope, name)] = expected.get((scope, name), 0) + value
        kept = journal.meters()
    except _DAMAGE as exc:
        report.bad(0, f"meters: cannot be recomputed ({exc}): the file is damaged")
        return
    for key in sorted(set(expected) | set(kept), key=str):
        if expected.get(key, 0) != kept.get(key, 0):
            report.bad(
                0, f"meter {key[0]} {key[1]}: kept {kept.get(key, 0)}, the round records give {expected.get(key, 0)}"
            )


def verify_journal(journal: SqliteJournal, until: int | None = None, full: bool = True) -> VerifyReport:
    """Check the journal: with ``full``, the whole file (integrity, chain, head, round index,
    snapshots, meters); else only the chain up to record ``until`` (what a reader shows)."""
    report = VerifyReport()
    if full and not (_integrity(journal, report) and _schema(journal, report)):
        return report
    anchor = _anchor(journal, report)
    if anchor is None:
        return report
    last = _walk(journal, anchor[0], anchor[1], report, until)
    if report.problems or not full:
        return report
    try:
        head_seq = int(journal.meta("head_seq") or 0)
        head_hash = journal.meta("head_hash")
    except _DAMAGE as exc:
        report.bad(0, f"meta: head_seq unreadable ({exc}): changed")
        return report
    if head_seq > max(report.last_seq, anchor[0]):
        report.bad(
            max(report.last_seq, anchor[0]) + 1,
            f"record {max(report.last_seq, anchor[0]) + 1}: missing (the journal was written up to record {head_seq}): "
            "removed",
        )
        return report
    if head_seq and head_hash != last:
        report.bad(head_seq, f"record {head_seq}: does not match the last hash written: changed or replaced")
        return report
    rounds = _rounds(journal, report)
    report.rounds = len(rounds)
    _snapshots(journal, report, anchor)
    if not report.problems:
        _meters(journal, report, rounds)
    return report


def verify_rounds(journal: SqliteJournal, round_numbers: Iterable[int], until: int) -> VerifyReport:
    """What a reader checks before showing rounds: ``meta``, the chain up to record ``until``
    (the last one shown) and the round index entries of ``round_numbers``."""
    report = verify_journal(journal, until=until, full=False)
    if report.ok:
        _rounds(journal, report, only=round_numbers)
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
