"""Framing: CRC check values, COBS, round trips, garbage, partial feeds, mutated frames, limits."""

from __future__ import annotations

import contextlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.framing import (
    MAX_PAYLOAD,
    MAX_WIRE,
    Decoder,
    Frame,
    FramingError,
    MsgType,
    cobs_decode,
    cobs_encode,
    crc16,
    decode_frame,
    encode,
    encode_fields,
    in_process,
)

frames = st.builds(
    Frame,
    address=st.integers(0, 255),
    seq=st.integers(0, 255),
    ack=st.integers(0, 255),
    type=st.sampled_from(list(MsgType)),
    payload=st.binary(max_size=MAX_PAYLOAD),
)


def test_crc_check_values() -> None:
    assert crc16(b"123456789") == 0x29B1  # CRC-16/CCITT-FALSE
    assert crc16(b"") == 0xFFFF


@pytest.mark.parametrize(
    "data, wire",
    [
        (b"", b"\x01"),
        (b"\x00", b"\x01\x01"),
        (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
        (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
    ],
)
def test_cobs_known_vectors(data: bytes, wire: bytes) -> None:
    assert cobs_encode(data) == wire and cobs_decode(wire) == data


def test_cobs_long_runs_and_rejects_non_canonical_input() -> None:
    data = bytes(range(1, 256)) * 2
    assert cobs_decode(cobs_encode(data)) == data
    assert b"\x00" not in cobs_encode(data)
    assert cobs_decode(b"\x05\x11") is None  # the block runs past the end
    assert cobs_decode(b"\x00") is None


def _cobs_byte_at_a_time(data: bytes) -> bytes:
    """COBS as the usual algorithm states it, a byte at a time (the reference the codec's
    faster forms are held to)."""
    out, block = bytearray(), bytearray()
    for byte in data:
        if byte:
            block.append(byte)
            if len(block) == 254:
                out += bytes((255,)) + block
                block.clear()
            continue
        out += bytes((len(block) + 1,)) + block
        block.clear()
    return bytes(out + bytes((len(block) + 1,)) + block)


_long_run = st.lists(st.integers(1, 255), min_size=240, max_size=260).map(bytes)
"""A run of non-zero bytes about a block long (254)."""
_runs = st.lists(st.one_of(st.just(b"\x00"), st.binary(min_size=1, max_size=30), _long_run), max_size=4).map(b"".join)


@settings(max_examples=200)
@given(st.one_of(st.binary(max_size=600), _runs), st.integers(0, 700), st.integers(0, 255))
def test_cobs_against_the_byte_at_a_time_algorithm(data: bytes, at: int, value: int) -> None:
    """The codec's forms (a short input's pieces joined at once; the code chain of a short
    encoding) give the reference's output, and decode exactly the canonical encodings: the
    reference's own, never one with a byte changed that it would not make."""
    wire = _cobs_byte_at_a_time(data)
    assert cobs_encode(data) == wire
    assert cobs_decode(wire) == data
    changed = bytearray(wire)
    changed[at % len(changed)] = value
    decoded = cobs_decode(bytes(changed))
    assert decoded is None or _cobs_byte_at_a_time(decoded) == bytes(changed)
    for cut in (wire[:-1], wire + b"\x01", wire[1:]):
        decoded = cobs_decode(cut)
        assert decoded is None or _cobs_byte_at_a_time(decoded) == cut


def _crc_bit_at_a_time(data: bytes) -> int:
    """CRC-16/CCITT-FALSE as docs/protocol.md states it: polynomial 0x1021, initial 0xFFFF, MSB
    first, a bit at a time (the reference for the codec's table-driven ``binascii.crc_hqx``)."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def _wire_plainly(address: int, seq: int, ack: int, kind: int, payload: bytes) -> bytes:
    """A frame's wire bytes written out field by field (docs/protocol.md, "Framing"), from the
    byte-at-a-time COBS and CRC above: the reference ``encode_fields`` and ``encode`` are held to."""
    body = bytes((3, address)) + seq.to_bytes(4, "big") + ack.to_bytes(4, "big") + bytes((kind, len(payload))) + payload
    return _cobs_byte_at_a_time(body + _crc_bit_at_a_time(body).to_bytes(2, "big")) + b"\x00"


_payloads = st.one_of(
    st.binary(max_size=MAX_PAYLOAD),
    st.lists(st.sampled_from([b"\x00", b"\x00\x00", b"\x01", b"\xff" * 7]), max_size=40).map(b"".join),
    st.integers(0, MAX_PAYLOAD).map(lambda n: b"\x00" * n),
    st.integers(0, MAX_PAYLOAD).map(lambda n: b"\x5a" * n),
)
"""Payloads with many zeros, none, all zeros, and runs up to the longest (a frame of 254 bytes
before COBS: one run that fills a whole block)."""


@settings(max_examples=300)
@given(
    st.integers(0, 255),
    st.sampled_from([0, 1, 0xFF, 0x100, 0x01000000, 0xFFFFFFFF]) | st.integers(0, 0xFFFFFFFF),
    st.sampled_from([0, 0x00FF0000]) | st.integers(0, 0xFFFFFFFF),
    st.sampled_from(list(MsgType)),
    _payloads,
    st.booleans(),
)
def test_encode_fields_gives_the_plainly_written_bytes(
    address: int, seq: int, ack: int, kind: MsgType, payload: bytes, looked_up: bool
) -> None:
    """``encode_fields`` and ``encode`` give the bytes of the frame written out plainly (in process
    too, where the bytes are also remembered for a look-up), and they decode to the frame again."""
    expected = _wire_plainly(address, seq, ack, kind, payload)
    frame = Frame(address, seq, ack, kind, payload)
    with in_process() if looked_up else contextlib.nullcontext():
        assert encode_fields(address, seq, ack, kind, payload) == expected
        assert encode(frame) == expected
        assert decode_frame(expected[:-1]) == (frame, "ok")
        assert Decoder().feed(expected) == [frame]


def test_the_longest_frame_fills_a_cobs_block() -> None:
    """A payload of the maximum size, no zero in it: 254 bytes before COBS, one block under code
    0xFF then an empty piece (the canonical form's), as the plain reference writes it."""
    payload = b"\x7e" * MAX_PAYLOAD
    wire = encode_fields(1, 0x01010101, 0x01010101, MsgType.EVENT, payload)
    assert wire == _wire_plainly(1, 0x01010101, 0x01010101, MsgType.EVENT, payload)
    assert wire[0] == 0xFF and wire[-2:] == b"\x01\x00" and len(wire) == MAX_WIRE
    assert decode_frame(wire[:-1])[0] == Frame(1, 0x01010101, 0x01010101, MsgType.EVENT, payload)


@settings(max_examples=400)
@given(
    st.binary(max_size=700),
    st.sampled_from(["raw", "sealed", "headed"]),
    st.integers(0, 255),
    st.integers(-2, 2),
    st.lists(st.integers(1, 40), max_size=8),
)
def test_garbage_decodes_to_nothing_and_never_raises(
    raw: bytes, how: str, kind: int, off: int, cuts: list[int]
) -> None:
    """Bytes from the wire, whole or fed in pieces, in process or not: ``decode_frame`` and the
    decoder refuse garbage by saying so (``None`` and why, counts), never by an exception, and a
    frame after it still decodes. Garbage ``sealed`` is random bytes with their right CRC,
    COBS-encoded, and ``headed`` also has a version 3 header of any type byte and a length off by
    ``off``: they reach the checks after the CRC (short, version, length, type) instead of stopping
    at it."""
    if how == "headed":
        raw = bytes((3, 1)) + raw[:8].ljust(8, b"\x01") + bytes((kind, max(0, len(raw[8:248]) + off))) + raw[8:248]
    sealed = raw + _crc_bit_at_a_time(raw).to_bytes(2, "big")
    garbage = raw if how == "raw" else cobs_encode(sealed)
    good = Frame(5, 7, 9, MsgType.ACK, b"\x00\x00\x00\x01\x00\x00\x00\x02")
    for looked_up in (False, True):
        with in_process() if looked_up else contextlib.nullcontext():
            frame, why = decode_frame(garbage)
            assert (frame is None) == (why != "ok")
            decoder, at = Decoder(), 0
            for size in cuts:
                decoder.feed(garbage[at : at + size])
                at += size
            decoder.feed(garbage[at:])
            assert decoder.buffered <= MAX_WIRE
            assert decoder.feed(b"\x00" + encode(good))[-1:] == [good]


@given(frames, st.integers(0, 300), st.integers(1, 255))
def test_a_frame_with_a_byte_changed_is_refused_by_its_crc_or_form(frame: Frame, at: int, flip: int) -> None:
    """The CRC is checked over the body and the CRC together (its residue is 0 when they agree):
    any one byte changed in the frame before COBS is refused."""
    raw = bytearray(cobs_decode(encode(frame)[:-1]) or b"")
    raw[at % len(raw)] ^= flip
    assert decode_frame(cobs_encode(bytes(raw)))[0] is None


@given(frames)
def test_round_trip(frame: Frame) -> None:
    wire = encode(frame)
    assert wire.endswith(b"\x00") and b"\x00" not in wire[:-1] and len(wire) <= MAX_WIRE
    assert Decoder().feed(wire) == [frame]


@given(st.lists(frames, min_size=1, max_size=5), st.data())
def test_whole_halved_and_byte_at_a_time(batch: list, data) -> None:
    wire = b"".join(encode(f) for f in batch)
    assert Decoder().feed(wire) == batch
    cut = data.draw(st.integers(0, len(wire)))
    d = Decoder()
    assert d.feed(wire[:cut]) + d.feed(wire[cut:]) == batch
    d = Decoder()
    assert [f for i in range(len(wire)) for f in d.feed(wire[i : i + 1])] == batch


@settings(max_examples=300)
@given(st.binary(max_size=2000), frames)
def test_garbage_never_raises_and_resyncs_at_the_next_delimiter(garbage: bytes, frame: Frame) -> None:
    d = Decoder()
    d.feed(garbage)
    assert d.buffered <= MAX_WIRE
    assert d.feed(b"\x00" + encode(frame)) == [frame]


def test_oversize_input_is_dropped_and_counted_with_bounded_memory() -> None:
    d = Decoder()
    d.feed(b"\x01" * (MAX_WIRE * 10))
    assert d.buffered <= MAX_WIRE
    good = Frame(1, 2, 3, MsgType.ACK, b"\x00\x00\x00\x01")
    assert d.feed(b"\x00" + encode(good)) == [good]
    assert d.stats.oversize == 1 and d.stats.resyncs >= 1


def test_garbage_bytes_and_unknown_types_are_counted() -> None:
    d = Decoder()
    good = encode(Frame(1, 2, 3, MsgType.ACK, b"\x00\x00\x00\x01"))
    assert d.feed(b"\x11\x22\x33\x00" + good) == [Frame(1, 2, 3, MsgType.ACK, b"\x00\x00\x00\x01")]
    assert d.stats.garbage_bytes == 3
    raw = bytearray(cobs_decode(good[:-1]) or b"")
    raw[10] = 99  # no such type
    body = bytes(raw[:-2])
    d.feed(cobs_encode(body + crc16(body).to_bytes(2, "big")) + b"\x00")
    assert d.stats.unknown_types == 1 and d.stats.garbage_bytes == 3 + len(raw) + 1


def test_bad_crc_is_counted() -> None:
    wire = bytearray(encode(Frame(1, 2, 3, MsgType.POLL, b"\x00\x00\x00\x05")))
    wire[3] ^= 0x40
    d = Decoder()
    assert d.feed(bytes(wire)) == [] and d.stats.crc_errors + d.stats.malformed == 1


def test_encode_refuses_what_does_not_fit() -> None:
    with pytest.raises(FramingError, match="payload"):
        encode(Frame(1, 0, 0, MsgType.EVENT, b"x" * (MAX_PAYLOAD + 1)))
    with pytest.raises(FramingError, match="address"):
        encode(Frame(300, 0, 0, MsgType.EVENT))


def mutate(rng: random.Random, wire: bytes) -> bytes:
    """One wire mutation (without the delimiter): bit flip, byte change, deletion, insertion, swap."""
    w = bytearray(wire)
    kind = rng.randrange(5)
    i = rng.randrange(len(w))
    if kind == 0:
        w[i] ^= 1 << rng.randrange(8)
    elif kind == 1:
        w[i] = rng.randrange(1, 256)
    elif kind == 2:
        del w[i]
    elif kind == 3:
        w.insert(i, rng.randrange(1, 256))
    elif len(w) > 1:
        j = rng.randrange(len(w))
        w[i], w[j] = w[j], w[i]
    return bytes(w)


def random_wires(rng: random.Random, kind: MsgType, count: int, longest: int) -> list[bytes]:
    """``count`` frames of type ``kind`` as they go on the wire without their closing zero: a random
    address, sequence and acknowledgement, and a random payload shorter than ``longest`` bytes."""
    return [
        encode(
            Frame(
                rng.randrange(1, 127),
                rng.randrange(256),
                rng.randrange(256),
                kind,
                rng.randbytes(rng.randrange(longest)),
            )
        )[:-1]
        for _ in range(count)
    ]


def test_a_sample_of_mutated_frames_is_never_accepted() -> None:
    # benchmarks/bench_framing.py runs 1,000,000 per message type; this is a fixed-seed sample.
    rng = random.Random(2026)
    for kind in MsgType:
        originals = random_wires(rng, kind, 20, longest=40)
        valid = set(originals)
        for _ in range(3000):
            wire = mutate(rng, rng.choice(originals))
            frame, _ = decode_frame(wire)
            assert frame is None or wire in valid, wire.hex()


POLL_WIRE = "03 03 01 01 01 02 05 01 01 01 03 01 09 01 01 01 01 01 01 01 04 01 a9 c1 00"
EVENT_WIRE = (
    "03 03 01 01 01 01 01 01 01 04 05 02 19 01 01 02 01 01 03 03 e8 01 01 02 01 01 01 02 01 01 05 03 de 01 33 05 01 64"
    " 18 a4 00"
)
ACK_WIRE = "03 03 01 01 01 01 01 01 01 04 06 03 08 01 01 02 01 01 05 04 10 6b 12 00"


def test_known_answer_vectors_of_the_protocol_document() -> None:
    import struct

    from hil.devices import ShoeSim

    poll = encode(Frame(1, 5, 0, MsgType.POLL, struct.pack(">IIB", 0, 0, 1)))
    event = encode(
        Frame(1, 0, 5, MsgType.EVENT, struct.pack(">IIIIIB", 1, 1000, 1, 1, 990, 1) + bytes((51, 0, 1, 100)))
    )
    ack = encode(Frame(1, 0, 6, MsgType.ACK, struct.pack(">II", 1, 1040)))
    assert poll.hex(" ") == POLL_WIRE
    assert event.hex(" ") == EVENT_WIRE
    assert ack.hex(" ") == ACK_WIRE
    # the reference shoe answers so: the card left it at 990 ms, it answers at 1000, then at 1040
    now = [0.990]
    shoe = ShoeSim(["As"])
    shoe.boot_id, shoe.clock = 1, lambda: now[0]
    shoe.deal(1)
    now[0] = 1.0
    (asked,) = Decoder().feed(poll)
    assert shoe.reply_to(asked) == event
    now[0] = 1.04
    (again,) = Decoder().feed(encode(Frame(1, 6, 0, MsgType.POLL, struct.pack(">IIB", 1, 1, 1))))
    assert shoe.reply_to(again) == ack
    doc = (__import__("pathlib").Path(__file__).parent.parent / "docs" / "protocol.md").read_text()
    assert poll.hex(" ") in doc and event.hex(" ") in doc and ack.hex(" ") in doc
