"""The one reader of a journal file's chained records, from its rows and its compact blocks alike
(issue 45 item 8).

A journal keeps each record as a ``records`` row, or, once its round is closed, inside a block of
the ``blocks`` table (:mod:`controller.journal.compact`). Every reader of the chained records goes
through this module, so none knows or cares how a record is stored: the functions take the
SQLite connection and yield :class:`~controller.journal.compact.StoredRecord` values in record
order, whatever the records hold.

A block is decoded with the journal's HMAC key and each of its records checked against the
block's hash prefixes (a changed record raises :class:`~controller.journal.compact.BlockError`
naming it). Read unchecked (``checked=False``), a block is parsed once, as strictly (an
unreadable block raises the same error, naming it), and its records hashed only where the hashes
can be had: with the key when one is given, or without one when the journal is known to have
none (its ``meta_hash`` is a plain SHA-256); each record then carries its hash if all of the
block's match, as from its row. A keyed journal read without its key is not hashed at all, as
its rows are read without the key: the records inside a block carry no hash of their own
(``""``), except the block's last one. Only readers of what is verified elsewhere read
unchecked (``verify`` with the key judges the file).

A row is yielded exactly as SQLite returns it (a damaged file's row may hold a text where a
number belongs): the checkers judge it, not this reader.
"""

from __future__ import annotations

import heapq
import sqlite3
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from functools import cache, partial
from operator import itemgetter

from controller.journal._hashing import meta_hash
from controller.journal.compact import Block, StoredRecord, decode_block, decode_hashed_if_right

__all__ = [
    "every_block",
    "hash_at",
    "last_record",
    "read_records",
    "select_records",
    "seq_bounds",
]

BLOCK_KINDS = "block_kinds"
"""The table naming the kinds of record each block holds (a block's summary: a reader looking for
a few kinds decodes only the blocks that hold them)."""

_ROW_FIELDS = "seq, at, kind, event, data, prev, hash"


def has_blocks(db: sqlite3.Connection) -> bool:
    """Whether the file has a ``blocks`` table (schema version 4 on)."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'blocks'").fetchone() is not None


def _literal(kind: str) -> str:
    return "'" + kind.replace("'", "''") + "'"


def _kind_terms(kinds: Collection[str] | None, index_kinds: Collection[str] | None) -> str:
    """The kinds condition, written with SQL literals: SQLite uses a partial index (the link
    records', ``records_links``) only when the query holds the index's condition as written, with
    the same literals (``index_kinds``), not with parameters. Both ways the index has been written
    are held (``(kind = ... OR ...)``, and ``kind IN (...)`` in a journal no writer has opened
    since 2026-12-07), so either is used."""
    terms = ""
    if index_kinds is not None:
        literals = [_literal(k) for k in index_kinds]
        terms += f"kind IN ({', '.join(literals)}) AND "
        terms += "(" + " OR ".join(f"kind = {k}" for k in literals) + ") AND "
    if kinds is not None:
        terms += (
            f"kind = {_literal(next(iter(kinds)))} AND "
            if len(kinds) == 1
            else f"kind IN ({', '.join(_literal(k) for k in kinds)}) AND "
        )
    return terms


@dataclass(frozen=True, slots=True)
class _Span:
    """The records one read wants: after ``after``, up to ``until`` (None: the last), only of
    ``kinds`` (None: all), oldest first or newest first."""

    after: int
    until: int | None
    kinds: Collection[str] | None
    newest_first: bool

    def holds(self, record: StoredRecord) -> bool:
        """Whether ``record`` is one of the span's."""
        return (
            record.seq > self.after
            and (self.until is None or record.seq <= self.until)
            and (self.kinds is None or record.kind in self.kinds)
        )


def _rows(
    db: sqlite3.Connection, span: _Span, limit: int | None, index_kinds: Collection[str] | None = None
) -> Iterator[StoredRecord]:
    query = f"SELECT {_ROW_FIELDS} FROM records WHERE {_kind_terms(span.kinds, index_kinds)}seq > ?"
    args: list[object] = [span.after]
    if span.until is not None:
        query += " AND seq <= ?"
        args.append(span.until)
    query += " ORDER BY seq" + (" DESC" if span.newest_first else "")
    if limit is not None:
        query += " LIMIT ?"
        args.append(limit)
    for seq, at, kind, event, data, prev, digest in db.execute(query, args):
        yield StoredRecord(seq, at, kind, bool(event) if isinstance(event, int) else event, data, prev, digest)


def _blocks(db: sqlite3.Connection, span: _Span) -> Iterator[Block]:
    query = "SELECT first_seq, last_seq, prev, hash, prefixes, payload FROM blocks WHERE last_seq > ?"
    args: list[object] = [span.after]
    if span.until is not None:
        query += " AND first_seq <= ?"
        args.append(span.until)
    if (kinds := span.kinds) is not None:
        query += (
            f" AND first_seq IN (SELECT first_seq FROM {BLOCK_KINDS} WHERE kind IN ({', '.join('?' * len(kinds))}))"
        )
        args.extend(kinds)
    query += " ORDER BY first_seq" + (" DESC" if span.newest_first else "")
    for first, last, prev, digest, prefixes, payload in db.execute(query, args):
        yield Block(first, last, prev, digest, bytes(prefixes), bytes(payload))


def every_block(db: sqlite3.Connection) -> Iterator[Block]:
    """Every compact block of the journal ``db``, in order, not decoded (whatever its numbers)."""
    for first, last, prev, digest, prefixes, payload in db.execute(
        "SELECT first_seq, last_seq, prev, hash, prefixes, payload FROM blocks ORDER BY first_seq"
    ):
        yield Block(first, last, prev, digest, bytes(prefixes), bytes(payload))


def _decoder(
    db: sqlite3.Connection, key: bytes | None, checked: bool, hashes: bool = True
) -> Callable[[Block], list[StoredRecord]]:
    """How one read decodes the blocks of the journal ``db`` (see the module's text for
    ``checked``). Unchecked, the records are hashed with ``key`` if given; without one, only if
    the journal is known to have no key (looked up once, at the read's first block): a journal
    without a key still gets each record's hash (SHA-256, computed again, and the block's hash
    prefixes say they are right), so that what the floor's outbox reads of a folded round is what
    it read of its rows; a keyed journal's blocks are parsed and nothing hashed. Without
    ``hashes``: parsed, nothing hashed, whatever ``checked`` and ``key`` say."""
    if not hashes:
        return partial(decode_block, check=False)
    if checked:
        return partial(decode_block, key=key)
    if key is not None:
        return partial(decode_hashed_if_right, key=key)
    unkeyed = cache(partial(_known_unkeyed, db))

    def unchecked(block: Block) -> list[StoredRecord]:
        return decode_hashed_if_right(block) if unkeyed() else decode_block(block, check=False)

    return unchecked


def _known_unkeyed(db: sqlite3.Connection) -> bool:
    """Whether the journal is known to have no HMAC key: its ``meta_hash`` is the plain SHA-256
    of its ``meta`` (a keyed journal's is an HMAC). A ``meta`` without one, or unreadable, tells
    nothing: the blocks are then hashed as if without a key (kept only if they match)."""
    try:
        meta = {str(k): str(v) for k, v in db.execute("SELECT key, value FROM meta")}
    except sqlite3.DatabaseError:
        return True
    stored = meta.get("meta_hash")
    return stored is None or stored == meta_hash(meta)


def read_records(
    db: sqlite3.Connection,
    after: int = 0,
    until: int | None = None,
    *,
    kinds: Collection[str] | None = None,
    key: bytes | None = None,
    checked: bool = True,
    newest_first: bool = False,
    limit: int | None = None,
    index_kinds: Collection[str] | None = None,
    hashes: bool = True,
) -> Iterator[StoredRecord]:
    """The records after ``after`` (up to ``until``; only of ``kinds``), oldest first (or newest
    first), at most ``limit`` of them. Rows are read as the iteration goes (SQLite's errors on a
    damaged file are raised by the iteration); a block is decoded when reached. ``index_kinds``:
    the kinds of the partial index the rows are to be found by (a superset of ``kinds``).
    ``hashes=False``: a block's records are parsed as strictly but none is hashed (each without a
    hash of its own, as ``checked=False`` without a key gives them), for a reader of their content
    alone once the chain is verified (``verify`` after its walk)."""
    span = _Span(after, until, kinds, newest_first)
    rows = _rows(db, span, limit, index_kinds)
    if not has_blocks(db):
        yield from rows
        return
    blocked = _from_blocks(db, span, key, checked, hashes)
    merged = heapq.merge(rows, blocked, key=lambda r: r.seq, reverse=newest_first)
    for n, record in enumerate(merged):
        if limit is not None and n >= limit:
            return
        yield record


def _from_blocks(
    db: sqlite3.Connection, span: _Span, key: bytes | None, checked: bool, hashes: bool = True
) -> Iterator[StoredRecord]:
    decode = _decoder(db, key, checked, hashes)
    for block in list(_blocks(db, span)):
        records = decode(block)
        if span.newest_first:
            records.reverse()
        yield from filter(span.holds, records)


def select_records(
    db: sqlite3.Connection,
    columns: str,
    where: str,
    *,
    key: bytes | None = None,
    checked: bool = True,
    newest_first: bool = False,
) -> Iterator[tuple[object, ...]]:
    """``(seq, *columns)`` of each record that meets ``where``, oldest first (or newest first):
    ``columns`` and ``where`` are SQL on a record's ``seq``, ``at``, ``kind``, ``event`` and
    ``data`` (literals, no parameters), so that a reader's filter and what it takes of each record
    (``json_extract`` of its data, say) are kept by SQLite, whether the record is a row or in a
    block. The rows are read as the iteration goes; a block is decoded when reached (``key`` and
    ``checked`` as for :func:`read_records`) and its records queried by the same SQL."""
    order = " ORDER BY seq" + (" DESC" if newest_first else "")
    rows = db.execute(f"SELECT seq, {columns} FROM records WHERE {where}{order}")
    if not has_blocks(db):
        yield from rows
        return
    decode = _decoder(db, key, checked)
    blocked = (
        row
        for block in _blocks(db, _Span(0, None, None, newest_first))
        for row in _select_block(db, decode(block), columns, where, order)
    )
    yield from heapq.merge(rows, blocked, key=itemgetter(0), reverse=newest_first)


_VALUES_AT_ONCE = 150
"""Records of a block given to SQLite in one query (5 parameters each: within SQLite's least
limit of 999 parameters)."""


def _select_block(
    db: sqlite3.Connection, records: list[StoredRecord], columns: str, where: str, order: str
) -> Iterator[tuple[object, ...]]:
    """:func:`select_records` of a decoded block's ``records``: the same SQL (and ``order``), on a
    ``records`` table made of them."""
    starts = range(0, len(records), _VALUES_AT_ONCE)
    for i in reversed(starts) if order.endswith("DESC") else starts:
        part = records[i : i + _VALUES_AT_ONCE]
        values = ", ".join(["(?, ?, ?, ?, ?)"] * len(part))
        args = [v for r in part for v in (r.seq, r.at, r.kind, int(r.event), r.data)]
        query = f"WITH records (seq, at, kind, event, data) AS (VALUES {values}) SELECT seq, {columns} FROM records"
        yield from db.execute(f"{query} WHERE {where}{order}", args)


def record_at(db: sqlite3.Connection, seq: int, key: bytes | None = None, checked: bool = True) -> StoredRecord | None:
    """Record ``seq`` (None: no such record)."""
    return next(read_records(db, seq - 1, seq, key=key, checked=checked), None)


def hash_at(db: sqlite3.Connection, seq: int, key: bytes | None = None, checked: bool = True) -> str | None:
    """Record ``seq``'s stored hash (None: no such record; ``""``: inside a block read unchecked).
    A block's last record's hash is read without decoding the block."""
    row = db.execute("SELECT hash FROM records WHERE seq = ?", (seq,)).fetchone()
    if row is not None:
        return str(row[0])
    if not has_blocks(db):
        return None
    last = db.execute("SELECT hash FROM blocks WHERE last_seq = ?", (seq,)).fetchone()
    if last is not None:
        return str(last[0])
    record = record_at(db, seq, key, checked)
    return record.hash if record is not None else None


def last_record(db: sqlite3.Connection, blocks: bool | None = None) -> tuple[int, str] | None:
    """(seq, hash) of the last record, or None (no record kept). ``blocks``: whether the file has
    a ``blocks`` table, when the caller knows (the writer, at every commit); None: looked up."""
    row = db.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
    if has_blocks(db) if blocks is None else blocks:
        block = db.execute("SELECT last_seq, hash FROM blocks ORDER BY first_seq DESC LIMIT 1").fetchone()
        if block is not None and (row is None or block[0] > row[0]):
            return block[0], block[1]
    return (row[0], row[1]) if row is not None else None


def seq_bounds(db: sqlite3.Connection) -> tuple[int, int] | None:
    """(first, last) record number kept, or None (no record kept)."""
    lo, hi = db.execute("SELECT MIN(seq), MAX(seq) FROM records").fetchone()
    if has_blocks(db):
        b_lo, b_hi = db.execute("SELECT MIN(first_seq), MAX(last_seq) FROM blocks").fetchone()
        if b_lo is not None:
            lo, hi = (b_lo, b_hi) if lo is None else (min(lo, b_lo), max(hi, b_hi))
    return (lo, hi) if lo is not None else None
