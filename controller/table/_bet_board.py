"""The bet board: what the bet-spot sensors say is on each spot, checked against the table.

Every spot report is checked as it arrives: a seat the table does not have (seats are 1 to the
table's ``seats``) or a spot name the game does not have is refused (a device fault naming the
device, seat and spot) and never enters a round. The board also keeps the last amount reported
on each spot, so that the sensors' whole state read after a link-up can be compared with it: each
difference stands for the report that was missed while the link was down.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["BetBoard"]

SpotChange = tuple[int, str, int]
"""``(seat, spot, cents)``: the amount now on one spot (0: empty)."""


class BetBoard:
    """The spots of a table: ``seats`` seats (numbered from 1), each with the game's ``spots``."""

    def __init__(self, seats: int, spots: Iterable[str]) -> None:
        self.seats = seats
        self.spots = tuple(spots)
        self.levels: dict[tuple[int, str], int] = {}
        """The last amount reported on each occupied spot."""
        self.refused: dict[tuple[int, str], int] = {}
        """The last amount reported on each spot the table does not have (refused, never in a round)."""
        self.reports = 0
        """Counts the reports noted (``levels`` changes only with one: readers keep a copy while it is the same)."""
        self._known = frozenset((seat, spot) for seat in range(1, seats + 1) for spot in self.spots)
        """Every ``(seat, spot)`` of the table: a report for one is taken at one look (:meth:`report`)."""

    def problem(self, seat: int, spot: str) -> str | None:
        """Why a report for ``seat`` / ``spot`` cannot be taken, or None when the table has that spot."""
        if not 1 <= seat <= self.seats:
            return f"seat {seat} {spot}: no seat {seat} at this table (seats 1-{self.seats})"
        if spot not in self.spots:
            return f"seat {seat} {spot}: no spot {spot!r} at this game (spots: {', '.join(self.spots)})"
        return None

    def report(self, seat: int, spot: str, cents: int) -> str | None:
        """Note the amount now on a spot (a spot the table does not have is noted as refused);
        returns why the table cannot take it (:meth:`problem`), or None."""
        self.reports += 1
        key = (seat, spot)
        if key in self._known:  # almost every report: the table has the spot
            if cents:
                self.levels[key] = cents
            else:
                self.levels.pop(key, None)
            return None
        problem = self.problem(seat, spot)
        levels = self.levels if problem is None else self.refused
        if cents:
            levels[(seat, spot)] = cents
        else:
            levels.pop((seat, spot), None)
        return problem

    def changes(self, occupied: Iterable[SpotChange], reported: Iterable[tuple[int, str]] = ()) -> list[SpotChange]:
        """What differs between the board and ``occupied`` (every occupied spot, as the sensors
        read it now): the reports that stand for it, in seat and spot order; spots the board
        had that are empty now come as 0. Spots the table does not have are included when their
        amount changed since last refused (the caller refuses them again). A spot in
        ``reported`` (reported since the board last noted it: the report waited for this read)
        is included when occupied, even at the amount the board last had: a chip left on the
        spot from an earlier step or round and placed again is still the report that was made."""
        now = {(seat, spot): cents for seat, spot, cents in occupied if cents}
        before = {**self.refused, **self.levels}
        again = {key for key in reported if key in now}
        keys = sorted(set(now) | set(before), key=lambda k: (k[0], self._order(k[1])))
        return [
            (seat, spot, now.get((seat, spot), 0))
            for seat, spot in keys
            if now.get((seat, spot), 0) != before.get((seat, spot), 0) or (seat, spot) in again
        ]

    def _order(self, spot: str) -> tuple[int, str]:
        return (self.spots.index(spot) if spot in self.spots else len(self.spots), spot)
