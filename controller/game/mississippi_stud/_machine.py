"""Mississippi Stud at the table: the round as a ``transitions`` machine (N.J.A.C. 13:69F-35).

The states and transitions are the data tables below, each step with its seed section; what
every game shares is in :mod:`controller.table.phases` and :mod:`controller.table.round`. The
model turns device events into triggers: wagers from the bet-spot reports, cards from the shoe
in the order 35.9 deals them, each street's decisions, and at the end the settlement from
``controller.game.record._settle`` (the same code as ``tablectl settle``), shown to the dealer step by step.

Buttons: ``no_more_bets``; a street bet is a bet-spot report on that street's spot, a fold is
``seat_N`` then ``fold``; ``reveal`` turns the next community card once every seat has acted;
``confirm`` moves through the settlement; with the supervisor key on, ``void`` voids the round,
``clear_fault`` resumes from a hold, and ``seat_N`` then ``settle`` marks that seat's communication
violation (35.10(c)) before the third community card is revealed. A fold's collection is shown
when the seat folds and confirmed (``confirm``) before the next reveal. Seats are numbered from the dealer's left (seat 1), so
clockwise dealing is seat order.
"""

from __future__ import annotations

from enum import Enum

from controller.game.mississippi_stud import DEFINITION
from controller.table.phases import Common, Trigger, betting_closes, common_transitions, once_decided
from controller.table.round import Record, RoundResult, RoundTable, Seat, SupervisorAction
from controller.table.screen import cards_line, seats_line, seats_named
from controller.vocab import Card, format_cards
from controller.wagers import DISCARD, Action, Step
from drivers.bet_spots import SpotReport

__all__ = ["Phase", "TRANSITIONS", "MississippiTable", "RoundResult", "Seat"]

STREETS = ("third", "fourth", "fifth")


class Phase(Enum):
    """This game's own steps; the machine's states are the common ones around them (:func:`.phases.round_states`)."""

    DEALING = "dealing"
    THIRD_STREET = "third_street"
    FOURTH_STREET = "fourth_street"
    FIFTH_STREET = "fifth_street"


P, C = Phase, Common
_STREET_OF_STEP = {"third_street": "third", "fourth_street": "fourth", "fifth_street": "fifth"}
"""Each street's step by its name (keyed by a step's name: an ``Enum`` member's hash is a Python call)."""
_SHOWN_AT = {"fourth_street": 1, "fifth_street": 2, "settlement": 3}
"""How many community cards are face up in each step (35.10(d), (f), (h)); none in the others."""
_PRE_DEAL_CLOSED = {
    # 35.1 (digest 2.2): the ante is placed before any card is dealt; 35.10(a), (e), (g): each
    # street bet is 1x, 2x or 3x the ante, made after examining the player's own two cards.
    "ante": "the ante sets every street bet (1x-3x the ante, 35.10(a)), made on the player's own two "
    "cards; it is placed before any card (35.1)",
    # digest 2.5 (inferred): the 3-card bonus is settled on the community cards, placed with the
    # ante before "no more bets" (35.9(c), digest 2.3).
    "bonus": "the bonus is settled on the three community cards (inferred, digest 2.5); it is placed "
    'before the deal ("no more bets", 35.9(c))',
}
"""Why a late change to each wager placed before the deal cannot enter once a card is out
(:meth:`.round.RoundTable.pre_deal_closed`)."""
_BETTING, _DEALING, _HOLD = C.BETTING, P.DEALING, C.HOLD
"""Read once: a member read from its ``Enum`` class is a descriptor call in Python each time."""

TRANSITIONS: list[dict[str, object]] = [
    # 35.9(c): "no more bets" before any card; wagers that break the rules must be put right first.
    *betting_closes(P.DEALING),  # the first card out of the shoe starts the deal
    # 35.9(d), (e): a 2-card stack to each wagering seat clockwise, then the 3 community cards.
    {"trigger": "cards_complete", "source": P.DEALING, "dest": P.THIRD_STREET, "after": "prompt_street"},
    # 35.10(a), (d): all seats bet 3rd street or fold; then the first community card.
    once_decided("reveal", P.THIRD_STREET, P.FOURTH_STREET, "all_acted", "prompt_street"),
    # 35.10(e), (f): 4th street; then the second community card.
    once_decided("reveal", P.FOURTH_STREET, P.FIFTH_STREET, "all_acted", "prompt_street"),
    # 35.10(g), (h), (i): 5th street; the third card; settlement counterclockwise from the dealer's right.
    once_decided("reveal", P.FIFTH_STREET, C.SETTLEMENT, "all_acted", "show_and_settle"),
    *common_transitions(P),  # 35.9(e): the stub counted every fifth round
]
"""Every transition of the round; ``tablectl diagram`` draws exactly this."""


class MississippiTable(RoundTable):
    """The model of the Mississippi Stud machine."""

    Phase = Phase
    TRANSITIONS = TRANSITIONS
    DEFINITION = DEFINITION
    WAGER_STEPS = ("betting", "third_street", "fourth_street", "fifth_street")
    PRE_DEAL_CLOSED = _PRE_DEAL_CLOSED
    cards_complete = Trigger()
    reveal = Trigger()

    def supervisor_actions(self) -> tuple[SupervisorAction, ...]:
        return (
            *super().supervisor_actions(),
            # 35.10(c): seat_N, then settle with the key on, before the third community card is revealed.
            SupervisorAction(
                "communication violation",
                ("settle",),
                ("third_street", "fourth_street", "fifth_street"),
                self.communication_violation,
                "communication violation",
            ),
        )

    def reset_game(self) -> None:
        self.community: list[Card] = []

    def current_street(self) -> str | None:
        return _STREET_OF_STEP.get(self.state.phase._value_)

    def extra_wager_problems(self, number: int, seat: Seat) -> list[str]:
        if "bonus" in seat.wagers and "ante" not in seat.wagers:
            return [f"seat {number} bonus: needs an ante"]
        return []

    def all_acted(self) -> bool:
        street = self.current_street()  # seat order does not matter to "all": no sort
        return street is not None and all(street in s.acted for s in self.state.seats.values() if s.folded_at is None)

    def revealed(self) -> int:
        """How many community cards are face up (35.10(d), (f), (h))."""
        state = self.state
        phase: Enum | None = state.phase
        if phase is _HOLD:
            phase = state.held_from
        return 0 if phase is None else _SHOWN_AT.get(phase._value_, 0)

    def prompt_street(self) -> None:
        shown = self.revealed()
        if shown:
            self.display.shown(f"community: {format_cards(self.community[:shown])}")
        self.display.ask("bet 1-3x ante or seat, fold; then reveal")

    def show_and_settle(self) -> None:
        self.display.shown(f"community: {format_cards(self.community)}")  # 35.10(h)
        self.walk.settle()

    def screen_details(self) -> list[str]:
        out = super().screen_details()
        state = self.state
        step = state.phase._value_  # a step's name: no enum hash (in Python)
        shown = self.revealed() if step == "hold" else _SHOWN_AT.get(step, 0)
        if shown:
            out.append(cards_line("community", self.community[:shown]))
        street = _STREET_OF_STEP.get(step)
        if street:
            waiting = tuple(
                sorted([n for n, s in state.seats.items() if s.folded_at is None and street not in s.acted])
            )
            if waiting:
                out.append(seats_line("waiting", waiting))
        return out

    def communication_violation(self, button: str, record: Record) -> None:
        """Supervisor action, 35.10(c): ``seat_N`` then ``settle`` before the third community card is
        revealed: every wager of the seat is forfeit, collected now (the current street's bet too, if
        placed); a seat that had folded forfeits what the fold left in play (its bonus); the reason is
        journaled."""
        street = self.current_street()
        seat = self.seats.get(self.selected_seat or 0)
        self.selected_seat = None
        folded_with_bonus = seat is not None and seat.folded_at is not None and "bonus" in seat.wagers
        if street is None or seat is None or seat.violation or (seat.folded_at is not None and not folded_with_bonus):
            self.display.note("communication violation: select a seat with a wager in play, before the last reveal")
            return
        seat.violation = True
        if seat.folded_at is None:
            seat.folded_at = street  # it plays no further street
            seat.acted.add(street)
            forfeit = list(seat.wagers)
        else:
            seat.violation_at = street  # the fold was collected when it folded: the bonus is left
            forfeit = ["bonus"]
        record(f"seat {seat.number} at {street} street: every wager forfeit (35.10(c))")
        collect = tuple(Action("collect", spot, seat.wagers[spot]) for spot in forfeit)
        self.walk.collect_at_fold(
            seat,
            Step(
                "violation",
                seat.number,
                collect,
                "communication violation (35.10(c))",
                DISCARD if seat.violation_at is None else "",  # a fold's cards went with the fold
            ),
        )

    def card_place(self, placed: int) -> str:
        order = sorted(self.seats)
        if placed < 2 * len(order):
            return f"seat {order[placed // 2]} card {placed % 2 + 1}"
        return f"community card {placed - 2 * len(order) + 1}"

    def round_record(self) -> dict[str, object]:
        seats = self.seat_records(
            lambda s: {
                "folded_at": s.folded_at,
                **({"communication_violation": True} if s.violation else {}),
                **({"violation_at": s.violation_at} if s.violation_at else {}),
            }
        )
        return {"game": "mississippi_stud", "seats": seats, "community": format_cards(self.community)}

    # --- events ---------------------------------------------------------------------------------

    def dealing(self) -> bool:
        return self.state.phase is _DEALING

    def deal_size(self) -> int:
        # 35.9(d), (e): a 2-card stack to each wagering seat and the 3 community cards; then the rest
        # of the cards go to the discard rack unexposed (35.9, digest 2.3 step 6)
        return 2 * len(self.state.seats) + 3

    def cards_seen(self) -> list[Card]:
        return super().cards_seen() + self.community

    def on_card(self, dealt: Card, index: int) -> None:
        state = self.state  # the round's state itself: ``dealt`` and ``seats`` are its properties
        seats, placed = state.seats, state.dealt
        if placed < 2 * len(seats):
            number = sorted(seats)[placed // 2]
            seats[number].cards.append(dealt)  # 35.9(d): 2-card stacks clockwise
            self.intake.placed(dealt, f"seat {number}")
        else:
            self.community.append(dealt)  # 35.9(e): then the three community cards
            self.intake.placed(dealt, "community")
        state.dealt = placed = placed + 1
        if placed == 2 * len(seats) + 3:
            self.cards_complete()

    def on_SpotReport(self, e: SpotReport) -> None:
        step = self.wagers.take_while_open(e)
        if step is _BETTING:
            return
        # A report in play changes what the screen shows only when it takes a street's bet (the
        # seats waiting, in the details): a note or a late bet says so itself (``display.shown``).
        state = self.state
        street = None if step is None else _STREET_OF_STEP.get(step._value_)
        seat = state.seats.get(e.seat)
        if street and seat and seat.folded_at is None and e.spot == street and street not in seat.acted:
            ante = seat.wagers["ante"]
            if e.cents in (ante, 2 * ante, 3 * ante):
                seat.wagers[street] = e.cents
                seat.acted.add(street)
                state.screen_changed()  # one seat fewer waiting
                self.devices.lamp(e.seat, street, "accepted")
            else:
                self.display.note(f"correct: seat {e.seat} {street}: must be 1x, 2x or 3x the ante {ante / 100:.2f}")
            return
        self.late.late_bet(e.seat, e.spot, e.cents)  # any other change once the bets are locked

    def on_game_button(self, button: str) -> None:
        if button == "fold":
            street = self.current_street()
            seat = self.seats.get(self.selected_seat or 0)
            if street and seat and seat.folded_at is None and street not in seat.acted:
                seat.folded_at = street
                seat.acted.add(street)
                lost = ["ante", *STREETS[: STREETS.index(street)]]
                collect = tuple(Action("collect", spot, seat.wagers[spot]) for spot in lost)
                self.walk.collect_at_fold(
                    seat, Step(f"{street}_street", seat.number, collect, f"folds at {street} street", DISCARD)
                )
            self.selected_seat = None
        elif button == "reveal":
            # The machine checks the street's conditions itself (``all_acted``, ``no_steps_pending``):
            # they are asked again only when it did not move, to say why (a refused trigger changes nothing).
            # With no street to reveal (held, dealing) the machine ignores it; a fold's collection
            # still to confirm is still named then (what the dealer does first once the hold ends).
            street = self.current_street()
            self.reveal()
            if street is not None:
                if self.state.phase._value_ != f"{street}_street":
                    return  # revealed
                if not self.all_acted():
                    waiting = [s.number for s in self.in_play() if street not in s.acted]
                    self.display.note(f"cannot reveal: waiting for {seats_named(waiting)}")
                    return
            if self.display.steps_pending():
                self.display.note("cannot reveal: confirm the collection first")
