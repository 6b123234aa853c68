"""Checking one floor message before the ingest uses it (docs/floor.md, "What the ingest accepts").

:func:`check_message` takes a message as it came off the stream (subject, ``Nats-Msg-Id``,
payload) and gives a :class:`FloorRecord`, with every row it would add to the floor store
already built, or raises :class:`BadMessage` naming what is wrong and where (a JSON path). It
checks the size, the JSON, the nesting, every number (finite; integers within +-2**53) and
string length, the subject against the body (the table id comes from the subject), each field's
type and range, the kind against the subject, and a round's record, recall and settlement
against each other. It reads no database and keeps no state: a message is good or bad alone.
The chain (does it follow the table's stored records?) is the store's question
(:mod:`controller.floor.chain`).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import orjson

from controller.floor.messages import FORMAT_VERSION, TABLE_ID, record_class
from controller.journal.meters import meters_for_round
from controller.journal.store import canonical, record_hash

__all__ = ["BadMessage", "FloorRecord", "Rows", "check_message", "excerpt", "content_hash_ok", "MAX_MESSAGE_BYTES"]

MAX_MESSAGE_BYTES = 512 * 1024
"""The largest message read (a round of six seats with every event is about 40 KB)."""
MAX_DEPTH = 16
"""The deepest nesting of objects and arrays (a round message nests 7 deep)."""
MAX_STRING = 4096
"""The longest string anywhere in a message (a config path is the longest real one)."""
MAX_ITEMS = 50_000
"""The most values (objects, arrays, numbers, strings) in one message."""
MAX_INT = 2**53
"""Integers are within +-2**53 (exact in a double, so in every JSON reader; bigint in PostgreSQL)."""
MAX_AT = 1e10
"""Times are seconds since 1970 below this (the year 2286)."""
EXCERPT_BYTES = 512
"""How much of a rejected message is kept to show (the payload kept is at most 4 KiB)."""

CLASSES = frozenset({"round", "meters", "event", "fault", "supervisor"})
"""The last token of a floor subject."""

_KIND = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
_HASH = re.compile(r"[0-9a-f]{64}")
_MACS = frozenset({"sha256", "hmac-sha256"})
_FIELDS = frozenset(
    {"v", "table", "seq", "at", "kind", "event", "prev", "hash", "mac", "anchor", "content", "data", "sig"}
)
_SIG = re.compile(r"[0-9a-f]{128}")
_REQUIRED = ("v", "table", "seq", "at", "kind", "event", "prev", "hash", "mac", "data")


class BadMessage(ValueError):
    """A message the ingest refuses: ``reason`` says what and where."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Rows:
    """The floor store rows one record (or a batch of records) adds."""

    events: list[tuple[object, ...]] = field(default_factory=list)
    rounds: list[tuple[object, ...]] = field(default_factory=list)
    seats: list[tuple[object, ...]] = field(default_factory=list)
    wagers: list[tuple[object, ...]] = field(default_factory=list)
    cards: list[tuple[object, ...]] = field(default_factory=list)
    meters: list[tuple[object, ...]] = field(default_factory=list)

    def extend(self, other: Rows) -> None:
        """Add ``other``'s rows to these."""
        for name in ("events", "rounds", "seats", "wagers", "cards", "meters"):
            getattr(self, name).extend(getattr(other, name))


@dataclass(frozen=True, slots=True)
class FloorRecord:
    """One checked message: the journal record it stands for, its chain links and its rows."""

    subject: str
    msg_id: str | None
    payload: bytes
    table: str
    cls: str
    seq: int
    at: float
    kind: str
    event: bool
    prev: str
    hash: str
    mac: str
    anchor: int | None
    content: str | None
    """The record's data as the journal hashed it (None: not in the message, a hidden card)."""
    body_sha256: str
    """The SHA-256 of the message without ``anchor``: a redelivery has the same."""
    rows: Rows
    game: str | None = None
    config: str | None = None
    round_no: int | None = None
    meters: tuple[tuple[str, str, int], ...] = ()
    """A ``.meters`` message's meters, or the ones a round's rows add (sorted)."""
    sig: str | None = None
    """The table's Ed25519 signature of the record's chain position (None: not signed)."""


def excerpt(payload: bytes, limit: int = EXCERPT_BYTES) -> str:
    """The start of ``payload`` as printable text (for logs and ``ingest_reject.excerpt``)."""
    text = payload[:limit].decode("utf-8", "backslashreplace")
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)
    return text + (f"... ({len(payload)} bytes)" if len(payload) > limit else "")


def parse_subject(subject: str, prefix: str) -> tuple[str, str]:
    """``(table id, class)`` of ``<prefix>.<table>.<class>``; raises :class:`BadMessage`."""
    head = prefix + "."
    if not subject.startswith(head):
        raise BadMessage(f"subject {subject[:200]!r} is not under {prefix!r}")
    parts = subject[len(head) :].split(".")
    if len(parts) != 2:
        raise BadMessage(f"subject {subject[:200]!r} is not {prefix}.<table>.<kind>")
    table, cls = parts
    if not TABLE_ID.fullmatch(table):
        raise BadMessage(f"subject {subject[:200]!r}: {table[:80]!r} is not a table id")
    if cls not in CLASSES:
        raise BadMessage(f"subject {subject[:200]!r}: unknown kind {cls[:40]!r} (one of {', '.join(sorted(CLASSES))})")
    return table, cls


def _plain(value: object) -> bool:
    """True when :func:`_walk` finds nothing wrong with ``value`` (nesting, counts, string lengths,
    numbers), found level by level without the JSON paths: :func:`_walk` builds a path for every
    value, a fifth of the ingest's CPU; it runs only when this says no, to name what and where.
    False means "look closer", never "fine" (a value of a type JSON does not make, too)."""
    level: list[Any] = [value]
    depth = count = 0
    while level:
        depth += 1
        count += len(level)
        if depth > MAX_DEPTH or count > MAX_ITEMS:
            return False
        below: list[Any] = []
        for v in level:
            t = type(v)
            if t is dict:
                if v and max(map(len, v)) > MAX_STRING:
                    return False
                below.extend(v.values())
            elif t is list:
                below.extend(v)
            elif t is str:
                if len(v) > MAX_STRING:
                    return False
            elif t is int:
                if not -MAX_INT <= v <= MAX_INT:
                    return False
            elif t is float:
                if not (math.isfinite(v) and abs(v) <= 2.0**63):
                    return False
            elif v is not None and t is not bool:
                return False
        level = below
    return True


def _walk(value: object) -> None:
    """Nesting, counts, string lengths and numbers of the whole message."""
    stack: list[tuple[object, str, int]] = [(value, "$", 1)]
    count = 0
    while stack:
        v, path, depth = stack.pop()
        count += 1
        if count > MAX_ITEMS:
            raise BadMessage(f"more than {MAX_ITEMS} values")
        if depth > MAX_DEPTH:
            raise BadMessage(f"{path}: nested deeper than {MAX_DEPTH}")
        if isinstance(v, dict):
            for k, item in v.items():
                if len(k) > MAX_STRING:
                    raise BadMessage(f"{path}: a key longer than {MAX_STRING} characters")
                stack.append((item, f"{path}.{k[:40]}", depth + 1))
        elif isinstance(v, list):
            stack.extend((item, f"{path}[{i}]", depth + 1) for i, item in enumerate(v))
        elif isinstance(v, str):
            if len(v) > MAX_STRING:
                raise BadMessage(f"{path}: a string of {len(v)} characters (at most {MAX_STRING})")
        elif isinstance(v, bool) or v is None:
            pass
        elif isinstance(v, int):
            if not -MAX_INT <= v <= MAX_INT:
                raise BadMessage(f"{path}: integer out of range (at most 2**53)")
        elif isinstance(v, float):
            if not math.isfinite(v) or abs(v) > 2.0**63:
                raise BadMessage(f"{path}: number out of range ({v!r})")


def _int(d: Mapping[str, object], key: str, path: str, low: int = 0, high: int = MAX_INT) -> int:
    v = d.get(key)
    if isinstance(v, bool) or not isinstance(v, int):
        raise BadMessage(f"{path}.{key}: an integer is needed, not {_shown(v)}")
    if not low <= v <= high:
        raise BadMessage(f"{path}.{key}: {v} is out of range ({low} to {high})")
    return v


def _time(d: Mapping[str, object], key: str, path: str) -> float:
    v = d.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise BadMessage(f"{path}.{key}: a time (seconds since 1970) is needed, not {_shown(v)}")
    if not (math.isfinite(v) and 0 <= v < MAX_AT):
        raise BadMessage(f"{path}.{key}: {v!r} is not a time")
    return float(v)


def _str(d: Mapping[str, object], key: str, path: str, optional: bool = False, limit: int = 256) -> str | None:
    v = d.get(key)
    if v is None and optional:
        return None
    if not isinstance(v, str):
        raise BadMessage(f"{path}.{key}: a string is needed, not {_shown(v)}")
    if len(v) > limit:
        raise BadMessage(f"{path}.{key}: longer than {limit} characters")
    return v


def _dict(d: Mapping[str, object], key: str, path: str) -> dict[str, Any]:
    v = d.get(key)
    if not isinstance(v, dict):
        raise BadMessage(f"{path}.{key}: an object is needed, not {_shown(v)}")
    return v


def _list(d: Mapping[str, object], key: str, path: str) -> list[Any]:
    v = d.get(key)
    if not isinstance(v, list):
        raise BadMessage(f"{path}.{key}: an array is needed, not {_shown(v)}")
    return v


def _shown(v: object) -> str:
    if v is None:
        return "nothing"
    text = repr(v)
    return f"{type(v).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"


def _seat(key: str, path: str) -> int:
    if not (key.isascii() and key.isdigit() and 1 <= int(key) <= 99):
        raise BadMessage(f"{path}: seat {key[:20]!r} is not a seat number")
    return int(key)


def check_message(subject: str, msg_id: str | None, payload: bytes, prefix: str = "floor") -> FloorRecord:
    """The message as a :class:`FloorRecord`, or :class:`BadMessage` saying why not."""
    try:
        return _check(subject, msg_id, payload, prefix)
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
        if isinstance(exc, BadMessage):
            raise
        raise BadMessage(f"{type(exc).__name__}: {str(exc)[:200]}") from None


def _check(subject: str, msg_id: str | None, payload: bytes, prefix: str) -> FloorRecord:
    if len(payload) > MAX_MESSAGE_BYTES:
        raise BadMessage(f"message of {len(payload)} bytes (at most {MAX_MESSAGE_BYTES})")
    table, cls = parse_subject(subject, prefix)
    m = _message_object(payload)
    seq, at, kind, sig, anchor = _header(m, table)
    rows = Rows()
    content, extra = _contents(m, cls, kind, table, seq, at, rows)
    body = {k: v for k, v in m.items() if k != "anchor"} if anchor is not None else m
    digest = hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return FloorRecord(
        subject,
        msg_id,
        payload,
        table,
        cls,
        seq,
        at,
        kind,
        m["event"],
        m["prev"],
        m["hash"],
        m["mac"],
        anchor,
        content,
        digest,
        rows,
        sig=sig,
        **extra,
    )


def _message_object(payload: bytes) -> dict[str, Any]:
    """The message's JSON object, with only the known fields and every required one."""
    try:
        m = orjson.loads(payload)
    except orjson.JSONDecodeError as exc:
        raise BadMessage(f"not JSON: {exc}") from None
    if not isinstance(m, dict):
        raise BadMessage(f"$: an object is needed, not {_shown(m)}")
    if not _plain(m):
        _walk(m)
    unknown = sorted(set(m) - _FIELDS)
    if unknown:
        raise BadMessage(f"$: unknown field {unknown[0][:40]!r}")
    missing = [k for k in _REQUIRED if k not in m]
    if missing:
        raise BadMessage(f"$: no {missing[0]!r}")
    return m


def _header(m: dict[str, Any], table: str) -> tuple[int, float, str, str | None, int | None]:
    """The record's place and kind, checked: seq, at, kind, signature, anchor."""
    if m["v"] != FORMAT_VERSION or isinstance(m["v"], bool):
        raise BadMessage(f"$.v: format version {_shown(m['v'])}, this ingest reads {FORMAT_VERSION}")
    body_table = m["table"]
    if body_table != table:
        raise BadMessage(f"$.table: {_shown(body_table)} on {table}'s subject")
    seq = _int(m, "seq", "$", 1)
    at = _time(m, "at", "$")
    kind = _str(m, "kind", "$", limit=64)
    assert kind is not None
    if not _KIND.fullmatch(kind):
        raise BadMessage(f"$.kind: {kind!r} is not a record kind")
    if not isinstance(m["event"], bool):
        raise BadMessage(f"$.event: true or false is needed, not {_shown(m['event'])}")
    for key in ("prev", "hash"):
        if not isinstance(m[key], str) or not _HASH.fullmatch(m[key]):
            raise BadMessage(f"$.{key}: 64 lowercase hex digits are needed, not {_shown(m[key])}")
    if m["mac"] not in _MACS:
        raise BadMessage(f"$.mac: {_shown(m['mac'])} (sha256 or hmac-sha256)")
    sig = m.get("sig")
    if sig is not None and not (isinstance(sig, str) and _SIG.fullmatch(sig)):
        raise BadMessage(f"$.sig: 128 lowercase hex digits (an Ed25519 signature) are needed, not {_shown(sig)}")
    anchor = None
    if "anchor" in m:
        anchor = _int(m, "anchor", "$", 0)
        if anchor != seq - 1:
            raise BadMessage(f"$.anchor: {anchor} is not the record before seq {seq}")
    return seq, at, kind, sig, anchor


def _contents(
    m: Mapping[str, object], cls: str, kind: str, table: str, seq: int, at: float, rows: Rows
) -> tuple[str | None, dict[str, Any]]:
    """The record's content as the journal hashed it (None: not in the message) and what its
    class adds to the record, its rows added to ``rows``."""
    data = _dict(m, "data", "$")
    content: str | None = None
    extra: dict[str, Any] = {}
    if cls == "round":
        if kind != "RoundSettled":
            raise BadMessage(f"$.kind: {kind!r} on a .round subject (RoundSettled)")
        raw = _dict(m, "content", "$")
        content = canonical(raw)
        extra = _round_rows(rows, table, seq, data, raw)
    else:
        if "content" in m:
            raise BadMessage("$.content: only a .round message carries it")
        if cls == "meters":
            if kind != "RoundMeters":
                raise BadMessage(f"$.kind: {kind!r} on a .meters subject (RoundMeters)")
            extra = {"round_no": _int(data, "round", "$.data", 1), "meters": _meters(data)}
        else:
            text = canonical(data)
            expected = record_class(kind, text)
            if expected != cls:
                raise BadMessage(f"$.kind: {kind!r} belongs on .{expected}, not .{cls}")
            hidden = kind == "CardDealt" and data.get("hidden") is True and data.get("card") is None
            content = None if hidden else text
            rows.events.append((table, seq, at, at, kind, cls, text))  # jsonb: the same value as any other spelling
    return content, extra


def content_hash_ok(record: FloorRecord, key: bytes | None) -> bool | None:
    """Whether the record's hash is the journal's hash of its content (with ``key``, its HMAC);
    None when it cannot be told: no content in the message (a hidden card), or an HMAC and no key."""
    if record.content is None or (record.mac == "hmac-sha256" and key is None):
        return None
    use = key if record.mac == "hmac-sha256" else None
    return (
        record_hash(record.prev, record.seq, record.at, record.kind, record.event, record.content, use) == record.hash
    )


def _meters(data: Mapping[str, object]) -> tuple[tuple[str, str, int], ...]:
    entries = _list(data, "meters", "$.data")
    out = []
    for i, entry in enumerate(entries):
        path = f"$.data.meters[{i}]"
        if not (isinstance(entry, list) and len(entry) == 3):
            raise BadMessage(f"{path}: [scope, name, value] is needed")
        scope, name, value = entry
        if not isinstance(scope, str) or not isinstance(name, str) or len(scope) > 64 or len(name) > 64:
            raise BadMessage(f"{path}: scope and name are short strings")
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadMessage(f"{path}: the value is an integer, not {_shown(value)}")
        out.append((scope, name, value))
    return tuple(sorted(out))


_RECORD_ONLY = ("recall", "table", "table_sha256", "void")
"""What ``tablectl recall --json`` adds to a round record (controller/journal/recall.py)."""


class _Recall(NamedTuple):
    """A round message's recall, checked against the journaled round record."""

    number: int
    started: float
    ended: float
    void: bool
    game: str | None
    config: str | None
    seats: dict[str, Any]
    cards: list[Any]
    late_bets: list[Any]
    faults: int
    events: list[Any]
    settlement: dict[str, Any] | None
    record: dict[str, Any]


def _checked_recall(data: dict[str, Any], raw: dict[str, Any]) -> _Recall:
    """The round's recall, which must be the round record the journal hashed (``raw``): same
    seats, cards, settlement."""
    recall = _dict(data, "recall", "$.data")
    number = _int(recall, "round", "$.data.recall", 1)
    started = _time(recall, "started", "$.data.recall")
    ended = _time(recall, "ended", "$.data.recall")
    void = recall.get("void")
    if not isinstance(void, bool):
        raise BadMessage(f"$.data.recall.void: true or false is needed, not {_shown(void)}")
    game = _str(data, "game", "$.data", limit=64)
    config = _str(data, "table", "$.data", optional=True, limit=4096)
    seats = _dict(data, "seats", "$.data")
    cards = _list(recall, "cards", "$.data.recall")
    late_bets = _list(recall, "late_bets", "$.data.recall")
    faults = _int(recall, "faults", "$.data.recall")
    events = _list(recall, "events", "$.data.recall")
    settlement = recall.get("settlement")
    if settlement is not None and not isinstance(settlement, dict):
        raise BadMessage(f"$.data.recall.settlement: an object or null is needed, not {_shown(settlement)}")
    if void != (settlement is None):
        raise BadMessage("$.data.recall: void and settlement disagree")
    if not void and not cards:
        raise BadMessage("$.data.recall.cards: a settled round with no cards")
    if data.get("void", False) is not void:  # recall --json marks a voided record for `tablectl settle`
        raise BadMessage(f"$.data.void: {_shown(data.get('void'))}, the recall says void is {void}")
    # The recall must be the round record the journal hashed (raw): same seats, cards, settlement.
    if _int(raw, "round", "$.content", 1) != number:
        raise BadMessage(f"$.data.recall.round: {number}, the round record says {raw.get('round')!r}")
    record = {k: v for k, v in data.items() if k not in _RECORD_ONLY}
    checks = (
        ("$.data", record, {k: v for k, v in _dict(raw, "record", "$.content").items() if k not in _RECORD_ONLY}),
        ("$.data.table", data.get("table"), raw.get("table") or raw["record"].get("table")),
        ("$.data.recall.settlement", settlement, raw.get("settlement")),
        ("$.data.recall.cards", cards, raw.get("cards", [])),
        ("$.data.recall.late_bets", late_bets, raw.get("late_bets", [])),
        ("$.data.recall.faults", faults, raw.get("faults", 0)),
    )
    for path, got, journaled in checks:
        if got != journaled:
            raise BadMessage(f"{path}: differs from the journaled round record ($.content)")
    return _Recall(
        number, started, ended, void, game, config, seats, cards, late_bets, faults, events, settlement, record
    )


def _settled_seat(settled_seats: dict[str, Any], key: str) -> dict[str, Any]:
    """Seat ``key``'s settlement, checked (its net, each wager's result, net and commission)."""
    if key not in settled_seats or not isinstance(settled_seats[key], dict):
        raise BadMessage(f"$.data.recall.settlement.seats: no seat {key[:20]}")
    settled: dict[str, Any] = settled_seats[key]
    spath = f"$.data.recall.settlement.seats.{key[:20]}"
    _int(settled, "net", spath, -MAX_INT)
    for spot, got in _dict(settled, "wagers", spath).items():
        wpath = f"{spath}.wagers.{spot[:40]}"
        if not isinstance(got, dict):
            raise BadMessage(f"{wpath}: an object is needed")
        _str(got, "result", wpath, limit=64)
        _int(got, "net", wpath, -MAX_INT)
        if "commission" in got:
            _int(got, "commission", wpath)
    return settled


def _seat_rows(rows: Rows, table: str, seq: int, number: int, r: _Recall) -> int:
    """Each seat's and wager's rows; the round's handle (cents wagered)."""
    handle = 0
    settlement = r.settlement
    settled_seats = _dict(settlement, "seats", "$.data.recall.settlement") if settlement else {}
    if settlement is not None:
        _int(settlement, "house_net", "$.data.recall.settlement", -MAX_INT)
    for key, entry in r.seats.items():
        path = f"$.data.seats.{key[:20]}"
        seat = _seat(key, path)
        if not isinstance(entry, dict):
            raise BadMessage(f"{path}: an object is needed")
        wagers = _dict(entry, "wagers", path)
        seat_cards = _str(entry, "cards", path, optional=True, limit=256) or ""
        settled = _settled_seat(settled_seats, key) if settlement is not None else None
        wagered = 0
        for spot, cents in wagers.items():
            if isinstance(cents, bool) or not isinstance(cents, int) or not 0 <= cents <= 2**40:
                raise BadMessage(f"{path}.wagers.{spot[:40]}: cents are a whole number >= 0, not {_shown(cents)}")
            if len(spot) > 64:
                raise BadMessage(f"{path}.wagers: a spot name longer than 64")
            wagered += cents
            w: dict[str, Any] | None = settled["wagers"].get(spot) if settled is not None else None
            rows.wagers.append(
                (
                    table,
                    seq,
                    number,
                    seat,
                    spot,
                    cents,
                    w["result"] if w else None,
                    w["net"] if w else None,
                    (w or {}).get("commission", 0),
                )
            )
        handle += wagered
        rows.seats.append((table, seq, number, seat, seat_cards, wagered, settled["net"] if settled else None))
    return handle


def _card_rows(rows: Rows, table: str, seq: int, number: int, cards: list[Any]) -> None:
    """Each dealt card's row."""
    for i, card in enumerate(cards):
        path = f"$.data.recall.cards[{i}]"
        if not isinstance(card, dict):
            raise BadMessage(f"{path}: an object is needed")
        rows.cards.append(
            (
                table,
                seq,
                number,
                _int(card, "index", path),
                _str(card, "card", path, limit=8),
                _str(card, "to", path, limit=64),
            )
        )


def _round_rows(rows: Rows, table: str, seq: int, data: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    """A round's rows, after checking its recall against the journaled round record (``raw``)."""
    r = _checked_recall(data, raw)
    number, void, game, config, settlement = r.number, r.void, r.game, r.config, r.settlement
    seats, cards, late_bets, faults, events, record = r.seats, r.cards, r.late_bets, r.faults, r.events, r.record
    started, ended = r.started, r.ended
    handle = _seat_rows(rows, table, seq, number, r)
    _card_rows(rows, table, seq, number, cards)
    first_seq = seq
    if events:
        if not isinstance(events[0], dict):
            raise BadMessage("$.data.recall.events[0]: an object is needed")
        first_seq = _int(events[0], "seq", "$.data.recall.events[0]", 1, seq)
    meters = meters_for_round({"record": record, "settlement": settlement, "late_bets": late_bets, "faults": faults})
    rows.meters.extend((table, seq, number, scope, name, value) for (scope, name), value in sorted(meters.items()))
    rows.rounds.append(
        (
            table,
            seq,
            number,
            game,
            config,
            started,
            ended,
            void,
            len(seats),
            handle,
            settlement["house_net"] if settlement else 0,
            meters.get(("table", "paid"), 0),
            meters.get(("table", "collected"), 0),
            meters.get(("table", "commission"), 0),
            len(late_bets),
            faults,
            first_seq,
            orjson.dumps(data).decode(),
        )
    )
    return {
        "game": game,
        "config": config,
        "round_no": number,
        "meters": tuple(sorted((s, n, v) for (s, n), v in meters.items())),
    }
