"""Retention: old rounds may be pruned once they are older than the configured minimum (default
90 days); the last ten rounds are always kept (technical standard 5.3 A-C).

Pruning removes whole rounds from the start of the journal in one transaction and keeps the
chain verifiable: the hash of the last removed record becomes the journal's anchor, which the
first kept record follows, and the removed rounds' meters are kept as a baseline so the running
totals still agree with what is left. The anchor and the baseline are covered by ``meta_hash``
(an HMAC when the journal has a key: see docs/journal.md for what that does and does not protect).

Before it removes anything, ``journal prune`` checks what it removes and what was written since it
last ran (:func:`controller.journal.verify.verify_prune`), then moves the journal's verified-up-to
mark (:func:`mark_verified`): so a daily prune costs a day's records, not the journal's.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict

from controller.journal.compact import Block, decode_block, encode_block
from controller.journal.meters import add_meters
from controller.journal.records import JournalRecord
from controller.journal.store import JournalError, SqliteJournal
from controller.journal.stored import BLOCK_KINDS, has_blocks, hash_at

__all__ = ["KEEP_LAST", "mark_verified", "prune_rounds", "rounds_to_prune"]

KEEP_LAST = 10
"""Rounds always kept, whatever their age."""
VERIFIED_SEQ, VERIFIED_HASH = "verified_seq", "verified_hash"
"""``meta`` keys (signed with the rest of ``meta``): the last record ``journal prune`` checked and its hash."""


def floor_acknowledged(journal: SqliteJournal) -> int | None:
    """The last record the floor store says it holds (the journal's ``floor_outbox`` row
    ``floor-stored``, controller/journal/outbox.py; 0 when it has said nothing: the broker's
    acknowledgement alone is not enough; never at or past a record the floor feed is held on, row
    ``floor-held``: the floor holds another record there), or None when the table does not publish to a floor (no
    outbox)."""
    tables = {r[0] for r in journal.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "floor_outbox" not in tables:
        return None
    row = journal.db.execute("SELECT acked_seq FROM floor_outbox WHERE name = 'floor-stored'").fetchone()
    stored = int(row[0]) if row and isinstance(row[0], int) else 0
    held = journal.db.execute("SELECT acked_seq FROM floor_outbox WHERE name = 'floor-held'").fetchone()
    if held and isinstance(held[0], int):  # the floor holds another record there: nothing from it on is stored
        stored = min(stored, held[0] - 1)
    return max(0, stored)


def _round_record(journal: SqliteJournal, round_no: int, seq: int) -> JournalRecord:
    """Round ``round_no``'s record, number ``seq`` in the rounds index; ``JournalError`` when it is missing."""
    record = journal.record(seq)
    if record is None:
        raise JournalError(
            f"{journal.path}: record {seq} is indexed as round {round_no} but missing (run `tablectl journal verify`)"
        )
    return record


def _old_run(journal: SqliteJournal, retention_days: int, now: float | None) -> list[tuple[int, int]]:
    """The rounds (number, seq) older than ``retention_days`` from the start of the journal, never
    the last ten: only a run from the start, since a round is pruned with everything before it."""
    now = time.time() if now is None else now
    cutoff = now - retention_days * 86400
    index = journal.round_seqs()
    run = []
    for r, seq in index[:-KEEP_LAST] if len(index) > KEEP_LAST else []:
        if _round_record(journal, r, seq).at >= cutoff:
            break
        run.append((r, seq))
    return run


def rounds_to_prune(
    journal: SqliteJournal, retention_days: int, now: float | None = None, keep_after: int | None = None
) -> list[tuple[int, int]]:
    """The rounds (number, seq of its round record) older than ``retention_days``, oldest first:
    never the last ten, and none whose records come after record ``keep_after`` (what the floor
    has not acknowledged)."""
    return [(r, seq) for r, seq in _old_run(journal, retention_days, now) if keep_after is None or seq <= keep_after]


def prune(journal: SqliteJournal, retention_days: int, now: float | None = None, keep_after: int | None = None) -> int:
    """Remove the rounds older than ``retention_days`` (see :func:`rounds_to_prune`); returns how many."""
    return prune_rounds(journal, rounds_to_prune(journal, retention_days, now, keep_after))


def prune_rounds(journal: SqliteJournal, run: list[tuple[int, int]]) -> int:
    """Remove ``run`` (from :func:`rounds_to_prune`) and everything before it; returns how many rounds
    (none while the open round's snapshot comes before the last of them)."""
    if not run:
        return 0
    cut = run[-1][1]
    snapshot = journal.last_snapshot()
    if snapshot is not None and snapshot.seq < cut:
        return 0  # the open round's snapshot must stay
    pruned_rounds = [_round_record(journal, r, seq).data for r, seq in run]
    baseline: dict[tuple[str, str], int] = defaultdict(int)
    for scope, name, value in json.loads(journal.meta("pruned_meters") or "[]"):
        baseline[(scope, name)] += value
    for key, value in add_meters(pruned_rounds).items():
        baseline[key] += value
    anchor_hash = hash_at(journal.db, cut, journal.key)
    blocks = has_blocks(journal.db)
    with journal._txn():
        journal.db.execute("DELETE FROM records WHERE seq <= ?", (cut,))
        if blocks:  # a block reaching past the cut is made again of the records after it
            journal.db.execute(
                f"DELETE FROM {BLOCK_KINDS} WHERE first_seq IN (SELECT first_seq FROM blocks WHERE last_seq <= ?)",
                (cut,),
            )
            journal.db.execute("DELETE FROM blocks WHERE last_seq <= ?", (cut,))
            _cut_block(journal, cut)
        journal.db.execute("DELETE FROM rounds WHERE seq <= ?", (cut,))
        journal.db.execute("DELETE FROM snapshots WHERE seq < ?", (cut,))
        for meta_key, meta_value in (
            ("anchor_seq", str(cut)),
            ("anchor_hash", anchor_hash),
            ("pruned_meters", json.dumps([[s, n, v] for (s, n), v in sorted(baseline.items())])),
        ):
            journal.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (meta_key, meta_value))
        journal._sign_meta()
    return len(run)


def _cut_block(journal: SqliteJournal, cut: int) -> None:
    """The block holding record ``cut`` and records after it (a round's block runs on to the next
    round's start) made again of the records after ``cut`` alone, following the new anchor: no
    record pruned is left in the file (inside the caller's transaction)."""
    row = journal.db.execute(
        "SELECT first_seq, last_seq, prev, hash, prefixes, payload FROM blocks WHERE first_seq <= ? AND last_seq > ?",
        (cut, cut),
    ).fetchone()
    if row is None:
        return
    block = Block(row[0], row[1], row[2], row[3], bytes(row[4]), bytes(row[5]))
    kept = [r for r in decode_block(block, journal.key) if r.seq > cut]
    rest = encode_block(kept)
    journal.db.execute(f"DELETE FROM {BLOCK_KINDS} WHERE first_seq = ?", (block.first_seq,))
    journal.db.execute("DELETE FROM blocks WHERE first_seq = ?", (block.first_seq,))
    journal.db.execute(
        "INSERT INTO blocks VALUES (?, ?, ?, ?, ?, ?)",
        (rest.first_seq, rest.last_seq, rest.prev, rest.hash, rest.prefixes, rest.payload),
    )
    journal.db.executemany(
        f"INSERT INTO {BLOCK_KINDS} VALUES (?, ?)", [(kind, rest.first_seq) for kind in sorted({r.kind for r in kept})]
    )


def mark_verified(journal: SqliteJournal, seq: int, digest: str) -> None:
    """Note in ``meta`` (signed) that every record up to ``seq``, whose hash is ``digest``, was checked:
    the next prune checks from there on."""
    with journal._txn():
        for meta_key, meta_value in ((VERIFIED_SEQ, str(seq)), (VERIFIED_HASH, digest)):
            journal.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (meta_key, meta_value))
        journal._sign_meta()
