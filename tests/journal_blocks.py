"""Tests' helper: a journal's closed rounds folded into compact blocks, as the journal's writer
folds them (issue 45 item 8, controller/journal/fold.py), written here with SQL so that a test can
make a journal of blocks, and change one, without the writer."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from controller.journal.compact import Block, StoredRecord, encode_block


def fold(db: sqlite3.Connection, first: int, last: int) -> Block:
    """Records ``first`` to ``last`` (rows) made one block, their rows deleted, in one transaction."""
    rows = db.execute(
        "SELECT seq, at, kind, event, data, prev, hash FROM records WHERE seq >= ? AND seq <= ? ORDER BY seq",
        (first, last),
    ).fetchall()
    block = encode_block([StoredRecord(s, at, k, bool(e), d, p, h) for s, at, k, e, d, p, h in rows])
    with db:
        db.execute(
            "INSERT INTO blocks VALUES (?, ?, ?, ?, ?, ?)",
            (block.first_seq, block.last_seq, block.prev, block.hash, block.prefixes, block.payload),
        )
        db.executemany(
            "INSERT INTO block_kinds VALUES (?, ?)", [(kind, block.first_seq) for kind in {r[2] for r in rows}]
        )
        db.execute("DELETE FROM records WHERE seq >= ? AND seq <= ?", (first, last))
    return block


def fold_rounds(path: Path) -> list[Block]:
    """Every span of records between two snapshots of the journal at ``path`` (a closed round's:
    blocks follow the snapshots) folded into a block; the records after the last snapshot stay rows."""
    db = sqlite3.connect(path)
    try:
        marks = [int(s) for (s,) in db.execute("SELECT seq FROM snapshots ORDER BY seq")]
        return [fold(db, lo + 1, hi) for lo, hi in zip(marks, marks[1:], strict=False) if hi > lo]
    finally:
        db.close()


def unfold_with(path: Path, block: Block, records: list[StoredRecord]) -> None:
    """Replace ``block`` in the journal at ``path`` with one encoding ``records`` (a changed block)."""
    changed = encode_block(records)
    db = sqlite3.connect(path)
    try:
        with db:
            db.execute(
                "UPDATE blocks SET last_seq = ?, prev = ?, hash = ?, prefixes = ?, payload = ? WHERE first_seq = ?",
                (changed.last_seq, changed.prev, changed.hash, changed.prefixes, changed.payload, block.first_seq),
            )
    finally:
        db.close()


def block_at(db: sqlite3.Connection, first_seq: int) -> Block:
    """The block whose first record is ``first_seq``, as stored."""
    row = db.execute(
        "SELECT first_seq, last_seq, prev, hash, prefixes, payload FROM blocks WHERE first_seq = ?", (first_seq,)
    ).fetchone()
    return Block(row[0], row[1], row[2], row[3], bytes(row[4]), bytes(row[5]))
