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


def encode_body(spec: MessageSpec, values: dict[str, Any]) -> bytes:
    """The body bytes of ``spec`` with ``values``; raises :class:`BodyError` on a bad value."""
    out = bytearray()
    for name, kind in spec.fields:
        if name not in values:
            raise BodyError(f"{spec.name}: missing {name}")
        v = values[name]
        try:
            if kind in ("u8", "card", "bool"):
                out += struct.pack(">B", int(v))
            elif kind == "u16":
                out += struct.pack(">H", v)
            elif kind == "u32":
                out += struct.pack(">I", v)
            elif kind == "str":
                raw = str(v).encode("utf-8")
                if len(raw) > 255:
                    raise BodyError(f"{spec.name}.{name}: text over 255 bytes")
                out += bytes((len(raw),)) + raw
            elif kind in ("cards", "u8s"):
                out += bytes((len(v),)) + bytes(v)
            elif kind == "strs":
                out += bytes((len(v),))
                for text in v:
                    raw = str(text).encode("utf-8")
                    if len(raw) > 255:
                        raise BodyError(f"{spec.name}.{name}: text over 255 bytes")
                    out += bytes((len(raw),)) + raw
            elif kind == "spots":
                out += bytes((len(v),))
                for seat, spot, cents in v:
                    raw = str(spot).encode("utf-8")
                    out += struct.pack(">BB", seat, len(raw)) + raw + struct.pack(">I", cents)
            else:  # pragma: no cover - catalog error
                raise BodyError(f"unknown field kind {kind}")
        except (struct.error, ValueError, TypeError) as exc:
            if isinstance(exc, BodyError):
                raise
            raise BodyError(f"{spec.name}.{name}: {v!r} does not fit {kind}") from exc
    return bytes(out)


def decode_body(spec: MessageSpec, data: bytes) -> dict[str, Any]:
    """The field values of a ``spec`` body; raises :class:`BodyError` if it does not fit."""
    values: dict[str, Any] = {}
    i = 0
    try:
        for name, kind in spec.fields:
            if kind in ("u8", "card"):
                values[name] = data[i]
                i += 1
            elif kind == "bool":
                if data[i] > 1:
                    raise BodyError(f"{spec.name}.{name}: {data[i]} is not 0 or 1")
                values[name] = bool(data[i])
                i += 1
            elif kind == "u16":
                values[name] = struct.unpack_from(">H", data, i)[0]
                i += 2
            elif kind == "u32":
                values[name] = struct.unpack_from(">I", data, i)[0]
                i += 4
            elif kind == "str":
                n = data[i]
                raw = data[i + 1 : i + 1 + n]
                if len(raw) != n:
                    raise BodyError(f"{spec.name}.{name}: text cut short")
                values[name] = raw.decode("utf-8")
                i += 1 + n
            elif kind in ("cards", "u8s"):
                n = data[i]
                raw = data[i + 1 : i + 1 + n]
                if len(raw) != n:
                    raise BodyError(f"{spec.name}.{name}: list cut short")
                values[name] = tuple(raw)
                i += 1 + n
            elif kind == "strs":
                n, i = data[i], i + 1
                texts = []
                for _ in range(n):
                    size = data[i]
                    raw = data[i + 1 : i + 1 + size]
                    if len(raw) != size:
                        raise BodyError(f"{spec.name}.{name}: text cut short")
                    texts.append(raw.decode("utf-8"))
                    i += 1 + size
                values[name] = tuple(texts)
            elif kind == "spots":
                n, i = data[i], i + 1
                spots = []
                for _ in range(n):
                    seat, size = data[i], data[i + 1]
                    raw = data[i + 2 : i + 2 + size]
                    if len(raw) != size:
                        raise BodyError(f"{spec.name}.{name}: spot name cut short")
                    cents = struct.unpack_from(">I", data, i + 2 + size)[0]
                    spots.append((seat, raw.decode("utf-8"), cents))
                    i += 6 + size
                values[name] = tuple(spots)
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
