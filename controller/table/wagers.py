"""The wagers on the table: built from the spot reports while betting is open, checked at "no
more bets" (unknown spots, the table's limits, the game's own rules), locked, and the spot lamps
that say so; between rounds each seat's main spot invites a bet again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller.table.round_data import Seat

if TYPE_CHECKING:
    from controller.table.round import RoundTable

__all__ = ["Wagers"]


class Wagers:
    """``table``'s seats' wagers, and what is wrong with them."""

    def __init__(self, table: RoundTable) -> None:
        self.table = table
        self.problems: list[str] = []
        """What the dealer must correct before the deal (shown while betting is open)."""

    def on_board(self, e: Any) -> bool:
        """Check a spot report against the table's seats and spots: a report for a spot the table
        does not have is refused here (a device fault) and never enters a round."""
        board = self.table.board
        problem = board.problem(e.seat, e.spot)
        board.report(e.seat, e.spot, e.cents)
        if problem is not None:
            self.table.device_fault(e.device, f"report refused: {problem}", seat=e.seat, spot=e.spot, cents=e.cents)
            return False
        return True

    def betting_open(self) -> bool:
        """Betting is open: the table takes bets, or holds from taking them (a hold during betting,
        for a link or anything else, does not lock the spots: the late-bet rule starts at the lock)."""
        t = self.table
        return t.phase is t.common.betting or (t.phase is t.common.hold and t.holds.held_from is t.common.betting)

    def bet_while_open(self, e: Any) -> bool:
        """A spot report while betting is open (:meth:`betting_open`): builds the seat's wagers.
        True if handled."""
        t = self.table
        if not self.betting_open():
            return False
        seat = t.seats.setdefault(e.seat, Seat(e.seat))
        if e.cents:
            seat.wagers[e.spot] = e.cents
            t.devices.lamp(e.seat, e.spot, "open")
        elif seat.wagers.pop(e.spot, None) is not None:
            t.devices.lamp(e.seat, e.spot, "off")  # the spot emptied
        return True

    def seat_problems(self, n: int, seat: Seat) -> list[str]:
        """What is wrong with seat ``n``'s wagers before the deal: unknown spots, table limits,
        the game's own rules."""
        t = self.table
        problems = []
        for spot, cents in seat.wagers.items():
            limit = t.table.limits.get(spot)
            if spot not in t.BET_SPOTS:
                problems.append(f"seat {n} {spot}: not a wager before the deal")
            elif limit and not limit.min <= cents <= limit.max:
                problems.append(
                    f"seat {n} {spot}: {cents / 100:.2f} is outside {limit.min / 100:.2f}-{limit.max / 100:.2f}"
                )
        return problems + t.extra_wager_problems(n, seat)

    def valid(self) -> bool:
        """Every seat's wagers keep the rules, and there is one at least (else shown to correct)."""
        t = self.table
        self.problems = []
        for n, seat in sorted(t.seats.items()):
            if t.seat_checked(n, seat):
                self.problems += self.seat_problems(n, seat)
        if not any(seat.wagers for seat in t.seats.values()):
            self.problems.append("no wagers on the table")
        for problem in self.problems:
            t.display.shown(f"correct: {problem}")
        return not self.problems

    def details(self) -> list[str]:
        """The screen's lines while betting is open: what to correct."""
        t = self.table
        if self.problems and t.phase is t.common.betting:
            return [f"correct: {p}" for p in self.problems]
        return []

    def lock(self) -> None:
        """No more bets: the seats with wagers are the round's, the spots locked and lit."""
        t = self.table
        t.seats = {n: s for n, s in t.seats.items() if s.wagers}
        t.devices.lock_spots(True)
        for n, seat in sorted(t.seats.items()):
            for spot in seat.wagers:
                t.devices.lamp(n, spot, "accepted")
        t.display.ask("no more bets: deal the cards")

    def lamps_between_rounds(self) -> None:
        """The round is over: its spots' lamps off, then every seat's main spot inviting a bet."""
        t = self.table
        main = t.REQUIRED_SPOTS[:1]
        for n, seat in sorted(t.seats.items()):
            for spot in seat.wagers:
                if spot not in main:
                    t.devices.lamp(n, spot, "off")
        for n in range(1, t.table.seats + 1):
            for spot in main:
                t.devices.lamp(n, spot, "attract")
