"""The floor-to-table channel and the tables' heartbeats (docs/floor.md, "What the floor has
stored, and heartbeats").

Both are plain NATS messages outside the floor stream (nothing of them is journaled or kept):

- **floor to table**: ``<prefix>-to-table.<table>.<type>``, published by the ingest; each table's
  identity may subscribe to its own only (controller.floor.identity), so no table reads what the
  floor tells another. Every message is one JSON object ``{"v": 1, "type": ..., "table": ...,
  ...}``: typed and versioned, so later kinds (floor-set limits, progressives) join without a
  change to the ones there. The one type so far is :class:`Stored`: the last record of the
  table's chain the floor store holds (what ``tablectl status``, ``journal prune`` and the
  forwarder take as safe).
- **table to floor**: ``<prefix>-heartbeat.<table>``, which only that table may publish: its
  :class:`Heartbeat` (step, hold, round, the records not yet stored; never a card) every few
  seconds, so the pit tells a silent table from a quiet or held one.

A message that is not one of these, or names another table than its subject, raises
:class:`ChannelError` with the reason; readers log it and go on.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

import orjson

__all__ = [
    "ChannelError",
    "Heartbeat",
    "Stored",
    "decode_heartbeat",
    "decode_to_table",
    "heartbeat_subject",
    "to_table_subject",
]

CHANNEL_VERSION = 1
"""The version of the floor-to-table messages and of the heartbeat (``v``)."""

MAX_SIZE = 4096
"""A channel message is small: anything larger is refused unread."""

_TABLE = re.compile(r"[A-Za-z0-9_-]{1,64}")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_TEXT_MAX = 300


class ChannelError(ValueError):
    """A channel message that is not one (the reason names the field)."""


def to_table_subject(prefix: str, table: str, kind: str = "*") -> str:
    """The subject of the floor's messages of ``kind`` to ``table`` (``*``: every kind, for a subscription)."""
    return f"{prefix}-to-table.{table}.{kind}"


def heartbeat_subject(prefix: str, table: str) -> str:
    """The subject of ``table``'s heartbeat (``*``: every table's, for the ingest)."""
    return f"{prefix}-heartbeat.{table}"


def _object(payload: bytes) -> dict[str, object]:
    if len(payload) > MAX_SIZE:
        raise ChannelError(f"{len(payload)} bytes, more than {MAX_SIZE}")
    try:
        body = orjson.loads(payload)
    except orjson.JSONDecodeError as exc:
        raise ChannelError(f"not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise ChannelError("$: not a JSON object")
    if body.get("v") != CHANNEL_VERSION:
        raise ChannelError(f"$.v: version {body.get('v')!r} unknown (this reader takes {CHANNEL_VERSION})")
    return body


def _int(body: Mapping[str, object], key: str, low: int = 0) -> int:
    value = body.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= 2**53:
        raise ChannelError(f"$.{key}: not a whole number from {low} to 2^53: {value!r:.60}")
    return value


def _time(body: Mapping[str, object], key: str) -> float:
    value = body.get(key)
    if (
        not isinstance(value, int | float)
        or isinstance(value, bool)
        or not math.isfinite(value)
        or not 0 <= value < 1e10
    ):
        raise ChannelError(f"$.{key}: not a time (seconds since 1970): {value!r:.60}")
    return float(value)


def _text(body: Mapping[str, object], key: str, optional: bool = False) -> str | None:
    value = body.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > _TEXT_MAX:
        raise ChannelError(f"$.{key}: not a text of at most {_TEXT_MAX} characters: {value!r:.60}")
    return value


def _table(body: Mapping[str, object], subject_table: str) -> str:
    table = body.get("table")
    if table != subject_table:
        raise ChannelError(f"$.table: {table!r:.60} is not the subject's table {subject_table!r}")
    return subject_table


@dataclass(frozen=True, slots=True)
class Stored:
    """Floor to table: the floor store holds the table's chain up to record ``seq`` (hash
    ``hash``; 0 and an empty hash: nothing yet), as of ``at`` (the floor's clock)."""

    table: str
    seq: int
    hash: str
    at: float

    TYPE = "stored"

    def payload(self) -> bytes:
        """The message's JSON."""
        return orjson.dumps(
            {
                "v": CHANNEL_VERSION,
                "type": self.TYPE,
                "table": self.table,
                "seq": self.seq,
                "hash": self.hash,
                "at": self.at,
            }
        )


FROM_FLOOR: dict[str, type[Stored]] = {Stored.TYPE: Stored}
"""The floor-to-table message types this version reads, by ``type``."""


def decode_to_table(subject: str, payload: bytes, prefix: str) -> Stored:
    """A floor-to-table message read and checked; raises :class:`ChannelError` with the reason."""
    head = f"{prefix}-to-table."
    parts = subject[len(head) :].split(".") if subject.startswith(head) else []
    if len(parts) != 2 or not _TABLE.fullmatch(parts[0]):
        raise ChannelError(f"{subject[:120]}: not a floor-to-table subject ({head}TABLE.TYPE)")
    body = _object(payload)
    kind = body.get("type")
    if kind not in FROM_FLOOR or kind != parts[1]:
        raise ChannelError(f"$.type: {kind!r:.60} is not a known type on {subject[:120]}")
    table = _table(body, parts[0])
    digest = _text(body, "hash") or ""
    seq = _int(body, "seq")
    if (seq == 0) != (digest == "") or (digest and not _HEX64.fullmatch(digest)):
        raise ChannelError(f"$.hash: not 64 lowercase hex digits for record {seq}: {digest!r:.70}")
    return Stored(table, seq, digest, _time(body, "at"))


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """Table to floor: the table's state now (no card: only what its screen's status line says)."""

    table: str
    at: float
    """When the table sent it (its clock)."""
    step: str | None
    """The step the table is at (None: the table has written no snapshot yet)."""
    hold: str | None
    """Why the table is held (None: not held)."""
    round: int
    """The table's round number."""
    backlog: int
    """Journal records the floor has not confirmed storing yet."""
    feed_held: str | None = None
    """Why the table holds its floor feed (the floor said it holds a record the table did not
    write), or None."""
    throttled: str | None = None
    """Why the broker refuses the table's records (its share of the stream is full: it sends more
    than the floor takes), or None."""

    def payload(self) -> bytes:
        """The message's JSON."""
        return orjson.dumps(
            {
                "v": CHANNEL_VERSION,
                "type": "heartbeat",
                "table": self.table,
                "at": self.at,
                "step": self.step,
                "hold": self.hold,
                "round": self.round,
                "backlog": self.backlog,
                **({"feed_held": self.feed_held} if self.feed_held is not None else {}),
                **({"throttled": self.throttled} if self.throttled is not None else {}),
            }
        )

    def status(self) -> dict[str, object]:
        """What the floor keeps of it (``floor_table.heartbeat``)."""
        said: dict[str, object] = {"step": self.step, "hold": self.hold, "round": self.round, "backlog": self.backlog}
        if self.feed_held is not None:
            said["feed_held"] = self.feed_held
        if self.throttled is not None:
            said["throttled"] = self.throttled
        return said


def decode_heartbeat(subject: str, payload: bytes, prefix: str) -> Heartbeat:
    """A heartbeat read and checked; raises :class:`ChannelError` with the reason."""
    head = f"{prefix}-heartbeat."
    table = subject[len(head) :] if subject.startswith(head) else ""
    if not _TABLE.fullmatch(table):
        raise ChannelError(f"{subject[:120]}: not a heartbeat subject ({head}TABLE)")
    body = _object(payload)
    if body.get("type") != "heartbeat":
        raise ChannelError(f"$.type: {body.get('type')!r:.60} is not heartbeat")
    return Heartbeat(
        _table(body, table),
        _time(body, "at"),
        _text(body, "step", optional=True),
        _text(body, "hold", optional=True),
        _int(body, "round"),
        _int(body, "backlog"),
        _text(body, "feed_held", optional=True),
        _text(body, "throttled", optional=True),
    )
