"""A voided round's record settled: every wager on the layout is returned (issue 40 item 4).

A round voided at the table (the supervisor's void, a misdeal) ends with whatever it had: some
streets bet, some cards dealt. Its record says so with ``"void": true`` (``tablectl recall
--json`` writes it); ``tablectl settle`` then reads only the seats' wagers (known wager spots of
the game, whole cents above 0: chips are returned whatever the table limits say) and returns
each one, in seat order. The cards and the rest of the seat are the record's, not read.
"""

from __future__ import annotations

from collections.abc import Mapping

from controller.configuration import TableConfig
from controller.wagers import Result, SeatSettlement, Settlement, Step, WagerResult, actions_for, settlement_for

__all__ = ["VOID_KEY", "settle_void"]

VOID_KEY = "void"
"""The round record key that marks a voided round (``true``)."""

_WHY = "void: every wager returned"


def settle_void(data: Mapping[str, object], table: TableConfig) -> Settlement:
    """The settlement of the voided round ``data`` at ``table``: every wager returned. Raises
    :class:`~controller.game.record._read.RecordError` listing every problem (by JSON path)."""
    from controller.game.record._read import Problems

    problems = Problems()
    if data.get(VOID_KEY) is not True:
        problems.add(f"$.{VOID_KEY}", f"true for a voided round (every wager returned), got {data.get(VOID_KEY)!r}")
    raw_seats = data.get("seats")
    seats: dict[int, SeatSettlement] = {}
    if not isinstance(raw_seats, dict):
        problems.add("$.seats", "must map seat numbers to seats")
        raw_seats = {}
    spots = table.catalog.wager_spots
    for key, raw in raw_seats.items():
        text = str(key)[:40]
        number = int(text) if text.isascii() and text.isdigit() and len(text) <= 3 else 0
        path = f"$.seats.{text}"
        if not 1 <= number <= table.seats:
            problems.add(path, f"no seat {key!r} at this table (seats 1 to {table.seats})")
            continue
        if number in seats:
            problems.add(path, f"seat {number} is given twice")
            continue
        wagers = raw.get("wagers") if isinstance(raw, dict) else None
        if not isinstance(wagers, dict):
            problems.add(f"{path}.wagers", "wagers must map wager spots to cents")
            continue
        returned = []
        for spot, cents in wagers.items():
            if spot not in spots:
                problems.add(f"{path}.wagers.{str(spot)[:40]}", f"unknown wager spot (known: {', '.join(spots)})")
            elif type(cents) is not int or cents <= 0:
                problems.add(f"{path}.wagers.{spot}", f"must be whole cents above 0, got {cents!r}")
            else:
                returned.append(WagerResult(spot, cents, Result.RETURNED, 0, _WHY))
        returned.sort(key=lambda w: spots.index(w.spot))
        seats[number] = SeatSettlement(number, tuple(returned))
    problems.raise_if_any()
    procedure = [Step("void", None, (), "the round is void: every wager is returned")]
    procedure += [Step("void", n, actions_for(seats[n].wagers)) for n in sorted(seats)]
    return settlement_for(table.game, table, seats, procedure, {"void": True})
