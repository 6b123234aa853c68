"""A compact block of journal records: a finished round's records stored in one row instead of
one row each (issue 45 item 8).

A record's row spends most of its bytes on what can be derived or shared: its ``prev`` is the
record before's hash, its ``hash`` is computed from the record (64 hex characters each, 128 of
a command result's 300 bytes), and its data repeats the same keys as every record of its kind.
A block keeps what cannot be derived, compressed together: each record's time, kind, whether it
was an event and its data text, exactly the text its hash covers, so a decoded record hashes
as the stored one did and every reader shows the same bytes. Beside the compressed text a
block keeps the hash the block follows (``prev``), its last record's full hash (``hash``: what
the next record, a snapshot or the floor chains to) and the first 4 bytes of each record's
hash, so a changed record is named by its number, not only its block.

This module is the codec alone: :func:`encode_block` (:func:`encode_rows`), :func:`decode_block`,
:func:`decode_hashed_if_right` and :func:`holds_rows`, pure functions on the record's stored fields. It does not read or
write a journal file. :func:`parsed_once` lets a reader that reads the same blocks again and again
(the simulation's checks at a seed's end) have each block parsed once.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from enum import Enum

from controller.journal._files import JournalError
from controller.journal._hashing import record_hash

__all__ = [
    "FORMAT",
    "Block",
    "BlockError",
    "StoredRecord",
    "decode_block",
    "RecordFields",
    "decode_hashed_if_right",
    "encode_block",
    "encode_rows",
    "holds_rows",
    "parsed_once",
]

FORMAT = 1
"""The first byte of a block's payload: the layout of the text compressed after it."""

PREFIX_BYTES = 4
"""How much of each record's hash a block keeps to name a changed record."""

MAX_TEXT = 64 * 2**20
"""The most a block's text may decompress to: a damaged or hostile payload cannot fill memory."""


class BlockError(JournalError):
    """A block that cannot be decoded, or whose records do not hash as it says: the message
    names the records (``records A..B``) or the one record (``record N (Kind)``) and why."""


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """One record as a ``records`` row stores it (``data``: the canonical JSON text it is hashed as)."""

    seq: int
    at: float
    kind: str
    event: bool
    data: str
    prev: str
    hash: str


@dataclass(frozen=True, slots=True)
class Block:
    """Records ``first_seq`` to ``last_seq``, following the record (or anchor) whose hash is ``prev``."""

    first_seq: int
    last_seq: int
    prev: str
    hash: str
    prefixes: bytes
    payload: bytes

    @property
    def size(self) -> int:
        """The bytes this block stores (its text and blobs)."""
        return len(self.prev) + len(self.hash) + len(self.prefixes) + len(self.payload)


def encode_block(records: Sequence[StoredRecord]) -> Block:
    """The block of ``records`` (consecutive, each chained to the one before, as stored)."""
    return encode_rows([(r.seq, r.at, r.kind, r.event, r.data, r.prev, r.hash) for r in records])


RecordFields = tuple[int, float, str, bool, str, str, str]
"""A record's stored fields in :class:`StoredRecord`'s order: seq, at, kind, event, data, prev, hash."""


def encode_rows(rows: Sequence[RecordFields]) -> Block:
    """:func:`encode_block` of records given as their fields (the fold's rows: no
    :class:`StoredRecord` made for each)."""
    if not rows:
        raise ValueError("a block holds at least one record")
    lines = []
    prefixes = bytearray()
    for before, (seq, at, kind, event, data, prev, digest) in zip((None, *rows), rows, strict=False):
        if before is not None and (seq != before[0] + 1 or prev != before[6]):
            raise ValueError(f"record {seq} does not follow record {before[0]}")
        if not isinstance(at, float):
            raise ValueError(f"record {seq}: time {at!r} is not a number a block line can hold")
        if "\t" in kind or "\n" in kind or "\n" in data:  # not any(): a generator a record
            raise ValueError(f"record {seq}: a kind or data text a block line cannot hold")
        lines.append(f"{at!r}\t{kind}\t{int(event)}\t{data}")
        prefixes += bytes.fromhex(digest)[:PREFIX_BYTES]
    text = "\n".join(lines).encode("utf-8", "surrogatepass")
    first, last = rows[0], rows[-1]
    return Block(first[0], last[0], first[5], last[6], bytes(prefixes), bytes([FORMAT]) + zlib.compress(text, 9))


def decode_block(block: Block, key: bytes | None = None, *, check: bool = True) -> list[StoredRecord]:
    """The records of ``block``, each hashed again (with ``key``: HMAC-SHA-256, as the journal
    was written) and checked against the block's hash prefixes and its last hash. Raises
    :class:`BlockError` naming the first record (or the block) that is unreadable or changed.

    ``check=False`` is for a reader without the journal's key (what it reads is verified where
    it matters, by ``verify`` with the key): the block is parsed as strictly (a payload that is
    unreadable, too large or not record lines still raises :class:`BlockError`) but no record is
    hashed, so each carries no hash of its own (``""``) except the last, the block's."""
    return _parse(block, key, _Hashing.CHECK if check else _Hashing.SKIP)


def decode_hashed_if_right(block: Block, key: bytes | None = None) -> list[StoredRecord]:
    """The records of ``block`` parsed once, each with its hash (computed with ``key``) if every
    record hashes as the block says; if one does not (another key, or a changed record), as
    :func:`decode_block` with ``check=False`` gives them: no hash but the block's last. For a
    reader that takes the hashes where they can be had and judges nothing (``verify`` does); an
    unreadable block raises :class:`BlockError` as with ``check=False``."""
    return _parse(block, key, _Hashing.IF_RIGHT)


class _Hashing(Enum):
    """What :func:`_parse` does with the records' hashes."""

    CHECK = "check"
    """Computed and checked: a record that does not hash as the block says raises."""
    IF_RIGHT = "if right"
    """Computed; if one does not hash as the block says, none kept (as :attr:`SKIP`)."""
    SKIP = "skip"
    """Not computed: ``""``, except the block's last record's."""


_ParseKey = tuple[Block, bytes | None, _Hashing]
_once: tuple[dict[_ParseKey, tuple[StoredRecord, ...]], dict[bytes, list[str]]] | None = None
"""Within :func:`parsed_once`: each block's records by how it was parsed, and each payload's
record lines (None: nothing kept, every block parsed at each read)."""


@contextmanager
def parsed_once() -> Iterator[None]:
    """Within: a block read again (the same fields, the same key, hashed the same way) gives the
    records its first parse gave, and a payload decompressed once gives its lines to every way
    of parsing it, instead of being parsed again (a parse is a pure function of those, and a
    record is immutable: the same records). A block that did not parse (an error raised) is
    parsed again at each read. For one thread that reads a journal several times over and then
    lets go of it: the simulation's checks at a seed's end (the cards', the model's and ``journal
    verify``'s reads of the same blocks) and the table started again after a simulated crash."""
    global _once
    if _once is not None:  # nested: the outer scope keeps them
        yield
        return
    _once = ({}, {})
    try:
        yield
    finally:
        _once = None


def _parse(block: Block, key: bytes | None, hashing: _Hashing) -> list[StoredRecord]:
    """:func:`_parse_block`, or what it gave for the same block within :func:`parsed_once`."""
    once = _once
    if once is None:
        return _parse_block(block, key, hashing)
    parsed = once[0].get((block, key, hashing))
    if parsed is None:
        parsed = once[0][(block, key, hashing)] = tuple(_parse_block(block, key, hashing))
    return list(parsed)


def _parse_block(block: Block, key: bytes | None, hashing: _Hashing) -> list[StoredRecord]:
    """The one parser of a block, for every :class:`_Hashing`: the payload decompressed and each
    line parsed once, whether the hashes are checked, taken if right, or skipped."""
    count = _count(block)
    check = hashing is _Hashing.CHECK
    hashed = hashing is not _Hashing.SKIP
    if hashed and len(block.prefixes) != count * PREFIX_BYTES:
        if check:
            raise BlockError(
                f"{_span(block)}: {len(block.prefixes)} bytes of hash prefixes for {count} records: changed"
            )
        hashed = False
    lines = _payload_lines(block, count)
    if not hashed:
        return _unhashed(block, lines, [])
    out, right = _hashed(block, lines, key, check)
    return out if right else _unhashed(block, lines, out)


def holds_rows(block: Block, rows: Sequence[RecordFields]) -> bool:
    """Whether ``block`` holds ``rows`` as :func:`decode_block` with ``check=False`` reads it (the
    same parser: a payload that is unreadable, too large or not record lines raises
    :class:`BlockError` as there, every line read before any is compared): each record's number,
    time, kind, whether an event and data, the block's ``prev`` and last hash those of the first
    and last row, and its hash prefixes those of the rows' hashes. No record is made: the fold's
    check of the block it made, before the rows go."""
    lines = _payload_lines(block, _count(block))
    read = [(seq, at, kind, event, data) for seq, _, at, kind, event, data in _records(block, lines, 0)]
    return (
        len(read) == len(rows)
        and all(fields == row[:5] for fields, row in zip(read, rows, strict=True))
        and (block.prev, block.hash) == (rows[0][5], rows[-1][6])
        and block.prefixes == b"".join(bytes.fromhex(row[6])[:PREFIX_BYTES] for row in rows)
    )


def _span(block: Block) -> str:
    return f"records {block.first_seq}..{block.last_seq}"


def _count(block: Block) -> int:
    """How many records ``block`` says it holds (at least one, else :class:`BlockError`)."""
    count = block.last_seq - block.first_seq + 1
    if count < 1:
        raise BlockError(f"{_span(block)}: a block of no records: changed")
    return count


def _payload_lines(block: Block, count: int) -> list[str]:
    """The record lines of ``block``'s payload (:func:`_lines`), ``count`` of them, else :class:`BlockError`."""
    span = _span(block)
    once = _once
    if once is None:
        lines = _lines(block.payload, span)
    else:
        got = once[1].get(block.payload)
        lines = once[1][block.payload] = _lines(block.payload, span) if got is None else got
    if len(lines) != count:
        raise BlockError(f"{span}: the payload holds {len(lines)} records, not {count}: changed")
    return lines


def _hashed(block: Block, lines: list[str], key: bytes | None, check: bool) -> tuple[list[StoredRecord], bool]:
    """The records of ``block``'s ``lines`` each with its hash, and whether all are right: if one
    is not (its time not as written, its hash not the block's prefix, the last not the block's
    hash), with ``check`` :class:`BlockError` naming it, else the records up to it and False."""
    out: list[StoredRecord] = []
    prev = block.prev
    prefixes = block.prefixes
    for seq, raw_at, at, kind, event, data in _records(block, lines, 0):
        problem = ""
        if repr(at) != raw_at:
            problem = f"record {seq} ({kind[:40]}): time {raw_at[:40]!r} is not as written: changed"
        else:
            digest = record_hash(prev, seq, at, kind, event, data, key)
            i = (seq - block.first_seq) * PREFIX_BYTES
            if bytes.fromhex(digest)[:PREFIX_BYTES] != prefixes[i : i + PREFIX_BYTES]:
                wrong = " (or the HMAC key is wrong)" if key else ""
                problem = f"record {seq} ({kind[:40]}): hash mismatch: the record was changed{wrong}"
        if problem and check:
            raise BlockError(problem)
        if problem:
            return out, False
        out.append(StoredRecord(seq, at, kind, event, data, prev, digest))
        prev = digest
    if prev == block.hash:
        return out, True
    if check:
        raise BlockError(
            f"records {block.first_seq}..{block.last_seq}: the last record's hash is not the block's: changed"
        )
    return out, False


def _unhashed(block: Block, lines: list[str], parsed: list[StoredRecord]) -> list[StoredRecord]:
    """The records of ``block``'s ``lines`` as a read without hashing gives them: no hash of their
    own (``""``) but the block's last; those ``parsed`` already (the first) taken as they are."""
    last = block.last_seq
    out = [
        replace(r, prev=block.prev if n == 0 else "", hash=block.hash if r.seq == last else "")
        for n, r in enumerate(parsed)
    ]
    prev = block.prev if not out else ""
    for seq, _, at, kind, event, data in _records(block, lines, len(out)):
        out.append(StoredRecord(seq, at, kind, event, data, prev, block.hash if seq == last else ""))
        prev = ""
    return out


def _records(block: Block, lines: list[str], start: int) -> Iterator[tuple[int, str, float, str, bool, str]]:
    """Each record line of ``block`` from ``start`` on taken apart as it is reached (a bad line
    raises :class:`BlockError` then): its number, its time as written and as a number, its kind,
    whether it is an event, its data text."""
    for i in range(start, len(lines)):
        seq = block.first_seq + i
        fields = lines[i].split("\t", 3)
        if len(fields) != 4 or fields[2] not in ("0", "1"):
            raise BlockError(f"record {seq}: not a record line (time, kind, event, data): changed")
        raw_at, kind, event, data = fields
        try:
            at = float(raw_at)
        except ValueError:
            raise BlockError(f"record {seq} ({kind[:40]}): time {raw_at[:40]!r} is not a number: changed") from None
        yield seq, raw_at, at, kind, event == "1", data


def _lines(payload: bytes, span: str) -> list[str]:
    """The record lines of a block's ``payload`` (its format byte, then its compressed text),
    decompressed to at most :data:`MAX_TEXT` bytes."""
    if not payload or payload[0] != FORMAT:
        head = payload[:1].hex() or "nothing"
        raise BlockError(f"{span}: payload format {head}, not {FORMAT:02x}: changed, or written by a newer tablectl")
    try:
        inflate = zlib.decompressobj()
        raw = inflate.decompress(payload[1:], MAX_TEXT)
        if inflate.unconsumed_tail:
            raise BlockError(f"{span}: the payload decompresses to more than {MAX_TEXT} bytes: changed")
        if not inflate.eof or inflate.unused_data:
            raise BlockError(f"{span}: the payload is cut short or has bytes after its end: the file is damaged")
        text = raw.decode("utf-8", "surrogatepass")
    except (zlib.error, UnicodeError) as exc:
        raise BlockError(f"{span}: the payload is unreadable ({exc}): the file is damaged") from exc
    return text.split("\n")
