"""The journal's writer of compact blocks: each closed round's records folded into one block of
:mod:`controller.journal.compact` (issue 45 item 8).

A span of records is folded when it is closed and safe:

* closed: it runs from one snapshot (a round's start) to the next one, so a later round has
  started; the open round's records, after the newest snapshot, stay rows (a restart replays
  them);
* safe: its last record is at or before ``upto``, the last record the floor store says it holds
  (:func:`controller.journal.retention.floor_acknowledged`): a record the forwarder still has to
  send is never folded. A table that publishes to no floor folds every closed span.

Each span is folded in one SQLite transaction: the block and its kinds inserted and the rows
deleted together, so a crash or an error leaves either the rows or the block, never both and
never neither. Before the rows go, the block is decoded again and compared with the rows, field
by field, and the rows are verified: a block that would not show exactly what the rows show, or
rows that do not hash as they say, are not written, and the rows stay. Rows the writer itself
wrote and still holds in memory (:attr:`SqliteJournal.written <controller.journal.store.SqliteJournal.written>`)
are verified by being equal to those, field by field, without computing their hashes a second time
(issue 41 item 6: they were half of the hashes a simulated round computed); any other row (written
by another process, by the table before a restart, or changed in the file since it was written)
has its hash computed again with the journal's key, as before.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from controller.journal._written import RecordRow
from controller.journal.compact import (
    Block,
    BlockError,
    RecordFields,
    StoredRecord,
    decode_block,
    encode_rows,
    holds_rows,
)
from controller.journal.store import JournalError, SqliteJournal
from controller.journal.stored import BLOCK_KINDS, has_blocks

__all__ = ["FoldResult", "fold_closed_rounds"]


@dataclass(frozen=True, slots=True)
class FoldResult:
    """What one call folded: ``blocks`` spans, ``records`` records in them (0, 0: nothing to fold)."""

    blocks: int
    records: int


def closed_spans(db: sqlite3.Connection, upto: int | None, most: int | None = None) -> list[tuple[int, int]]:
    """(first, last) record of each closed span still kept as rows, oldest first: from one snapshot
    to the next, ending at or before ``upto`` (None: no limit). Looked for after the last block
    only (spans are folded in order), among at most ``most`` spans: the cost of a call does not
    grow with the journal."""
    (start,) = db.execute("SELECT coalesce(max(last_seq), 0) FROM blocks").fetchone()
    query = "SELECT seq FROM snapshots WHERE seq >= ? ORDER BY seq"
    args: list[int] = [start]
    if most is not None:
        query += " LIMIT ?"
        args.append(most + 1)
    marks = [int(s) for (s,) in db.execute(query, args)]
    spans = []
    for lo, hi in zip(marks, marks[1:], strict=False):
        if hi <= lo or (upto is not None and hi > upto):
            continue
        first, last, count = db.execute(
            "SELECT min(seq), max(seq), count(*) FROM records WHERE seq > ? AND seq <= ?", (lo, hi)
        ).fetchone()
        if count and first == lo + 1 and last == hi and count == hi - lo:  # every record of the span is a row
            spans.append((lo + 1, hi))
    return spans


_SPAN_ROWS = "SELECT seq, at, kind, event, data, prev, hash FROM records WHERE seq >= ? AND seq <= ? ORDER BY seq"


def _rows(db: sqlite3.Connection, first: int, last: int) -> list[RecordRow]:
    """Rows ``first`` to ``last`` as the file holds them (seq, at, kind, event, data, prev, hash).

    Their text decoded by SQLite's module itself (``str``), not by the journal's text factory (a
    Python call for each of a row's four texts, a sixth of a fold's reading): the same text for
    UTF-8, which is all a writer writes. A span holding text that is not UTF-8 (changed in the
    file) is read again as the journal reads it, its bytes kept for the fold to refuse and name."""
    kept = db.text_factory
    db.text_factory = str
    try:
        return db.execute(_SPAN_ROWS, (first, last)).fetchall()
    except sqlite3.OperationalError:  # "Could not decode to UTF-8 column ...": read again below
        pass
    finally:
        db.text_factory = kept
    return db.execute(_SPAN_ROWS, (first, last)).fetchall()


def _fields(rows: list[RecordRow]) -> list[RecordFields]:
    """Each row's fields as a block holds them (its ``event`` a bool, as :class:`StoredRecord`'s)."""
    return [(seq, at, kind, bool(event), data, prev, digest) for seq, at, kind, event, data, prev, digest in rows]


def _decodes_to(block: Block, rows: list[RecordFields], key: bytes | None, known: bool) -> bool:
    """Whether ``block`` decodes to ``rows`` and they verify: with ``known`` (the rows are as this
    writer wrote them, hashes included) read back without hashing, each record's fields and the
    block's ends compared (:func:`~controller.journal.compact.holds_rows`: the decoder's parser,
    no record made); else every record hashed again with ``key`` (:func:`decode_block` raises
    :class:`BlockError` naming a record that does not hash as it says)."""
    if not known:
        return decode_block(block, key) == [StoredRecord(*row) for row in rows]
    return holds_rows(block, rows)


def fold_closed_rounds(journal: SqliteJournal, upto: int | None, most: int | None = None) -> FoldResult:
    """Fold the closed spans of ``journal`` ending at or before record ``upto`` (None: every closed
    span) among the ``most`` spans after the last block (None: all of them), oldest first, each in
    a transaction of its own. Raises :class:`JournalError` when a transaction fails (that span's
    rows stay, and so do the spans after it; those folded before it stay folded); a span whose
    block would not decode to its rows (a row changed since it was written) is left as rows and
    named in the error once the others are folded."""
    if journal.readonly:
        raise ValueError("fold_closed_rounds: the journal must be opened for writing")
    blocks = records = 0
    refused: list[str] = []
    with journal.lock:
        if not has_blocks(journal.db):
            return FoldResult(0, 0)
        try:
            spans = closed_spans(journal.db, upto, most)
        except sqlite3.Error as exc:
            raise JournalError(f"{journal.path}: cannot read the rounds to fold: {exc}") from exc
        for first, last in spans:
            try:
                raw = _rows(journal.db, first, last)
                known = raw == journal.written.span(first, last)  # as written here: hashed when written
                rows = _fields(raw)
                block = encode_rows(rows)
                if not _decodes_to(block, rows, journal.key, known):
                    raise BlockError(f"records {first}..{last}: the block does not decode to its rows")
            except (ValueError, BlockError) as exc:  # BlockError is a JournalError, not a ValueError
                refused.append(str(exc))
                continue
            except sqlite3.Error as exc:
                raise JournalError(f"{journal.path}: cannot read records {first}..{last} to fold: {exc}") from exc
            try:
                with journal._txn():
                    journal.db.execute(
                        "INSERT INTO blocks VALUES (?, ?, ?, ?, ?, ?)",
                        (block.first_seq, block.last_seq, block.prev, block.hash, block.prefixes, block.payload),
                    )
                    journal.db.executemany(
                        f"INSERT INTO {BLOCK_KINDS} VALUES (?, ?)",
                        [(kind, block.first_seq) for kind in sorted({row[2] for row in rows})],
                    )
                    deleted = journal.db.execute(
                        "DELETE FROM records WHERE seq >= ? AND seq <= ?", (first, last)
                    ).rowcount
                    if deleted != len(rows):  # another writer changed the span meanwhile: keep the rows
                        raise sqlite3.OperationalError(f"{deleted} rows to delete, not {len(rows)}")
            except (sqlite3.Error, OSError) as exc:
                raise journal._write_error(exc) from exc
            journal.written.forget_through(last)
            blocks += 1
            records += len(rows)
    if refused:
        raise JournalError(f"{journal.path}: not folded (the rows kept): {'; '.join(refused)}")
    return FoldResult(blocks, records)
