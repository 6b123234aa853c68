"""Reading round records (docs/round-record.md): every problem found, named by its JSON path.

Nothing is settled from a record with any problem; :class:`RecordError` lists them all.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NoReturn, Protocol

from controller.configuration import TableConfig
from controller.vocab import JOKER, Card, CardError, format_cards, parse_cards

_JOKER = JOKER.index


_SHORT = len("As Kd")
"""The longest text remembered by :func:`_parse_cards`: a hand of one or two cards."""


def _parse_cards(text: str) -> tuple[tuple[Card, ...], tuple[int, ...]]:
    """``parse_cards`` of ``text`` and the cards' deck indices; a hand of one or two cards is
    remembered by text (a table reads the same two-card hands again and again: there are 2,756).
    Longer hands are not: they seldom come back (three cards in 2,000 of Mississippi Stud's
    community cards, five or seven never), and remembering them filled the cache with hands
    never read again (a Boston 5 soak's worker grew by 26 MB over its first 10,000 rounds). Errors are raised again each
    time, never remembered."""
    if len(text) <= _SHORT:
        return _parse_short(text)
    cards = parse_cards(text)
    return cards, tuple([c.index for c in cards])


@lru_cache(maxsize=1 << 13)
def _parse_short(text: str) -> tuple[tuple[Card, ...], tuple[int, ...]]:
    cards = parse_cards(text)
    return cards, tuple([c.index for c in cards])


__all__ = [
    "RecordError",
    "Problems",
    "SeatRecord",
    "DealtSeat",
    "read_seats",
    "read_wagers",
    "write_record",
    "parse_record",
    "MAX_RECORD_BYTES",
    "MAX_RECORD_DEPTH",
]

MAX_RECORD_BYTES = 1024 * 1024
"""The largest round record read (one round is a few KiB, with its recalled events some 100 KiB)."""
MAX_RECORD_DEPTH = 32
"""The deepest nesting of objects and lists in a round record."""


class RecordError(ValueError):
    """A round record cannot be settled; ``problems`` lists every problem as 'PATH: what'."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


def _where(raw: bytes, offset: int) -> str:
    line = raw.count(b"\n", 0, offset) + 1
    column = offset - raw.rfind(b"\n", 0, offset)
    return f"line {line} column {column}"


def _depth(raw: bytes) -> tuple[int, int]:
    """The deepest nesting of brackets outside strings, and where it is first reached."""
    depth = deepest = at = 0
    in_string = escaped = False
    for i, byte in enumerate(raw):
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > deepest:
                deepest, at = depth, i
                if deepest > MAX_RECORD_DEPTH:
                    break
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest, at


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out = dict(pairs)  # at once; only a record with a key twice is walked, for the first repeated one
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {key[:60]!r} in one object")
            seen.add(key)
    return out


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_record(raw: bytes) -> object:
    """The JSON value of a round record's bytes; raises :class:`RecordError` naming the place
    (line and column) for a file too large, not UTF-8, not JSON, nested deeper than
    :data:`MAX_RECORD_DEPTH`, with a key twice in one object, or with NaN or Infinity."""
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordError([f"$: {len(raw)} bytes: a round record is at most {MAX_RECORD_BYTES} bytes"])
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RecordError(
            [f"$: {_where(raw, exc.start)}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})"]
        ) from None
    # no deeper than its count of opening brackets: the byte walk only when that could be too deep
    if raw.count(b"[") + raw.count(b"{") > MAX_RECORD_DEPTH:
        deepest, at = _depth(raw)
        if deepest > MAX_RECORD_DEPTH:
            raise RecordError(
                [f"$: {_where(raw, at)}: nested deeper than {MAX_RECORD_DEPTH} levels: not a round record"]
            )
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise RecordError([f"$: line {exc.lineno} column {exc.colno}: not JSON: {exc.msg}"]) from None
    except (ValueError, RecursionError) as exc:
        raise RecordError([f"$: not a round record: {exc}"]) from None


@dataclass
class Problems:
    """Collects problems while a record is read, and the cards seen so far (for duplicates)."""

    items: list[str] = field(default_factory=list)
    cards_seen: dict[int, str] = field(default_factory=dict)

    def add(self, path: str, message: str) -> None:
        self.items.append(f"{path}: {message}")

    def raise_if_any(self) -> None:
        if self.items:
            raise RecordError(self.items)

    def cards(self, path: str, raw: object, sizes: tuple[int, ...]) -> tuple[Card, ...] | None:
        """Read a hand at ``path`` that must have one of ``sizes`` cards, none seen elsewhere."""
        if not isinstance(raw, str):
            self.add(path, f'cards must be a string such as "As Kd", got {raw!r}')
            return None
        try:
            cards, indices = _parse_cards(raw)
        except CardError as exc:
            self.add(path, str(exc))
            return None
        if len(cards) not in sizes:
            wanted = " or ".join(str(n) for n in sizes)
            self.add(path, f"needs {wanted} cards, got {len(cards)}")
            return None
        seen = self.cards_seen
        if _JOKER not in indices and seen.keys().isdisjoint(indices):  # the usual hand, checked in C
            seen.update(dict.fromkeys(indices, path))
            return cards
        ok = True
        for position, c in enumerate(cards, start=1):
            if c.rank is None:  # the joker (``is_joker``, read without a call)
                self.add(path, f"card {position} 'JK': this game is dealt from 52 cards, with no joker")
                ok = False
            elif c.index in self.cards_seen:
                self.add(path, f"card {position} '{c}' is also dealt at {self.cards_seen[c.index]}")
                ok = False
            else:
                self.cards_seen[c.index] = path
        return cards if ok else None

    def flag(self, path: str, raw: Mapping[str, object], key: str) -> bool:
        """A true/false field of ``raw`` (false when absent)."""
        value = raw.get(key, False)
        if not isinstance(value, bool):
            self.add(f"{path}.{key}", f"must be true or false, got {value!r}")
            return False
        return value


SeatRecord = tuple[int, str, Mapping[str, object], dict[str, int]]
"""A seat's number, its JSON path, its raw record and its checked wagers (a dict of its own), as
:func:`read_seats` gives them (a tuple: a record is read seat by seat, every round)."""


_SEAT_KEY = re.compile("[0-9]{1,3}").fullmatch
"""Whether a seat's key is a seat number as :func:`read_seats` reads one (``number_of``)."""


def read_seats(data: Mapping[str, object], table: TableConfig, problems: Problems, keys: set[str]) -> list[SeatRecord]:
    """The seats of a record, sorted by seat number, with wagers checked against the table: each
    its number, JSON path, raw record and wagers (:data:`SeatRecord`)."""
    raw_seats = data.get("seats")
    if not isinstance(raw_seats, dict):
        problems.add("$.seats", "must map seat numbers to seats")
        return []
    seats: list[SeatRecord] = []

    def number_of(key: object) -> int:
        text = str(key)
        return int(text) if text.isascii() and text.isdigit() and len(text) <= 3 else 0

    try:  # the usual keys, one to three ASCII digits: numbered and sorted in C
        numbered = sorted(zip(map(int, raw_seats), raw_seats, raw_seats)) if all(map(_SEAT_KEY, raw_seats)) else []
    except TypeError:  # a key that is not text
        numbered = []
    if not numbered or numbered[0][0] == 0:  # (a seat 0 goes last, with the other keys that are no seat)
        numbered = [(number_of(k), str(k), k) for k in raw_seats]  # each key read once
        numbered.sort(key=lambda item: (item[0] == 0, item[0], item[1]))
    for number, text, key in numbered:
        path = f"$.seats.{text[:40]}"
        raw = raw_seats[key]
        if not 1 <= number <= table.seats:
            problems.add(path, f"no seat {key!r} at this table (seats 1 to {table.seats})")
            continue
        if not isinstance(raw, dict):
            problems.add(path, "a seat must be an object")
            continue
        if not raw.keys() <= keys:
            for k in raw:
                if k not in keys:
                    problems.add(f"{path}.{k}", f"unknown key (a seat has {', '.join(sorted(keys))})")
        seats.append((number, path, raw, read_wagers(f"{path}.wagers", raw.get("wagers"), table, problems)))
    return seats


def _wager_limits(table: TableConfig) -> dict[str, tuple[int, int] | None]:
    """The wager spots ``table`` offers with their limits (``None``: no limit), prepared once per
    table config and kept while it lives."""
    key = id(table)
    kept = _LIMITS.get(key)
    if kept is None or kept[0] is not table:
        if len(_LIMITS) > 64:
            _LIMITS.clear()
        limits = {}
        for spot in table.catalog.wager_spots:
            if table.offers(spot):
                limit = table.limits.get(spot)
                limits[spot] = (limit.min, limit.max) if limit else None
        kept = _LIMITS[key] = (table, limits)
    return kept[1]


_LIMITS: dict[int, tuple[TableConfig, dict[str, tuple[int, int] | None]]] = {}


def read_wagers(path: str, raw: object, table: TableConfig, problems: Problems) -> dict[str, int]:
    """A seat's wagers: known, offered spots with whole positive cents within the table limits."""
    if not isinstance(raw, dict):
        problems.add(path, "wagers must map wager spots to cents")
        return {}
    kept = _KEPT_WAGERS.get(id(table))
    if kept is None or kept[0] is not table:
        if len(_KEPT_WAGERS) > 64:
            _KEPT_WAGERS.clear()
        kept = _KEPT_WAGERS[id(table)] = (table, {})
    # the amounts' types are part of the key: True and 1.0 equal 1, and are not cents
    key: tuple[object, ...] = (*raw.items(), *map(type, raw.values()))
    try:
        found = kept[1].get(key)
    except TypeError:  # an amount that is not a number (a list, an object): read below, never kept
        key, found = (), None
    if found is not None:
        return dict(found)
    wagers: dict[str, int] = {}
    offered = _wager_limits(table)
    before = len(problems.items)
    for spot, amount in raw.items():
        if spot in offered and type(amount) is int and amount > 0:  # the usual case, checked at once
            bounds = offered[spot]
            if bounds is None or bounds[0] <= amount <= bounds[1]:
                wagers[spot] = amount
                continue
        where = f"{path}.{spot}"
        spots = table.catalog.wager_spots
        if spot not in spots:
            problems.add(where, f"unknown wager spot (known: {', '.join(spots)})")
        elif not table.offers(spot):
            problems.add(where, f"this table does not offer the {spot} wager")
        elif isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            problems.add(where, f"must be whole cents above 0, got {amount!r}")
        else:
            limit = table.limits.get(spot)
            if limit and not limit.min <= amount <= limit.max:
                problems.add(where, f"{amount} is outside the table limits {limit.min} to {limit.max}")
            wagers[spot] = amount
    if key and len(problems.items) == before:
        if len(kept[1]) >= 1024:
            kept[1].clear()
        kept[1][key] = dict(wagers)
    return wagers


_KEPT_WAGERS: dict[int, tuple[TableConfig, dict[tuple[object, ...], dict[str, int]]]] = {}
"""Each table's checked wagers by what a seat's record gives (spots, amounts and the amounts'
types), kept while the table config lives: a table's seats bet the same few amounts again and
again. Only wagers read without a problem are kept."""


class RecordedSeat(Protocol):
    """What a round record takes of a seat: its number and how it is written."""

    @property
    def seat(self) -> int: ...

    def to_record(self) -> dict[str, object]: ...


@dataclass(frozen=True, slots=True)
class DealtSeat:
    """What every game's seat of a round record is (docs/round-record.md): its number, its wagers
    (cents by spot) and its cards in dealt order. A game's seat adds its own fields and writes
    them in :meth:`record_details`."""

    seat: int
    wagers: Mapping[str, int]
    cards: tuple[Card, ...]

    def record_details(self) -> dict[str, object]:
        """The game's own keys of this seat's record, after its wagers and cards (none here)."""
        return {}

    def to_record(self) -> dict[str, object]:
        """This seat as written in a round record: wagers, cards, then the game's own keys."""
        return {"wagers": dict(self.wagers), "cards": format_cards(self.cards), **self.record_details()}


def write_record(game: str, table: str | None, seats: Iterable[RecordedSeat], **rest: object) -> dict[str, object]:
    """A round record: ``game``, the optional ``table``, each seat's ``to_record()`` by seat
    number, then the game's own fields (``rest``, cards already as text)."""
    record: dict[str, object] = {"game": game}
    if table:
        record["table"] = table
    record["seats"] = {str(s.seat): s.to_record() for s in seats}
    record.update(rest)
    return record
