"""``journal verify``: the file, the hash chain record by record, the signed ``meta``, the derived
tables (round index, snapshots, meters) against the chained records.

SQLite's own integrity check runs first (it names damaged pages and rows). Then a changed
record fails its own hash; a removed record leaves a gap in the sequence numbers (or, at the
end, a chain that no longer reaches the last hash written to ``meta``); a reordered pair fails at
the first of the two, since every hash covers the record's sequence number and the previous
record's hash. The first bad record is named. Every database error is caught and reported: a
damaged file is a problem found, never a crash.

Readers (``recall``, ``meters``, ``status``) check what can be checked cheaply with
:func:`verify_reader`: ``meta``, the head, the last snapshot, and the chain around what they show
between the snapshots kept there, so that their time does not grow with the journal.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from controller.journal import checkpoint
from controller.journal.compact import BlockError, StoredRecord, decode_block
from controller.journal.meters import add_meters
from controller.journal.retention import KEEP_LAST, VERIFIED_HASH, VERIFIED_SEQ
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
from controller.journal.stored import (
    BLOCK_KINDS,
    every_block,
    has_blocks,
    hash_at,
    last_record,
    read_records,
    record_at,
    seq_bounds,
)

__all__ = ["verify_journal", "verify_reader", "verify_meters", "verify_prune", "check_tail"]

_DAMAGE = (sqlite3.Error, ValueError, TypeError, KeyError, AttributeError, OverflowError, RecursionError, BlockError)
"""What reading a damaged file can raise (``UnicodeError`` is a ``ValueError``; a block that does
not decode raises :class:`BlockError`)."""


def _fields(r: StoredRecord) -> tuple[Any, ...]:
    """A stored record's fields in the ``records`` row's order."""
    return (r.seq, r.at, r.kind, r.event, r.data, r.prev, r.hash)


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
    notes: list[str] = field(default_factory=list)
    """What could not be checked, and why (a keyed journal read without its key)."""

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
    version = getattr(journal, "schema_version", SCHEMA_VERSION)
    if version < 3:  # its schema as it was: read as it is until a start migrates it
        return True
    try:
        found = set(journal.db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    except _DAMAGE as exc:
        report.bad(0, f"schema: unreadable ({exc}): the file is damaged")
        return False
    expected = expected_schema(version)
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
    links_only: bool = False,
) -> str:
    """Check the chain from record ``after`` (hash ``prev``) on, stopping at the first problem
    (``links_only``: each record's ``prev`` is the record before's hash and no number is missing,
    the hashes themselves not computed: a keyed journal read without its key)."""
    expected_seq = after + 1
    try:
        rows = read_records(journal.db, after, until, key=journal.key, checked=not links_only)
        for seq, at, kind, event, data, stored_prev, stored_hash in (_fields(r) for r in rows):
            report.records += 1
            report.last_seq = seq if isinstance(seq, int) else report.last_seq
            if not report.first_seq:
                report.first_seq = seq
            where = f"record {seq} ({str(kind)[:40]})"
            if seq != expected_seq:
                report.bad(expected_seq, f"record {expected_seq}: missing (the next record is {seq}): removed")
            elif stored_prev != prev:
                report.bad(seq, f"{where}: does not follow record {seq - 1}: removed, inserted or reordered")
            elif links_only:
                pass
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
    except BlockError as exc:
        report.bad(expected_seq, str(exc))
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
            for seq, at, data in (
                (r.seq, r.at, r.data)
                # their content alone: the walk before hashed every record
                for r in read_records(journal.db, kinds=("RoundSettled",), key=journal.key, hashes=False)
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
        rows = [
            (seq, round_no, state, stored, hash_at(journal.db, seq, journal.key) if isinstance(seq, int) else None)
            for seq, round_no, state, stored in journal.db.execute("SELECT seq, round_no, state, hash FROM snapshots")
        ]
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
    if full and not _block_spans(journal, report):
        return report
    last = _walk(journal, anchor[0], anchor[1], report, until)
    if report.problems:
        _name_block(journal, report)
    if report.problems or not full:
        return report
    if not _block_kinds(journal, report):
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
    try:
        _mark(journal, report, anchor)
    except _DAMAGE as exc:
        report.bad(0, f"meta: {VERIFIED_SEQ}: unreadable ({exc}): the file is damaged")
    if report.problems:
        return report
    rounds = _rounds(journal, report)
    report.rounds = len(rounds)
    _snapshots(journal, report, anchor)
    if not report.problems:
        _meters(journal, report, rounds)
    if not report.problems:
        _checkpoints(journal, report, rounds)
    return report


def _block_spans(journal: SqliteJournal, report: VerifyReport) -> bool:
    """Each compact block holds its own records: none of them also kept as a row or in another
    block (a fold is one transaction: the rows or the block, never both)."""
    if not has_blocks(journal.db):
        return True
    try:
        spans = journal.db.execute("SELECT first_seq, last_seq FROM blocks ORDER BY first_seq").fetchall()
        before: tuple[int, int] | None = None
        for first, last in spans:
            where = f"block of records {first}..{last}"
            if not isinstance(first, int) or not isinstance(last, int) or last < first:
                report.bad(0, f"{where}: not a span of record numbers: changed")
                return False
            if before is not None and first <= before[1]:
                report.bad(first, f"{where}: overlaps the block of records {before[0]}..{before[1]}: changed")
                return False
            row = journal.db.execute(
                "SELECT seq FROM records WHERE seq >= ? AND seq <= ? ORDER BY seq LIMIT 1", (first, last)
            ).fetchone()
            if row is not None:
                report.bad(row[0], f"{where}: record {row[0]} is also kept as a row: changed")
                return False
            before = (first, last)
    except _DAMAGE as exc:
        report.bad(0, f"blocks: unreadable ({exc}): the file is damaged")
        return False
    return True


def _name_block(journal: SqliteJournal, report: VerifyReport) -> None:
    """Name the block that holds the first bad record (its problem names the record alone)."""
    if not report.bad_from or not has_blocks(journal.db):
        return
    try:
        row = journal.db.execute(
            "SELECT first_seq, last_seq FROM blocks WHERE first_seq <= ? AND last_seq >= ?",
            (report.bad_from, report.bad_from),
        ).fetchone()
    except _DAMAGE:
        return
    if row is not None and f"records {row[0]}..{row[1]}" not in report.problems[0]:
        report.problems[0] = f"block of records {row[0]}..{row[1]}: {report.problems[0]}"


def _block_kinds(journal: SqliteJournal, report: VerifyReport) -> bool:
    """Each block's kinds as :data:`BLOCK_KINDS` lists them (what a reader looking for a kind
    trusts, e.g. the round records): the kinds its records have, no more, no fewer."""
    if not has_blocks(journal.db):
        return True
    try:
        listed: dict[int, set[str]] = {}
        for kind, first in journal.db.execute(f"SELECT kind, first_seq FROM {BLOCK_KINDS}"):
            listed.setdefault(first, set()).add(kind)
        held: dict[int, tuple[int, set[str]]] = {}
        for block in list(every_block(journal.db)):
            # the kinds alone: parsed as strictly, nothing hashed (the walk hashed every record)
            records = decode_block(block, check=False)
            held[block.first_seq] = (block.last_seq, {r.kind for r in records})
    except _DAMAGE as exc:
        report.bad(0, f"blocks: unreadable ({exc}): the file is damaged")
        return False
    for first, (last, kinds) in held.items():
        where = f"block of records {first}..{last}"
        have = listed.pop(first, set())
        if missing := sorted(kinds - have):
            report.bad(first, f"{where}: its kind index ({BLOCK_KINDS}) does not list {', '.join(missing)}: changed")
        elif extra := sorted(have - kinds):
            report.bad(
                first,
                f"{where}: its kind index ({BLOCK_KINDS}) lists {', '.join(extra)}, which it does not hold: changed",
            )
    for first in sorted(listed):
        report.bad(first, f"kind index ({BLOCK_KINDS}): names a block at record {first}, which is not kept: changed")
    return report.ok


def _mark(journal: SqliteJournal, report: VerifyReport, anchor: tuple[int, str]) -> None:
    """The verified-up-to mark ``journal prune`` keeps names a record of the chain (or one pruned since)."""
    raw = journal.meta(VERIFIED_SEQ)
    if raw is None:
        return
    if not raw.isdigit():
        report.bad(0, f"meta: {VERIFIED_SEQ} {raw!r} is not a record number: changed")
        return
    if int(raw) <= anchor[0]:
        return  # pruned since
    found = hash_at(journal.db, int(raw), journal.key)
    if found is None or found != journal.meta(VERIFIED_HASH):
        report.bad(int(raw), f"meta: {VERIFIED_SEQ} {raw}: not that record's hash: changed")


def _checkpoints(journal: SqliteJournal, report: VerifyReport, rounds: list[Any]) -> None:
    """Every meters checkpoint against the round records: its running totals are the pruned
    rounds' plus every round up to its own; its spot sums the previous checkpoint's plus the rounds
    between (the first one kept: the rounds of its window, unless they were pruned)."""
    try:
        rows = list(read_records(journal.db, kinds=(checkpoint.KIND,), key=journal.key))
        found = [checkpoint.Checkpoint.from_record(r.seq, json.loads(r.data)) for r in rows]
        baseline = json.loads(journal.meta("pruned_meters") or "[]")
        first_kept = journal.db.execute("SELECT MIN(round_no) FROM rounds").fetchone()[0]
    except _DAMAGE as exc:
        report.bad(0, f"meters checkpoints: unreadable ({exc}): the file is damaged")
        return
    ordered = sorted(rounds, key=lambda r: r["round"])
    totals: dict[tuple[str, str], int] = {(s, n): v for s, n, v in baseline}
    i = 0
    previous: checkpoint.Checkpoint | None = None
    for cp in found:
        where = f"meters checkpoint record {cp.seq} (round {cp.round})"
        between = []
        while i < len(ordered) and ordered[i]["round"] <= cp.round:
            between.append(ordered[i])
            i += 1
        for key, value in add_meters(between).items():
            totals[key] = totals.get(key, 0) + value
        kept = {k: v for k, v in cp.meters.items() if v or k[1] == "rounds"}
        expected = {k: v for k, v in totals.items() if v or k[1] == "rounds"}
        if kept != expected:
            wrong = sorted(set(kept.items()) ^ set(expected.items()), key=str)[0][0]
            report.bad(
                cp.seq,
                f"{where}: meter {wrong[0]} {wrong[1]}: {kept.get(wrong, 0)}, the round records give "
                f"{expected.get(wrong, 0)}: changed",
            )
            return
        if previous is not None:
            sums = checkpoint.spot_sums(between, previous.spots.from_round, previous.spots)
        elif isinstance(first_kept, int) and first_kept <= cp.spots.from_round:
            sums = checkpoint.spot_sums([r for r in between if r["round"] >= cp.spots.from_round], cp.spots.from_round)
        else:
            sums = cp.spots  # its window was pruned: nothing to recompute it from
        if sums.to_json() != cp.spots.to_json():
            report.bad(cp.seq, f"{where}: its spot sums are not what the round records give: changed")
            return
        previous = cp


def verify_rounds(journal: SqliteJournal, rounds: Iterable[tuple[int, int]]) -> VerifyReport:
    """What ``recall`` checks before showing ``rounds`` ((round number, seq of its round record)):
    :func:`verify_reader` over each round's records, and each round's index entry."""
    chosen = list(rounds)
    shown = []
    try:
        for _, seq in chosen:
            # A round's recall holds every record after the round before it, up to its own record.
            before = journal.db.execute("SELECT MAX(seq) FROM rounds WHERE seq < ?", (seq,)).fetchone()[0]
            shown.append(((int(before) if isinstance(before, int) else 0) + 1, seq))
    except _DAMAGE as exc:
        report = VerifyReport()
        report.bad(0, f"round index: unreadable ({exc}): the file is damaged")
        return report
    report = verify_reader(journal, shown)
    if report.ok:
        _round_entries(journal, report, chosen)
    return report


def _round_entries(journal: SqliteJournal, report: VerifyReport, rounds: Iterable[tuple[int, int]]) -> None:
    """Each round's index entry points at its own round record, at the record's time."""
    v3 = getattr(journal, "schema_version", 3) >= 3
    try:
        for round_no, seq in rounds:
            record = record_at(journal.db, seq, journal.key)
            row = (record.at, record.kind, record.data) if record is not None else None
            index = journal.db.execute("SELECT at FROM rounds WHERE round_no = ?", (round_no,)).fetchone()
            where = f"round index: round {round_no}"
            if row is None or row[1] != "RoundSettled":
                report.bad(seq, f"{where}: points at record {seq}, which is not a round record: changed")
            elif json.loads(row[2]).get("round") != round_no:
                report.bad(seq, f"{where}: points at record {seq}, the record of another round: changed")
            elif v3 and index is not None and index[0] != row[0]:
                report.bad(seq, f"{where}: its time {index[0]!r} is not its record's ({row[0]!r}): changed")
    except _DAMAGE as exc:
        report.bad(0, f"round index: unreadable ({exc}): the file is damaged")


def check_tail(journal: SqliteJournal, after: int) -> list[str]:
    """The chain from record ``after`` (a snapshot's) to the end: what a start checks, so the
    time to ready does not grow with the journal."""
    report = VerifyReport()
    if after:
        found = hash_at(journal.db, after, journal.key)
        if found is None:
            return [f"record {after}: missing (the last snapshot follows it)"]
        prev = found
    else:
        after, prev = int(journal.meta("anchor_seq") or 0), journal.meta("anchor_hash") or GENESIS
    _walk(journal, after, prev, report)
    return report.problems


def _snapshot_at(journal: SqliteJournal, seq: int, after: str, report: VerifyReport) -> None:
    """The snapshot kept after record ``seq`` (if any) must be bound to that record's hash ``after``."""
    if getattr(journal, "schema_version", 3) < 3:
        return  # version 2: its snapshots are not bound to the chain (and have no hash to read)
    row = journal.db.execute("SELECT round_no, state, hash FROM snapshots WHERE seq = ?", (seq,)).fetchone()
    if row is None:
        return
    round_no, state, stored = row
    try:
        ok = snapshot_hash(after, seq, round_no, state, journal.key) == stored
    except (UnicodeError, TypeError):
        ok = False
    if not ok:
        report.bad(
            seq,
            f"snapshot after record {seq} (round {round_no}): does not match the chain: the records before it "
            "were changed and the chain computed again, or the snapshot was changed",
        )


def _bracket(journal: SqliteJournal, lo: int, hi: int, anchor: tuple[int, str], last_seq: int) -> tuple[int, int]:
    """The snapshots around records ``lo``..``hi``: the last one before ``lo`` (else the anchor)
    and the first one at or after ``hi`` (else the last record)."""
    before = journal.db.execute("SELECT MAX(seq) FROM snapshots WHERE seq < ?", (lo,)).fetchone()[0]
    after = journal.db.execute("SELECT MIN(seq) FROM snapshots WHERE seq >= ?", (hi,)).fetchone()[0]
    start = max(int(before), anchor[0]) if isinstance(before, int) else anchor[0]
    return start, int(after) if isinstance(after, int) else last_seq


def _segment(
    journal: SqliteJournal,
    start: int,
    end: int,
    anchor: tuple[int, str],
    report: VerifyReport,
    links_only: bool = False,
) -> None:
    """The chain from record ``start`` to ``end``, each record's hash computed again, bound at both
    ends to the snapshots kept there (``links_only``: the links alone, see :func:`_walk`)."""
    if start == anchor[0]:
        prev = anchor[1]
    else:
        found = hash_at(journal.db, start, journal.key, checked=not links_only)
        if found is None:
            report.bad(start, f"record {start}: missing (a snapshot follows it): removed")
            return
        prev = found
    if links_only:
        _walk(journal, start, prev, report, until=end, links_only=True)
        return
    _snapshot_at(journal, start, prev, report)
    last = _walk(journal, start, prev, report, until=end)
    if not report.problems and end > start:
        _snapshot_at(journal, end, last, report)


def _head(journal: SqliteJournal, report: VerifyReport) -> int:
    """The journal knows how far it was written: ``meta``'s head is the last record (returned)."""
    head_seq = int(journal.meta("head_seq") or 0)
    row = last_record(journal.db)
    last_seq, last_hash = (int(row[0]), str(row[1])) if row else (0, None)
    if head_seq > last_seq:
        report.bad(
            last_seq + 1,
            f"records {last_seq + 1} to {head_seq}: missing (the journal was written up to record {head_seq}): removed",
        )
    elif head_seq and head_seq == last_seq and journal.meta("head_hash") != last_hash:
        report.bad(head_seq, f"record {head_seq}: does not match the last hash written: changed or replaced")
    return last_seq


def _signed_without_key(journal: SqliteJournal) -> bool:
    """Opened without a key, and ``meta_hash`` is not the plain SHA-256 of ``meta``: signed with a
    key that this reader does not have (or changed: without the key the two cannot be told apart)."""
    if journal.key is not None or getattr(journal, "schema_version", 3) < 3:
        return False
    meta = journal.meta_rows()
    stored = meta.get("meta_hash")
    if stored is None or stored == meta_hash(meta, None):
        return False
    return not _plainly_hashed(journal)


def _plainly_hashed(journal: SqliteJournal) -> bool:
    """The first or the last record's hash is its plain SHA-256: the journal has no key, so a
    ``meta_hash`` that is not plain means ``meta`` was changed (to pass for a signed journal, both
    records would have to be changed too, which the chain then tells)."""
    bounds = seq_bounds(journal.db)
    ends = [] if bounds is None else sorted(set(bounds))
    rows = [_fields(r) for s in ends if (r := record_at(journal.db, s, checked=False)) is not None]
    return any(
        record_hash(prev, seq, at, kind, bool(event), data, None) == digest
        for seq, at, kind, event, data, prev, digest in rows
    )


def _anchor_unsigned(journal: SqliteJournal, report: VerifyReport) -> tuple[int, str] | None:
    """The pruning anchor as ``meta`` holds it, unchecked (its signature needs the key)."""
    raw_seq = journal.meta("anchor_seq") or "0"
    if not raw_seq.isdigit():
        report.bad(0, f"meta: anchor_seq {raw_seq!r} is not a record number: changed")
        return None
    return int(raw_seq), journal.meta("anchor_hash") or GENESIS


def verify_reader(
    journal: SqliteJournal, shown: Iterable[tuple[int, int]] = (), verified: tuple[int, str] | None = None
) -> VerifyReport:
    """What a reader (``recall``, ``meters``, ``status``, the forwarder) checks before it trusts what
    it reads, in time that does not grow with the journal: ``meta`` against its hash, the head
    (records cut from the end), the chain from the last snapshot to the end, and for each range of
    records ``shown`` (first, last) the chain between the snapshots kept around it, each bound to
    the chain by its hash. A change anywhere before the last snapshot that computed the chain again
    breaks the last snapshot's binding; one that did not breaks the records' own hashes where they
    are read. ``journal verify`` still checks everything else (every record, the meters).

    ``verified``: (seq, hash) of a record whose chain this reader verified before (a forwarder's
    earlier run): the chain is checked from it on, or from the first record ``shown`` when that is
    earlier (walked through it, so that a change there that computed the chain again shows), not
    again before, when the journal still holds that record with that hash (a change before it that
    computed the chain again changes its hash: a problem named here); one no longer kept (pruned)
    is not used."""
    report = VerifyReport()
    try:
        links_only = _signed_without_key(journal)
        if links_only:
            report.notes.append(
                "meta_hash is not a plain SHA-256: the journal is signed with a key (or its meta was changed); "
                "without the key only the chain's links and the head are checked (give --config with the key "
                "file for the rest)"
            )
            anchor = _anchor_unsigned(journal, report)
        else:
            anchor = _anchor(journal, report)
        if anchor is None:
            return report
        last_seq = _head(journal, report)
        shown = list(shown)
        segments = {_bracket(journal, lo, hi, anchor, last_seq) for lo, hi in shown}
        last_snapshot = journal.db.execute("SELECT MAX(seq) FROM snapshots").fetchone()[0]
        tail_from = max(int(last_snapshot), anchor[0]) if isinstance(last_snapshot, int) else anchor[0]
        segments.add((tail_from, last_seq))
        if verified is not None:
            cut = min([verified[0]] + [lo - 1 for lo, _ in shown])
            segments, anchor = _after_verified(journal, segments, verified, cut, anchor, last_seq, report, links_only)
        for start, end in sorted(segments):
            _segment(journal, start, end, anchor, report, links_only)
            if report.problems:
                _name_block(journal, report)
                break
    except _DAMAGE as exc:
        report.bad(0, f"the journal is unreadable ({exc}): the file is damaged")
    return report


def _after_verified(
    journal: SqliteJournal,
    segments: set[tuple[int, int]],
    verified: tuple[int, str],
    cut: int,
    anchor: tuple[int, str],
    last_seq: int,
    report: VerifyReport,
    links_only: bool,
) -> tuple[set[tuple[int, int]], tuple[int, str]]:
    """``segments`` cut to what follows record ``cut`` (at or before record ``verified``, whose
    (seq, hash) the reader verified before), once the journal is seen to hold that record with that
    hash, and the (seq, hash) they are bound from: ``verified`` when they were cut, else ``anchor``
    with ``segments`` unchanged (the pin not past the anchor, not kept, or nothing to cut: ``cut``
    at the anchor, as when nothing was acknowledged yet or a prune moved the anchor up to what was).
    A pin past the journal's last record is refused (and nothing is walked): the journal lost
    records this reader verified, as one restored from an older copy and maybe written again."""
    seq, digest = verified
    if seq > last_seq:
        report.bad(  # where the journal went back is not known: none of it is trusted against what was verified
            0,
            f"record {seq}: verified before, but the journal now ends at record {last_seq}: it went back "
            "(restored from an older copy?), records verified (and maybe sent) are gone",
        )
        return set(), anchor
    if not anchor[0] < seq or cut <= anchor[0]:
        return segments, anchor
    found = hash_at(journal.db, seq, journal.key, checked=not links_only)
    if found is None or found == "":
        return segments, anchor  # not kept (pruned or folded out of reach): checked as if never verified
    if found != digest:
        report.bad(seq, f"record {seq}: not the record verified before (hash {found[:16]}...): changed since")
        return set(), anchor
    return {(max(start, cut), end) for start, end in segments if end > cut}, verified


def verify_prune(journal: SqliteJournal, removed: Iterable[tuple[int, int]]) -> tuple[VerifyReport, tuple[int, str]]:
    """What ``journal prune`` checks before it removes ``removed`` (from
    :func:`~controller.journal.retention.rounds_to_prune`), in time that grows with what it removes
    and what was written since a prune last checked, not with the journal: what a reader checks
    (:func:`verify_reader`), every record it removes, each hash computed again, and what the unsigned
    tables say of them against the chain (:func:`_removed_range`; the last ten rounds counted in the
    chain, not the index); then every record after the verified-up-to mark (``meta``'s
    ``verified_seq``, signed), from the hash the mark holds, to the end. Returns the report and the
    new mark (the last record checked and its hash). A journal signed with a key this reader was not
    given is refused: prune signs ``meta`` again. ``journal verify`` still checks everything."""
    chosen = list(removed)
    report = verify_reader(journal)
    mark = (0, GENESIS)
    if report.notes:
        report.bad(0, "meta: signed with a key this command was not given (give --config with the key file)")
    if not report.ok:
        return report, mark
    try:
        anchor = _anchor(journal, report)
        if anchor is None:
            return report, mark
        cut, prev = anchor
        if chosen:
            cut = chosen[-1][1]
            prev = _walk(journal, anchor[0], anchor[1], report, until=cut)
            if report.problems:
                return report, mark
            _round_entries(journal, report, chosen)
            _removed_range(journal, report, chosen, anchor, cut)
            if report.problems:
                return report, mark
            # The last ten rounds are counted in the chain (a backward scan that stops at the tenth
            # round record), not in the index, which anyone can pad.
            tail_rounds = [
                (r.seq,)
                for r in read_records(
                    journal.db, kinds=("RoundSettled",), key=journal.key, newest_first=True, limit=KEEP_LAST
                )
            ]
            if len(tail_rounds) < KEEP_LAST or tail_rounds[-1][0] <= cut:
                report.bad(cut, f"round index: prune would remove one of the last {KEEP_LAST} rounds: changed")
                return report, mark
        raw = journal.meta(VERIFIED_SEQ) or "0"
        if not raw.isdigit():
            report.bad(0, f"meta: {VERIFIED_SEQ} {raw!r} is not a record number: changed")
            return report, mark
        start = int(raw)
        if start > cut:
            found = hash_at(journal.db, start, journal.key)
            if found is None or found != journal.meta(VERIFIED_HASH):
                report.bad(
                    start,
                    f"record {start}: not the record the last prune checked (missing, changed, or the chain before it "
                    "computed again)",
                )
                return report, mark
            cut, prev = start, found
        checked = report.records
        last = _walk(journal, cut, prev, report)
        mark = (report.last_seq, last) if report.records > checked else (cut, prev)
    except _DAMAGE as exc:
        report.bad(0, f"the journal is unreadable ({exc}): the file is damaged")
    return report, mark


def _removed_range(
    journal: SqliteJournal, report: VerifyReport, chosen: list[tuple[int, int]], anchor: tuple[int, str], cut: int
) -> None:
    """What prune removes is exactly the rounds it sums into ``pruned_meters``: every round record in
    (anchor, cut] is indexed as one of ``chosen``, no other index entry points there, and every
    snapshot removed is bound to the chain."""
    seqs = {s for _, s in chosen}
    entries = set(chosen)
    settled = {
        s
        for (s,) in (
            (r.seq,) for r in read_records(journal.db, anchor[0], cut, kinds=("RoundSettled",), key=journal.key)
        )
    }
    for s in sorted(settled - seqs):
        report.bad(s, f"record {s} (RoundSettled): a round prune would remove, but not in the round index: removed")
    for r, s in journal.db.execute("SELECT round_no, seq FROM rounds WHERE seq <= ?", (cut,)):
        if (r, s) not in entries:
            report.bad(s, f"round index: round {r}: points at record {s}, not a round prune checked: changed")
    for (s,) in journal.db.execute("SELECT seq FROM snapshots WHERE seq > ? AND seq < ?", (anchor[0], cut)).fetchall():
        found = hash_at(journal.db, s, journal.key)
        _snapshot_at(journal, s, found if found is not None else anchor[1], report)


@dataclass
class MetersCheck:
    """What :func:`verify_meters` found: the report, the last checkpoint (``None``: the journal has
    none, so the meters can only be checked whole) and the rounds after it (round, seq, data)."""

    report: VerifyReport
    checkpoint: checkpoint.Checkpoint | None = None
    after: list[tuple[int, int, Any]] = field(default_factory=list)


def verify_meters(journal: SqliteJournal) -> MetersCheck:
    """What ``meters`` checks, in time bounded by :data:`checkpoint.EVERY` rounds: the last meters
    checkpoint, :func:`verify_reader` over the records from its round to the end, the round index
    entries after it, and the running totals against the checkpoint's plus those rounds'."""
    report = VerifyReport()
    try:
        cp = checkpoint.last_checkpoint(journal.db)
        if cp is None:
            return MetersCheck(report)
        after = checkpoint.rounds_after(journal.db, cp)
        bounds = seq_bounds(journal.db)
        last = int(bounds[1]) if bounds and isinstance(bounds[1], int) else cp.seq
    except _DAMAGE as exc:
        report.bad(0, f"meters checkpoint: unreadable ({exc}): the file is damaged")
        return MetersCheck(report)
    report = verify_reader(journal, [(cp.through_seq, last)])
    if report.ok:
        _round_entries(journal, report, [(n, s) for n, s, _ in after])
    if not report.ok:
        return MetersCheck(report, cp, after)
    try:
        expected = dict(cp.meters)
        for key, value in add_meters([d for _, _, d in after]).items():
            expected[key] = expected.get(key, 0) + value
        kept = journal.meters()
    except _DAMAGE as exc:
        report.bad(0, f"meters: cannot be recomputed ({exc}): the file is damaged")
        return MetersCheck(report, cp, after)
    for key in sorted(set(expected) | set(kept), key=str):
        if expected.get(key, 0) != kept.get(key, 0):
            report.bad(
                cp.seq,
                f"meter {key[0]} {key[1]}: kept {kept.get(key, 0)}, the checkpoint after round {cp.round} and the "
                f"rounds after it give {expected.get(key, 0)}: changed",
            )
    return MetersCheck(report, cp, after)
