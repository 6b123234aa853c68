"""Reading round records (docs/round-record.md): every problem found, named by its JSON path.

Nothing is settled from a record with any problem; :class:`RecordError` lists them all.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from controller.cards import Card, CardError, parse_cards
from controller.table_config import TableConfig

_parse_cards = lru_cache(maxsize=1 << 16)(parse_cards)
"""``parse_cards`` remembered by text: a table reads the same two- and three-card hands again
and again (errors are raised again each time, never remembered)."""

__all__ = ["RecordError", "Problems", "SeatRecord", "read_seats", "read_wagers", "write_record"]


class RecordError(ValueError):
    """A round record cannot be settled; ``problems`` lists every problem as 'PATH: what'."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


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
            cards = _parse_cards(raw)
        except CardError as exc:
            self.add(path, str(exc))
            return None
        if len(cards) not in sizes:
            wanted = " or ".join(str(n) for n in sizes)
            self.add(path, f"needs {wanted} cards, got {len(cards)}")
            return None
        ok = True
        for position, c in enumerate(cards, start=1):
            if c.is_joker:
                self.add(path, f"card {position} 'JK': this game is dealt from 52 cards, with no joker")
                ok = False
            elif c.index in self.cards_seen:
                self.add(path, f"card {position} '{c}' is also dealt at {self.cards_seen[c.index]}")
                ok = False
            else:
                self.cards_seen[c.index] = path
        return cards if ok else None

    def flag(self, path: str, raw: Mapping[str, Any], key: str) -> bool:
        """A true/false field of ``raw`` (false when absent)."""
        value = raw.get(key, False)
        if not isinstance(value, bool):
            self.add(f"{path}.{key}", f"must be true or false, got {value!r}")
            return False
        return value


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """A seat's raw record with its number and JSON path, and its checked wagers."""

    seat: int
    path: str
    raw: Mapping[str, Any]
    wagers: Mapping[str, int]


def read_seats(data: Mapping[str, Any], table: TableConfig, problems: Problems, keys: set[str]) -> list[SeatRecord]:
    """The seats of a record, sorted by seat number, with wagers checked against the table."""
    raw_seats = data.get("seats")
    if not isinstance(raw_seats, dict):
        problems.add("$.seats", "must map seat numbers to seats")
        return []
    seats = []
    for key in sorted(raw_seats, key=lambda k: (not str(k).isdigit(), int(k) if str(k).isdigit() else 0, str(k))):
        path = f"$.seats.{key}"
        raw = raw_seats[key]
        number = int(key) if str(key).isdigit() else 0
        if not 1 <= number <= table.seats:
            problems.add(path, f"no seat {key!r} at this table (seats 1 to {table.seats})")
            continue
        if not isinstance(raw, dict):
            problems.add(path, "a seat must be an object")
            continue
        for k in raw:
            if k not in keys:
                problems.add(f"{path}.{k}", f"unknown key (a seat has {', '.join(sorted(keys))})")
        seats.append(SeatRecord(number, path, raw, read_wagers(f"{path}.wagers", raw.get("wagers"), table, problems)))
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
    wagers: dict[str, int] = {}
    offered = _wager_limits(table)
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
    return wagers


def write_record(game: str, table: str | None, seats: Iterable[Any], **rest: Any) -> dict[str, Any]:
    """A round record: ``game``, the optional ``table``, each seat's ``to_record()`` by seat
    number, then the game's own fields (``rest``, cards already as text)."""
    record: dict[str, Any] = {"game": game}
    if table:
        record["table"] = table
    record["seats"] = {str(s.seat): s.to_record() for s in seats}
    record.update(rest)
    return record
