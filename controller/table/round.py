"""The model of a game's round machine: it takes each event and hands it to the collaborator
whose concern it is, and keeps the round's seats and cards dealt.

The collaborators, one concern each: the one hold rule (:mod:`.holds`), cards from the shoe
(:mod:`.card_intake`, over the :mod:`.card_ledger`), late bets (:mod:`.late_bets`), link
reconciliation (:mod:`.links`), the shoe's jam and door (:mod:`.shoe_faults`), the settlement
walk (:mod:`.settlement_walk`), the stub count (:mod:`.stub_count`), the dealer's screen
(:mod:`.dealer_screen`), the supervisor's actions and key (:mod:`.supervisor`), the spots checked
against the table (:mod:`.bet_board`) and the state each device is given again on every link-up
(:mod:`.device_state`). The common states and
transitions are in :mod:`.phases`; a game module subclasses :class:`RoundTable` for its steps.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from operator import attrgetter
from typing import Any, ClassVar, TypeVar

from transitions import Machine

from controller.cards import Card
from controller.settlement import Settlement, Step
from controller.table.bet_board import BetBoard
from controller.table.card_intake import CardIntake
from controller.table.card_ledger import CardLedger
from controller.table.carry_over import CarryOver
from controller.table.dealer_screen import DealerScreen
from controller.table.device_state import ShownState
from controller.table.devices import TableDevices
from controller.table.holds import Holds
from controller.table.late_bets import LateBets
from controller.table.links import LinkReconciler
from controller.table.phases import CommonPhases, Trigger, via
from controller.table.round_data import RoundResult, Seat
from controller.table.screen import DisplaySize, Notice
from controller.table.settlement_walk import SettlementWalk
from controller.table.shoe_faults import ShoeFaults
from controller.table.stub_count import StubCount
from controller.table.supervisor import SUPERVISOR_ACTIONS, Action, Supervisor
from controller.table.wagers import Wagers
from controller.table_config import TableConfig

__all__ = ["RoundTable", "Seat", "RoundResult"]

T = TypeVar("T")

KEEP_ROUNDS = 20
"""The recent rounds kept in memory (everything is in the journal)."""

ROUTES: dict[str, str] = {
    "JournalFault": "holds.journal_refused",
    "DeviceFault": "holds.device_fault",
    "CardDealt": "intake.dealt",
    "CardUnreadable": "intake.unreadable",
    "DevicesExpected": "links.expected",
    "LinkDown": "links.down",
    "LinkUp": "links.up",
    "SpotsState": "links.spots_state",
    "PanelState": "links.panel_state",
    "ShoeState": "shoe_faults.state",
    "Jam": "shoe_faults.jam",
    "DoorChanged": "shoe_faults.door",
}
"""The collaborator that takes each kind of event (unless the table has its own ``on_<kind>``)."""


class RoundTable:
    """The model of a game's machine: it owns the round and sends device commands.

    Subclasses set ``Phase``, ``TRANSITIONS``, ``PLAYING``, ``DECK`` and the game steps (and
    declare their own triggers), and implement ``round_record``, ``on_card`` (a card from the
    shoe while dealing) and ``on_SpotReport``.
    """

    Phase: ClassVar[type[Enum]]
    common: ClassVar[CommonPhases]
    """The game's members of the common states (``self.phase is self.common.hold``)."""
    TRANSITIONS: ClassVar[list[dict[str, Any]]]
    PLAYING: ClassVar[list[Enum]]
    DECK: ClassVar[int] = 52
    DEALING_STATES: ClassVar[tuple[str, ...]] = ("dealing",)
    """The states in which cards come from the shoe."""
    CARD_STARTS_DEAL: ClassVar[bool] = True
    """The first card from the shoe after "no more bets" begins the deal (``deal_started``)."""
    BET_SPOTS: ClassVar[tuple[str, ...]] = ()
    WAGER_STEPS: ClassVar[tuple[str, ...]] = ("betting",)
    """The states whose step asks for wagers (:meth:`.wagers.Wagers.open_step`: held or not)."""
    CONFIRM_PHASES: ClassVar[tuple[str, ...]] = ("settlement",)
    """States whose prompt is a procedure step, done and then confirmed."""
    REQUIRED_SPOTS: ClassVar[tuple[str, ...]] = ()
    """The wagers every seat in a round has (the game's main wagers)."""
    SPOT_NAMES: ClassVar[tuple[str, ...]] = ()
    """Every spot the bet-spot sensors have at each seat (default: ``BET_SPOTS``)."""
    SUPERVISOR_ACTIONS: ClassVar[tuple[Action, ...]] = SUPERVISOR_ACTIONS
    machine_error: str | None = None
    """The kind of the last error a machine callback raised (None: none since start): a soak or
    a test treats it as a failed table, where a dealer's table holds."""
    phase: Enum
    """The machine's state (a member of ``Phase``), kept here by ``transitions``."""

    # The triggers every game's machine has (``transitions`` binds them: model_override).
    open_table = Trigger()
    no_more_bets = Trigger()
    deal_started = Trigger()
    confirm = Trigger()
    next_round = Trigger()
    stub_counted = Trigger()
    hold = Trigger()
    resume = Trigger()
    void = Trigger()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "Phase" in cls.__dict__:
            cls.common = CommonPhases.of(cls.Phase)

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
        self.ledger = CardLedger()
        self.board = BetBoard(table.seats, self.SPOT_NAMES or self.BET_SPOTS)
        self.on_round = on_round
        self.audit = audit or (lambda kind, data: None)
        """Where supervisor actions, refused attempts and refused reports are journaled."""
        self.wagers = Wagers(self)
        self.display = DealerScreen(self, DisplaySize(table.display.lines, table.display.columns))
        self.holds = Holds(self)
        self.intake = CardIntake(self)
        self.late = LateBets(self)
        self.links = LinkReconciler(self)
        self.shoe_faults = ShoeFaults(self)
        self.walk = SettlementWalk(self)
        self.stub = StubCount(self)
        self.carry = CarryOver(self)
        self.seats: dict[int, Seat] = {}
        self.dealt = 0
        self.round_no = 0
        self.rounds: list[RoundResult] = []
        self.selected_seat: int | None = None
        self.round_started = False
        """Set when a round starts (the runtime snapshots the table then and clears it)."""
        self._handlers: dict[str, Callable[[Any], Any] | None] = {}
        """The handler of each kind of event, found on first use (looked up on every event)."""
        for phase in self.PLAYING:
            setattr(self, f"held_in_{phase.value}", (lambda p: lambda: self.holds.held_from is p)(phase))
        self.machine = Machine(
            model=self,
            states=self.Phase,
            transitions=self.TRANSITIONS,
            initial=self.common.closed,
            auto_transitions=False,
            model_attribute="phase",  # read on every event: a plain attribute, not a property over ``state``
            model_override=True,  # only the declared triggers are bound: their calls type-check
            queued=True,
            on_exception="on_machine_error",
            ignore_invalid_triggers=True,
        )
        actions, playing = self.SUPERVISOR_ACTIONS, [p.value for p in self.PLAYING]
        # ``audit`` looked up on each use: a test (or the runtime) may set it after the table is made
        self.supervisor = Supervisor(
            self, actions, playing, lambda kind, data: self.audit(kind, data), self.display.note
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
        """Every card the shoe reported this round, in dealt order (the round record's ``cards``)."""
        return self.ledger.records()

    # --- the screen (the game's details, what next / previous mean) -----------------------------

    def screen_details(self) -> list[str]:
        """The details of the current state (subclasses add the game's: cards shown, decisions)."""
        out = self.wagers.details()
        return out + self.late.details() if self.late.pending else out

    def hold_prompt(self) -> str:
        """What clears the hold (the screen's prompt while the table holds)."""
        return self.intake.hold_prompt() or self.holds.prompt()

    def uses_next_previous(self) -> bool:
        """Whether ``next`` / ``previous`` mean something in this state (then they do not page the
        details; subclasses add their states)."""
        return self.supervisor.key_on and (bool(self.late.pending) or self.intake.misread_index is not None)

    def option(self, name: str, kind: type[T]) -> T:
        """The game option ``name`` of the table config (checked when it was loaded), as a ``kind``."""
        value = self.table.options[name]
        if not isinstance(value, kind):
            raise TypeError(f"option {name}: {value!r} is not a {kind.__name__}")
        return value

    def in_play(self) -> list[Seat]:
        """Seats still in the round, in seat order (clockwise from the dealer's left)."""
        return [s for _, s in sorted(self.seats.items()) if s.folded_at is None]

    # --- game hooks -----------------------------------------------------------------------------

    def round_record(self) -> dict[str, Any]:
        raise NotImplementedError

    def on_card(self, dealt: Card, index: int) -> None:
        raise NotImplementedError

    def reset_game(self) -> None:
        """Clear the game's own round state (subclasses)."""

    def resumed(self) -> None:
        """The round resumed where it was held (subclasses: a step done while held may let it go on)."""

    def notice_confirmed(self, notice: Notice) -> None:
        """A notice was confirmed (subclasses: a confirmed step may let the round go on)."""

    def steps_to_show(self, settlement: Settlement) -> tuple[Step, ...]:
        """The settlement steps the dealer still has to do (subclasses may leave out more)."""
        return self.walk.steps_to_show(settlement)

    def extra_wager_problems(self, number: int, seat: Seat) -> list[str]:
        """Game rules for one seat's wagers at "no more bets" (beyond limits and known spots)."""
        return []

    def seat_checked(self, number: int, seat: Seat) -> bool:
        """Whether a seat's wagers are checked at "no more bets": one with chips on its spots (a
        seat whose chips were all taken back plays no part; games add what else a seat may hold)."""
        return bool(seat.wagers)

    def card_place(self, placed: int) -> str:
        """Where the card dealt after ``placed`` cards goes, as the dealer names it (``dealer
        card 3``): cards are named by position, never by face, until they are revealed (subclasses)."""
        return f"card {placed + 1}"

    def dealing(self) -> bool:
        """Whether a card from the shoe is expected now (subclasses)."""
        return False

    def deal_size(self) -> int | None:
        """How many cards the round's deal takes, as the round stands (None: not known). A card
        beyond it is never a seat's, the dealer's or a community card (subclasses)."""
        return None

    def cards_seen(self) -> list[Card]:
        return [c for s in self.seats.values() for c in s.cards]

    def dealer_button(self, button: str) -> bool:
        """Whether ``button`` has a dealer meaning now: then a supervisor action on the same button
        takes it only with the key on (subclasses add the game's own)."""
        return button == "confirm" and self.phase in (self.common.count_stub, self.common.settlement)

    def on_seat_button(self, seat: int) -> None:
        """A seat button was pressed (subclasses)."""

    def on_game_button(self, button: str) -> None:
        """Any other button (subclasses)."""

    def on_SpotReport(self, e: Any) -> None:
        """A checked spot report (the games: wagers, street bets, late bets)."""

    # --- the machine's conditions and callbacks (named in the transitions) ---------------------

    def wagers_valid(self) -> bool:
        return self.wagers.valid()

    def no_steps_pending(self) -> bool:
        return not self.display.steps_pending()

    def start_round(self) -> None:
        self.round_no += 1
        self.round_started = True
        for part in (self.ledger, self.late, self.intake, self.walk):
            part.start_round()
        self.seats, self.dealt = {}, 0
        self.reset_game()
        self.devices.lock_spots(False)
        self.wagers.start_round()
        self.display.until_pressed = {}
        self.display.ask(f"round {self.round_no}: place bets; then no more bets")
        self.shoe_faults.round_opened()
        self.links.round_opened()

    # The machine's conditions and callbacks named in the transitions, done by the collaborators.
    more_steps = via("walk.more_steps")
    stub_due = via("stub.due")
    stub_matches = via("stub.matches")
    lock_bets = via("wagers.lock")
    settle_round = via("walk.settle")
    next_step = via("walk.next_step")
    complete_round = via("walk.complete_round")
    void_round = via("walk.void_round")
    ask_stub_count = via("stub.ask")
    stub_mismatch = via("stub.mismatch")
    remember_phase = via("holds.entered")
    on_machine_error = via("holds.machine_error")

    # --- from one round to the next, and across a restart ----------------------------------------

    snapshot_state = via("carry.snapshot")
    restore = via("carry.restore")

    def resend_requests(self) -> None:
        """After a restart: the key counts as off until the panel reports it (the replayed key
        report is not evidence of now); ask the devices again for what the table was waiting for."""
        self.supervisor.key_lost()
        if self.phase is self.common.count_stub:
            self.devices.request_stub_count()

    # --- events ---------------------------------------------------------------------------------

    def handle(self, event: Any) -> None:
        """Act on one event from the queue (the controller thread only)."""
        name = type(event).__name__
        if name == "ButtonChanged" and not event.pressed and event.button != "supervisor_key":
            return  # a button let go: nothing changes, the screen stays
        if name in ("ButtonChanged", "SpotReport"):
            when = self.links.rereading(event.device, event.at)
            if when is not None:
                self.journal_outage_event(name, event, when)
                return
        if name == "ButtonChanged" and event.pressed:
            self.display.pressed(event.button)
        if name == "SpotReport" and not self.wagers.on_board(event):
            self.display.show()
            return
        try:
            handler = self._handlers[name]
        except KeyError:
            route = ROUTES.get(name)
            handler = getattr(self, f"on_{name}", None) or (attrgetter(route)(self) if route else None)
            self._handlers[name] = handler
        if name == "ButtonChanged" and event.pressed and self.display.button(event.button):
            pass  # read first: a notice takes confirm, next and previous; long details page
        elif handler is not None:  # events the table does not act on (command results) change nothing
            self.display.new_event()
            handler(event)
            if self.ledger.waiting:
                self.intake.waiting_for_the_deal()
        self.display.show()

    def journal_outage_event(self, name: str, event: Any, when: str) -> None:
        """A press or a spot report from a device whose state is read again after a journal
        outage or a restart (``when``: while what): journaled, not acted on. The panel asks for
        the press again; the bet spots' state read says what is on them."""
        self.display.new_event()
        if name == "SpotReport":
            self.wagers.report_not_acted_on(event.seat, event.spot)
        elif event.button != "supervisor_key":
            self.wagers.press_not_acted_on(event.button)
            self.display.note_until_pressed(  # on the screen until the dealer presses it again
                event.button, f"{event.button} pressed {when}: not acted on, press again"
            )
        self.display.show()

    def journal_failed(self, reason: str) -> None:
        """The journal cannot be written (the engine, on the controller thread): hold, and show it
        at once (no event is handled to show it)."""
        self.holds.journal_failed(reason)
        self.display.show()

    def on_OpenTable(self, e: Any) -> None:
        self.open_table()

    def on_ButtonChanged(self, e: Any) -> None:
        if e.button == "supervisor_key":
            self.supervisor.key_reported(e.pressed)
            return
        b = e.button
        if not e.pressed or self.supervisor.press(b):
            return
        if b.startswith("seat_"):
            self.selected_seat = int(b[5:])
            self.on_seat_button(self.selected_seat)
        elif b == "no_more_bets":
            if not self.links.no_more_bets_refused():
                self.no_more_bets()
        elif b == "confirm" and self.phase is self.common.count_stub:
            self.stub.counted_by_dealer()
        elif b == "confirm" and self.phase is self.common.settlement:
            self.confirm()
        else:
            self.on_game_button(b)

    def on_ShoeStatus(self, e: Any) -> None:
        self.stub.counted_by_shoe(e.stub_count)

    def device_fault(self, device: str, error: str, **detail: Any) -> None:
        """A device report the table refuses: journaled as a ``DeviceFault`` record naming the
        device (and seat and spot), and shown."""
        self.audit("DeviceFault", {"device": device, **detail, "error": error})
        self.display.note(f"{device}: {error}")
