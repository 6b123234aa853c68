"""Compact blocks of journal records (issue 45 item 8): a round's records stored in one block
decode to exactly the rows they replace (time, kind, event flag, data text, prev, hash: what
every reader shows and the floor chains to), keyed or not; a damaged or changed block is refused
with an error naming the record, or the block's records when no one record can be named.

The hashes here are computed from the journal's documented formula (docs/journal.md), not with
the journal's own function: a checker shares no code with what it checks.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import re
import sqlite3
import zlib
from pathlib import Path

import pytest

from controller.journal.compact import (
    MAX_TEXT,
    Block,
    BlockError,
    StoredRecord,
    decode_block,
    decode_hashed_if_right,
    encode_block,
    encode_rows,
    holds_rows,
)

BENCH = Path(__file__).parent / "bad_input" / "journals" / "bench.db"
KEY = b"k" * 32


def _hash(prev: str, seq: int, at: float, kind: str, event: bool, data: str, key: bytes | None) -> str:
    message = f"{prev}\n{seq}\n{at!r}\n{kind}\n{int(event)}\n{data}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest() if key else hashlib.sha256(message).hexdigest()


def _rows() -> list[StoredRecord]:
    db = sqlite3.connect(f"file:{BENCH}?mode=ro&immutable=1", uri=True)
    try:
        return [
            StoredRecord(seq, at, kind, bool(event), data, prev, digest)
            for seq, at, kind, event, data, prev, digest in db.execute(
                "SELECT seq, at, kind, event, data, prev, hash FROM records ORDER BY seq"
            )
        ]
    finally:
        db.close()


def _spans() -> list[list[StoredRecord]]:
    """The bench journal's records between each two snapshots (a round's start to the next's), and the tail."""
    db = sqlite3.connect(f"file:{BENCH}?mode=ro&immutable=1", uri=True)
    cuts = [s for (s,) in db.execute("SELECT seq FROM snapshots ORDER BY seq")]
    db.close()
    rows = _rows()
    bounds = [*cuts, rows[-1].seq]
    return [[r for r in rows if lo < r.seq <= hi] for lo, hi in zip(bounds, bounds[1:], strict=False)]


def _rechained(rows: list[StoredRecord], key: bytes) -> list[StoredRecord]:
    """``rows`` chained again with an HMAC key, from the same first ``prev``."""
    out, prev = [], rows[0].prev
    for r in rows:
        digest = _hash(prev, r.seq, r.at, r.kind, r.event, r.data, key)
        out.append(dataclasses.replace(r, prev=prev, hash=digest))
        prev = digest
    return out


def _round() -> list[StoredRecord]:
    """The records of a whole round (one with a RoundSettled record)."""
    return next(s for s in _spans() if any(r.kind == "RoundSettled" for r in s))


def _lines(block: Block) -> list[str]:
    return zlib.decompress(block.payload[1:]).decode().split("\n")


def _with_lines(block: Block, lines: list[str]) -> Block:
    return dataclasses.replace(block, payload=block.payload[:1] + zlib.compress("\n".join(lines).encode()))


def test_every_round_of_a_bench_journal_decodes_to_its_rows() -> None:
    spans = _spans()
    assert len(spans) >= 3 and all(spans)
    for rows in spans:
        block = encode_block(rows)
        assert (block.first_seq, block.last_seq, block.prev, block.hash) == (
            rows[0].seq,
            rows[-1].seq,
            rows[0].prev,
            rows[-1].hash,
        )
        assert decode_block(block) == rows  # every field, the data text byte for byte
        stored = sum(8 + len(r.kind) + 1 + len(r.data) + len(r.prev) + len(r.hash) for r in rows)
        assert block.size * 4 < stored, "a block is a fraction of the rows it replaces"


def test_a_keyed_round_decodes_with_its_key_only() -> None:
    rows = _rechained(_round(), KEY)
    block = encode_block(rows)
    assert decode_block(block, KEY) == rows
    first = rows[0]
    for wrong in (b"w" * 32, None):
        with pytest.raises(BlockError) as err:
            decode_block(block, wrong)
        assert str(err.value).startswith(f"record {first.seq} ({first.kind}): hash mismatch: the record was changed")
        assert ("(or the HMAC key is wrong)" in str(err.value)) == (wrong is not None)


@pytest.mark.parametrize("at", [0, 1, -1], ids=["first", "second", "last"])
def test_a_changed_record_is_named(at: int) -> None:
    """A record changed and the block compressed again (what someone without the key can do):
    the record is named by its number, whichever record of the block it is."""
    rows = _round()
    block = encode_block(rows)
    lines = _lines(block)
    i = at % len(lines)
    changed = lines[i].replace('"event_no":', '"event_no":9', 1) if '"event_no":' in lines[i] else lines[i] + " "
    assert changed != lines[i]
    lines[i] = changed
    with pytest.raises(
        BlockError, match=rf"^record {rows[i].seq} \({rows[i].kind}\): hash mismatch: the record was changed$"
    ):
        decode_block(_with_lines(block, lines))


def test_a_changed_round_record_is_named() -> None:
    rows = _round()
    block = encode_block(rows)
    lines = _lines(block)
    i = next(n for n, r in enumerate(rows) if r.kind == "RoundSettled")
    lines[i] = re.sub(r'"house_net":(-?\d+)', lambda m: f'"house_net":{int(m.group(1)) + 100}', lines[i], count=1)
    with pytest.raises(BlockError, match=rf"^record {rows[i].seq} \(RoundSettled\): hash mismatch"):
        decode_block(_with_lines(block, lines))


def _damaged(block: Block, how: str) -> Block:
    p = block.payload
    if how == "byte flipped":
        return dataclasses.replace(
            block, payload=p[: len(p) // 2] + bytes([p[len(p) // 2] ^ 0x40]) + p[len(p) // 2 + 1 :]
        )
    if how == "cut short":
        return dataclasses.replace(block, payload=p[:-20])
    if how == "bytes after the end":
        return dataclasses.replace(block, payload=p + b"\x00junk")
    if how == "format":
        return dataclasses.replace(block, payload=b"\x02" + p[1:])
    if how == "empty":
        return dataclasses.replace(block, payload=b"")
    if how == "prefixes short":
        return dataclasses.replace(block, prefixes=block.prefixes[:-1])
    if how == "record removed":
        return _with_lines(block, _lines(block)[:-1])
    if how == "record added":
        return _with_lines(block, [*_lines(block), _lines(block)[-1]])
    if how == "no tabs":
        return _with_lines(block, ["garbage", *_lines(block)[1:]])
    if how == "time rewritten":
        lines = _lines(block)
        at, rest = lines[0].split("\t", 1)
        return _with_lines(block, [f"{at}0\t{rest}" if "." in at else f"{at}.0\t{rest}", *lines[1:]])
    if how == "time not a number":
        lines = _lines(block)
        return _with_lines(block, ["noon\t" + lines[0].split("\t", 1)[1], *lines[1:]])
    if how == "not UTF-8":
        return dataclasses.replace(block, payload=p[:1] + zlib.compress(b"\xff\xfe\t" + zlib.decompress(p[1:])))
    if how == "last hash":
        return dataclasses.replace(block, hash="0" * 64)
    if how == "first prev":
        return dataclasses.replace(block, prev="0" * 64)
    raise AssertionError(how)


CASES = {
    "byte flipped": r"^records {a}\.\.{b}: the payload is unreadable \(.+\): the file is damaged$",
    "cut short": r"^records {a}\.\.{b}: the payload is cut short or has bytes after its end: the file is damaged$",
    "bytes after the end": r"^records {a}\.\.{b}: the payload is cut short or has bytes after its end",
    "format": r"^records {a}\.\.{b}: payload format 02, not 01: changed, or written by a newer tablectl$",
    "empty": r"^records {a}\.\.{b}: payload format nothing, not 01",
    "prefixes short": r"^records {a}\.\.{b}: \d+ bytes of hash prefixes for \d+ records: changed$",
    "record removed": r"^records {a}\.\.{b}: the payload holds \d+ records, not \d+: changed$",
    "record added": r"^records {a}\.\.{b}: the payload holds \d+ records, not \d+: changed$",
    "no tabs": r"^record {a}: not a record line \(time, kind, event, data\): changed$",
    "time rewritten": r"^record {a} \(\w+\): time '.+' is not as written: changed$",
    "time not a number": r"^record {a} \(\w+\): time 'noon' is not a number: changed$",
    "not UTF-8": r"^records {a}\.\.{b}: the payload is unreadable \(.+\): the file is damaged$",
    "last hash": r"^records {a}\.\.{b}: the last record's hash is not the block's: changed$",
    "first prev": r"^record {a} \(\w+\): hash mismatch: the record was changed$",
}


@pytest.mark.parametrize("how", list(CASES))
def test_a_damaged_block_is_refused_naming_its_records(how: str) -> None:
    rows = _round()
    bad = _damaged(encode_block(rows), how)
    with pytest.raises(BlockError, match=CASES[how].format(a=rows[0].seq, b=rows[-1].seq)):
        decode_block(bad)


UNHASHED = ("prefixes short", "time rewritten", "last hash", "first prev")
"""The damage only hashing finds: a read without the key (``check=False``) does not look for it."""


@pytest.mark.parametrize("how", [h for h in CASES if h not in UNHASHED])
def test_a_block_read_unchecked_is_parsed_as_strictly(how: str) -> None:
    rows = _round()
    bad = _damaged(encode_block(rows), how)
    with pytest.raises(BlockError, match=CASES[how].format(a=rows[0].seq, b=rows[-1].seq)):
        decode_block(bad, check=False)


def test_a_block_read_unchecked_hashes_nothing_but_keeps_its_last_hash() -> None:
    rows = _round()
    read = decode_block(_damaged(encode_block(rows), "first prev"), b"not the key", check=False)
    assert [(r.seq, r.at, r.kind, r.event, r.data) for r in read] == [
        (r.seq, r.at, r.kind, r.event, r.data) for r in rows
    ]
    assert [r.hash for r in read] == [""] * (len(rows) - 1) + [rows[-1].hash]


@pytest.mark.parametrize("how", list(CASES))
def test_a_block_read_hashed_if_right_is_parsed_as_strictly_and_keeps_no_hash_it_cannot_trust(how: str) -> None:
    """What a reader without the verdict takes (a journal without a key read unchecked): damage
    only hashing finds leaves the records as an unhashed read gives them; the rest is refused as
    by an unhashed read."""
    rows = _round()
    bad = _damaged(encode_block(rows), how)
    if how in UNHASHED:
        assert decode_hashed_if_right(bad) == decode_block(bad, check=False)
    else:
        with pytest.raises(BlockError, match=CASES[how].format(a=rows[0].seq, b=rows[-1].seq)):
            decode_hashed_if_right(bad)


@pytest.mark.parametrize("at", [0, 1, -1], ids=["first", "second", "last"])
def test_a_block_read_hashed_if_right_keeps_every_hash_or_none(at: int) -> None:
    plain, keyed = _round(), _rechained(_round(), KEY)
    assert decode_hashed_if_right(encode_block(plain)) == plain
    assert decode_hashed_if_right(encode_block(keyed), KEY) == keyed
    for rows, key in ((keyed, None), (keyed, b"w" * 32), (plain, KEY)):  # not the key it was written with
        block = encode_block(rows)
        assert decode_hashed_if_right(block, key) == decode_block(block, check=False)
    block = encode_block(plain)
    lines = _lines(block)
    i = at % len(lines)
    lines[i] += " "  # a record changed (and the block compressed again)
    changed = _with_lines(block, lines)
    read = decode_hashed_if_right(changed)
    assert read == decode_block(changed, check=False)
    assert [r.hash for r in read] == [""] * (len(plain) - 1) + [plain[-1].hash]


@pytest.mark.parametrize("how", ["none", *CASES])
def test_whether_a_block_holds_its_rows_is_what_reading_it_back_unchecked_says(how: str) -> None:
    """The fold's check of the block it made (``holds_rows``, no record made) answers as reading
    the block back unchecked and comparing each record's fields and the block's ends does: the
    same error for a block the reader refuses, False for one that reads as other records."""
    rows = _round()
    fields = [dataclasses.astuple(r) for r in rows]
    block = encode_rows(fields)
    assert block == encode_block(rows)
    bad = block if how == "none" else _damaged(block, how)
    try:
        back = decode_block(bad, check=False)
    except BlockError as exc:
        with pytest.raises(BlockError, match=f"^{re.escape(str(exc))}$"):
            holds_rows(bad, fields)
        return
    expected = (
        [(r.seq, r.at, r.kind, r.event, r.data) for r in back] == [f[:5] for f in fields]
        and (back[0].prev, back[-1].hash) == (rows[0].prev, rows[-1].hash)
        and bad.prefixes == block.prefixes
    )
    assert holds_rows(bad, fields) is expected
    assert expected is (how in ("none", "time rewritten"))  # a time written otherwise reads as the same number
    other = [*fields[:-1], (*fields[-1][:4], fields[-1][4] + " ", *fields[-1][5:])]  # a row the block does not hold
    assert not holds_rows(bad, other)


def test_a_payload_that_inflates_without_end_is_refused_in_bounded_memory() -> None:
    rows = _round()
    block = encode_block(rows)
    deflate = zlib.compressobj()
    chunk = b"x" * 2**20
    bomb = b"".join(deflate.compress(chunk) for _ in range(MAX_TEXT // len(chunk) + 2)) + deflate.flush()
    for check in (True, False):
        with pytest.raises(BlockError, match=r"decompresses to more than \d+ bytes: changed$"):
            decode_block(dataclasses.replace(block, payload=block.payload[:1] + bomb), check=check)


def test_only_a_chain_is_a_block() -> None:
    rows = _round()
    with pytest.raises(ValueError, match=f"record {rows[2].seq} does not follow record {rows[0].seq}"):
        encode_block([rows[0], *rows[2:]])
    with pytest.raises(ValueError, match="at least one record"):
        encode_block([])
    with pytest.raises(ValueError, match=f"record {rows[0].seq}: a kind or data text a block line cannot hold"):
        encode_block([dataclasses.replace(rows[0], kind="Bad\tKind")])
