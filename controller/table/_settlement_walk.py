"""The settlement shown step by step, and how a round ends.

At the round's end its record is settled by exactly the function ``tablectl settle`` runs
(:func:`controller.game.record._settle.settle_json`, on the record as JSON), and that record is the round's:
what the table pays is what a re-settlement of the record pays. A record that cannot be settled
holds the table; clearing the fault settles it again (a void returns every wager). The dealer is walked through the procedure one step at
a time (``confirm`` after each), less the steps already done during the round (a fold's
collection, confirmed when the seat folded). The round then completes (its result handed on,
the lamps set for the next round); a void instead returns every wager.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from controller.configuration import TableConfig
from controller.game.record import RecordError, settle_written
from controller.table._dealer_screen import DealerScreen
from controller.table._holds import Holds
from controller.table._late_bets import LateBets
from controller.table._round_state import DeviceCommands, Fire, GameShape, RoundState
from controller.table._stub_count import StubCount
from controller.table._wagers import Wagers
from controller.table.card_ledger import MISDEAL, CardLedger
from controller.table.round_data import RoundResult, Seat
from controller.wagers import Result, Settlement, Step

__all__ = ["SettlementWalk", "KEEP_ROUNDS", "problem_words", "settle_table_record"]

KEEP_ROUNDS = 20
"""The recent rounds kept in memory (everything is in the journal)."""


def problem_words(problems: list[str]) -> str:
    """A round record's problems (``$.seats.1.violation_at: what``) in the dealer's words, for a
    hold's reason: the first, its record path as words (``seat 1 violation at: what``), and how
    many more."""
    first = problems[0] if problems else "the round record"
    path, sep, what = first.partition(": ")
    if sep and path.startswith("$"):
        parts = [p for p in path.lstrip("$").split(".") if p]
        if len(parts) >= 2 and parts[0] == "seats" and parts[1].isdigit():
            parts = [f"seat {parts[1]}", *parts[2:]]
        first = f"{' '.join(parts) or 'the round record'}: {what}"
    first = first.replace("_", " ")
    more = len(problems) - 1
    return first + (f" (and {more} more)" if more > 0 else "")


def settle_table_record(record: dict[str, object], table: TableConfig) -> Settlement:
    """Settle a table's round record as ``tablectl settle`` does (the same function, on the
    record's JSON: :func:`~controller.game.record.settle_written`): raises ``RecordError`` when
    it cannot be settled."""
    return settle_written(record, table)


class SettlementWalk:
    """The round's settlement: the steps to show and the one shown now.

    The game's hooks it calls: ``round_record`` (the round's record) and ``steps_to_show`` (the
    steps the dealer still has to do); each round ended is kept in ``rounds`` and handed to
    ``on_round``; ``next_round`` fires the machine's trigger; ``turned`` says which seats' hands
    the dealer has turned so far (the game's ``TableHooks.turned``): a seat's winner lamps are lit
    only once its hand is turned."""

    def __init__(
        self,
        state: RoundState,
        shape: GameShape,
        table: TableConfig,
        commands: DeviceCommands,
        display: DealerScreen,
        holds: Holds,
        ledger: CardLedger,
        stub: StubCount,
        wagers: Wagers,
        late: LateBets,
        rounds: list[RoundResult],
        round_record: Callable[[], dict[str, object]],
        steps_to_show: Callable[[Settlement], tuple[Step, ...]],
        on_round: Callable[[RoundResult], None],
        next_round: Fire,
        turned: Callable[[], Sequence[int]],
    ) -> None:
        self._state, self._shape, self._table, self._commands, self._display = state, shape, table, commands, display
        self._holds, self._ledger, self._stub, self._wagers, self._late = holds, ledger, stub, wagers, late
        self._rounds, self._round_record, self._steps_to_show = rounds, round_record, steps_to_show
        self._on_round, self._next_round, self._turned = on_round, next_round, turned
        self._winners: dict[int, tuple[str, ...]] = {}
        """Each seat's winning spots not yet lit ``winner``: lit when its hand is turned."""
        self.settlement: Settlement | None = None
        self.steps: tuple[Step, ...] = ()
        """The settlement steps the dealer is walked through (the procedure, less any shown earlier)."""
        self.step_index = 0
        self.steps_done: set[str] = set()
        """The texts of settlement steps the dealer confirmed during the round (folds)."""
        self.seats_done: set[int] = set()
        """The seats a wager of which a step during the round collected or paid (a fold, a pai gow
        hand settled as it is turned, a Boston 5 bonus): no late change enters them
        (:meth:`seat_settled`)."""
        self.paid_early = False
        """Whether chips a void cannot take back moved before the settlement: a pai gow hand settled
        as it was turned or a fold collected, its step confirmed (:meth:`in_turn_confirmed`), a
        Boston 5 bonus paid (:meth:`bonus_done`)."""
        self.in_turn: set[str] = set()
        """The texts of steps shown during the round that collect or pay, not yet confirmed (a
        pai gow hand's, :meth:`settled_in_turn`; a fold's, :meth:`collect_at_fold`): no chips
        moved yet."""
        self.record: dict[str, object] | None = None
        """The round record :attr:`settlement` was settled from (the round's record)."""

    def start_round(self) -> None:
        self.settlement, self.steps, self.step_index, self.steps_done = None, (), 0, set()
        self._winners = {}
        self.seats_done = set()
        self.paid_early = False
        self.in_turn = set()
        self.record = None

    def done_early(self, step: Step) -> None:
        """``step`` of the settlement is done during the round (confirmed before the round goes
        on): it is not shown again at the settlement, and its seat takes no late change."""
        self.steps_done.add(step.text)
        self.settled_early(step)

    def settled_early(self, step: Step) -> None:
        """``step`` collects or pays its seat's wagers before the settlement (a game that shows it
        in a step of its own: Boston 5's bonus): the seat takes no late change."""
        if step.seat is not None:
            self.seats_done.add(step.seat)

    def settled_in_turn(self, step: Step) -> None:
        """``step`` of the settlement is shown as its hand is turned (pai gow, 11.9): as
        :meth:`done_early`; once it is confirmed (:meth:`in_turn_confirmed`) and it collected or
        paid, the round's settlement has begun (:meth:`why_not_void`). Shown alone (a foul
        pressed, a set confirmed), it moved no chips: a void still returns every wager."""
        self.done_early(step)
        if step.actions:
            self.in_turn.add(step.text)

    def in_turn_confirmed(self, text: str) -> None:
        """The dealer confirmed the step shown as ``text`` (a notice, any game): a step of
        :meth:`settled_in_turn` or :meth:`collect_at_fold` that collects or pays has moved chips."""
        if text in self.in_turn:
            self.in_turn.discard(text)
            self.paid_early = True

    def bonus_done(self, step: Step) -> None:
        """A step before the settlement (Boston 5's bonus, 24.10(a)) was confirmed: when it paid, the
        round can no longer be voided (:meth:`why_not_void`; a collection is returned by a void, as
        a fold's is)."""
        self.paid_early = self.paid_early or any(a.verb == "pay" for a in step.actions)

    def why_not_void(self) -> str | None:
        """Why the round cannot be voided now (None: it can): its settlement has paid or collected
        (a step confirmed at the settlement, a pai gow hand's step confirmed as it was turned, a
        fold's collection confirmed, a Boston 5 bonus paid), or it is
        over and its stub is being counted. Voided then, every wager would be returned on top of
        what was paid or collected, and a round already recorded would be recorded again."""
        state, common = self._state, self._shape.common
        phase = state.held_from if state.phase is common.hold else state.phase
        if phase is common.count_stub:
            return f"round {state.round_no} is over: count the stub"
        if self.paid_early or (self.settlement is not None and any(s.actions for s in self.steps[: self.step_index])):
            return f"round {state.round_no} is being settled: wagers already paid or collected"
        return None

    def voided(self) -> bool:
        """Whether the round is over, voided (a misdeal): its stub is being counted, held or not,
        with no settlement (every wager returned)."""
        state, common = self._state, self._shape.common
        phase = state.held_from if state.phase is common.hold else state.phase
        return phase is common.count_stub and self.settlement is None

    def seat_settled(self, seat: int) -> bool:
        """Whether a step during the round collected or paid a wager of ``seat``: a late change
        accepted now would make the round's record say another amount than the chips the dealer
        already moved (the step shown again at the settlement with it, collected or paid twice)."""
        return seat in self.seats_done

    def steps_to_show(self, settlement: Settlement) -> tuple[Step, ...]:
        """The steps of ``settlement.procedure`` the dealer still has to do: less the steps already
        done during the round (a fold's collection, confirmed when the seat folded)."""
        done = self.steps_done
        # nothing done during the round: every step is left (their texts made when each is asked)
        steps = tuple(s for s in settlement.procedure if s.text not in done) if done else settlement.procedure
        return steps or (Step("done", None, (), "nothing left to settle"),)

    def collect_at_fold(self, seat: Seat, step: Step) -> None:
        """24.10(b), 35.10(a), (e), (g): a folded hand's wagers are collected when it folds; the
        dealer confirms the collection before the next card or reveal. Once confirmed, the forfeited
        wagers are in the table inventory container: the round can no longer be voided
        (:meth:`why_not_void`; a void would return them on top)."""
        self.done_early(step)
        if step.actions:
            self.in_turn.add(step.text)
        for action in step.actions:
            self._commands.lamp(seat.number, action.spot, "off")
        self._display.notify(step.text, blocking=True)

    def settle_again(self) -> None:
        """The hold for a record that could not be settled is cleared: settle it again (it holds
        again if it still cannot be)."""
        if self._state.phase is self._shape.common.settlement and self.settlement is None:
            self.settle()

    def more_steps(self) -> bool:
        return self.settlement is not None and self.step_index + 1 < len(self.steps)

    def settle(self) -> None:
        """Settle the round's record and show its first step (the winners' lamps of the hands
        turned by then lit: :meth:`ask_step`)."""
        record = self._round_record()
        try:
            self.settlement = settle_table_record(record, self._table)
        except RecordError as exc:
            self._holds.hold(f"cannot settle: {problem_words(exc.problems)}")
            return
        self.record = record
        self.steps = self._steps_to_show(self.settlement)
        self.step_index = 0
        seats, win = self._state.seats, Result.WIN
        self._winners = {}
        for paid in self.settlement.seats:
            seat = seats.get(paid.seat)
            if seat is not None:
                spots = tuple(w.spot for w in paid.wagers if w.result is win and w.spot in seat.wagers)
                if spots:
                    self._winners[paid.seat] = spots
        self.ask_step()

    def next_step(self) -> None:
        assert self.settlement is not None
        self.step_index += 1
        self.ask_step()

    def ask_step(self) -> None:
        """The settlement step to do now, then confirm; first the winner lamps of each seat whose
        hand is turned now (its step shown: 24.10(e), (f); 35.10(i); Three Card Poker inferred;
        pai gow's hands all turned before, 11.9): a lamp lit earlier would tell what a face-down
        hand makes. A folded hand is never turned: its lamps are never lit ``winner``."""
        if self._winners:
            lamp = self._commands.lamp
            for n in self._turned():
                for spot in self._winners.pop(n, ()):
                    lamp(n, spot, "winner")
        self._display.ask(self.steps[self.step_index].text)

    def complete_round(self) -> None:
        """The last step confirmed: the round's result is handed on, the next round begins."""
        round_no = self._state.round_no
        self._stub.round_dealt()
        self._wagers.lamps_between_rounds()
        record = self.record if self.record is not None else self._round_record()
        result = RoundResult(round_no, record, self.settlement, tuple(self._late.noted))
        self._keep(result)
        self._display.shown(f"round {round_no} complete")
        self._on_round(result)
        self._next_round()

    def void_round(self) -> None:
        """The round is void: cards waiting are a misdeal, every wager is returned."""
        state = self._state
        self._ledger.settle_waiting(MISDEAL)
        if state.dealt:
            self._stub.round_dealt()  # cards left the shoe: a round dealt, voided or not
        self._display.drop_steps()  # no fold's collection was confirmed: every wager returns
        self._wagers.lamps_between_rounds()
        result = RoundResult(state.round_no, self._round_record(), None, tuple(self._late.noted))
        self._keep(result)
        returns = tuple(
            f"void: seat {n}: return {spot} {cents / 100:.2f}"
            for n, seat in sorted(state.seats.items())
            for spot, cents in seat.wagers.items()
        )
        self._display.notify(f"round {state.round_no} void: return all", returns)
        self._on_round(result)
        self._next_round()

    def _keep(self, result: RoundResult) -> None:
        rounds = self._rounds
        rounds.append(result)
        if len(rounds) > 2 * KEEP_ROUNDS:
            del rounds[:-KEEP_ROUNDS]
