"""The wagers on the table: built from the spot reports while betting is open, checked at "no
more bets" (unknown spots, the table's limits, the game's own rules), locked, and the spot lamps
that say so; between rounds each seat's main spot invites a bet again.

The one rule of what a wager is (:meth:`Wagers.open_step`): a chip counts as a wager of the step
that asks for it (betting, and each game's own wager steps: ``WAGER_STEPS``) when it is reported
in that step, whatever hold began in the step (a link down, a jam or an open door, a journal
outage, a restart): a hold never changes what a wager is. A chip reported after its step closed is
late, whatever hold is on. Order is the journal's order: a "no more bets" journaled but not acted
on (its panel's state is read again after a journal outage, and the dealer presses it again)
closes betting for every chip journaled after it; a chip journaled before it still counts once the
spots' state read says it is there. (A game's later step closes only once every seat has acted: a
chip after that is a change to a decided spot, late by the game's own rule.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from typing import Protocol

from controller.configuration import Limit
from controller.table._bet_board import BetBoard
from controller.table._dealer_screen import DealerScreen
from controller.table._device_state import DeviceLinks
from controller.table._round_state import DeviceCommands, GameShape, RoundState
from controller.table.round_data import Seat
from drivers.bet_spots import SpotReport

__all__ = ["Wagers", "FaultReport"]


class FaultReport(Protocol):
    """``report(device, error, **detail)``: a device report the table refuses, journaled and shown."""

    def __call__(self, device: str, error: str, **detail: object) -> None: ...


class Wagers:
    """The round's seats' wagers, and what is wrong with them.

    ``limits``: the table's limits by spot; the game's hooks: ``extra_wager_problems`` (its own
    rules for a seat's wagers) and ``seat_checked`` (whether a seat's wagers are checked);
    ``device_fault`` journals and shows a report refused."""

    def __init__(
        self,
        state: RoundState,
        shape: GameShape,
        board: BetBoard,
        device_links: DeviceLinks,
        commands: DeviceCommands,
        display: DealerScreen,
        limits: Mapping[str, Limit],
        device_fault: FaultReport,
        extra_wager_problems: Callable[[int, Seat], list[str]],
        seat_checked: Callable[[int, Seat], bool],
    ) -> None:
        self._state, self._shape, self._board, self._device_links = state, shape, board, device_links
        self._commands, self._display, self._limits, self._device_fault = commands, display, limits, device_fault
        self._extra_wager_problems, self._seat_checked = extra_wager_problems, seat_checked
        self.problems: list[str] = []
        """What the dealer must correct before the deal (shown while betting is open)."""
        self.closed_by_press: Enum | None = None
        """The wager step a press journaled but not acted on closed (None: none): until the dealer's
        press is acted on, a chip journaled after it is late."""
        self.unread: dict[tuple[int, str], bool] = {}
        """The spots reported while the bet spots' state is read again (not acted on), each with
        whether its last report was journaled after :attr:`closed_by_press`'s press."""

    def start_round(self) -> None:
        self.problems, self.closed_by_press, self.unread = [], None, {}

    def step_now(self) -> Enum:
        """The round's step now: the machine's phase, or while it holds the step it was held from."""
        state = self._state
        held_from = state.held_from
        return held_from if state.phase is self._shape.common.hold and held_from is not None else state.phase

    def open_step(self, seat: int | None = None, spot: str | None = None) -> Enum | None:
        """The step whose wagers a chip reported now counts in (None: no step takes wagers now; a
        chip is late): the step the round is in, held or not, when it is one of the game's
        ``WAGER_STEPS`` and no press journaled before the chip closed it. With ``seat`` and
        ``spot``: a chip on that spot journaled before the closing press (its report waited for
        the spots' state read) still counts."""
        state, shape = self._state, self._shape
        step = state.phase
        if step is shape.common.hold and state.held_from is not None:  # :meth:`step_now`
            step = state.held_from
        if step._value_ not in shape.wager_steps:  # ``.value``: a descriptor call in Python
            return None
        if step is self.closed_by_press and not (
            seat is not None and spot is not None and self.unread.get((seat, spot)) is False
        ):
            return None
        return step

    def press_not_acted_on(self, button: str) -> None:
        """A press journaled but not acted on (its device's state is read again after a journal
        outage): in the journal's order, "no more bets" in betting closes betting for every chip
        journaled after it (the dealer still presses it again for the table to lock the bets)."""
        betting = self._shape.common.betting
        if button == "no_more_bets" and self.open_step() is betting:
            if not self._device_links.never_connected():  # it would be refused: betting stays open
                self.closed_by_press = betting

    def report_not_acted_on(self, seat: int, spot: str) -> None:
        """A spot report journaled while the bet spots' state is read again (not acted on: the
        state read says what is on the spot): noted, before or after a closing press."""
        self.unread[(seat, spot)] = self.closed_by_press is not None

    def state_read(self) -> None:
        """The bet spots' state was read and each change taken: the reports that waited are done."""
        self.unread = {}

    def on_board(self, e: SpotReport) -> bool:
        """Check a spot report against the table's seats and spots: a report for a spot the table
        does not have is refused here (a device fault) and never enters a round."""
        problem = self._board.report(e.seat, e.spot, e.cents)
        if problem is not None:
            self._device_fault(e.device, f"report refused: {problem}", seat=e.seat, spot=e.spot, cents=e.cents)
            return False
        return True

    def betting_open(self, seat: int | None = None, spot: str | None = None) -> bool:
        """Betting is open (:meth:`open_step`): the table takes bets, or holds from taking them (a
        hold during betting does not lock the spots: the late-bet rule starts at the lock)."""
        return self.open_step(seat, spot) is self._shape.common.betting

    def bet_while_open(self, e: SpotReport) -> bool:
        """A spot report while betting is open (:meth:`betting_open`): builds the seat's wagers.
        True if handled."""
        return self.take_while_open(e) is self._shape.common.betting

    def take_while_open(self, e: SpotReport) -> Enum | None:
        """The step a spot report counts in (:meth:`open_step`, held or not); a report while betting
        is open is taken here (:meth:`_take_open_bet`), the betting step returned."""
        step = self.open_step(e.seat, e.spot)
        if step is self._shape.common.betting:
            self._take_open_bet(e)
        return step

    def _take_open_bet(self, e: SpotReport) -> None:
        """A spot report while betting is open (:meth:`take_while_open` found :meth:`open_step` the
        betting step): the seat's wagers built."""
        seats = self._state.seats
        seat = seats.get(e.seat)
        if seat is None:  # made only when new (a report per chip placed)
            seat = seats[e.seat] = Seat(e.seat)
        if e.cents:
            seat.wagers[e.spot] = e.cents
            self._commands.lamp(e.seat, e.spot, "open")
        elif seat.wagers.pop(e.spot, None) is not None:
            self._commands.lamp(e.seat, e.spot, "off")  # the spot emptied

    def seat_problems(self, n: int, seat: Seat) -> list[str]:
        """What is wrong with seat ``n``'s wagers before the deal: unknown spots, table limits,
        the game's own rules."""
        problems = []
        for spot, cents in seat.wagers.items():
            limit = self._limits.get(spot)
            if spot not in self._shape.bet_spots:
                problems.append(f"seat {n} {spot}: not a wager before the deal")
            elif limit and not limit.min <= cents <= limit.max:
                problems.append(
                    f"seat {n} {spot}: {cents / 100:.2f} is outside {limit.min / 100:.2f}-{limit.max / 100:.2f}"
                )
        return problems + self._extra_wager_problems(n, seat)

    def valid(self) -> bool:
        """Every seat's wagers keep the rules, and there is one at least (else shown to correct)."""
        seats = self._state.seats
        self.problems, self.closed_by_press = [], None  # the dealer's press is acted on now
        self._state.screen_changed()  # the problems shown while betting (:meth:`details`)
        for n, seat in sorted(seats.items()):
            if self._seat_checked(n, seat):
                self.problems += self.seat_problems(n, seat)
        if not any(seat.wagers for seat in seats.values()):
            self.problems.append("no wagers on the table")
        for problem in self.problems:
            self._display.shown(f"correct: {problem}")
        return not self.problems

    def details(self) -> list[str]:
        """The screen's lines while betting is open: what to correct."""
        if self.problems and self._state.phase is self._shape.common.betting:
            return [f"correct: {p}" for p in self.problems]
        return []

    def lock(self) -> None:
        """No more bets: the seats with wagers are the round's, the spots locked and lit."""
        state, commands = self._state, self._commands
        state.seats = {n: s for n, s in state.seats.items() if s.wagers}
        commands.lock_spots(True)
        for n, seat in sorted(state.seats.items()):
            for spot in seat.wagers:
                commands.lamp(n, spot, "accepted")
        self._display.ask("no more bets: deal the cards")

    def lamps_between_rounds(self) -> None:
        """The round is over: its spots' lamps off, then every seat's main spot inviting a bet."""
        commands = self._commands
        main = self._shape.required_spots[:1]
        for n, seat in sorted(self._state.seats.items()):
            for spot in seat.wagers:
                if spot not in main:
                    commands.lamp(n, spot, "off")
        for n in range(1, self._shape.seats + 1):
            for spot in main:
                commands.lamp(n, spot, "attract")
