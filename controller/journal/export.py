"""The regulator's flat file: one row per wager of each finished round (``tablectl export``).

A row is the table, the round, the seat, the wager spot, the amount staked, the result, what the
wager paid the player net of the stake (negative: collected by the house) and the time the
round was settled, in the table's time zone with its offset; then who, as far as the journal
knows it (:mod:`controller.journal.people`): the round's dealer and its supervisor acts, each with
the person who authorized it. The result is the settlement's (``win``, ``lose``, ``push``, or
``returned``: handed back neither paid nor collected, as Boston 5's ante when the player's hand is
higher, 24.10(f)3, or a pai gow misdeal's wagers); a void round's wagers are rows with the result
``void`` and nothing paid (every stake was returned). The amount is what the round record says was staked on the spot:
a payout line on another wager (Boston 5's and Three Card Poker's ``ante_bonus``, on the ante; pai
gow's ``envy``, on the bonus wager) is a row with nothing staked, so the rows' amounts add up to the
table's handle (``tablectl meters``) and their ``paid`` to what the meters say was paid less what
was collected.

Rounds are chosen by the time they were settled (the round index's time), so each round falls
in exactly one day of a day-by-day export.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from controller.journal.people import NOBODY, RoundPeople
from controller.journal.store import SqliteJournal

__all__ = ["COLUMNS", "WagerRow", "settled_between", "wager_rows", "seat_played"]

COLUMNS = ("table", "round", "seat", "wager", "amount", "result", "paid", "time", "dealer", "supervisor")
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
    people: RoundPeople = NOBODY
    """Who dealt the round and who authorized its supervisor acts, as far as the journal knows."""

    def time(self, zone: tzinfo | None = None) -> str:
        """When the round was settled: ISO 8601 in ``zone`` (None: the local time) with its offset
        (``2026-12-04T14:05:09+01:00``)."""
        return datetime.fromtimestamp(self.at, zone).astimezone(zone).isoformat(timespec="seconds")

    def csv_row(self, zone: tzinfo | None = None) -> list[str]:
        """The row as the CSV has it: money in units with two decimals; the supervisor acts as
        ``ACT by PERSON`` (``by the key`` when no person was recorded), ``; `` between them."""
        return [
            self.table,
            str(self.round),
            str(self.seat),
            self.wager,
            _units(self.amount),
            self.result,
            _units(self.paid),
            self.time(zone),
            self.people.dealer or "",
            "; ".join(act.shown() for act in self.people.acts),
        ]

    def json(self, zone: tzinfo | None = None) -> dict[str, object]:
        """The row as a JSON line has it: money in cents (``amount_cents``, ``paid_cents``), the
        dealer (null: not recorded) and the supervisor acts (``by`` null: no person recorded)."""
        return {
            "table": self.table,
            "round": self.round,
            "seat": self.seat,
            "wager": self.wager,
            "amount_cents": self.amount,
            "result": self.result,
            "paid_cents": self.paid,
            "time": self.time(zone),
            "dealer": self.people.dealer,
            "supervisor": [{"action": act.action, "by": act.person} for act in self.people.acts],
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
    table: str,
    number: int,
    data: dict[str, Any],
    at: float,
    order: WagerOrder,
    seat: int | None = None,
    people: RoundPeople = NOBODY,
) -> Iterator[WagerRow]:
    """The rows of round ``number`` (its ``RoundSettled`` ``data``, settled at ``at``, dealt and
    authorized by ``people``), seat by seat, each seat's wagers in ``order``; only ``seat``'s when
    given."""
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
                yield WagerRow(table, number, int(key), spot, int(staked.get(spot, 0)), unsettled, 0, at, people)
            else:  # a payout line (an ante bonus, an envy bonus) stakes nothing: its base wager has the stake
                amount = int(staked.get(spot, 0))
                yield WagerRow(
                    table, number, int(key), spot, amount, str(result["result"]), int(result["net"]), at, people
                )
