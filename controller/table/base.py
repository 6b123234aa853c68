"""What every game's table machine shares: the common states and transitions, and the model's
common behaviour (prompts, settlement shown step by step, hold and resume, void, stub count,
late bets, link loss, supervisor buttons).

A game module defines its ``Phase`` enum (with the common states ``CLOSED``, ``BETTING``,
``NO_MORE_BETS`` (bets locked, the deal not begun), ``SETTLEMENT``, ``ROUND_COMPLETE``, ``COUNT_STUB``, ``HOLD``, ``VOID``), its own transitions
plus :func:`common_transitions`, and a subclass of :class:`RoundTable` for its steps.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar

from transitions import Machine

from controller.cards import Card, CardError, card, deck
from controller.games import RecordError, settle_record
from controller.settlement import Settlement, Step
from controller.table.devices import TableDevices
from controller.table.screen import DisplaySize, Notice, ScreenState, page_count, render
from controller.table_config import TableConfig

__all__ = ["Seat", "RoundResult", "RoundTable", "common_transitions", "game_phases", "in_play_states", "STUB_EVERY"]

log = logging.getLogger("tablectl.table")

STUB_EVERY = 5
"""The stub is counted at least once every five rounds (24.8(e), 35.9(e))."""

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
    BET_SPOTS: ClassVar[tuple[str, ...]] = ()
    CONFIRM_PHASES: ClassVar[tuple[str, ...]] = ("settlement",)
    """States whose prompt is a procedure step, done and then confirmed."""
    REQUIRED_SPOTS: ClassVar[tuple[str, ...]] = ()
    """The wagers every seat in a round has (the game's main wagers)."""

    def __init__(
        self,
        table: TableConfig,
        devices: TableDevices,
        on_round: Callable[[RoundResult], None] | None = None,
        audit: Callable[[str, dict[str, Any]], Any] | None = None,
    ) -> None:
        self.table = table
        self.devices = devices
        self.on_round = on_round
        self.audit = audit or (lambda kind, data: None)
        """Where supervisor actions are journaled, with their reason."""
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
        self.problems: list[str] = []
        self.late_bets: list[str] = []
        self.rounds: list[RoundResult] = []
        self.settlement: Settlement | None = None
        self.steps: tuple[Step, ...] = ()
        """The settlement steps the dealer is walked through (the procedure, less any shown earlier)."""
        self.step_index = 0
        self.held_from: Any = None
        self.hold_reason = ""
        self.supervisor = False
        self.expected_stub = 0
        self.counted_stub: int | None = None
        self.selected_seat: int | None = None
        self.round_started = False
        """Set when a round starts (the runtime snapshots the table then and clears it)."""
        self.card_log: list[dict[str, Any]] = []
        """Every card of the round in dealt order: its shoe index, the card, where it went."""
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
            queued=True,
            on_exception="on_machine_error",
            ignore_invalid_triggers=True,
        )

    # --- reading ------------------------------------------------------------------------------

    @property
    def phase(self) -> Any:
        return self.state  # type: ignore[attr-defined]

    def _shown(self, text: str) -> None:
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
        if self.phase is self.Phase.BETTING:  # type: ignore[attr-defined]
            out += [f"correct: {p}" for p in self.problems]
        for seat, spot, cents in self.pending_late:
            out.append(f"{'removed' if cents == 0 else 'late'} bet: seat {seat} {spot} {cents / 100:.2f} not accepted")
        if self.supervisor and self.pending_late:
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
        held = self.phase is self.Phase.HOLD  # type: ignore[attr-defined]
        step = self.held_from.value if held and self.held_from is not None else self.phase.value
        return ScreenState(
            round_no=self.round_no,
            step=step,
            prompt=self.hold_prompt()
            if held
            else f"{self.prompt}; confirm"
            if self.phase.value in self.CONFIRM_PHASES
            else self.prompt,
            details=tuple(self.screen_details()),
            notes=tuple(self.notes),
            hold=self.hold_reason if held else "",
            notice=self.notices[0] if self.notices else None,
            page=self.page if self.notices else self.detail_page,
        )

    def show(self) -> None:
        """Send the screen when it changed: one whole screen, replacing the last."""
        lines = render(self.screen_state(), self.size)
        if lines != self.screen:
            self.screen = lines
            self.devices.screen(lines)

    def notice_button(self, button: str) -> bool:
        """``next`` / ``previous`` page a notice, ``confirm`` goes to its next page or, on the last,
        confirms it. True when the button was taken by a notice."""
        if button not in ("confirm", "next", "previous"):
            return False
        pages = page_count(self.screen_state(), self.size)
        if not self.notices:  # details longer than the screen: next / previous page them when free
            if button == "confirm" or pages == 1 or self.uses_next_previous():
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
        return self.supervisor and (bool(self.pending_late) or self.misread_index is not None)

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
        self.card_log = []
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
        return {"round_no": self.round_no, "supervisor": self.supervisor, "rounds_dealt": self.rounds_dealt}

    def restore(self, state: dict[str, Any]) -> None:
        """Start from a snapshot: the closed table opens again at the snapshot's round."""
        self.round_no = int(state["round_no"]) - 1
        self.supervisor = bool(state["supervisor"])
        # older snapshots: the rounds since the last count follow from the round number
        self.rounds_dealt = int(state.get("rounds_dealt", (int(state["round_no"]) - 1) % STUB_EVERY))
        self.open_table()  # type: ignore[attr-defined]
        self.show()

    def resend_requests(self) -> None:
        """After a restart: ask the devices again for what the table was waiting for."""
        if self.phase is self.Phase.COUNT_STUB:  # type: ignore[attr-defined]
            self.devices.request_stub_count()

    def placed(self, dealt: Card, to: str) -> None:
        """Note where a card went (the game's ``on_card``), for recall."""
        self.card_log.append({"index": self.card_index, "card": str(dealt), "to": to})

    def journal_failed(self, reason: str) -> None:
        """The journal cannot be written: hold (not recorded; the ``JournalFault`` event that
        follows when it can be written again holds a replay at the same place)."""
        if self.phase in self.PLAYING:
            self.hold_reason = f"journal: {reason}"
            self.hold()  # type: ignore[attr-defined]
        elif self.phase is self.Phase.HOLD and not self.hold_reason.startswith("journal:"):  # type: ignore[attr-defined]
            self.note(f"journal: {reason}")

    def on_JournalFault(self, e: Any) -> None:  # noqa: N802 - named for the event class
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
        self.devices.panel_lamp("clear_fault", True)
        self._shown(f"HOLD: {self.hold_reason}")

    def supervise(self, action: str, reason: str) -> None:
        """Journal a supervisor action and show it."""
        self.audit("SupervisorAction", {"round": self.round_no, "action": action, "reason": reason})
        self.note(f"supervisor: {action}: {reason}")

    def on_machine_error(self, event: Any) -> None:
        log.error("table machine error: %s", event.error)
        self.hold_reason = f"controller error: {event.error}"

    def late_bet(self, seat: int, spot: str, cents: int) -> None:
        """A change to a locked spot: not accepted, the lamp flashes, the display names it; a
        supervisor may accept it (``next``) or refuse it (``previous``) with the key on."""
        kind = "removed" if cents == 0 else "late"
        note = f"{kind} bet: seat {seat} {spot} {cents / 100:.2f} not accepted"
        self.late_bets.append(note)
        self.pending_late.append((seat, spot, cents))
        self.devices.lamp(seat, spot, "flash_removed" if kind == "removed" else "flash_late")
        self._shown(note)  # on the screen while it is pending (screen_details)

    # --- events ---------------------------------------------------------------------------------

    def handle(self, event: Any) -> None:
        """Act on one event from the queue (the controller thread only)."""
        name = type(event).__name__
        if name == "ButtonChanged" and not event.pressed and event.button != "supervisor_key":
            return  # a button let go: nothing changes, the screen stays
        handler = getattr(self, f"on_{name}", None)
        if name == "ButtonChanged" and event.pressed and self.notice_button(event.button):
            pass  # read first: a notice takes confirm, next and previous; long details page
        elif handler is not None:  # events the table does not act on (command results) change nothing
            self.notes, self.detail_page = [], 0
            handler(event)
        self.show()

    def on_OpenTable(self, e: Any) -> None:  # noqa: N802
        self.open_table()  # type: ignore[attr-defined]

    def on_PanelState(self, e: Any) -> None:  # noqa: N802
        """The panel's whole state after a link-up: its display size when it reports one."""
        lines, columns = getattr(e, "lines", 0), getattr(e, "columns", 0)
        if lines and columns:
            try:
                self.size = DisplaySize(lines, columns)
            except ValueError as exc:
                log.warning("panel %s: %s: keeping %s x %s", e.device, exc, self.size.lines, self.size.columns)
            self.screen = ()  # send the whole screen again, fitted to the panel

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

    def on_CardDealt(self, e: Any) -> None:  # noqa: N802 - named for the event class
        if not self.card_expected(e):
            self.hold_reason = f"card {e.index} from the shoe dealt when none was expected"
            self.hold()  # type: ignore[attr-defined]
            return
        try:
            dealt = card(e.card)
        except CardError:
            self.hold_reason = f"unreadable card report {e.card!r}"
            self.hold()  # type: ignore[attr-defined]
            return
        if self.phase is self.Phase.HOLD:  # type: ignore[attr-defined] # the re-read of the unreadable card
            where = self.card_place(self.dealt)  # 24.8, 35.9, 31.8: dealt face down, so named by position
            if not self.supervisor:
                self.note(f"{where} read again: the supervisor's key is needed to accept it")
                return
            if dealt in self.cards_seen():
                self.note(f"{where} read again as a card already dealt: not accepted")
                return
            self.supervise("card corrected", f"{where} (shoe card {e.index}) read again")
            self.misread_index = None
            self.devices.panel_lamp("clear_fault", False)
            self.resume()  # type: ignore[attr-defined]
        elif self.phase is self.Phase.NO_MORE_BETS:  # type: ignore[attr-defined]
            self.deal_started()  # type: ignore[attr-defined]
        elif dealt in self.cards_seen():
            where = self.card_place(self.dealt)
            self.hold_reason = f"duplicate card: {where} (shoe card {e.index}) read as one already dealt: read it again, enter it, or void"
            self.misread_index = e.index
            self.hold()  # type: ignore[attr-defined]
            return
        self.card_index = e.index
        self.on_card(dealt, e.index)

    def enter_card(self, button: str) -> None:
        """The supervisor enters the card the shoe misread: ``next`` / ``previous`` move through
        the cards not yet dealt this round, ``confirm`` deals the one shown."""
        if button in ("next", "previous"):
            seen = set(self.cards_seen())
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
        self.supervise("card corrected", f"{self.card_place(self.dealt)} (shoe card {index}) entered")
        self.misread_index, self.entry, self.entry_card = None, None, None
        self.devices.panel_lamp("clear_fault", False)
        self.resume()  # type: ignore[attr-defined]
        self.card_index = index
        self.on_card(dealt, index)

    def card_place(self, placed: int) -> str:
        """Where the card dealt after ``placed`` cards goes, as the dealer names it (``dealer
        card 3``): cards are named by position, never by face, until they are revealed (subclasses)."""
        return f"card {placed + 1}"

    def dealing(self) -> bool:
        """Whether a card from the shoe is expected now (subclasses)."""
        return False

    def card_expected(self, e: Any) -> bool:
        """A card is expected: while dealing, or the re-read of an unreadable card on hold."""
        if self.CARD_STARTS_DEAL and self.phase is self.Phase.NO_MORE_BETS:  # type: ignore[attr-defined]
            return True
        return self.dealing() or (self.phase is self.Phase.HOLD and self.misread_index == e.index)  # type: ignore[attr-defined]

    def cards_seen(self) -> list[Card]:
        return [c for s in self.seats.values() for c in s.cards]

    def on_CardUnreadable(self, e: Any) -> None:  # noqa: N802
        self.hold_reason = (
            f"unreadable card: {self.card_place(self.dealt)} (shoe card {e.index}): read it again, or void"
        )
        self.misread_index = e.index
        self.hold()  # type: ignore[attr-defined]

    def on_ShoeStatus(self, e: Any) -> None:  # noqa: N802
        if self.phase is self.Phase.COUNT_STUB:  # type: ignore[attr-defined]
            self.counted_stub = e.stub_count
            if self.stub_matches():  # read, not flashed past: it stays until confirmed
                self.notify(f"stub counted by the shoe: {e.stub_count} cards, as expected")
            self.stub_counted()  # type: ignore[attr-defined]

    def on_ButtonChanged(self, e: Any) -> None:  # noqa: N802
        if e.button == "supervisor_key":
            self.supervisor = e.pressed
            return
        if not e.pressed:
            return
        b = e.button
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
        elif b == "void" and self.supervisor:
            self.supervise("void", f"round {self.round_no} voided from {self.phase.value}: all wagers returned")
            self.devices.panel_lamp("clear_fault", False)
            self.void()  # type: ignore[attr-defined]
        elif b == "clear_fault" and self.supervisor and self.phase is self.Phase.HOLD:  # type: ignore[attr-defined]
            self.supervise("fault cleared", self.hold_reason)
            self.devices.panel_lamp("clear_fault", False)
            self.resume()  # type: ignore[attr-defined]
        elif (
            b in ("next", "previous", "confirm")
            and self.supervisor
            and self.phase is self.Phase.HOLD  # type: ignore[attr-defined]
            and self.misread_index is not None
        ):
            self.enter_card(b)
        elif b in ("next", "previous") and self.supervisor and self.pending_late:
            self.resolve_late_bet(accept=b == "next")
        else:
            self.on_game_button(b)

    def resolve_late_bet(self, accept: bool) -> None:
        """The supervisor accepts or refuses the oldest pending late-bet change."""
        seat, spot, cents = self.pending_late.pop(0)
        if not accept:
            self.supervise("late bet refused", f"seat {seat} {spot} {cents / 100:.2f}")
            return
        s = self.seats.get(seat)
        if s is None or spot not in self.BET_SPOTS:
            self.supervise(
                "late bet refused", f"seat {seat} {spot} {cents / 100:.2f} cannot enter a round already dealt"
            )
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
            self.supervise(
                "late bet refused",
                f"seat {seat} {spot} {cents / 100:.2f} cannot enter a round already dealt: {'; '.join(broken)}",
            )
            return
        s.wagers = trial.wagers
        self.devices.lamp(seat, spot, "accepted" if cents else "off")
        self.supervise("late bet accepted", f"seat {seat} {spot} now {cents / 100:.2f}")

    def on_seat_button(self, seat: int) -> None:
        """A seat button was pressed (subclasses)."""

    def on_game_button(self, button: str) -> None:
        """Any other button (subclasses)."""

    def on_LinkDown(self, e: Any) -> None:  # noqa: N802
        if self.phase in self.PLAYING:
            self.hold_reason = f"link down: {e.device}"
            self.hold()  # type: ignore[attr-defined]

    def on_LinkUp(self, e: Any) -> None:  # noqa: N802
        if self.phase is self.Phase.HOLD and self.hold_reason == f"link down: {e.device}":  # type: ignore[attr-defined]
            self.note(f"{e.device} back: resume")
            self.devices.panel_lamp("clear_fault", False)
            self.resume()  # type: ignore[attr-defined]
