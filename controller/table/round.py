"""The model of a game's round machine: it takes each event and hands it to the collaborator
whose concern it is, and keeps the round's seats and cards dealt.

The collaborators, one concern each: the one hold rule (:mod:`._holds`), cards from the shoe
(:mod:`._card_intake`, over the :mod:`.card_ledger`), late bets (:mod:`._late_bets`), link
reconciliation (:mod:`._links`), the shoe's jam and door (:mod:`._shoe_faults`), the settlement
walk (:mod:`._settlement_walk`), the stub count (:mod:`._stub_count`), the dealer's screen
(:mod:`._dealer_screen`), the supervisor's actions and key (:mod:`._supervisor`), the spots checked
against the table (:mod:`.bet_board`) and the state each device is given again on every link-up
(:mod:`.device_state`). The common states and
transitions are in :mod:`.phases`; a game module subclasses :class:`RoundTable` for its steps.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from functools import partial
from typing import Any, ClassVar, TypeVar

from controller.configuration import TableConfig
from controller.game.definition import GameDefinition
from controller.table._bet_board import BetBoard
from controller.table._card_intake import CardIntake
from controller.table._carry_over import CarryOver
from controller.table._dealer_screen import DealerScreen
from controller.table._device_state import DeviceLinks, ShownState
from controller.table._forward import Forward
from controller.table._holds import HoldKind, Holds
from controller.table._late_bets import LateBets
from controller.table._links import LinkReconciler
from controller.table._round_state import Audit, GameShape, RoundState
from controller.table._settlement_walk import SettlementWalk
from controller.table._shoe_faults import ShoeFaults
from controller.table._sign_in import SignIns
from controller.table._stub_count import StubCount
from controller.table._supervisor import IN_PLAY, Action, Record, Supervisor, SupervisorKey
from controller.table._wagers import Wagers
from controller.table.card_ledger import CardLedger
from controller.table.devices import TableDevices
from controller.table.engine import JournalFault
from controller.table.events import DevicesExpected, OpenTable, SignIn
from controller.table.phases import COMMON, CommonPhases, RoundMachine, Trigger, in_play_states, round_states
from controller.table.round_data import RoundResult, Seat
from controller.table.screen import DisplaySize, Notice
from controller.vocab import Card, format_cards
from controller.wagers import Settlement, Step
from drivers.bet_spots import SpotReport
from drivers.panel import BadgeRead, ButtonChanged, PinEntered, SignOff
from drivers.protocol import DeviceFault, LinkDown, LinkUp
from drivers.shoe import CardDealt, CardUnreadable, DoorChanged, Jam, ShoeStatus
from drivers.state import PanelState, ShoeState, SpotsState

__all__ = ["RoundTable", "Seat", "RoundResult", "Handler", "HoldKind", "SupervisorAction", "Record"]

SupervisorAction = Action
"""A row of the supervisor's action table (a game adds its own: :meth:`RoundTable.supervisor_actions`)."""

T = TypeVar("T")

KEEP_ROUNDS = 20
"""The recent rounds kept in memory (everything is in the journal)."""

Handler = Callable[[Any], None]
"""What takes one kind of event (typed by the kind it is registered for in :meth:`RoundTable.routes`)."""


class RoundTable:
    """The model of a game's machine: it owns the round and sends device commands.

    Subclasses set ``Phase`` (the game's own steps: ``STATES`` and ``PLAYING`` follow from it),
    ``TRANSITIONS``, their game's ``DEFINITION`` (the deck and the spots are taken from it) and the
    game steps (and declare their own triggers), and implement ``round_record``, ``on_card`` (a
    card from the shoe while dealing) and ``on_SpotReport``.
    """

    Phase: ClassVar[type[Enum]]
    """The game's own steps (its states between the common ones)."""
    STATES: ClassVar[tuple[Enum, ...]]
    """Every state of the machine, in order (:func:`~controller.table.phases.round_states`)."""
    common: ClassVar[CommonPhases] = COMMON
    """The common states (``self.phase is self.common.hold``)."""
    TRANSITIONS: ClassVar[list[dict[str, object]]]
    PLAYING: ClassVar[list[Enum]]
    """The states a round is played in (:func:`~controller.table.phases.in_play_states`)."""
    DEFINITION: ClassVar[GameDefinition]
    """The game's definition: ``DECK``, ``BET_SPOTS``, ``REQUIRED_SPOTS`` and ``SPOT_NAMES`` are its."""
    DECK: ClassVar[int] = 52
    DEALING_STATES: ClassVar[tuple[str, ...]] = ("dealing",)
    """The states in which cards come from the shoe."""
    CARD_STARTS_DEAL: ClassVar[bool] = True
    """The first card from the shoe after "no more bets" begins the deal (``deal_started``)."""
    BET_SPOTS: ClassVar[tuple[str, ...]] = ()
    WAGER_STEPS: ClassVar[tuple[str, ...]] = ("betting",)
    """The states whose step asks for wagers (:meth:`._wagers.Wagers.open_step`: held or not)."""
    CONFIRM_PHASES: ClassVar[tuple[str, ...]] = ("settlement",)
    """States whose prompt is a procedure step, done and then confirmed."""
    REQUIRED_SPOTS: ClassVar[tuple[str, ...]] = ()
    """The wagers every seat in a round has (the game's main wagers)."""
    SPOT_NAMES: ClassVar[tuple[str, ...]] = ()
    """Every spot the bet-spot sensors have at each seat (default: ``BET_SPOTS``)."""
    PRE_DEAL_CLOSED: ClassVar[Mapping[str, str]] = {}
    """For a spot of ``BET_SPOTS`` (a wager placed before the deal), what the cards of the round
    decide of it, with the game's rule: why a late change to it cannot enter once a card is out
    (:meth:`pre_deal_closed`)."""
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
            cls.STATES = round_states(cls.Phase)
            cls.PLAYING = in_play_states(cls.STATES)
        definition: GameDefinition | None = cls.__dict__.get("DEFINITION")
        if definition is not None:
            cls.DECK, cls.BET_SPOTS = definition.deck, definition.bet_spots
            cls.REQUIRED_SPOTS, cls.SPOT_NAMES = definition.required_spots, definition.spot_names

    def __init__(
        self,
        table: TableConfig,
        devices: TableDevices,
        on_round: Callable[[RoundResult], None] | None = None,
        audit: Audit | None = None,
    ) -> None:
        self.config = table
        """The table's configuration (its game options, limits, seats, paytables)."""
        self.state = RoundState(self.common.closed)
        """The round as it stands, shared by reference with the collaborators that read it."""
        self.shape = GameShape(
            common=self.common,
            playing=tuple(self.PLAYING),
            deck=self.DECK,
            bet_spots=self.BET_SPOTS,
            wager_steps=self.WAGER_STEPS,
            required_spots=self.REQUIRED_SPOTS,
            confirm_phases=self.CONFIRM_PHASES,
            dealing_states=self.DEALING_STATES,
            card_starts_deal=self.CARD_STARTS_DEAL,
            seats=table.seats,
        )
        self.shown = ShownState(devices)
        """Every command goes through it: what each device is given again on every link-up."""
        self.ledger = CardLedger()
        self.board = BetBoard(table.seats, self.SPOT_NAMES or self.BET_SPOTS)
        self.on_round = on_round
        self.audit: Audit = audit or (lambda kind, data: None)
        """Where supervisor actions, refused attempts and refused reports are journaled."""
        self.rounds: list[RoundResult] = []
        self.selected_seat: int | None = None
        self.round_started = False
        """Set when a round starts (the runtime snapshots the table then and clears it)."""
        state = self.state
        for phase in self.PLAYING:  # the resume transitions' conditions (named by ``common_transitions``)
            setattr(self, f"held_in_{phase.value}", (lambda p: lambda: state.held_from is p)(phase))
        self.machine = RoundMachine(
            model=self,
            states=self.STATES,
            transitions=self.TRANSITIONS,
            initial=self.common.closed,
            auto_transitions=False,
            model_attribute="phase",
            model_override=True,  # only the declared triggers are bound: their calls type-check
            queued=True,
            on_exception="on_machine_error",
            ignore_invalid_triggers=True,
        )
        self._build_parts(table)
        self._routes = self.routes()
        """The handler of each kind of event (a kind not in it changes nothing: command results)."""
        self._paths: dict[type, Handler] = {kind: self._path(kind) for kind in self._routes}
        """The path each kind of event takes through :meth:`handle` (:meth:`_path`)."""

    def _build_parts(self, table: TableConfig) -> None:
        """The collaborators, each given only what it uses (the machine's triggers are bound now)."""
        state, shape, shown, ledger, board = self.state, self.shape, self.shown, self.ledger, self.board
        device_links = DeviceLinks(state.screen_changed)
        # who is signed in (with a roster); ``audit`` looked up on each use, as the supervisor's
        self.signins = SignIns(table.roster, lambda kind, data: self.audit(kind, data), lambda text: display.note(text))
        signins = self.signins
        self.key = SupervisorKey(signins.supervisor_gone, state.screen_changed)
        # made below: what a hold's end, a late bet and a card read again ask of them
        walk: SettlementWalk
        supervisor: Supervisor

        def settle_again() -> None:
            walk.settle_again()

        def settled() -> bool:
            return walk.settlement is not None

        def read_again(dealt: Card, index: int) -> None:
            supervisor.attempt("card read again", dealt=dealt, index=index)

        def why_not_void() -> str | None:
            return walk.why_not_void()

        def notice_confirmed(notice: Notice) -> None:
            walk.in_turn_confirmed(notice.title)  # a fold's or a hand's collection done: no void now
            self.notice_confirmed(notice)

        self.display = DealerScreen(
            state,
            shape,
            device_links,
            shown,
            DisplaySize(table.display.lines, table.display.columns),
            self.hold_prompt,
            why_not_void,
            self.screen_details,
            self.uses_next_previous,
            notice_confirmed,
        )
        display = self.display
        self.holds = Holds(
            state,
            shape,
            shown,
            display,
            ledger,
            device_links,
            self.hold,
            self.resume,
            self.void,
            settle_again,
            why_not_void,
        )

        def cards_out() -> int:
            return ledger.out

        self.stub = StubCount(state, shape, shown, display, cards_out, self.stub_counted, self.holds.entered)
        self.shoe_faults = ShoeFaults(self.holds, device_links)
        self.wagers = Wagers(
            state,
            shape,
            board,
            device_links,
            shown,
            display,
            table.limits,
            self.device_fault,
            self.extra_wager_problems,
            self.seat_checked,
        )

        def seat_settled(seat: int) -> bool:
            return walk.seat_settled(seat)

        def card_out() -> bool:
            return self.intake.card_out()

        def voided() -> bool:
            return walk.voided()

        self.late = LateBets(
            state,
            shape,
            shown.lamp,
            display.shown,
            self.key,
            settled,
            voided,
            self.wagers.seat_problems,
            seat_settled,
            card_out,
            self.pre_deal_closed,
        )
        self.intake = CardIntake(
            state,
            shape,
            ledger,
            self.holds,
            self.shoe_faults,
            device_links,
            display,
            self.deal_started,
            read_again,
            self.on_card,
            self.card_place,
            self.dealing,
            self.deal_size,
            self.cards_seen,
            self.hold_prompt,
            why_not_void,
        )
        self.links = LinkReconciler(
            state,
            shape,
            device_links,
            self.holds,
            self.shoe_faults,
            self.key,
            shown,
            display,
            ledger,
            self.intake,
            board,
            self.wagers,
            self.on_SpotReport,
            self.device_fault,
        )
        walk = SettlementWalk(
            state,
            shape,
            table,
            shown,
            display,
            self.holds,
            ledger,
            self.stub,
            self.wagers,
            self.late,
            self.rounds,
            self.round_record,
            self.steps_to_show,
            self._round_done,
            self.next_round,
            lambda: self.DEFINITION.hooks().turned(self),
        )
        self.walk = walk
        self.carry = CarryOver(
            state, self.key, board, ledger, self.stub, self.shoe_faults, display, self.open_table, signins, device_links
        )
        # ``audit`` looked up on each use: a test (or the runtime) may set it after the table is made
        supervisor = Supervisor(
            state,
            self.key,
            self.supervisor_actions(),
            [p.value for p in self.PLAYING],
            lambda kind, data: self.audit(kind, data),
            display.note,
            self.dealer_button,
            signins,
        )
        self.supervisor = supervisor

    def _round_done(self, result: RoundResult) -> None:
        if self.on_round:
            self.on_round(result)

    def supervisor_actions(self) -> tuple[Action, ...]:
        """Every supervisor action, first match first (an empty ``states`` means any state); a game
        adds its own."""
        intake, holds, late, links = self.intake, self.holds, self.late, self.links
        no_void = self.walk.why_not_void  # a void or a misdeal: none once the settlement paid or collected
        return (
            # Cards that left the shoe while the table was held: accept them in their place, or a misdeal (void).
            Action("misdeal", ("void",), ("hold",), intake.declare_misdeal, "misdeal", intake.cards_waiting, no_void),
            # A misread card: the supervisor enters it (next / previous choose, confirm deals it) or the shoe
            # reads it again.
            Action(
                "enter card",
                ("next", "previous", "confirm"),
                ("hold",),
                intake.enter_card,
                "card corrected",
                when=intake.card_to_enter,
                allowed=links.why_not_resume,
            ),
            Action(
                "accept cards",
                ("confirm",),
                ("hold",),
                intake.accept_waiting_cards,
                "cards accepted",
                when=intake.cards_waiting,
                allowed=intake.why_not_accept,
            ),
            Action(
                "card read again",
                (),
                ("hold",),
                intake.accept_read_again,
                "card corrected",
                allowed=links.why_not_resume,
            ),
            Action("void", ("void",), (IN_PLAY, "hold"), holds.void_by_supervisor, "void", allowed=no_void),
            Action(
                "clear fault",
                ("clear_fault",),
                ("hold",),
                holds.clear_fault,
                "fault cleared",
                allowed=links.why_not_clear,
            ),
            # Late-bet changes after "no more bets": next accepts the oldest, previous refuses it.
            Action("accept late bet", ("next",), (), late.accept_late_bet, "late bet accepted", when=late.late_pending),
            Action(
                "refuse late bet", ("previous",), (), late.refuse_late_bet, "late bet refused", when=late.late_pending
            ),
        )

    def routes(self) -> dict[type, Handler]:
        """The handler of each kind of event (a game adds its own kinds)."""
        intake, links, faults = self.intake, self.links, self.shoe_faults
        return {
            OpenTable: self.on_OpenTable,
            ButtonChanged: self.on_ButtonChanged,
            SpotReport: self.on_SpotReport,
            ShoeStatus: self.on_ShoeStatus,
            JournalFault: self.on_JournalFault,
            DeviceFault: links.device_fault,
            CardDealt: intake.dealt,
            CardUnreadable: intake.unreadable,
            DevicesExpected: links.expected,
            LinkDown: links.down,
            LinkUp: links.up,
            SpotsState: links.spots_state,
            PanelState: links.panel_state,
            ShoeState: links.shoe_state_read,
            Jam: faults.jam,
            DoorChanged: faults.door,
            SignIn: self.on_SignIn,
            PinEntered: self.on_credential,
            BadgeRead: self.on_credential,
            SignOff: self.on_SignOff,
        }

    # --- the round's state (kept in :attr:`state`, shared with the collaborators) -----------------

    @property
    def phase(self) -> Enum:
        """The machine's state (a member of ``Common`` or ``Phase``), kept by ``transitions``: a property, not a
        :class:`Forward`, as ``transitions`` reads it several times a trigger (the faster read)."""
        return self.state.phase

    @phase.setter
    def phase(self, phase: Enum) -> None:
        self.state.phase = phase

    seats = Forward[dict[int, Seat]]("state", "seats")
    dealt = Forward[int]("state", "dealt")
    round_no = Forward[int]("state", "round_no")

    @property
    def machine_error(self) -> str | None:
        """The kind of the last error a machine callback raised (None: none since start): a soak or
        a test treats it as a failed table, where a dealer's table holds."""
        return self.holds.machine_error

    @property
    def table(self) -> TableConfig:
        """The table's configuration (:attr:`config`)."""
        return self.config

    @table.setter
    def table(self, table: TableConfig) -> None:
        self.config = table

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
        """The details of the current state (subclasses add the game's: cards shown, decisions).
        What they are made of says when it changes (``state.screen_changed()``; the round's
        fields count themselves), or the screen is not made again: a game's spot reports in
        play, its buttons, its supervisor actions and a card outside the deal say so for it. In a
        dealing state (``DEALING_STATES``) they never depend on the cards dealt: a card placed
        there that changed nothing else does not make the screen again (:meth:`handle`)."""
        wagers, late = self.wagers, self.late
        if not wagers.problems and not late.pending:  # in play, nearly always: nothing to ask of either
            return []  # a new list each time: the games add their lines to it
        out = wagers.details()
        if not late.pending:
            return out
        # next / previous enter a misread card while one is to be entered (the "enter card" action first)
        entering = self.state.phase is self.common.hold and self.intake.card_to_enter()
        return out + late.details(entering)

    def hold_prompt(self) -> str:
        """What clears the hold (the screen's prompt while the table holds): the void offered
        only when the table would take it (:meth:`._settlement_walk.SettlementWalk.why_not_void`)."""
        return (self.intake.hold_prompt() or self.holds.prompt()).words(self.walk.why_not_void())

    def hold_clears(self) -> str:
        """What clears the hold, in words (the page, the pit and the log): the void offered only
        when the table would take it, as :meth:`hold_prompt`."""
        return self.holds.clears().words(self.walk.why_not_void())

    def uses_next_previous(self) -> bool:
        """Whether ``next`` / ``previous`` mean something in this state (then they do not page the
        details; subclasses add their states)."""
        return self.supervisor.key_on and (bool(self.late.pending) or self.intake.misread_index is not None)

    def option(self, name: str, kind: type[T]) -> T:
        """The game option ``name`` of the table config (checked when it was loaded), as a ``kind``."""
        value = self.config.options[name]
        if not isinstance(value, kind):
            raise TypeError(f"option {name}: {value!r} is not a {kind.__name__}")
        return value

    def in_play(self) -> list[Seat]:
        """Seats still in the round, in seat order (clockwise from the dealer's left)."""
        return [s for _, s in sorted(self.seats.items()) if s.folded_at is None]

    def seat_records(self, details: Callable[[Seat], dict[str, object]] | None = None) -> dict[str, object]:
        """The round record's ``seats``: each seat by its number, in seat order, with its wagers and
        its cards, then what ``details`` gives of it (the game's own keys)."""
        return {
            str(n): {"wagers": dict(s.wagers), "cards": format_cards(s.cards), **(details(s) if details else {})}
            for n, s in sorted(self.seats.items())
        }

    # --- game hooks -----------------------------------------------------------------------------

    def round_record(self) -> dict[str, Any]:
        raise NotImplementedError

    def on_card(self, dealt: Card, index: int) -> None:
        raise NotImplementedError

    def reset_game(self) -> None:
        """Clear the game's own round state (subclasses)."""

    def resumed(self) -> None:
        """The round resumed where it was held: at the stub count, the dealer is asked for the
        count as it is now (subclasses, calling this first: a step done while held may let it go on)."""
        if self.phase is self.common.count_stub:
            self.stub.resumed()

    def notice_confirmed(self, notice: Notice) -> None:
        """A notice was confirmed (subclasses: a confirmed step may let the round go on)."""

    def steps_to_show(self, settlement: Settlement) -> tuple[Step, ...]:
        """The settlement steps the dealer still has to do (subclasses may leave out more)."""
        return self.walk.steps_to_show(settlement)

    def extra_wager_problems(self, number: int, seat: Seat) -> list[str]:
        """Game rules for one seat's wagers at "no more bets" (beyond limits and known spots)."""
        return []

    def pre_deal_closed(self, spot: str) -> str:
        """Why a late change to the wager on ``spot``, placed before the deal, cannot enter the
        round once a card of it is out, whatever the supervisor says: what the cards decide of it,
        in the game's words with its rule (:attr:`PRE_DEAL_CLOSED`; the common rule itself is
        :mod:`._late_bets`)."""
        return self.PRE_DEAL_CLOSED.get(spot, f"the {spot} wager is placed before the deal")

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

    def on_SpotReport(self, e: SpotReport) -> None:
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
        self.display.clear_until_pressed()
        self.signins.round_opened()
        self.display.ask(f"round {self.round_no}: place bets; then no more bets")
        self.shoe_faults.round_opened()
        self.links.round_opened()

    # The machine's conditions and callbacks named in the transitions, done by the collaborators.

    def more_steps(self) -> bool:
        return self.walk.more_steps()

    def stub_due(self) -> bool:
        return self.stub.due()

    def stub_matches(self) -> bool:
        return self.stub.matches()

    def lock_bets(self) -> None:
        self.signins.bets_closed(self.round_no)
        self.wagers.lock()

    def settle_round(self) -> None:
        self.walk.settle()

    def next_step(self) -> None:
        self.walk.next_step()

    def complete_round(self) -> None:
        self.walk.complete_round()

    def void_round(self) -> None:
        self.intake.round_void()
        self.walk.void_round()

    def ask_stub_count(self) -> None:
        self.stub.ask()

    def stub_mismatch(self) -> None:
        self.stub.mismatch()

    def remember_phase(self) -> None:
        self.holds.entered()

    def on_machine_error(self, *trigger_args: object, **trigger_kwargs: object) -> None:
        self.holds.machine_error_raised(*trigger_args, **trigger_kwargs)

    # --- from one round to the next, and across a restart ----------------------------------------

    def snapshot_state(self) -> dict[str, Any]:
        """What the table carries from one round to the next (:meth:`._carry_over.CarryOver.snapshot`)."""
        return self.carry.snapshot()

    def restore(self, state: dict[str, Any]) -> None:
        """Start from a snapshot (:meth:`._carry_over.CarryOver.restore`)."""
        self.carry.restore(state)

    def resend_requests(self) -> None:
        """After a restart: the key counts as off until the panel reports it (the replayed key
        report is not evidence of now); ask the devices again for what the table was waiting for."""
        self.supervisor.key_lost()
        if self.phase is self.common.count_stub:
            self.devices.request_stub_count()

    # --- events ---------------------------------------------------------------------------------

    def handle(self, event: object) -> None:
        """Act on one event from the queue (the controller thread only): along the path of its
        kind (:meth:`_path`), chosen once for each kind."""
        kind = type(event)
        path = self._paths.get(kind)
        if path is None:  # a kind first seen now (a device's reply to a command)
            path = self._paths[kind] = self._path(kind)
        path(event)

    def _path(self, kind: type) -> Handler:
        """The path an event of ``kind`` takes through :meth:`handle`: only the checks that kind
        needs. A press and a spot report are first checked against a device read again after an
        outage; a press is read by the screen first (a notice takes confirm, next and previous);
        a spot report for a spot the table does not have is refused; a kind with no handler
        (a command's result) changes nothing, and the screen stays."""
        handler = self._routes.get(kind)
        if issubclass(kind, ButtonChanged):
            return partial(self._press, handler)
        if issubclass(kind, SpotReport):
            return partial(self._spot_report, handler)
        if handler is None:
            return self._unrouted
        if kind is CardDealt:
            return partial(self._card_dealt, handler)
        return partial(self._routed, handler)

    def _unrouted(self, event: object) -> None:
        """A kind the table does not act on (a command's result): the screen only."""
        self.display.show()

    def _routed(self, handler: Handler, event: object) -> None:
        """An event its kind's handler acts on; then cards that waited while none was expected
        go to the supervisor once the deal is expected, and the screen is shown."""
        display = self.display
        display.new_event()
        handler(event)
        if self.ledger.waiting:
            self.intake.waiting_for_the_deal()
        display.show()

    def _card_dealt(self, handler: Handler, event: CardDealt) -> None:
        """A card from the shoe (:meth:`_routed`). A card outside the deal may be one a game's
        details show; while dealing they never show the cards dealt (:meth:`screen_details`)."""
        display = self.display
        display.new_event()
        handler(event)
        if self.ledger.waiting:
            self.intake.waiting_for_the_deal()
        state = self.state
        if state.phase._value_ not in self.shape.dealing_states:  # ``.value``: a descriptor call
            state.screen_changed()
        display.show()

    def _spot_report(self, handler: Handler | None, event: SpotReport) -> None:
        """A spot report: not acted on from spots read again, refused for a spot the table does
        not have (:meth:`._wagers.Wagers.on_board`), else acted on (:meth:`_routed`)."""
        when = self.links.rereading(event.device, event.at)
        if when is not None:
            self.journal_outage_event(event, when)
        elif not self.wagers.on_board(event) or handler is None:
            self.display.show()
        else:
            self._routed(handler, event)

    def _press(self, handler: Handler | None, event: ButtonChanged) -> None:
        """A press (or the supervisor's key): a button let go changes nothing, and the screen
        stays; not acted on from a panel read again; read first by the screen (a notice takes
        confirm, next and previous; long details page), else acted on (:meth:`_routed`)."""
        pressed = event.pressed
        if not pressed and event.button != "supervisor_key":
            return
        when = self.links.rereading(event.device, event.at)
        if when is not None:
            self.journal_outage_event(event, when)
            return
        display = self.display
        if pressed:
            display.pressed(event.button)
            if display.button(event.button):
                display.show()
                return
        if handler is None:
            display.show()
        else:
            self._routed(handler, event)

    def changes_nothing(self, event: object) -> bool:
        """True when handling ``event`` changes nothing the table shows: a button let go (other
        than the supervisor's key), or a kind the table does not act on (a device's reply to a
        command, ``CommandResult``) that is not a spot report (one may be journaled as not acted
        on). :meth:`handle` then returns at once, or only shows the screen again, which is a
        function of a state this event did not change: the snapshot of the table is the one
        before it (the runtime does not build it again)."""
        if isinstance(event, ButtonChanged):
            return not event.pressed and event.button != "supervisor_key"
        kind = type(event)
        return kind not in self._routes and kind is not SpotReport

    def journal_outage_event(self, event: ButtonChanged | SpotReport, when: str) -> None:
        """A press or a spot report from a device whose state is read again after a journal
        outage or a restart (``when``: while what): journaled, not acted on. The panel asks for
        the press again; the bet spots' state read says what is on them."""
        self.display.new_event()
        if isinstance(event, SpotReport):
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

    def on_OpenTable(self, e: OpenTable) -> None:
        self.open_table()

    def on_ButtonChanged(self, e: ButtonChanged) -> None:
        if e.button == "supervisor_key":
            self.supervisor.key_reported(e.pressed)
            return
        b = e.button
        if not e.pressed or self.supervisor.press(b):
            return
        if b.startswith("seat_"):
            self.selected_seat = int(b[5:])
            self.state.screen_changed()  # a game's buttons may change what its details show
            self.on_seat_button(self.selected_seat)
        elif b == "no_more_bets":
            if not self.links.no_more_bets_refused() and not self.signins.no_dealer():
                self.no_more_bets()
        elif b == "confirm" and self.phase is self.common.count_stub:
            self.stub.counted_by_dealer()
        elif b == "confirm" and self.phase is self.common.settlement:
            self.confirm()
        else:
            self.state.screen_changed()
            self.on_game_button(b)

    def on_SignIn(self, e: SignIn) -> None:
        """A sign-in at the panel, checked against the roster (:mod:`._sign_in`)."""
        self.signins.signed_in(e, self.round_no)

    def on_credential(self, e: PinEntered | BadgeRead) -> None:
        """A PIN entry or badge read not checked yet (a table driven without the runtime, which
        checks them before they are journaled): checked now."""
        self.on_SignIn(self.signins.check(e))

    def on_SignOff(self, e: SignOff) -> None:
        self.signins.signed_off(e, self.round_no, self.supervisor.key_on)

    def on_JournalFault(self, e: JournalFault) -> None:
        """The journal takes records again after an outage: the supervisor signed in is signed off
        first (authority never outlives its evidence, as after a panel link-down), then the
        outage is one of every device at once (:meth:`._links.LinkReconciler.journal_refused`)."""
        self.signins.supervisor_gone("journal outage")
        self.links.journal_refused(e)

    def on_ShoeStatus(self, e: ShoeStatus) -> None:
        self.stub.counted_by_shoe(e.stub_count)

    def device_fault(self, device: str, error: str, **detail: object) -> None:
        """A device report the table refuses: journaled as a ``DeviceFault`` record naming the
        device (and seat and spot), and shown."""
        self.audit("DeviceFault", {"device": device, **detail, "error": error})
        self.display.note(f"{device}: {error}")
