"""The regulator's flat file: one row per wager of each finished round (``tablectl export``).

A row is the table, the round, the seat, the wager spot, the amount staked, the result, what the
wager paid the player net of the stake (negative: collected by the house) and the time the
round was settled, in the table's local time with its zone. A void round's wagers are rows with
the result ``void`` and nothing paid (every stake was returned).

Rounds are chosen by the time they were settled (the round index's time), so each round falls
in exactly one day of a day-by-day export.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from controller.journal.store import SqliteJournal

__all__ = ["COLUMNS", "WagerRow", "settled_between", "wager_rows", "seat_played"]

COLUMNS = ("table", "round", "seat", "wager", "amount", "result", "paid", "time")
"""The CSV header, in order."""


@dataclass(frozen=True, slots=True)
class WagerRow:
    """One wager of one round; money in cents."""

    table: str
    round: int
    seat: int
    wager: str
    amount: int
    result: str
    paid: int
    at: float

    def time(self) -> str:
        """When the round was settled: ISO 8601 in the local time with its zone (``2026-12-04T14:05:09+01:00``)."""
        return datetime.fromtimestamp(self.at).astimezone().isoformat(timespec="seconds")

    def csv_row(self) -> list[str]:
        """The row as the CSV has it: money in units with two decimals."""
        return [
            self.table,
            str(self.round),
            str(self.seat),
            self.wager,
            _units(self.amount),
            self.result,
            _units(self.paid),
            self.time(),
        ]

    def json(self) -> dict[str, object]:
        """The row as a JSON line has it: money in cents (``amount_cents``, ``paid_cents``)."""
        return {
            "table": self.table,
            "round": self.round,
            "seat": self.seat,
            "wager": self.wager,
            "amount_cents": self.amount,
            "result": self.result,
            "paid_cents": self.paid,
            "time": self.time(),
        }


def _units(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


def settled_between(journal: SqliteJournal, since: float | None, until: float | None) -> list[tuple[int, int]]:
    """(round number, seq of its round record) of the rounds settled at or after ``since`` and
    before ``until`` (either open), oldest first, from the round index."""
    where, args = [], []
    if since is not None:
        where.append("at >= ?")
        args.append(since)
    if until is not None:
        where.append("at < ?")
        args.append(until)
    sql = "SELECT round_no, seq FROM rounds" + (f" WHERE {' AND '.join(where)}" if where else "") + " ORDER BY round_no"
    with journal.lock:
        return [(int(r), int(s)) for r, s in journal.db.execute(sql, args)]


def seat_played(data: dict[str, Any], seat: int) -> bool:
    """Whether ``seat`` had a wager in the round whose ``RoundSettled`` data is ``data``."""
    seats = data.get("record", {}).get("seats", {})
    return isinstance(seats, dict) and str(seat) in seats


WagerOrder = Callable[[str, Sequence[str]], list[str]]
"""(game, wager spots) -> the spots in the game's layout order (given by the caller)."""


def wager_rows(
    table: str, number: int, data: dict[str, Any], at: float, order: WagerOrder, seat: int | None = None
) -> Iterator[WagerRow]:
    """The rows of round ``number`` (its ``RoundSettled`` ``data``, settled at ``at``), seat by
    seat, each seat's wagers in ``order``; only ``seat``'s when given."""
    record, settlement = data["record"], data["settlement"]
    game = str(data.get("game", record.get("game", "")))
    for key, entry in sorted(record["seats"].items(), key=lambda kv: int(kv[0])):
        if seat is not None and int(key) != seat:
            continue
        staked: dict[str, int] = entry["wagers"]
        settled = settlement["seats"].get(key, {}).get("wagers", {}) if settlement is not None else {}
        for spot in order(game, list(staked | settled)):
            result = settled.get(spot)
            if result is None:  # a void round returned every stake
                unsettled = "void" if settlement is None else "not settled"
                yield WagerRow(table, number, int(key), spot, int(staked.get(spot, 0)), unsettled, 0, at)
            else:
                amount = int(result.get("stake", staked.get(spot, 0)))
                yield WagerRow(table, number, int(key), spot, amount, str(result["result"]), int(result["net"]), at)
