"""Late and removed bets: a change to a locked spot is not accepted; its lamp flashes and the
display names it until a supervisor (key on) accepts it (``next``) or refuses it (``previous``),
oldest first. An accepted change must still keep the seat's wagers within the round's rules.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.table._round_state import GameShape, RoundState
from controller.table._supervisor import Record, SupervisorKey
from controller.table.round_data import Seat

__all__ = ["LateBets"]


class LateBets:
    """The late-bet changes of the round: every one noted, the pending ones in order.

    ``lamp`` sets a spot's lamp (:meth:`._round_state.DeviceCommands.lamp`); ``shown`` puts a line
    on the dealer's screen (:meth:`._dealer_screen.DealerScreen.shown`); ``settled``: whether the
    round's record is settled already; ``seat_problems``: what is wrong with a seat's wagers
    (:meth:`._wagers.Wagers.seat_problems`); ``seat_settled``: whether a step during the round
    moved a seat's chips; ``closed``: why the game lets no late change to a seat's spot enter now
    (:meth:`.round.RoundTable.late_change_closed`; None: it may)."""

    def __init__(
        self,
        state: RoundState,
        shape: GameShape,
        lamp: Callable[[int, str, str], object],
        shown: Callable[[str], object],
        key: SupervisorKey,
        settled: Callable[[], bool],
        seat_problems: Callable[[int, Seat], list[str]],
        seat_settled: Callable[[int], bool],
        closed: Callable[[int, str], str | None],
    ) -> None:
        self._state, self._shape, self._lamp, self._shown = state, shape, lamp, shown
        self._key, self._settled, self._seat_problems = key, settled, seat_problems
        self._seat_settled, self._closed = seat_settled, closed
        self.pending: list[tuple[int, str, int]] = []
        """``(seat, spot, cents)`` changes not accepted yet, oldest first."""
        self.noted: list[str] = []
        """Every late or removed bet of the round, as shown (the round result's ``late_bets``)."""

    def start_round(self) -> None:
        self.pending, self.noted = [], []

    def late_bet(self, seat: int, spot: str, cents: int) -> None:
        """A change to a locked spot: not accepted, the lamp flashes, the display names it; a
        supervisor may accept it (``next``) or refuse it (``previous``) with the key on."""
        kind = "removed" if cents == 0 else "late"
        note = f"{kind} bet: seat {seat} {spot} {cents / 100:.2f} not accepted"
        self.noted.append(note)
        self.pending.append((seat, spot, cents))
        self._lamp(seat, spot, "flash_removed" if kind == "removed" else "flash_late")
        self._shown(note)  # on the screen while it is pending (details)

    def details(self) -> list[str]:
        """The screen's lines for the pending changes."""
        out = []
        for seat, spot, cents in self.pending:
            kind = "removed" if cents == 0 else "late"
            out.append(f"{kind} bet: seat {seat} {spot} {cents / 100:.2f} not accepted")
        if self.pending and self._key.on:
            out.append("supervisor: next accepts the first, previous refuses it")
        return out

    def late_pending(self) -> bool:
        return bool(self.pending)

    def accept_late_bet(self, button: str, record: Record) -> None:
        """Supervisor action: accept the oldest pending late-bet change (if the round's rules allow it)."""
        self.resolve(True, record)

    def refuse_late_bet(self, button: str, record: Record) -> None:
        """Supervisor action: refuse the oldest pending late-bet change."""
        self.resolve(False, record)

    def resolve(self, accept: bool, record: Record) -> None:
        seat, spot, cents = self.pending.pop(0)
        self._state.screen_changed()  # the screen lists the pending ones
        if not accept:
            record(f"seat {seat} {spot} {cents / 100:.2f}")
            return
        s = self._state.seats.get(seat)
        if self._settled():  # the record is settled: what is paid is what it says
            record(f"seat {seat} {spot} {cents / 100:.2f} cannot enter a round already settled", "late bet refused")
            return
        if s is None or spot not in self._shape.bet_spots:
            record(f"seat {seat} {spot} {cents / 100:.2f} cannot enter a round already dealt", "late bet refused")
            return
        if self._seat_settled(seat):  # the chips the dealer moved (a fold, a hand or bonus settled) stay what they were
            record(
                f"seat {seat} {spot} {cents / 100:.2f} cannot enter a hand already collected or paid",
                "late bet refused",
            )
            return
        trial = Seat(seat, dict(s.wagers))
        if cents:
            trial.wagers[spot] = cents
        else:
            trial.wagers.pop(spot, None)
        broken = self._seat_problems(seat, trial) + [
            f"the {r} wager stays with a dealt hand" for r in self._shape.required_spots if r not in trial.wagers
        ]
        if broken:  # e.g. a main wager taken off a dealt hand: the seat's wagers would break the rules
            record(
                f"seat {seat} {spot} {cents / 100:.2f} cannot enter a round already dealt: {'; '.join(broken)}",
                "late bet refused",
            )
            return
        closed = self._closed(seat, spot)
        if (
            closed is not None
        ):  # e.g. pai gow: the dealer's hand is face up (the other games' seats have all acted then)
            record(
                f"seat {seat} {spot} {cents / 100:.2f} cannot enter a round already dealt: {closed}", "late bet refused"
            )
            return
        s.wagers = trial.wagers
        self._lamp(seat, spot, "accepted" if cents else "off")
        record(f"seat {seat} {spot} now {cents / 100:.2f}")
