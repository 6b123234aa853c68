"""Late and removed bets: a change to a locked spot is not accepted; its lamp flashes and the
display names it until a supervisor (key on) accepts it (``next``) or refuses it (``previous``),
oldest first. An accepted change must still keep the seat's wagers within the round's rules, and
enters only before the first card of the round is out: every wager placed before the deal is
placed before "no more bets", which is announced before any card (24.8(b)4, 5; 35.9, digest 2.3;
pai gow 31.10, digest 3.4; Three Card Poker 20.6, inferred), and once a card is out a change to
one would be a wager on cards already out (digest 5.3: nothing placed, raised or withdrawn after
"no more bets", the NJ 27.6(d) pattern).
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
    round's record is settled already; ``voided``: whether the round is over, voided (its wagers
    returned); ``seat_problems``: what is wrong with a seat's wagers
    (:meth:`._wagers.Wagers.seat_problems`); ``seat_settled``: whether a step during the round
    moved a seat's chips; ``card_out``: whether a card of the round has left the shoe
    (:meth:`._card_intake.CardIntake.card_out`); ``closed``: what the cards decide of the wager on
    a spot placed before the deal, in the game's words (:meth:`.round.RoundTable.pre_deal_closed`)."""

    def __init__(
        self,
        state: RoundState,
        shape: GameShape,
        lamp: Callable[[int, str, str], object],
        shown: Callable[[str], object],
        key: SupervisorKey,
        settled: Callable[[], bool],
        voided: Callable[[], bool],
        seat_problems: Callable[[int, Seat], list[str]],
        seat_settled: Callable[[int], bool],
        card_out: Callable[[], bool],
        closed: Callable[[str], str],
    ) -> None:
        self._state, self._shape, self._lamp, self._shown = state, shape, lamp, shown
        self._key, self._settled, self._voided, self._seat_problems = key, settled, voided, seat_problems
        self._seat_settled, self._card_out, self._closed = seat_settled, card_out, closed
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

    def details(self, card_to_enter: bool = False) -> list[str]:
        """The screen's lines for the pending changes. With ``card_to_enter`` (a misread card the
        supervisor enters now: ``next`` / ``previous`` step through the deck for it) the changes
        wait: the screen names only what the buttons do then."""
        out = []
        for seat, spot, cents in self.pending:
            kind = "removed" if cents == 0 else "late"
            out.append(f"{kind} bet: seat {seat} {spot} {cents / 100:.2f} not accepted")
        if self.pending and self._key.on:
            out.append(
                "supervisor: the late change waits until the card is entered"
                if card_to_enter
                else "supervisor: next accepts the first, previous refuses it"
            )
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
        why = self._why_not(seat, spot, cents)
        if why is not None:
            record(f"seat {seat} {spot} {cents / 100:.2f} cannot enter {why}", "late bet refused")
            return
        s = self._state.seats[seat]
        s.wagers = _changed(s.wagers, spot, cents)
        self._lamp(seat, spot, "accepted" if cents else "off")
        record(f"seat {seat} {spot} now {cents / 100:.2f}")

    def _why_not(self, seat: int, spot: str, cents: int) -> str | None:
        """Why the change cannot enter the round now, in the words after "cannot enter" (None: it
        may). Once a card of the round is out, no wager placed before the deal changes: it would be
        a wager on cards already out (the game names what they decide of it); the wagers placed
        later by the rules (a street bet, a second or play wager) are no late bet at all. Before,
        the seat's wagers must keep the game's rules."""
        dealt = self._card_out()
        s = self._state.seats.get(seat)
        if self._settled():  # the record is settled: what is paid is what it says
            return "a round already settled"
        if self._voided():  # a misdeal: the round is over, every wager returned (none is on the cards)
            return "a round already void: every wager returned"
        if (s is None or spot not in self._shape.bet_spots) and dealt:
            return "a round already dealt"
        if s is None:  # the round's seats were fixed at "no more bets"
            return f"the round: seat {seat} has no wager in it"
        if spot not in self._shape.bet_spots:  # a street, second or play wager before the deal
            return f"the round: {spot} is no wager placed before the deal"
        if self._seat_settled(seat):  # the chips the dealer moved (a fold, a hand or bonus settled) stay what they were
            return "a hand already collected or paid"
        if dealt:  # e.g. a Mississippi Stud ante: it sets every street bet, on the player's own two cards
            return f"a round already dealt: {self._closed(spot)}"
        trial = Seat(seat, _changed(s.wagers, spot, cents))
        # the seats of the round were fixed at "no more bets": one keeps a wager (the game's rules say which)
        broken = self._seat_problems(seat, trial) if trial.wagers else [f"seat {seat} would have no wager left"]
        return f"the round: {'; '.join(broken)}" if broken else None


def _changed(wagers: dict[str, int], spot: str, cents: int) -> dict[str, int]:
    """``wagers`` with ``spot`` changed to ``cents`` (0: taken off), as a new dict."""
    out = dict(wagers)
    if cents:
        out[spot] = cents
    else:
        out.pop(spot, None)
    return out
