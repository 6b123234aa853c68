"""``parsed_once`` (controller/journal/compact.py): within it a block read again gives what its
first parse gave, without parsing it again; what it gives is what a parse outside it gives,
for each way of hashing, each key, and a block changed in any field (issue 41 item 6: the
simulation's checks at a seed's end read the same blocks four times)."""

from __future__ import annotations

import dataclasses

import pytest
from test_journal_compact import KEY, _lines, _rechained, _round, _with_lines

from controller.journal import compact
from controller.journal.compact import Block, BlockError, StoredRecord, parsed_once

decode_block, decode_hashed_if_right, encode_block = (
    compact.decode_block,
    compact.decode_hashed_if_right,
    compact.encode_block,
)


def _reads(block: Block, key: bytes | None) -> list[list[StoredRecord] | str]:
    """Every way of reading ``block`` with ``key``: its records, or the error's text."""
    out: list[list[StoredRecord] | str] = []
    for read in (
        lambda: decode_block(block, key),
        lambda: decode_block(block, key, check=False),
        lambda: decode_hashed_if_right(block, key),
    ):
        try:
            out.append(read())
        except BlockError as exc:
            out.append(str(exc))
    return out


def _changed(block: Block) -> list[Block]:
    """``block`` with one field changed at a time (a record's text, its prefixes, its ends)."""
    lines = _lines(block)
    lines[1] = lines[1] + " "
    return [
        _with_lines(block, lines),
        dataclasses.replace(block, prefixes=bytes(4) + block.prefixes[4:]),
        dataclasses.replace(block, hash="0" * 64),
        dataclasses.replace(block, prev="0" * 64),
    ]


def test_within_parsed_once_every_read_gives_what_it_gives_outside() -> None:
    """Each way of reading (checked, unchecked, hashed if right), with the key, another key and
    none, of the block and of the block changed in each field, read in turn in one scope: the
    records (hashes or none) or the error of a read outside. A scope that kept a block by its
    payload alone, or by the block alone, gives another way's records or a changed block's."""
    plain = encode_block(_round())
    keyed = encode_block(_rechained(_round(), KEY))
    blocks = [plain, *_changed(plain), keyed, *_changed(keyed)]
    keys = (None, KEY, b"w" * 32)
    outside = {(i, key): _reads(block, key) for i, block in enumerate(blocks) for key in keys}
    assert any(isinstance(r, str) for reads in outside.values() for r in reads)  # errors among them
    with parsed_once():
        for _ in range(2):  # each read again, the second time from what the first kept
            for i, block in enumerate(blocks):
                for key in keys:
                    assert _reads(block, key) == outside[(i, key)], (i, key)


def test_within_parsed_once_a_block_is_decompressed_once_and_a_read_is_the_reader_s_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The payload's lines are made once for every way of reading it; a reader that changes the
    list it was given changes nothing the next reader gets; outside the scope nothing is kept."""
    block = encode_block(_round())
    made: list[bytes] = []
    lines = compact._lines

    def counted(payload: bytes, span: str) -> list[str]:
        made.append(payload)
        return lines(payload, span)

    monkeypatch.setattr(compact, "_lines", counted)
    with parsed_once():
        first = decode_block(block)
        first.clear()
        assert decode_block(block) == decode_block(encode_block(_round())) != []
        unchecked = decode_block(block, check=False)
        assert unchecked[0].hash == "" and unchecked[-1].hash == block.hash
        assert decode_hashed_if_right(block)[0].hash != ""
        with parsed_once():  # nested: the outer scope's
            assert decode_block(block, check=False) == unchecked
    assert len(made) == 1
    decode_block(block)
    decode_block(block)
    assert len(made) == 3  # outside: parsed at each read
