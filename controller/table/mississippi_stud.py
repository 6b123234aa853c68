"""Mississippi Stud at the table: the round as a ``transitions`` machine (N.J.A.C. 13:69F-35).

The states and transitions are the data tables below, each step with its seed section. The
model (:class:`MississippiTable`) turns device events into triggers and keeps the round: wagers
from the bet-spot reports, cards from the shoe in the order 35.9 deals them, each street's
decisions, and at the end the settlement from ``controller.games`` (the same code as
``tablectl settle``), shown to the dealer step by step.

Buttons: ``no_more_bets``; a street bet is a bet-spot report on that street's spot, a fold is
``seat_N`` then ``fold``; ``reveal`` turns the next community card once every seat has acted;
``confirm`` moves through the settlement; with the supervisor key on, ``void`` voids the round
and ``clear_fault`` resumes from a hold.

Seats are numbered from the dealer's left (seat 1), so clockwise dealing is seat order.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable

from transitions import Machine

from controller.cards import CardError, card, format_cards
from controller.games import RecordError, settle_record
from controller.settlement import Settlement
from controller.table.devices import TableDevices
from controller.table_config import TableConfig

__all__ = ["Phase", "TRANSITIONS", "MississippiTable", "RoundResult"]

log = logging.getLogger("tablectl.table")

STREETS = ("third", "fourth", "fifth")


class Phase(Enum):
    """The table's states."""

    CLOSED = "closed"
    BETTING = "betting"
    DEALING = "dealing"
    THIRD_STREET = "third_street"
    FOURTH_STREET = "fourth_street"
    FIFTH_STREET = "fifth_street"
    SETTLEMENT = "settlement"
    ROUND_COMPLETE = "round_complete"
    COUNT_STUB = "count_stub"
    HOLD = "hold"
    VOID = "void"


P = Phase
PLAYING = [P.BETTING, P.DEALING, P.THIRD_STREET, P.FOURTH_STREET, P.FIFTH_STREET, P.SETTLEMENT, P.COUNT_STUB]
STUB_EVERY = 5  # 35.9(e): the stub is counted at least once every five rounds
DECK = 52

TRANSITIONS: list[dict[str, Any]] = [
    {"trigger": "open_table", "source": P.CLOSED, "dest": P.BETTING, "after": "start_round"},
    # 35.9(c): "no more bets" before any card; wagers that break the rules must be put right first.
    {"trigger": "no_more_bets", "source": P.BETTING, "dest": P.DEALING, "conditions": "wagers_valid", "after": "lock_bets"},
    # 35.9(d), (e): a 2-card stack to each wagering seat clockwise, then the 3 community cards.
    {"trigger": "cards_complete", "source": P.DEALING, "dest": P.THIRD_STREET, "after": "prompt_street"},
    # 35.10(a), (d): all seats bet 3rd street or fold; then the first community card.
    {"trigger": "reveal", "source": P.THIRD_STREET, "dest": P.FOURTH_STREET, "conditions": "all_acted", "after": "prompt_street"},
    # 35.10(e), (f): 4th street; then the second community card.
    {"trigger": "reveal", "source": P.FOURTH_STREET, "dest": P.FIFTH_STREET, "conditions": "all_acted", "after": "prompt_street"},
    # 35.10(g), (h), (i): 5th street; the third card; settlement counterclockwise from the dealer's right.
    {"trigger": "reveal", "source": P.FIFTH_STREET, "dest": P.SETTLEMENT, "conditions": "all_acted", "after": "settle_round"},
    {"trigger": "confirm", "source": P.SETTLEMENT, "dest": P.SETTLEMENT, "conditions": "more_steps", "after": "next_step"},
    {"trigger": "confirm", "source": P.SETTLEMENT, "dest": P.ROUND_COMPLETE, "unless": "more_steps", "after": "complete_round"},
    # 35.9(e): every fifth round the stub is counted (the shoe's count, or the dealer's); a mismatch holds.
    {"trigger": "next_round", "source": P.ROUND_COMPLETE, "dest": P.COUNT_STUB, "conditions": "stub_due", "after": "ask_stub_count"},
    {"trigger": "next_round", "source": [P.ROUND_COMPLETE, P.VOID], "dest": P.BETTING, "unless": "stub_due", "after": "start_round"},
    {"trigger": "stub_counted", "source": P.COUNT_STUB, "dest": P.BETTING, "conditions": "stub_matches", "after": "start_round"},
    {"trigger": "stub_counted", "source": P.COUNT_STUB, "dest": P.HOLD, "unless": "stub_matches", "before": "stub_mismatch"},
    # Device fault, misdeal or supervisor: hold, remembering where to resume.
    {"trigger": "hold", "source": PLAYING, "dest": P.HOLD, "before": "remember_phase"},
    *({"trigger": "resume", "source": P.HOLD, "dest": phase, "conditions": f"held_in_{phase.value}"} for phase in PLAYING),
    # Supervisor void: every wager returned.
    {"trigger": "void", "source": [*PLAYING, P.HOLD], "dest": P.VOID, "after": "void_round"},
]
"""Every transition of the round; ``tablectl diagram`` draws exactly this."""


@dataclass
class Seat:
    """One seat's round so far."""

    number: int
    wagers: dict[str, int] = field(default_factory=dict)
    cards: list[Any] = field(default_factory=list)
    folded_at: str | None = None
    acted: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A finished round: its record (docs/round-record.md) and its settlement (``None`` when void)."""

    number: int
    record: dict[str, Any]
    settlement: Settlement | None
    late_bets: tuple[str, ...] = ()


class MississippiTable:
    """The model of the Mississippi Stud machine: it owns the round and sends device commands."""

    def __init__(self, table: TableConfig, devices: TableDevices, on_round: Callable[[RoundResult], None] | None = None) -> None:
        self.table = table
        self.devices = devices
        self.on_round = on_round
        self.seats: dict[int, Seat] = {}
        self.community: list[Any] = []
        self.dealt = 0
        self.round_no = 0
        self.prompts: list[str] = []
        self.problems: list[str] = []
        self.late_bets: list[str] = []
        self.rounds: list[RoundResult] = []
        self.settlement: Settlement | None = None
        self.step_index = 0
        self.held_from: Phase | None = None
        self.expected_stub = 0
        self.counted_stub: int | None = None
        self.hold_reason = ""
        self.supervisor = False
        self._selected_seat: int | None = None
        for phase in PLAYING:
            setattr(self, f"held_in_{phase.value}", (lambda p: lambda: self.held_from is p)(phase))
        self.machine = Machine(
            model=self,
            states=Phase,
            transitions=TRANSITIONS,
            initial=Phase.CLOSED,
            auto_transitions=False,
            queued=True,
            on_exception="on_machine_error",
            ignore_invalid_triggers=True,
        )

    # --- reading the round --------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self.state  # type: ignore[attr-defined,no-any-return]

    def say(self, text: str) -> None:
        """Show a line on the dealer display (and keep it: prompts are part of the replay)."""
        self.prompts.append(text)
        self.devices.display(1, text)

    def active(self) -> list[Seat]:
        return [s for n, s in sorted(self.seats.items()) if s.folded_at is None]

    def current_street(self) -> str | None:
        return {P.THIRD_STREET: "third", P.FOURTH_STREET: "fourth", P.FIFTH_STREET: "fifth"}.get(self.phase)

    # --- conditions -------------------------------------------------------------------------

    def wagers_valid(self) -> bool:
        self.problems = []
        for n, seat in sorted(self.seats.items()):
            for spot, cents in seat.wagers.items():
                limit = self.table.limits.get(spot)
                if spot not in ("ante", "bonus"):
                    self.problems.append(f"seat {n} {spot}: no street bet before the deal")
                elif limit and not limit.min <= cents <= limit.max:
                    self.problems.append(f"seat {n} {spot}: {cents / 100:.2f} is outside {limit.min / 100:.2f}-{limit.max / 100:.2f}")
            if "bonus" in seat.wagers and "ante" not in seat.wagers:
                self.problems.append(f"seat {n} bonus: needs an ante")
        if not self.seats:
            self.problems.append("no wagers on the table")
        for problem in self.problems:
            self.say(f"correct: {problem}")
        return not self.problems

    def all_acted(self) -> bool:
        street = self.current_street()
        return street is not None and all(street in s.acted for s in self.active())

    def stub_due(self) -> bool:
        return self.phase is P.ROUND_COMPLETE and self.round_no % STUB_EVERY == 0

    def stub_matches(self) -> bool:
        return self.counted_stub == self.expected_stub

    def more_steps(self) -> bool:
        return self.settlement is not None and self.step_index + 1 < len(self.settlement.procedure)

    # --- callbacks ----------------------------------------------------------------------------

    def start_round(self) -> None:
        self.round_no += 1
        self.seats, self.community, self.dealt = {}, [], 0
        self.settlement, self.step_index, self.late_bets = None, 0, []
        self.devices.lock_spots(False)
        self.say(f"round {self.round_no}: place your bets")

    def lock_bets(self) -> None:
        self.seats = {n: s for n, s in self.seats.items() if s.wagers}
        self.devices.lock_spots(True)
        for n, seat in sorted(self.seats.items()):
            for spot in seat.wagers:
                self.devices.lamp(n, spot, "accepted")
        self.say("no more bets: deal")

    def prompt_street(self) -> None:
        street = self.current_street()
        if street != "third":
            shown = len(STREETS) - len(STREETS[STREETS.index(street or "third") :])
            self.say(f"community: {format_cards(self.community[:shown])}")
        self.say(f"{street} street: bet 1x-3x ante or fold")

    def settle_round(self) -> None:
        record = self.round_record()
        try:
            self.settlement = settle_record(record, self.table)
        except RecordError as exc:  # pragma: no cover - the machine only builds valid rounds
            self.hold_reason = f"cannot settle: {exc}"
            self.trigger_later("hold")
            return
        self.say(f"community: {format_cards(self.community)}")
        self.step_index = 0
        self.say(self.settlement.procedure[0].text)

    def next_step(self) -> None:
        assert self.settlement is not None
        self.step_index += 1
        self.say(self.settlement.procedure[self.step_index].text)

    def complete_round(self) -> None:
        result = RoundResult(self.round_no, self.round_record(), self.settlement, tuple(self.late_bets))
        self.rounds.append(result)
        self.say(f"round {self.round_no} complete")
        if self.on_round:
            self.on_round(result)
        self.trigger_later("next_round")

    def void_round(self) -> None:
        record = self.round_record()
        self.rounds.append(RoundResult(self.round_no, record, None, tuple(self.late_bets)))
        for n, seat in sorted(self.seats.items()):
            for spot, cents in seat.wagers.items():
                self.say(f"void: seat {n}: return {spot} {cents / 100:.2f}")
        if self.on_round:
            self.on_round(self.rounds[-1])
        self.trigger_later("next_round")

    def ask_stub_count(self) -> None:
        self.expected_stub = DECK - self.dealt
        self.counted_stub = None
        self.devices.request_stub_count()
        self.say(f"count the stub: {self.expected_stub} cards expected (confirm when counted)")

    def stub_mismatch(self) -> None:
        self.hold_reason = f"stub count {self.counted_stub}, expected {self.expected_stub}"
        self.remember_phase()

    def remember_phase(self) -> None:
        self.held_from = self.phase
        self.say(f"HOLD: {self.hold_reason}")

    def on_machine_error(self, event: Any) -> None:
        log.error("table machine error: %s", event.error)
        self.hold_reason = f"controller error: {event.error}"

    def trigger_later(self, name: str) -> None:
        """Fire a trigger after the current one finishes (``queued=True`` runs it next)."""
        self.trigger(name)  # type: ignore[attr-defined]

    # --- the round record ---------------------------------------------------------------------

    def round_record(self) -> dict[str, Any]:
        seats = {}
        for n, seat in sorted(self.seats.items()):
            seats[str(n)] = {
                "wagers": dict(seat.wagers),
                "cards": format_cards(seat.cards),
                "folded_at": seat.folded_at,
            }
        return {"game": "mississippi_stud", "seats": seats, "community": format_cards(self.community)}

    # --- events -------------------------------------------------------------------------------

    def handle(self, event: Any) -> None:
        """Act on one event from the queue (the controller thread only)."""
        name = type(event).__name__
        handler = getattr(self, f"on_{name}", None)
        if handler is not None:
            handler(event)

    def on_SpotReport(self, e: Any) -> None:  # noqa: N802 - named for the event class
        if self.phase is P.BETTING:
            seat = self.seats.setdefault(e.seat, Seat(e.seat))
            if e.cents:
                seat.wagers[e.spot] = e.cents
                self.devices.lamp(e.seat, e.spot, "open")
            else:
                seat.wagers.pop(e.spot, None)
            return
        street = self.current_street()
        seat = self.seats.get(e.seat)
        if street and seat and seat.folded_at is None and e.spot == street and street not in seat.acted:
            ante = seat.wagers["ante"]
            if e.cents in (ante, 2 * ante, 3 * ante):
                seat.wagers[street] = e.cents
                seat.acted.add(street)
                self.devices.lamp(e.seat, street, "accepted")
                return
            self.say(f"correct: seat {e.seat} {street}: must be 1x, 2x or 3x the ante {ante / 100:.2f}")
            return
        # Any other change once the bets are locked is a late or removed bet: not accepted.
        kind = "removed" if e.cents == 0 else "late"
        note = f"{kind} bet: seat {e.seat} {e.spot} {e.cents / 100:.2f} not accepted"
        self.late_bets.append(note)
        self.devices.lamp(e.seat, e.spot, "flash_removed" if kind == "removed" else "flash_late")
        self.say(note)

    def on_CardDealt(self, e: Any) -> None:  # noqa: N802
        if self.phase is not P.DEALING:
            self.hold_reason = f"card {e.card} dealt when none was expected"
            self.hold()  # type: ignore[attr-defined]
            return
        try:
            dealt = card(e.card)
        except CardError:
            self.hold_reason = f"unreadable card report {e.card!r}"
            self.hold()  # type: ignore[attr-defined]
            return
        seen = [c for s in self.seats.values() for c in s.cards] + self.community
        if dealt in seen:
            self.hold_reason = f"duplicate card {dealt} (index {e.index})"
            self.hold()  # type: ignore[attr-defined]
            return
        order = [n for n, s in sorted(self.seats.items())]
        if self.dealt < 2 * len(order):
            self.seats[order[self.dealt // 2]].cards.append(dealt)  # 35.9(d): 2-card stacks clockwise
        else:
            self.community.append(dealt)  # 35.9(e): then the three community cards
        self.dealt += 1
        if self.dealt == 2 * len(order) + 3:
            self.cards_complete()  # type: ignore[attr-defined]

    def on_CardUnreadable(self, e: Any) -> None:  # noqa: N802
        self.hold_reason = f"unreadable card (index {e.index})"
        self.hold()  # type: ignore[attr-defined]

    def on_ButtonChanged(self, e: Any) -> None:  # noqa: N802
        if e.button == "supervisor_key":
            self.supervisor = e.pressed
            return
        if not e.pressed:
            return
        b = e.button
        if b.startswith("seat_"):
            self._selected_seat = int(b[5:])
        elif b == "fold":
            street = self.current_street()
            seat = self.seats.get(self._selected_seat or 0)
            if street and seat and seat.folded_at is None and street not in seat.acted:
                seat.folded_at = street
                seat.acted.add(street)
                self.say(f"seat {seat.number} folds at {street} street")
            self._selected_seat = None
        elif b == "no_more_bets":
            self.no_more_bets()  # type: ignore[attr-defined]
        elif b == "reveal":
            if not self.all_acted() and self.current_street():
                waiting = [s.number for s in self.active() if self.current_street() not in s.acted]
                self.say(f"waiting for seats {waiting}")
            self.reveal()  # type: ignore[attr-defined]
        elif b == "confirm" and self.phase is P.COUNT_STUB:
            self.counted_stub = self.expected_stub  # the dealer counted by hand and it agrees
            self.stub_counted()  # type: ignore[attr-defined]
        elif b == "confirm":
            self.confirm()  # type: ignore[attr-defined]
        elif b == "void" and self.supervisor:
            self.void()  # type: ignore[attr-defined]
        elif b == "clear_fault" and self.supervisor and self.phase is P.HOLD:
            self.say("fault cleared: resume")
            self.resume()  # type: ignore[attr-defined]

    def on_ShoeStatus(self, e: Any) -> None:  # noqa: N802
        if self.phase is P.COUNT_STUB:
            self.counted_stub = e.stub_count
            self.stub_counted()  # type: ignore[attr-defined]

    def on_LinkDown(self, e: Any) -> None:  # noqa: N802
        if self.phase in PLAYING:
            self.hold_reason = f"link down: {e.device}"
            self.hold()  # type: ignore[attr-defined]

    def on_LinkUp(self, e: Any) -> None:  # noqa: N802
        if self.phase is P.HOLD and self.hold_reason == f"link down: {e.device}":
            self.say(f"{e.device} back: resume")
            self.resume()  # type: ignore[attr-defined]
