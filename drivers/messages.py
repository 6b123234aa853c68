"""The message catalog: every event and command, its code and its body layout, and the typed,
frozen event dataclasses drivers put on the controller's queue. Nothing here knows a game.

A body is a sequence of fields, each one of: ``u8``, ``u16``, ``u32`` (big-endian), ``bool``
(one byte, 0 or 1), ``card`` (one byte: 0-51 in the order 2c..Ac, 2d..Ad, 2h..Ah, 2s..As; 52
the joker; 255 no card), ``str`` (a length byte, then that many UTF-8 bytes), ``cards`` and
``u8s`` (a count byte, then one byte each), ``strs`` (a count byte, then that many ``str``) and
``spots`` (a count byte, then that many ``seat`` u8, ``spot`` str, ``cents`` u32).
docs/protocol.md lists the same tables.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from drivers.errors import DriverError

__all__ = [
    "card_text",
    "Field",
    "MessageSpec",
    "DeviceEvent",
    "BUTTONS",
    "LAMP_STATES",
    "BodyError",
    "encode_body",
    "decode_body",
]

_RANKS, _SUITS = "23456789TJQKA", "cdhs"
NO_CARD = 255


def card_text(code: int) -> str:
    """``0`` -> ``"2c"``, ``51`` -> ``"As"``, ``52`` -> ``"JK"``, anything else ``"??"``."""
    if code == 52:
        return "JK"
    if 0 <= code < 52:
        return _RANKS[code % 13] + _SUITS[code // 13]
    return "??"


class BodyError(DriverError, ValueError):
    """A message body does not match its layout."""


Field = tuple[str, str]


@dataclass(frozen=True, slots=True)
class MessageSpec:
    """One event or command: its code, name and body fields."""

    code: int
    name: str
    fields: tuple[Field, ...] = ()


def _text(where: str, value: object) -> bytes:
    raw = str(value).encode("utf-8")
    if len(raw) > 255:
        raise BodyError(f"{where}: text over 255 bytes")
    return bytes((len(raw),)) + raw


def _spots(where: str, value: Any) -> bytes:
    out = bytes((len(value),))
    for seat, spot, cents in value:
        raw = str(spot).encode("utf-8")
        out += struct.pack(">BB", seat, len(raw)) + raw + struct.pack(">I", cents)
    return out


_Encoder = Callable[[str, Any], bytes]

_ENCODERS: dict[str, _Encoder] = {
    "u8": lambda where, v: struct.pack(">B", int(v)),
    "card": lambda where, v: struct.pack(">B", int(v)),
    "bool": lambda where, v: struct.pack(">B", int(v)),
    "u16": lambda where, v: struct.pack(">H", v),
    "u32": lambda where, v: struct.pack(">I", v),
    "str": _text,
    "cards": lambda where, v: bytes((len(v),)) + bytes(v),
    "u8s": lambda where, v: bytes((len(v),)) + bytes(v),
    "strs": lambda where, v: bytes((len(v),)) + b"".join(_text(where, text) for text in v),
    "spots": _spots,
}
"""Each field kind's encoder: ``(where, value)`` to bytes (``where`` names the field in errors)."""


def encode_body(spec: MessageSpec, values: dict[str, Any]) -> bytes:
    """The body bytes of ``spec`` with ``values``; raises :class:`BodyError` on a bad value."""
    out = bytearray()
    for name, kind in spec.fields:
        if name not in values:
            raise BodyError(f"{spec.name}: missing {name}")
        v = values[name]
        encoder = _ENCODERS.get(kind)
        if encoder is None:  # pragma: no cover - catalog error
            raise BodyError(f"unknown field kind {kind}")
        try:
            out += encoder(f"{spec.name}.{name}", v)
        except BodyError:
            raise
        except (struct.error, ValueError, TypeError) as exc:
            raise BodyError(f"{spec.name}.{name}: {v!r} does not fit {kind}") from exc
    return bytes(out)


def _cut(where: str, data: bytes, i: int, n: int, what: str) -> bytes:
    """The ``n`` bytes of ``data`` from ``i``, all there (else ``what`` is cut short)."""
    raw = data[i : i + n]
    if len(raw) != n:
        raise BodyError(f"{where}: {what} cut short")
    return raw


def _u8(where: str, data: bytes, i: int) -> tuple[Any, int]:
    return data[i], i + 1


def _bool(where: str, data: bytes, i: int) -> tuple[Any, int]:
    if data[i] > 1:
        raise BodyError(f"{where}: {data[i]} is not 0 or 1")
    return bool(data[i]), i + 1


def _u16(where: str, data: bytes, i: int) -> tuple[Any, int]:
    return struct.unpack_from(">H", data, i)[0], i + 2


def _u32(where: str, data: bytes, i: int) -> tuple[Any, int]:
    return struct.unpack_from(">I", data, i)[0], i + 4


def _str(where: str, data: bytes, i: int) -> tuple[Any, int]:
    n = data[i]
    return _cut(where, data, i + 1, n, "text").decode("utf-8"), i + 1 + n


def _list(where: str, data: bytes, i: int) -> tuple[Any, int]:
    n = data[i]
    return tuple(_cut(where, data, i + 1, n, "list")), i + 1 + n


def _strs(where: str, data: bytes, i: int) -> tuple[Any, int]:
    n, i = data[i], i + 1
    texts = []
    for _ in range(n):
        text, i = _str(where, data, i)
        texts.append(text)
    return tuple(texts), i


def _spots_of(where: str, data: bytes, i: int) -> tuple[Any, int]:
    n, i = data[i], i + 1
    spots = []
    for _ in range(n):
        seat, size = data[i], data[i + 1]
        raw = _cut(where, data, i + 2, size, "spot name")
        cents = struct.unpack_from(">I", data, i + 2 + size)[0]
        spots.append((seat, raw.decode("utf-8"), cents))
        i += 6 + size
    return tuple(spots), i


_DECODERS: dict[str, Callable[[str, bytes, int], tuple[Any, int]]] = {
    "u8": _u8,
    "card": _u8,
    "bool": _bool,
    "u16": _u16,
    "u32": _u32,
    "str": _str,
    "cards": _list,
    "u8s": _list,
    "strs": _strs,
    "spots": _spots_of,
}
"""Each field kind's decoder: ``(where, data, offset)`` to its value and the offset after it."""


def decode_body(spec: MessageSpec, data: bytes) -> dict[str, Any]:
    """The field values of a ``spec`` body; raises :class:`BodyError` if it does not fit."""
    values: dict[str, Any] = {}
    i = 0
    try:
        for name, kind in spec.fields:
            decoder = _DECODERS.get(kind)
            if decoder is not None:
                values[name], i = decoder(f"{spec.name}.{name}", data, i)
    except (IndexError, struct.error, UnicodeDecodeError) as exc:
        raise BodyError(f"{spec.name}: body of {len(data)} bytes is too short or malformed") from exc
    if i != len(data):
        raise BodyError(f"{spec.name}: {len(data) - i} bytes left over")
    return values


@dataclass(frozen=True, kw_only=True)
class DeviceEvent:
    """Base of every event a driver puts on the queue: which device, when, and its event number
    (0 for link events, which the device did not number)."""

    device: str
    at: float = field(default_factory=time.time)
    event_no: int = 0

    spec: ClassVar[MessageSpec | None] = None


# Button ids of the dealer panel, in id order (id = position + 1).
BUTTONS: tuple[str, ...] = (
    "no_more_bets",
    "deal",
    *(f"seat_{n}" for n in range(1, 8)),
    "fold",
    "confirm",
    "next",
    "previous",
    "reveal",
    "settle",
    "void",
    "clear_fault",
    "supervisor_key",
)

LAMP_STATES: tuple[str, ...] = ("off", "attract", "open", "accepted", "flash_late", "flash_removed", "winner")
"""Bet-spot lamp states, in id order (id = position)."""
