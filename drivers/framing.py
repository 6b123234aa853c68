"""Framing: frames to bytes and bytes to frames, pure functions and an incremental decoder.

On the wire (docs/protocol.md)::

    COBS( version | address | seq u32 | ack u32 | type | length | payload | crc16 ) 0x00

``crc16`` is CRC-16/CCITT-FALSE (``binascii.crc_hqx(data, 0xFFFF)``, big-endian) over
everything before it. COBS removes every 0x00 from the frame so 0x00 can end it: after noise
the decoder simply waits for the next 0x00. A frame is accepted only if its COBS encoding is
canonical, its length field matches, its type is known and its CRC is right. The decoder never
raises on bytes from the wire and never holds more than one maximum-size frame; it counts every
byte it throws away (``garbage_bytes``) and why (CRC, unknown type, other malformation, oversize).

Version 2 widened ``seq`` and ``ack`` from 8 to 32 bits, so that a late reply can no longer pass
for the answer to a newer request once the sequence number wraps (docs/protocol.md, section 4).
Version 3 added the device's clock to the answers to a POLL and the time each event happened,
and the controller's heartbeat to the POLL (docs/protocol.md, sections 3, 4.8 and 5.1).
"""

from __future__ import annotations

import binascii
import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from enum import IntEnum

from drivers.errors import DriverError

__all__ = [
    "VERSION",
    "MAX_PAYLOAD",
    "MAX_WIRE",
    "MsgType",
    "Frame",
    "FramingError",
    "DecoderStats",
    "Decoder",
    "crc16",
    "cobs_encode",
    "cobs_decode",
    "encode",
    "encode_fields",
    "decode_frame",
    "in_process",
]

VERSION = 3
MAX_PAYLOAD = 240
_HEADER = 12
_CRC = 2
MAX_FRAME = _HEADER + MAX_PAYLOAD + _CRC
MAX_WIRE = MAX_FRAME + MAX_FRAME // 254 + 2  # COBS overhead, the delimiter
CONTROLLER = 0x7F
"""The controller's address; devices use 1-126."""


class MsgType(IntEnum):
    """What a frame is (docs/protocol.md, "Message types")."""

    POLL = 1
    """Controller -> device: send your oldest unacknowledged event. Payload: the last event
    journaled (boot id u32, event number u32), the heartbeat (u8)."""
    EVENT = 2
    """Device -> controller: one event (boot id, clock, event boot, event number, stamp, code, body)."""
    ACK = 3
    """Device -> controller: nothing to report. Payload: boot id (u32), clock (u32 ms)."""
    CMD = 4
    """Controller -> device: a command (code, body)."""
    RESP = 5
    """Device -> controller: the result of a command (status, code)."""
    NAK = 6
    """Device -> controller: the request was not understood (unknown type, or a payload that does not fit it)."""
    STATE_REQ = 7
    """Controller -> device: send your whole current state. Payload: the part wanted (u8, 0 first)."""
    STATE = 8
    """Device -> controller: one part of the state (boot id, newest event number, part, parts, body)."""


class FramingError(DriverError, ValueError):
    """A frame cannot be encoded (payload too large, field out of range)."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame: header fields and payload bytes."""

    address: int
    seq: int
    ack: int
    type: MsgType
    payload: bytes = b""
    version: int = VERSION


_NEW = object.__new__
_SLOTS = ("address", "seq", "ack", "type", "payload", "version")
if tuple(f.name for f in fields(Frame)) != _SLOTS:  # the setters below are in this order
    raise RuntimeError(f"Frame's fields are not {_SLOTS}")
_SETTERS: tuple[Callable[[Frame, object], None], ...] = tuple(getattr(Frame, name).__set__ for name in _SLOTS)
_SET_ADDRESS, _SET_SEQ, _SET_ACK, _SET_TYPE, _SET_PAYLOAD, _SET_VERSION = _SETTERS


def _frame(address: int, seq: int, ack: int, kind: MsgType, payload: bytes, version: int) -> Frame:
    """``Frame(address, seq, ack, kind, payload, version)``, each field put in its slot directly:
    a frozen dataclass's ``__init__`` sets each through ``object.__setattr__``, about twice the
    time, and every exchange makes two frames (its request's and its reply's). The frame is
    frozen as any other (its ``__setattr__`` still refuses); only the caller's fields, checked
    by it, go in."""
    frame: Frame = _NEW(Frame)
    _SET_ADDRESS(frame, address)
    _SET_SEQ(frame, seq)
    _SET_ACK(frame, ack)
    _SET_TYPE(frame, kind)
    _SET_PAYLOAD(frame, payload)
    _SET_VERSION(frame, version)
    return frame


_HEAD = [bytes((n + 1,)) for n in range(254)]
"""The code byte that heads a piece of ``n`` non-zero bytes (``n`` < 254), made once."""
_END = b"\x00"
"""The delimiter that ends each frame on the wire."""


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of ``data`` (check value of ``b"123456789"``: 0x29B1)."""
    return binascii.crc_hqx(data, 0xFFFF)


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: ``data`` with no 0x00 left (delimiter not added).

    Each run of non-zero bytes (the pieces between zeros) becomes blocks of 254 bytes under code
    0xFF, then the rest under code ``len(rest) + 1``, which stands for the zero after it (or the
    end): the usual algorithm's canonical output, a whole run at a time instead of a byte. Data
    shorter than 254 bytes (every frame but the largest) has no run that long: each piece is
    its code and itself, joined once."""
    if len(data) < 254:
        return b"".join(_cobs_short(bytes(data)))
    return _cobs_long(bytes(data))


def _cobs_short(data: bytes) -> list[bytes]:
    """:func:`cobs_encode` of data shorter than 254 bytes, in pieces to join: each piece between
    zeros after its code byte."""
    return [_HEAD[len(piece)] + piece for piece in data.split(b"\x00")]


def _cobs_long(data: bytes) -> bytes:
    """:func:`cobs_encode` of data 254 bytes long or longer: a run may fill whole blocks."""
    out = bytearray()
    for piece in data.split(b"\x00"):
        while len(piece) >= 254:
            out.append(255)
            out += piece[:254]
            piece = piece[254:]
        out.append(len(piece) + 1)
        out += piece
    return bytes(out)


def cobs_decode(data: bytes) -> bytes | None:
    """Undo :func:`cobs_encode`; ``None`` if ``data`` is not a canonical COBS encoding.

    Shorter than 255 bytes (every frame but the largest), no block of 254 fits: ``data`` is
    canonical exactly when it holds no 0x00 and its chain of codes ends at its end, and each code
    after the first stands for a zero in its place."""
    n = len(data)
    if 0 < n < 255:
        if 0 in data:
            return None
        out = bytearray(data)
        i = out[0]
        while i < n:
            code = out[i]
            out[i] = 0
            i += code
        return bytes(out[1:]) if i == n else None
    parts: list[bytes] = []
    i = 0
    while i < n:
        code = data[i]
        end = i + code
        if code == 0 or end > n:
            return None
        parts.append(bytes(data[i + 1 : end]))
        if code < 255 and end < n:
            parts.append(b"\x00")
        i = end
    out_ = b"".join(parts)
    if cobs_encode(out_) != data:  # only the canonical form is accepted
        return None
    return out_


_TYPES = {int(t): t for t in MsgType}
_HEADER_STRUCT = struct.Struct(">BBIIBB")
_PACK_HEADER = _HEADER_STRUCT.pack
_PACK_CRC = struct.Struct(">H").pack


_U32 = 0xFFFFFFFF

_echo: dict[bytes, Frame] | None = None
"""While :func:`in_process`: the frames this process encoded lately, by their wire bytes."""
_ECHO_SIZE = 256


@contextmanager
def in_process() -> Iterator[None]:
    """Both ends of the links in this process (the simulation): while on, bytes that are exactly
    those :func:`encode` gave for a frame lately decode to that frame by a look-up, without COBS
    and the CRC again (decoding is a function of the bytes, and it inverts :func:`encode`: the
    same frame, the same decoder counts). Any other bytes (cut, changed, from elsewhere) are
    decoded as always. Not for threads: the look-up is the process's while it is on."""
    global _echo
    was, _echo = _echo, {}
    try:
        yield
    finally:
        _echo = was


def encode(frame: Frame) -> bytes:
    """The wire bytes of ``frame``, delimiter included."""
    return encode_fields(frame.address, frame.seq, frame.ack, frame.type, frame.payload, frame.version)


def encode_fields(
    address: int, seq: int, ack: int, kind: MsgType, payload: bytes = b"", version: int = VERSION
) -> bytes:
    """The wire bytes of the frame of these fields (those of :class:`Frame`), delimiter
    included: :func:`encode` without a :class:`Frame` made first (a sender keeps only the bytes)."""
    size = len(payload)
    if size > MAX_PAYLOAD:
        raise FramingError(f"payload of {size} bytes is over the maximum {MAX_PAYLOAD}")
    if not (0 <= address <= 255 and 0 <= version <= 255 and 0 <= seq <= _U32 and 0 <= ack <= _U32):
        for name, value in (("address", address), ("version", version)):
            if not 0 <= value <= 255:
                raise FramingError(f"{name} {value} does not fit in a byte")
        for name, value in (("seq", seq), ("ack", ack)):
            if not 0 <= value <= _U32:
                raise FramingError(f"{name} {value} does not fit in 32 bits")
    body = _PACK_HEADER(version, address, seq, ack, kind, size) + payload
    raw = body + _PACK_CRC(binascii.crc_hqx(body, 0xFFFF))
    if len(raw) >= 254:
        wire = _cobs_long(raw)
    else:  # cobs_encode's short form, the delimiter joined with it
        parts = _cobs_short(raw)
        if _echo is None:
            parts.append(_END)
            return b"".join(parts)
        wire = b"".join(parts)
    echo = _echo
    if (
        echo is not None
        and version == VERSION
        and type(payload) is bytes
        and type(kind) is MsgType
        and type(address) is type(seq) is type(ack) is int
    ):
        if len(echo) >= _ECHO_SIZE:
            echo.clear()
        echo[wire] = _frame(address, seq, ack, kind, payload, VERSION)  # what decode_frame(wire) gives: the same fields
    return wire + _END


def decode_frame(wire: bytes) -> tuple[Frame | None, str]:
    """Decode one frame's bytes (without the delimiter): the frame, or ``None`` and why not."""
    if _echo is not None and type(wire) is bytes:
        frame = _echo.get(wire)
        if frame is not None:
            return frame, "ok"
    raw = cobs_decode(wire)
    if raw is None:
        return None, "cobs"
    if len(raw) < _HEADER + _CRC:
        return None, "short"
    if binascii.crc_hqx(raw, 0xFFFF):  # over the body and its CRC (big-endian): 0 when they agree
        return None, "crc"
    version, address, seq, ack, kind, length = _HEADER_STRUCT.unpack_from(raw)
    if version != VERSION or length != len(raw) - _HEADER - _CRC:
        return None, "header"
    msg = _TYPES.get(kind)
    if msg is None:
        return None, "type"
    return _frame(address, seq, ack, msg, raw[_HEADER:-_CRC], version), "ok"


@dataclass
class DecoderStats:
    """What the decoder has seen: good frames and each kind of rejected input."""

    frames_ok: int = 0
    crc_errors: int = 0
    malformed: int = 0
    unknown_types: int = 0
    oversize: int = 0
    resyncs: int = 0
    garbage_bytes: int = 0


@dataclass
class Decoder:
    """Incremental decoder: ``feed(chunk)`` returns the frames completed by ``chunk``.

    Bytes are held only up to one maximum wire frame; past that the frame is counted as
    oversize and dropped until the next delimiter (a resync). Never raises on input.
    """

    stats: DecoderStats = field(default_factory=DecoderStats)
    _buf: bytearray = field(default_factory=bytearray)
    _skipping: bool = False

    def feed(self, chunk: bytes) -> list[Frame]:
        end = chunk.find(0)
        if end < 0 and not self._skipping and len(self._buf) + len(chunk) <= MAX_WIRE:
            self._buf += chunk  # a piece of a frame, its end still to come: held, as the loop below would
            return []
        if not self._buf and not self._skipping and 0 < end == len(chunk) - 1 < MAX_WIRE:
            # one whole frame and nothing held: as the loop below would, without holding it
            wire = bytes(chunk[:-1])
            frame, why = decode_frame(wire)
            if frame is not None:
                self.stats.frames_ok += 1
                return [frame]
            self._refused(why, len(wire))
            return []
        frames: list[Frame] = []
        start = 0
        while start < len(chunk):
            end = chunk.find(0, start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if not self._skipping:
                if len(self._buf) + len(piece) > MAX_WIRE:
                    self.stats.oversize += 1
                    self.stats.resyncs += 1
                    self.stats.garbage_bytes += len(self._buf) + len(piece)
                    self._buf.clear()
                    self._skipping = True
                else:
                    self._buf += piece
            else:
                self.stats.garbage_bytes += len(piece)
            if end < 0:
                break
            if self._skipping:
                self._skipping = False
            elif self._buf:
                self._decoded(bytes(self._buf), frames)
                self._buf.clear()
            start = end + 1
        return frames

    def _decoded(self, wire: bytes, frames: list[Frame]) -> None:
        """Decode one frame's bytes (a delimiter ended them) onto ``frames``, counted."""
        frame, why = decode_frame(wire)
        if frame is not None:
            self.stats.frames_ok += 1
            frames.append(frame)
            return
        self._refused(why, len(wire))

    def _refused(self, why: str, size: int) -> None:
        """Count one frame of ``size`` bytes refused (``why``: as :func:`decode_frame` says)."""
        if why == "crc":
            self.stats.crc_errors += 1
        elif why == "type":
            self.stats.unknown_types += 1
        else:
            self.stats.malformed += 1
        self.stats.resyncs += 1
        self.stats.garbage_bytes += size

    @property
    def buffered(self) -> int:
        """Bytes held waiting for a delimiter (never more than one maximum wire frame)."""
        return len(self._buf)
