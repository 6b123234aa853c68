"""What every game's table machine shares: the common states and transitions, and the model's
common behaviour (prompts, settlement shown step by step, hold and resume, void, stub count,
late bets, link loss). Its other concerns have modules of their own, the table delegating to them:
the supervisor's actions and key (:mod:`.supervisor`), every card the shoe reported
(:mod:`.card_ledger`), the spots checked against the table (:mod:`.bet_board`), and the state each
device is given again on every link-up (:mod:`.device_state`).

A game module defines its ``Phase`` enum (with the common states ``CLOSED``, ``BETTING``,
``NO_MORE_BETS`` (bets locked, the deal not begun), ``SETTLEMENT``, ``ROUND_COMPLETE``, ``COUNT_STUB``, ``HOLD``, ``VOID``), its own transitions
plus :func:`common_transitions`, and a subclass of :class:`RoundTable` for its steps.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar

from transitions import Machine

from controller.cards import Card, CardError, card, deck
from controller.games import RecordError, settle_record
from controller.settlement import Settlement, Step
from controller.table.bet_board import BetBoard
from controller.table.card_ledger import BURNED, DUPLICATE, MISDEAL, UNREADABLE, CardLedger
from controller.table.device_state import PANEL, SHOE, DeviceLinks, ShownState
from controller.table.devices import TableDevices
from controller.table.screen import DisplaySize, Notice, ScreenState, page_count, render
from controller.table.supervisor import SUPERVISOR_ACTIONS, Action, Record, Supervisor
from controller.table_config import TableConfig
from drivers.bet_spots import SpotReport

__all__ = ["Seat", "RoundResult", "RoundTable", "common_transitions", "game_phases", "in_play_states", "STUB_EVERY"]

log = logging.getLogger("tablectl.table")

STUB_EVERY = 5
"""The stub is counted at least once every five rounds (24.8(e), 35.9(e))."""

ROUND_COMMANDS = frozenset({"display", "screen", "lock", "unlock", "lamp"})
"""Device commands the round depends on: one that finally fails holds the table."""

KEEP_PROMPTS = 500
KEEP_ROUNDS = 20
"""The recent prompts and rounds kept in memory (a table runs for months: everything is in the
journal, so memory holds only what the dealer and the tests look at)."""


_BEFORE = ("closed", "betting", "no_more_bets")
_AFTER = ("settlement", "round_complete", "count_stub", "hold", "void")
_OUT_OF_PLAY = {"closed", "round_complete", "hold", "void"}


def game_phases(*steps: str) -> Any:
    """A game's ``Phase`` enum: the common states around the game's own ``steps`` (in order)."""
    names = (*_BEFORE, *steps, *_AFTER)
    return Enum("Phase", [(n.upper(), n) for n in names])


def in_play_states(P: Any) -> list[Any]:
    """The states a round is played in (where a hold or a void can happen)."""
    return [phase for phase in P if phase.value not in _OUT_OF_PLAY]


def common_transitions(P: Any, playing: list[Any]) -> list[dict[str, Any]]:
    """The transitions every game has, for its ``Phase`` enum ``P`` and its in-play states."""
    return [
        {"trigger": "open_table", "source": P.CLOSED, "dest": P.BETTING, "after": "start_round"},
        {
            "trigger": "confirm",
            "source": P.SETTLEMENT,
            "dest": P.SETTLEMENT,
            "conditions": "more_steps",
            "after": "next_step",
        },
        {
            "trigger": "confirm",
            "source": P.SETTLEMENT,
            "dest": P.ROUND_COMPLETE,
            "unless": "more_steps",
            "after": "complete_round",
        },
        # Every fifth round the stub is counted (the shoe's count, or the dealer's); a mismatch holds.
        {
            "trigger": "next_round",
            "source": [P.ROUND_COMPLETE, P.VOID],
            "dest": P.COUNT_STUB,
            "conditions": "stub_due",
            "after": "ask_stub_count",
        },
        {
            "trigger": "next_round",
            "source": [P.ROUND_COMPLETE, P.VOID],
            "dest": P.BETTING,
            "unless": "stub_due",
            "after": "start_round",
        },
        {
            "trigger": "stub_counted",
            "source": P.COUNT_STUB,
            "dest": P.BETTING,
            "conditions": "stub_matches",
            "after": "start_round",
        },
        {
            "trigger": "stub_counted",
            "source": P.COUNT_STUB,
            "dest": P.HOLD,
            "unless": "stub_matches",
            "before": "stub_mismatch",
        },
        # Device fault, misdeal or supervisor: hold, remembering where to resume.
        {"trigger": "hold", "source": playing, "dest": P.HOLD, "before": "remember_phase"},
        *(
            {"trigger": "resume", "source": P.HOLD, "dest": phase, "conditions": f"held_in_{phase.value}"}
            for phase in playing
        ),
        # Supervisor void: every wager returned.
        {"trigger": "void", "source": [*playing, P.HOLD], "dest": P.VOID, "after": "void_round"},
    ]


@dataclass
class Seat:
    """One seat's round so far: wagers, cards, decisions."""

    number: int
    wagers: dict[str, int] = field(default_factory=dict)
    cards: list[Card] = field(default_factory=list)
    folded_at: str | None = None
    acted: set[str] = field(default_factory=set)
    exposed: bool = False
    violation: bool = False
    """35.10(c): the supervisor found a communication violation: every wager forfeit."""


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A finished round: its record (docs/round-record.md) and its settlement (``None`` when void)."""

    number: int
    record: dict[str, Any]
    settlement: Settlement | None
    late_bets: tuple[str, ...] = ()


_HANDLER_NAMES: dict[str, str] = {}
"""``on_<event class>`` by event class name (made once, looked up on every event)."""


class RoundTable:
    """The model of a game's machine: it owns the round and sends device commands.

    Subclasses set ``Phase``, ``TRANSITIONS``, ``PLAYING``, ``DECK`` and the game steps, and
    implement ``round_record``, ``open_spots`` (spots a player may bet while betting is open)
    and ``on_card`` (a card from the shoe while dealing).
    """

    Phase: ClassVar[type[Enum]]
    TRANSITIONS: ClassVar[list[dict[str, Any]]]
    PLAYING: ClassVar[list[Any]]
    DECK: ClassVar[int] = 52
    CARD_STARTS_DEAL: ClassVar[bool] = True
    """The first card from the shoe after "no more bets" begins the deal (``deal_started``)."""
    machine_error: str | None = None
    """The kind of the last error a machine callback raised (None: none since start): a soak or
    a test treats it as a failed table, where a dealer's table holds."""
    phase: Any
    """The machine's state (a member of ``Phase``), kept here by ``transitions``."""
    BET_SPOTS: ClassVar[tuple[str, ...]] = ()
    CONFIRM_PHASES: ClassVar[tuple[str, ...]] = ("settlement",)
    """States whose prompt is a procedure step, done and then confirmed."""
    REQUIRED_SPOTS: ClassVar[tuple[str, ...]] = ()
    """The wagers every seat in a round has (the game's main wagers)."""
    SPOT_NAMES: ClassVar[tuple[str, ...]] = ()
    """Every spot the bet-spot sensors have at each seat (default: ``BET_SPOTS``)."""
    SUPERVISOR_ACTIONS: ClassVar[tuple[Action, ...]] = SUPERVISOR_ACTIONS

    def __init__(
        self,
        table: TableConfig,
        devices: TableDevices,
        on_round: Callable[[RoundResult], None] | None = None,
        audit: Callable[[str, dict[str, Any]], Any] | None = None,
    ) -> None:
        self.table = table
        self.shown = ShownState(devices)
        """Every command goes through it: what each device is given again on every link-up."""
        self.links = DeviceLinks()
        self.ledger = CardLedger()
        self.board = BetBoard(table.seats, self.SPOT_NAMES or self.BET_SPOTS)
        self.on_round = on_round
        self.audit = audit or (lambda kind, data: None)
        """Where supervisor actions, refused attempts and refused reports are journaled."""
        self.pending_late: list[tuple[int, str, int]] = []
        self.misread_index: int | None = None
        """The index of the card to read again or enter (an unreadable or duplicate card)."""
        self.entry: int | None = None
        self.entry_card: Card | None = None
        self.seats: dict[int, Seat] = {}
        self.dealt = 0
        self.round_no = 0
        self.prompts: list[str] = []
        """Every text the dealer was shown (prompts, notes, notices), the recent ones kept."""
        self.texts_shown = 0
        """How many texts the dealer was shown since start (the snapshot's count of ``prompts``)."""
        self.prompt = ""
        """What the dealer must do next (the screen's prompt)."""
        self.notes: list[str] = []
        """Details for the event being handled (shown until the next event)."""
        self.notices: list[Notice] = []
        """What must be read before going on, oldest first: shown until confirmed."""
        self.page = 0
        """The page of the notice shown."""
        self.detail_page = 0
        """The page of the details shown (back to the first at each event but paging)."""
        self.size: DisplaySize = DisplaySize(table.display.lines, table.display.columns)
        """The display's size: the table config's, or the panel's when it reports one."""
        self.screen: tuple[str, ...] = ()
        """The lines last sent to the display."""
        self._rendered: tuple[tuple[ScreenState, DisplaySize] | None, tuple[str, ...]] = (None, ())
        self.problems: list[str] = []
        self.late_bets: list[str] = []
        self.rounds: list[RoundResult] = []
        self.settlement: Settlement | None = None
        self.steps: tuple[Step, ...] = ()
        """The settlement steps the dealer is walked through (the procedure, less any shown earlier)."""
        self.step_index = 0
        self.held_from: Any = None
        self.hold_reason = ""
        self.held_links: set[str] = set()
        """The devices whose link went down during the hold on now."""
        self.failed_devices: set[str] = set()
        """Devices a command the round depends on finally failed for (sent their state at clear-fault)."""
        self.expected_stub = 0
        self.counted_stub: int | None = None
        self.selected_seat: int | None = None
        self.round_started = False
        """Set when a round starts (the runtime snapshots the table then and clears it)."""
        self.card_index = 0
        self.steps_done: set[str] = set()
        """The texts of settlement steps the dealer confirmed during the round (folds)."""
        self.rounds_dealt = 0
        """Rounds with cards dealt since the stub was last counted (24.8(e), 35.9(e): a void
        after the deal counts; the count is every fifth round dealt, whatever their numbers)."""
        for phase in self.PLAYING:
            setattr(self, f"held_in_{phase.value}", (lambda p: lambda: self.held_from is p)(phase))
        self.machine = Machine(
            model=self,
            states=self.Phase,
            transitions=self.TRANSITIONS,
            initial=self.Phase.CLOSED,  # type: ignore[attr-defined]
            auto_transitions=False,
            model_attribute="phase",  # read on every event: a plain attribute, not a property over ``state``
            queued=True,
            on_exception="on_machine_error",
            ignore_invalid_triggers=True,
        )
        self.supervisor = Supervisor(
            self,
            self.SUPERVISOR_ACTIONS,
            [p.value for p in self.PLAYING],
            lambda kind, data: self.audit(kind, data),
            lambda text: self.note(text),
        )

    @property
    def devices(self) -> ShownState:
        """The table's devices (through :class:`ShownState`); setting it changes where commands go."""
        return self.shown

    @devices.setter
    def devices(self, target: TableDevices) -> None:
        self.shown.target = target

    @property
    def card_log(self) -> list[dict[str, Any]]:
        """Every card the shoe reported this round, in dealt order: its shoe index, the card, where
        it went or why it was not used (the round record's ``cards``)."""
        return self.ledger.records()

    # --- reading ------------------------------------------------------------------------------

    def _shown(self, text: str) -> None:
        self.texts_shown += 1
        self.prompts.append(text)
        if len(self.prompts) > 2 * KEEP_PROMPTS:
            del self.prompts[:-KEEP_PROMPTS]

    def ask(self, prompt: str) -> None:
        """Set the screen's prompt: what the dealer must do next, naming the button."""
        self.prompt = prompt
        self._shown(prompt)

    def note(self, text: str) -> None:
        """Add a detail to the screen until the next event (an answer to what the dealer just did)."""
        self.notes.append(text)
        self._shown(text)

    def notify(self, title: str, lines: tuple[str, ...] = (), blocking: bool = False) -> None:
        """Put something on the screen that stays until the dealer confirms it (paged when long).
        A ``blocking`` notice is a procedure step: the round waits for its confirmation."""
        self.notices.append(Notice(title, lines, blocking))
        for text in (title, *lines):
            self._shown(text)

    def steps_pending(self) -> bool:
        """A procedure step shown out of turn (a fold's collection) is not yet confirmed."""
        return any(n.blocking for n in self.notices)

    def no_steps_pending(self) -> bool:
        return not self.steps_pending()

    def screen_details(self) -> list[str]:
        """The details of the current state (subclasses add the game's: cards shown, decisions)."""
        out = []
        if self.problems and self.phase is self.Phase.BETTING:  # type: ignore[attr-defined]
            out += [f"correct: {p}" for p in self.problems]
        if self.pending_late:
            for seat, spot, cents in self.pending_late:
                kind = "removed" if cents == 0 else "late"
                out.append(f"{kind} bet: seat {seat} {spot} {cents / 100:.2f} not accepted")
            if self.supervisor.key_on:
                out.append("supervisor: next accepts the first, previous refuses it")
        return out

    def hold_prompt(self) -> str:
        """What clears the hold (the screen's prompt while the table holds)."""
        if self.entry_card is not None:
            # The card is face down: the display names it by its deck number only (docs/dealer-guide.md).
            return f"{self.card_place(self.dealt)}: deck no. {self.entry_card.index + 1}? next / previous, confirm"
        if self.misread_index is not None:
            return "deal it again to re-read; or key: next enters it, void"
        if self.hold_reason.startswith("link down"):
            return "wait for the device; or key: void"
        return "supervisor: key, then clear fault or void"

    def screen_state(self) -> ScreenState:
        """What the screen shows now (a pure function of this is the screen: :mod:`.screen`)."""
        phase = self.phase
        held = phase is self.Phase.HOLD  # type: ignore[attr-defined]
        # ``_value_`` is the plain attribute behind ``.value`` (a descriptor, slow on every event)
        step = phase._value_ if not held or self.held_from is None else self.held_from._value_
        if held:
            prompt = self.hold_prompt()
        elif phase._value_ in self.CONFIRM_PHASES:
            prompt = f"{self.prompt}; confirm"
        else:
            prompt = self.prompt
        notices = self.notices
        return ScreenState(  # by position: made after every event, and keywords cost a named tuple more
            self.round_no,
            step,
            prompt,
            tuple(self.screen_details()),
            self.hold_reason if held else "",
            notices[0] if notices else None,
            self.page if notices else self.detail_page,
            tuple(self.notes),
        )

    def show(self) -> None:
        """Send the screen when it changed: one whole screen, replacing the last."""
        key = (self.screen_state(), self.size)
        if key != self._rendered[0]:  # most events change nothing on the screen: render only on a change
            self._rendered = (key, render(*key))
        lines = self._rendered[1]
        if lines != self.screen:
            self.screen = lines
            self.devices.screen(lines)

    def notice_button(self, button: str) -> bool:
        """``next`` / ``previous`` page a notice, ``confirm`` goes to its next page or, on the last,
        confirms it. True when the button was taken by a notice."""
        if button not in ("confirm", "next", "previous"):
            return False
        if not self.notices and button == "confirm":
            return False
        pages = page_count(self.screen_state(), self.size)
        if not self.notices:  # details longer than the screen: next / previous page them when free
            if pages == 1 or self.uses_next_previous():
                return False
            step = 1 if button == "next" else -1
            self.detail_page = (self.detail_page + step) % pages
            return True
        if button == "previous":
            self.page = max(0, self.page - 1)
        elif button == "next" or self.page + 1 < pages:
            self.page = min(pages - 1, self.page + 1)
        else:
            done = self.notices.pop(0)
            self.page = 0
            self._shown(f"confirmed: {done.title}")
            self.notice_confirmed(done)
        return True

    def uses_next_previous(self) -> bool:
        """Whether ``next`` / ``previous`` mean something in this state (then they do not page the
        details; subclasses add their states)."""
        return self.supervisor.key_on and (bool(self.pending_late) or self.misread_index is not None)

    def notice_confirmed(self, notice: Notice) -> None:
        """A notice was confirmed (subclasses: a confirmed step may let the round go on)."""

    def in_play(self) -> list[Seat]:
        """Seats still in the round, in seat order (clockwise from the dealer's left)."""
        return [s for _, s in sorted(self.seats.items()) if s.folded_at is None]

    # --- game hooks ---------------------------------------------------------------------------

    def round_record(self) -> dict[str, Any]:
        raise NotImplementedError

    def on_card(self, dealt: Card, index: int) -> None:
        raise NotImplementedError

    def steps_to_show(self, settlement: Settlement) -> tuple[Step, ...]:
        """The steps of ``settlement.procedure`` the dealer still has to do: less the steps already
        done during the round (a fold's collection, confirmed when the seat folded)."""
        steps = tuple(s for s in settlement.procedure if s.text not in self.steps_done)
        return steps or (Step("done", None, (), "nothing left to settle"),)

    def collect_at_fold(self, seat: Seat, step: Step) -> None:
        """24.10(b), 35.10(a), (e), (g): a folded hand's wagers are collected when it folds; the
        dealer confirms the collection before the next card or reveal."""
        self.steps_done.add(step.text)
        for action in step.actions:
            self.devices.lamp(seat.number, action.spot, "off")
        self.notify(step.text, blocking=True)

    def extra_wager_problems(self, number: int, seat: Seat) -> list[str]:
        """Game rules for one seat's wagers at "no more bets" (beyond limits and known spots)."""
        return []

    # --- conditions -----------------------------------------------------------------------------

    def seat_problems(self, n: int, seat: Seat) -> list[str]:
        """What is wrong with seat ``n``'s wagers before the deal: unknown spots, table limits,
        the game's own rules."""
        problems = []
        for spot, cents in seat.wagers.items():
            limit = self.table.limits.get(spot)
            if spot not in self.BET_SPOTS:
                problems.append(f"seat {n} {spot}: not a wager before the deal")
            elif limit and not limit.min <= cents <= limit.max:
                problems.append(
                    f"seat {n} {spot}: {cents / 100:.2f} is outside {limit.min / 100:.2f}-{limit.max / 100:.2f}"
                )
        return problems + self.extra_wager_problems(n, seat)

    def wagers_valid(self) -> bool:
        self.problems = []
        for n, seat in sorted(self.seats.items()):
            self.problems += self.seat_problems(n, seat)
        if not self.seats:
            self.problems.append("no wagers on the table")
        for problem in self.problems:
            self._shown(f"correct: {problem}")
        return not self.problems

    def more_steps(self) -> bool:
        return self.settlement is not None and self.step_index + 1 < len(self.steps)

    def stub_due(self) -> bool:
        return self.rounds_dealt >= STUB_EVERY

    def stub_matches(self) -> bool:
        return self.counted_stub == self.expected_stub

    # --- callbacks ------------------------------------------------------------------------------

    def start_round(self) -> None:
        self.round_no += 1
        self.round_started = True
        self.ledger.start_round()
        self.pending_late, self.misread_index, self.entry, self.entry_card = [], None, None, None
        self.seats, self.dealt = {}, 0
        self.settlement, self.steps, self.step_index, self.late_bets = None, (), 0, []
        self.steps_done = set()
        self.reset_game()
        self.devices.lock_spots(False)
        self.problems = []
        self.ask(f"round {self.round_no}: place bets; then no more bets")

    def reset_game(self) -> None:
        """Clear the game's own round state (subclasses)."""

    def snapshot_state(self) -> dict[str, Any]:
        """What the table carries from one round to the next (taken as a round starts)."""
        return {
            "round_no": self.round_no,
            "supervisor": self.supervisor.key_on,
            "spots": [[seat, spot, cents] for (seat, spot), cents in sorted(self.board.levels.items())],
            "shoe_count": self.ledger.shoe_count,
            "rounds_dealt": self.rounds_dealt,
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Start from a snapshot: the closed table opens again at the snapshot's round (the key
        counts as off: the panel must report it again after a restart)."""
        self.round_no = int(state["round_no"]) - 1
        for seat, spot, cents in state.get("spots", []):
            self.board.report(seat, spot, cents)
        self.ledger.shoe_count = int(state.get("shoe_count", 0))
        # older snapshots: the rounds since the last count follow from the round number
        self.rounds_dealt = int(state.get("rounds_dealt", (int(state["round_no"]) - 1) % STUB_EVERY))
        self.open_table()  # type: ignore[attr-defined]
        self.show()

    def resend_requests(self) -> None:
        """After a restart: the key counts as off until the panel reports it (the replayed key
        report is not evidence of now); ask the devices again for what the table was waiting for."""
        self.supervisor.key_lost()
        if self.phase is self.Phase.COUNT_STUB:  # type: ignore[attr-defined]
            self.devices.request_stub_count()

    def placed(self, dealt: Card, to: str) -> None:
        """Note where a card went (the game's ``on_card``), for recall."""
        self.ledger.placed(self.card_index, dealt, to)

    def journal_failed(self, reason: str) -> None:
        """The journal cannot be written: hold (not recorded; the ``JournalFault`` event that
        follows when it can be written again holds a replay at the same place)."""
        if self.phase in self.PLAYING:
            self.hold_reason = f"journal: {reason}"
            self.hold()  # type: ignore[attr-defined]
        elif self.phase is self.Phase.HOLD and not self.hold_reason.startswith("journal:"):  # type: ignore[attr-defined]
            self.note(f"journal: {reason}")

    def on_JournalFault(self, e: Any) -> None:
        reason = f"journal: {e.reason} ({e.refused} events not recorded or acted on)"
        if self.phase in self.PLAYING:
            self.hold_reason = reason
            self.hold()  # type: ignore[attr-defined]
        elif self.phase is self.Phase.HOLD:  # type: ignore[attr-defined]
            if self.hold_reason.startswith("journal:"):
                self.hold_reason = reason
            self.note(reason)

    def lock_bets(self) -> None:
        self.seats = {n: s for n, s in self.seats.items() if s.wagers}
        self.devices.lock_spots(True)
        for n, seat in sorted(self.seats.items()):
            for spot in seat.wagers:
                self.devices.lamp(n, spot, "accepted")
        self.ask("no more bets: deal the cards")

    def settle_round(self) -> None:
        try:
            self.settlement = settle_record(self.round_record(), self.table)
        except RecordError as exc:
            self.hold_reason = f"cannot settle: {exc}"
            self.hold()  # type: ignore[attr-defined]
            return
        self.steps = self.steps_to_show(self.settlement)
        self.step_index = 0
        for paid in self.settlement.seats:
            seat = self.seats.get(paid.seat)
            for w in paid.wagers:
                if w.result.value == "win" and seat is not None and w.spot in seat.wagers:
                    self.devices.lamp(paid.seat, w.spot, "winner")
        self.ask_step()

    def next_step(self) -> None:
        assert self.settlement is not None
        self.step_index += 1
        self.ask_step()

    def ask_step(self) -> None:
        """The settlement step to do now, then confirm."""
        self.ask(self.steps[self.step_index].text)

    def lamps_between_rounds(self) -> None:
        """The round is over: its spots' lamps off, then every seat's main spot inviting a bet."""
        for n, seat in sorted(self.seats.items()):
            for spot in seat.wagers:
                if spot not in self.REQUIRED_SPOTS[:1]:
                    self.devices.lamp(n, spot, "off")
        for n in range(1, self.table.seats + 1):
            for spot in self.REQUIRED_SPOTS[:1]:
                self.devices.lamp(n, spot, "attract")

    def complete_round(self) -> None:
        self.rounds_dealt += 1
        self.lamps_between_rounds()
        result = RoundResult(self.round_no, self.round_record(), self.settlement, tuple(self.late_bets))
        self._keep(result)
        self._shown(f"round {self.round_no} complete")
        if self.on_round:
            self.on_round(result)
        self.next_round()  # type: ignore[attr-defined]

    def _keep(self, result: RoundResult) -> None:
        self.rounds.append(result)
        if len(self.rounds) > 2 * KEEP_ROUNDS:
            del self.rounds[:-KEEP_ROUNDS]

    def void_round(self) -> None:
        self.ledger.settle_waiting(MISDEAL)
        if self.dealt:
            self.rounds_dealt += 1  # cards left the shoe: a round dealt, voided or not
        self.notices = [n for n in self.notices if not n.blocking]  # no fold is collected: every wager returns
        self.page = 0
        self.lamps_between_rounds()
        self._keep(RoundResult(self.round_no, self.round_record(), None, tuple(self.late_bets)))
        returns = tuple(
            f"void: seat {n}: return {spot} {cents / 100:.2f}"
            for n, seat in sorted(self.seats.items())
            for spot, cents in seat.wagers.items()
        )
        self.notify(f"round {self.round_no} void: return all", returns)
        if self.on_round:
            self.on_round(self.rounds[-1])
        self.next_round()  # type: ignore[attr-defined]

    def ask_stub_count(self) -> None:
        self.rounds_dealt = 0
        self.expected_stub = self.DECK - self.dealt
        self.counted_stub = None
        self.devices.request_stub_count()
        self.ask(f"count the stub: {self.expected_stub} cards expected, then confirm")

    def stub_mismatch(self) -> None:
        self.hold_reason = f"stub count {self.counted_stub}, expected {self.expected_stub}"
        self.remember_phase()

    def remember_phase(self) -> None:
        self.held_from = self.phase
        self.held_links = set()
        self.devices.panel_lamp("clear_fault", True)
        self._shown(f"HOLD: {self.hold_reason}")

    def hold_for(self, reason: str) -> None:
        """Hold the round for ``reason`` (in play), or show it as the reason of a hold already on."""
        if self.phase in self.PLAYING:
            self.hold_reason = reason
            self.hold()  # type: ignore[attr-defined]
        elif self.phase is self.Phase.HOLD:  # type: ignore[attr-defined]
            self.hold_reason = reason
            self.note(reason)

    def on_machine_error(self, *_trigger_args: Any, **_trigger_kwargs: Any) -> None:
        """A callback of the machine raised: the table names the error on its hold reason.

        ``transitions`` calls this inside its ``except`` block with the trigger's own arguments
        (the machine does not use ``send_event``), so the error is the one being handled. Only its
        type is logged: its text may name a card not yet revealed.
        """
        error = sys.exc_info()[1]
        kind = type(error).__name__ if error is not None else "unknown error"
        log.error("table machine error: %s", kind)
        self.machine_error = kind
        self.hold_reason = f"controller error: {kind}"

    def late_bet(self, seat: int, spot: str, cents: int) -> None:
        """A change to a locked spot: not accepted, the lamp flashes, the display names it; a
        supervisor may accept it (``next``) or refuse it (``previous``) with the key on."""
        kind = "removed" if cents == 0 else "late"
        note = f"{kind} bet: seat {seat} {spot} {cents / 100:.2f} not accepted"
        self.late_bets.append(note)
        self.pending_late.append((seat, spot, cents))
        self.devices.lamp(seat, spot, "flash_removed" if kind == "removed" else "flash_late")
        self._shown(note)  # on the screen while it is pending (screen_details)

    def device_fault(self, device: str, error: str, **detail: Any) -> None:
        """A device report the table refuses: journaled as a ``DeviceFault`` record naming the
        device (and seat and spot), and shown."""
        self.audit("DeviceFault", {"device": device, **detail, "error": error})
        self.note(f"{device}: {error}")

    # --- events ---------------------------------------------------------------------------------

    def handle(self, event: Any) -> None:
        """Act on one event from the queue (the controller thread only)."""
        name = type(event).__name__
        if name == "ButtonChanged" and not event.pressed and event.button != "supervisor_key":
            return  # a button let go: nothing changes, the screen stays
        if name == "SpotReport" and not self.spot_on_board(event):
            self.show()
            return
        handler = getattr(self, _HANDLER_NAMES.get(name) or _HANDLER_NAMES.setdefault(name, f"on_{name}"), None)
        if name == "ButtonChanged" and event.pressed and self.notice_button(event.button):
            pass  # read first: a notice takes confirm, next and previous; long details page
        elif handler is not None:  # events the table does not act on (command results) change nothing
            self.notes, self.detail_page = [], 0
            handler(event)
        self.show()

    def on_OpenTable(self, e: Any) -> None:
        self.open_table()  # type: ignore[attr-defined]

    def spot_on_board(self, e: Any) -> bool:
        """Check a spot report against the table's seats and spots: a report for a spot the table
        does not have is refused here (a device fault) and never enters a round."""
        problem = self.board.problem(e.seat, e.spot)
        self.board.report(e.seat, e.spot, e.cents)
        if problem is not None:
            self.device_fault(e.device, f"report refused: {problem}", seat=e.seat, spot=e.spot, cents=e.cents)
            return False
        return True

    def on_SpotReport(self, e: Any) -> None:
        """A checked spot report (the games: wagers, street bets, late bets)."""

    def bet_while_open(self, e: Any) -> bool:
        """A spot report while betting is open: builds the seat's wagers. True if handled."""
        if self.phase is not self.Phase.BETTING:  # type: ignore[attr-defined]
            return False
        seat = self.seats.setdefault(e.seat, Seat(e.seat))
        if e.cents:
            seat.wagers[e.spot] = e.cents
            self.devices.lamp(e.seat, e.spot, "open")
        elif seat.wagers.pop(e.spot, None) is not None:
            self.devices.lamp(e.seat, e.spot, "off")  # the spot emptied
        return True

    # --- cards ----------------------------------------------------------------------------------

    def on_CardDealt(self, e: Any) -> None:
        try:
            dealt = card(e.card)
        except CardError:
            self.ledger.not_used(e.index, str(e.card), UNREADABLE)
            self.misread_index = e.index
            self.hold_for(f"unreadable card report {e.card!r} (index {e.index}): read it again, enter it, or void")
            return
        if self.phase is self.Phase.HOLD:  # type: ignore[attr-defined]
            if self.misread_index == e.index:  # the misread card read again
                self.supervisor.attempt("card read again", dealt=dealt, index=e.index)
            else:  # left the shoe while held: kept, and waits for the supervisor
                self.ledger.wait(e.index, dealt, "dealt while held")
                self.note(f"card {e.index} dealt while held: it waits for the supervisor")
            return
        self.take_card(e.index, dealt)

    def take_card(self, index: int, dealt: Card) -> None:
        """A card from the shoe while the round is played: placed by the game, or held for."""
        if not self.card_expected(index):
            self.ledger.wait(index, dealt, "dealt when none was expected")
            self.hold_for(f"card {index} from the shoe dealt when none was expected")
            return
        if self.phase is self.Phase.NO_MORE_BETS:  # type: ignore[attr-defined]
            self.deal_started()  # type: ignore[attr-defined]
        elif dealt in self.cards_seen():
            self.ledger.not_used(index, str(dealt), DUPLICATE)
            self.misread_index = index
            self.hold_for(
                f"duplicate card: {self.card_place(self.dealt)} (shoe card {index}) read as one already dealt:"
                " read it again, enter it, or void"
            )
            return
        self.card_index = index
        self.on_card(dealt, index)

    def place_corrected(self, dealt: Card, index: int) -> None:
        """Deal the corrected misread card, then the cards that waited behind it (the supervisor
        decides on those: the table holds again for them)."""
        self.misread_index, self.entry, self.entry_card = None, None, None
        self.devices.panel_lamp("clear_fault", False)
        self.resume()  # type: ignore[attr-defined]
        self.card_index = index
        self.on_card(dealt, index)
        if self.ledger.waiting and self.phase is not self.Phase.HOLD:  # type: ignore[attr-defined]
            self.hold_for(self.waiting_reason())

    def accept_read_again(self, button: str, record: Record, dealt: Card, index: int) -> None:
        """Supervisor action: the misread card read again by the shoe."""
        if dealt in self.cards_seen():
            self.note(f"shoe card {index} read again as a card already dealt: not accepted")
            return
        record(f"shoe card {index} read again")
        self.place_corrected(dealt, index)

    def enter_card(self, button: str, record: Record) -> None:
        """Supervisor action: enter the card the shoe misread: ``next`` / ``previous`` move through
        the cards not yet dealt this round, ``confirm`` deals the one shown."""
        if button in ("next", "previous"):
            seen = set(self.cards_seen()) | {c for _, c in self.ledger.waiting}  # out of the shoe too
            choices = [c for c in deck(joker=self.DECK == 53) if c not in seen]
            step = 1 if button == "next" else -1
            self.entry = (
                (self.entry + step) % len(choices) if self.entry is not None else (0 if step == 1 else len(choices) - 1)
            )
            self.entry_card = choices[self.entry]
            self._shown(self.hold_prompt())
            return
        if self.entry_card is None:
            return
        dealt, index = self.entry_card, self.misread_index
        assert index is not None
        record(f"{self.card_place(self.dealt)} (shoe card {index}) entered")
        self.place_corrected(dealt, index)

    def card_to_enter(self) -> bool:
        return self.misread_index is not None

    def cards_waiting(self) -> bool:
        return bool(self.ledger.waiting)

    def waiting_reason(self) -> str:
        n = len(self.ledger.waiting)
        return f"{n} card{'s' if n > 1 else ''} dealt while held: supervisor: confirm accepts, void declares a misdeal"

    def accept_waiting_cards(self, button: str, record: Record) -> None:
        """Supervisor action: the cards that left the shoe while held go to their places in the
        dealing order (a card with no place in the deal is burned)."""
        cards = self.ledger.take_waiting()
        record(f"shoe cards {', '.join(str(i) for i, _ in cards)} dealt while held, accepted in dealing order")
        self.devices.panel_lamp("clear_fault", False)
        self.resume()  # type: ignore[attr-defined]
        self.place_waiting(cards)

    def place_waiting(self, cards: list[tuple[int, Card]]) -> None:
        """Place cards that waited, in dealt order (a card with no place in the deal is burned);
        when one holds the table again, the rest wait again."""
        for n, (index, dealt) in enumerate(cards):
            if self.phase is self.Phase.HOLD:  # type: ignore[attr-defined] # a card held the table again
                for later, later_card in cards[n:]:
                    self.ledger.wait(later, later_card, "dealt while held")
                return
            if not self.card_expected(index):
                self.ledger.not_used(index, str(dealt), BURNED)
                self.note(f"shoe card {index}: no place in the deal, burned")
                continue
            self.take_card(index, dealt)

    def declare_misdeal(self, button: str, record: Record) -> None:
        """Supervisor action: the cards dealt while held make a misdeal: the round is void."""
        cards = ", ".join(str(i) for i, _ in self.ledger.waiting)
        record(f"round {self.round_no}: shoe cards {cards} dealt while held: misdeal, all wagers returned")
        self.devices.panel_lamp("clear_fault", False)
        self.void()  # type: ignore[attr-defined]

    def card_place(self, placed: int) -> str:
        """Where the card dealt after ``placed`` cards goes, as the dealer names it (``dealer
        card 3``): cards are named by position, never by face, until they are revealed (subclasses)."""
        return f"card {placed + 1}"

    def dealing(self) -> bool:
        """Whether a card from the shoe is expected now (subclasses)."""
        return False

    def card_expected(self, index: int) -> bool:
        """A card is expected now: while dealing (or the first card after "no more bets")."""
        if self.CARD_STARTS_DEAL and self.phase is self.Phase.NO_MORE_BETS:  # type: ignore[attr-defined]
            return True
        return self.dealing()

    def cards_seen(self) -> list[Card]:
        return [c for s in self.seats.values() for c in s.cards]

    def on_CardUnreadable(self, e: Any) -> None:
        self.ledger.not_used(e.index, "??", UNREADABLE)
        self.misread_index = e.index
        self.hold_for(f"unreadable card: {self.card_place(self.dealt)} (shoe card {e.index}): read it again, or void")

    def on_ShoeStatus(self, e: Any) -> None:
        self.devices.stub_count_answered()
        if self.phase is self.Phase.COUNT_STUB:  # type: ignore[attr-defined]
            self.counted_stub = e.stub_count
            if self.stub_matches():  # read, not flashed past: it stays until confirmed
                self.notify(f"stub counted by the shoe: {e.stub_count} cards, as expected")
            self.stub_counted()  # type: ignore[attr-defined]

    # --- buttons and the supervisor ---------------------------------------------------------------

    def on_ButtonChanged(self, e: Any) -> None:
        if e.button == "supervisor_key":
            self.supervisor.key_reported(e.pressed)
            return
        if not e.pressed:
            return
        b = e.button
        if self.supervisor.press(b):
            return
        if b.startswith("seat_"):
            self.selected_seat = int(b[5:])
            self.on_seat_button(self.selected_seat)
        elif b == "no_more_bets":
            self.no_more_bets()  # type: ignore[attr-defined]
        elif b == "confirm" and self.phase is self.Phase.COUNT_STUB:  # type: ignore[attr-defined]
            self.counted_stub = self.expected_stub  # the dealer counted by hand and it agrees
            self.stub_counted()  # type: ignore[attr-defined]
        elif b == "confirm" and self.phase is self.Phase.SETTLEMENT:  # type: ignore[attr-defined]
            self.confirm()  # type: ignore[attr-defined]
        else:
            self.on_game_button(b)

    def dealer_button(self, button: str) -> bool:
        """Whether ``button`` has a dealer meaning now: then a supervisor action on the same button
        takes it only with the key on (subclasses add the game's own)."""
        return button == "confirm" and self.phase in (self.Phase.COUNT_STUB, self.Phase.SETTLEMENT)  # type: ignore[attr-defined]

    def void_by_supervisor(self, button: str, record: Record) -> None:
        """Supervisor action: void the round, every wager returned."""
        record(f"round {self.round_no} voided from {self.phase.value}: all wagers returned")
        self.devices.panel_lamp("clear_fault", False)
        self.void()  # type: ignore[attr-defined]

    def why_not_resume(self) -> str | None:
        """Why play cannot resume now: a device not back yet (the supervisor may still void)."""
        gone = self.links.why_not_back()
        return f"a device is not back: {gone}" if gone else None

    def why_not_accept(self) -> str | None:
        """Why the waiting cards cannot be placed now: a misread card before them comes first."""
        if self.misread_index is not None:
            return f"card {self.misread_index} must be read again or entered first"
        return self.why_not_resume()

    def why_not_clear(self) -> str | None:
        if self.ledger.waiting:
            return self.waiting_reason()
        return self.why_not_resume()

    def clear_fault(self, button: str, record: Record) -> None:
        """Supervisor action: clear the fault and resume where the round was held (a device whose
        command failed is sent its whole state again first)."""
        record(self.hold_reason)
        for device in sorted(self.failed_devices):
            self.devices.resend(device)
        self.failed_devices = set()
        self.devices.panel_lamp("clear_fault", False)
        self.resume()  # type: ignore[attr-defined]

    def late_pending(self) -> bool:
        return bool(self.pending_late)

    def accept_late_bet(self, button: str, record: Record) -> None:
        """Supervisor action: accept the oldest pending late-bet change (if the round's rules allow it)."""
        self.resolve_late_bet(True, record)

    def refuse_late_bet(self, button: str, record: Record) -> None:
        """Supervisor action: refuse the oldest pending late-bet change."""
        self.resolve_late_bet(False, record)

    def resolve_late_bet(self, accept: bool, record: Record) -> None:
        seat, spot, cents = self.pending_late.pop(0)
        if not accept:
            record(f"seat {seat} {spot} {cents / 100:.2f}")
            return
        s = self.seats.get(seat)
        if s is None or spot not in self.BET_SPOTS:
            record(f"seat {seat} {spot} {cents / 100:.2f} cannot enter a round already dealt", "late bet refused")
            return
        trial = Seat(seat, dict(s.wagers))
        if cents:
            trial.wagers[spot] = cents
        else:
            trial.wagers.pop(spot, None)
        broken = self.seat_problems(seat, trial) + [
            f"the {r} wager stays with a dealt hand" for r in self.REQUIRED_SPOTS if r not in trial.wagers
        ]
        if broken:  # e.g. a main wager taken off a dealt hand: the seat's wagers would break the rules
            record(
                f"seat {seat} {spot} {cents / 100:.2f} cannot enter a round already dealt: {'; '.join(broken)}",
                "late bet refused",
            )
            return
        s.wagers = trial.wagers
        self.devices.lamp(seat, spot, "accepted" if cents else "off")
        record(f"seat {seat} {spot} now {cents / 100:.2f}")

    def on_seat_button(self, seat: int) -> None:
        """A seat button was pressed (subclasses)."""

    def on_game_button(self, button: str) -> None:
        """Any other button (subclasses)."""

    # --- links and device state -------------------------------------------------------------------

    def on_LinkDown(self, e: Any) -> None:
        self.links.down(e.device)
        if e.device == PANEL:
            self.supervisor.key_lost()  # authority never outlives its evidence
        if self.phase in self.PLAYING:
            self.hold_reason = f"link down: {e.device}"
            self.hold()  # type: ignore[attr-defined]
        if self.phase is self.Phase.HOLD:  # type: ignore[attr-defined]
            self.held_links.add(e.device)

    def on_DeviceFault(self, e: Any) -> None:
        """A device fault from a driver (journaled already). A command the round depends on that
        finally failed (the display, the spot lock and lamps) holds the table: the dealer and the
        players would go on from a screen or lamps that are wrong."""
        command = getattr(e, "command", "")
        if getattr(e, "kind", "") == "command_failed" and command in ROUND_COMMANDS:
            self.failed_devices.add(e.device)
            if self.phase in self.PLAYING:
                self.hold_for(f"{e.device}: {e.error}")

    def on_LinkUp(self, e: Any) -> None:
        self.links.up(e.device)
        self.devices.resend(e.device)  # its whole current state, never an old prompt

    def device_back(self, device: str) -> None:
        """``device``'s whole state was read after its link came up: a hold for lost links ends
        once every device is back (unless cards wait for the supervisor)."""
        self.links.state_read(device)
        if self.phase is not self.Phase.HOLD or not self.hold_reason.startswith("link down"):  # type: ignore[attr-defined]
            return
        if self.links.why_not_back() is not None:
            return
        if self.ledger.waiting and not self.held_links <= {SHOE}:
            self.hold_for(self.waiting_reason())
            return
        self.note(f"{device} back: resume")
        self.devices.panel_lamp("clear_fault", False)
        self.resume()  # type: ignore[attr-defined]
        # Held for the shoe's link alone: the cards that waited are its reports delivered late, in
        # order and none missing (its count agreed), so they go to their places as dealt.
        self.place_waiting(self.ledger.take_waiting())

    def on_SpotsState(self, e: Any) -> None:
        """The bet spots' whole state after a link-up: each spot that changed while the link was
        down counts as the report it stands for (late and removed-bet rules apply)."""
        changes = self.board.changes(e.spots)
        self.device_back(e.device)
        for seat, spot, cents in changes:
            report = SpotReport(device=e.device, at=e.at, seat=seat, spot=spot, cents=cents)
            if self.spot_on_board(report):
                self.on_SpotReport(report)

    def on_PanelState(self, e: Any) -> None:
        """The panel's whole state after a link-up: its key switch replaces what the table believed;
        its display size, when it reports one, replaces the config's."""
        self.supervisor.key_reported(e.key_on)
        lines, columns = getattr(e, "lines", 0), getattr(e, "columns", 0)
        if lines and columns:
            try:
                self.size = DisplaySize(lines, columns)
            except ValueError as exc:
                log.warning("panel %s: %s: keeping %s x %s", e.device, exc, self.size.lines, self.size.columns)
            self.screen = ()  # send the whole screen again, fitted to the panel
        self.device_back(e.device)

    def on_ShoeState(self, e: Any) -> None:
        """The shoe's whole state after a link-up: its count of cards out must match the cards it
        reported (a difference is a fault: the table holds)."""
        difference = self.ledger.count_differs(e.cards_out)
        if difference is None:
            self.device_back(e.device)
            return
        self.links.state_read(e.device)
        self.device_fault(e.device, difference, cards_out=e.cards_out)
        self.hold_for(f"shoe: {difference}")
