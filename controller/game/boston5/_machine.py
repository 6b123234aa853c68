"""Boston 5 stud poker at the table: the round as a ``transitions`` machine (N.J.A.C. 13:69F-24).

Buttons: ``no_more_bets``; while bonus hands are exposed, ``seat_N`` marks that seat's three cards
as exposed (24.10(a): once exposed they stay exposed; a wrong press is undone by pressing it again
with the supervisor's key on, journaled; refused and journaled without it), ``next`` ends the exposure; a second wager is a bet-spot report
on the ``second`` spot equal to the first wager, a fold is ``seat_N`` then ``fold``, and taking
the second wager back before the final cards is a fold too (24.10(b), (c)); ``deal`` starts the
final two cards once every seat has decided; ``confirm`` moves through the settlement.
Seats are numbered from the dealer's left (seat 1), so clockwise dealing is seat order.
"""

from __future__ import annotations

from enum import Enum

from controller.game.boston5 import DEFINITION
from controller.game.boston5._rules import Boston5Seat, bonus_procedure
from controller.table.phases import Common, Trigger, betting_closes, common_transitions, once_decided
from controller.table.round import Record, RoundTable, Seat, SupervisorAction
from controller.table.screen import Notice, cards_line, seats_line, seats_named
from controller.vocab import Card, format_cards
from controller.wagers import DISCARD_UNEXPOSED, Action, Settlement, Step
from drivers.bet_spots import SpotReport

_MAIN = "the second wager (equal to the first) or the fold is decided on the first three cards (24.10(b))"
_PRE_DEAL_CLOSED = {
    # 24.8(b)4, 5: "no more bets" is announced before any card; the ante and first wager decide
    # what the seat plays on (a second wager equal to the first, 24.10(b)).
    "ante": f"{_MAIN}; the ante is placed before the deal (24.8(b)4)",
    "first": f"{_MAIN}; the first wager is placed before the deal (24.8(b)4)",
    # 24.10(a): the bonus is settled on the first three cards alone (one placed after the bonus
    # settlement could never be exposed).
    "bonus": "the bonus is settled on the first three cards (24.10(a))",
}
"""Why a late change to each wager placed before the deal cannot enter once a card is out
(:meth:`.round.RoundTable.pre_deal_closed`)."""

_COUNT = {1: "one more", 2: "two"}
"""A seat's or the dealer's final cards still needed, as the prompt says it."""

__all__ = ["Phase", "TRANSITIONS", "Boston5Table"]

UNEXPOSE = "un-expose bonus hand"
"""The supervisor's action correcting a seat button pressed by mistake while bonus hands are exposed."""


class Phase(Enum):
    """This game's own steps; the machine's states are the common ones around them (:func:`.phases.round_states`)."""

    FIRST_DEAL = "first_deal"
    BONUS = "bonus"
    BONUS_SETTLEMENT = "bonus_settlement"
    SECOND_WAGER = "second_wager"
    FINAL_DEAL = "final_deal"


P, C = Phase, Common
_BETTING, _SECOND_WAGER, _FIRST_DEAL, _FINAL_DEAL, _HOLD = C.BETTING, P.SECOND_WAGER, P.FIRST_DEAL, P.FINAL_DEAL, C.HOLD
"""Read once: a member read from its ``Enum`` class is a descriptor call in Python each time."""

TRANSITIONS: list[dict[str, object]] = [
    # 24.8(b)4: "no more bets"; ante and first wager (first = 2 x ante), an optional bonus with them.
    *betting_closes(P.FIRST_DEAL),  # the first card out of the shoe starts the deal
    # 24.8(c): three consecutive cards to each player clockwise from the dealer's left, then three to the dealer.
    {"trigger": "first_cards_complete", "source": P.FIRST_DEAL, "dest": P.BONUS, "after": "prompt_bonus"},
    # 24.10(a): players with a bonus wager may expose their three cards; the dealer then collects the
    # losing bonus wagers and pays the winning ones, step by step, before any second wager (24.10(b)).
    {"trigger": "bonus_done", "source": P.BONUS, "dest": P.BONUS_SETTLEMENT, "after": "start_bonus_settlement"},
    {"trigger": "bonus_settled", "source": P.BONUS_SETTLEMENT, "dest": P.SECOND_WAGER, "after": "prompt_second"},
    # 24.10(b), (c): a second wager equal to the first, or fold; the second may be withdrawn until the final cards.
    once_decided("deal", P.SECOND_WAGER, P.FINAL_DEAL, "all_decided", "prompt_final"),
    # 24.10(d), (e), (f): two cards to each player with a second wager, two to the dealer; the dealer reveals
    # and sets the highest hand; settlement counterclockwise from the dealer's right.
    {"trigger": "final_cards_complete", "source": P.FINAL_DEAL, "dest": C.SETTLEMENT, "after": "show_and_settle"},
    *common_transitions(P),  # 24.8(e): the stub counted every fifth round
]
"""Every transition of the round; ``tablectl diagram`` draws exactly this."""


class Boston5Table(RoundTable):
    """The model of the Boston 5 machine."""

    Phase = Phase
    TRANSITIONS = TRANSITIONS
    DEFINITION = DEFINITION
    WAGER_STEPS = ("betting", "second_wager")
    CONFIRM_PHASES = ("settlement", "bonus_settlement")
    DEALING_STATES = ("first_deal", "final_deal")
    PRE_DEAL_CLOSED = _PRE_DEAL_CLOSED
    first_cards_complete = Trigger()
    bonus_done = Trigger()
    bonus_settled = Trigger()
    deal = Trigger()
    final_cards_complete = Trigger()
    _playing: tuple[dict[int, Seat], int, list[Seat]] | None = None
    """:meth:`in_play` as last read, with the seats it was read from and their count (:meth:`playing`)."""

    def supervisor_actions(self) -> tuple[SupervisorAction, ...]:
        return (
            *super().supervisor_actions(),
            # 24.10(a): an exposed bonus hand stays exposed; a seat button pressed by mistake is
            # corrected by the supervisor, while the bonus hands are exposed (asked for by the press
            # of an exposed seat's button, :meth:`on_seat_button`).
            SupervisorAction(UNEXPOSE, (), ("bonus",), self.unexpose_bonus, "bonus hand not exposed"),
        )

    def reset_game(self) -> None:
        self.dealer: list[Card] = []
        self.bonus_steps: tuple[Step, ...] = ()
        self.bonus_index = 0
        self._playing = None

    def playing(self) -> list[Seat]:
        """:meth:`in_play`, read again only when the seats changed since: the round's seats
        replaced (a new round, the bets locked) or one added, or a fold (:meth:`fold`). A card of
        the deal reads it (where it goes, how many cards the deal takes) without sorting the
        seats each time. The list is the caller's to read, not to change."""
        seats = self.state.seats
        kept = self._playing
        if kept is None or kept[0] is not seats or kept[1] != len(seats):
            kept = self._playing = (seats, len(seats), self.in_play())
        return kept[2]

    def extra_wager_problems(self, number: int, seat: Seat) -> list[str]:
        w = seat.wagers
        multiple = self.option("first_to_ante", int)
        problems = []
        if "ante" not in w or "first" not in w:
            problems.append(f"seat {number}: needs an ante and a first wager")
        elif w["first"] != multiple * w["ante"]:
            problems.append(f"seat {number} first: must be {multiple} x the ante ({multiple * w['ante'] / 100:.2f})")
        return problems

    def all_decided(self) -> bool:
        return all(s.folded_at is not None or "second" in s.wagers for s in self.seats.values())

    def prompt_bonus(self) -> None:
        bonus = [n for n, s in sorted(self.seats.items()) if "bonus" in s.wagers]
        if bonus:
            self.display.ask(f"bonus: {seats_named(bonus)} may expose (seat button); then next")
        else:
            self.bonus_done()

    def start_bonus_settlement(self) -> None:
        seats = [Boston5Seat(n, dict(s.wagers), tuple(s.cards[:3]), s.exposed, False) for n, s in self.seats.items()]
        self.bonus_steps, self.bonus_index = bonus_procedure(seats, self.config), 0
        for step in self.bonus_steps:  # 24.10(a): the bonus wagers are settled now
            self.walk.settled_early(step)
        if self.bonus_steps:
            self.ask_bonus_step()
        else:
            self.bonus_settled()

    def next_bonus_step(self) -> None:
        self.walk.bonus_done(self.bonus_steps[self.bonus_index])  # confirmed: a bonus paid is not voided
        self.bonus_index += 1
        if self.bonus_index < len(self.bonus_steps):
            self.ask_bonus_step()
        else:
            self.bonus_settled()

    def ask_bonus_step(self) -> None:
        self.display.ask(self.bonus_steps[self.bonus_index].text)

    def steps_to_show(self, settlement: Settlement) -> tuple[Step, ...]:
        done = {step.text for step in self.bonus_steps}  # a bonus cut later by the table's cap is shown again
        left = tuple(s for s in super().steps_to_show(settlement) if not (s.phase == "bonus" and s.text in done))
        return left or (Step("done", None, (), "nothing left to settle"),)

    def prompt_second(self) -> None:
        self.display.ask("second wager equal to the first, or seat, fold; then deal")

    def prompt_final(self, in_play: list[Seat] | None = None) -> None:
        """24.10(d): two cards to each seat with a second wager, clockwise from the dealer's left, then two
        to the dealer: the seats named (nobody left: the dealer's hand is not dealt to). Once some of
        those cards are placed (an early card the supervisor accepted, or the deal under way), the
        prompt counts what each seat, and the dealer, still needs. ``in_play``: :meth:`in_play`
        when the caller has just read it (a card of the final deal)."""
        if in_play is None:
            in_play = self.playing()
        if not in_play:
            self.final_cards_complete()
            return
        needs = [(str(s.number), 5 - len(s.cards)) for s in in_play]
        dealer = 5 - len(self.dealer)
        if all(n == 2 for _, n in needs) and dealer == 2:
            self.display.ask(f"deal the final two cards: {seats_named([seat for seat, _ in needs])}, then the dealer")
            return
        counted = [f"seat {seat} {_COUNT[n]}" for seat, n in needs if n > 0]
        dealer_part = f"the dealer {_COUNT[dealer]}" if dealer > 0 else ""
        parts = ", ".join(counted) + (f", then {dealer_part}" if counted and dealer_part else dealer_part)
        self.display.ask(f"deal the final cards: {parts}")

    def notice_confirmed(self, notice: Notice) -> None:
        # A second wager withdrawn after "deal" (24.10(c)): once its collection is confirmed the final
        # cards may come, to the seats left. Confirmed while the table holds (a card dealt before
        # the confirmation waits for the supervisor), the prompt names the seats left at once: the
        # dealer reads it when the hold ends.
        if not notice.blocking or self.final_cards_begun():
            return
        if self.phase is P.FINAL_DEAL:
            self.prompt_final()
        elif self.phase is C.HOLD and self.holds.held_from is P.FINAL_DEAL and self.in_play():
            self.prompt_final()
        elif self.phase is C.HOLD and self.holds.held_from is P.FINAL_DEAL:
            self.display.ask("nobody left: no final cards; the round settles once the hold ends")

    def resumed(self) -> None:
        super().resumed()
        # Every second wager withdrawn while the table held (a card dealt before the collection
        # was confirmed): nobody is left to deal to, so the round goes to its settlement now.
        if self.phase is P.FINAL_DEAL and not self.in_play() and not self.display.steps_pending():
            self.prompt_final()

    def show_and_settle(self) -> None:
        if self.in_play():  # nobody left to play against: the dealer's hand stays down
            self.display.shown(f"dealer: {format_cards(self.dealer)}")  # 24.10(e): revealed all at once
        self.walk.settle()

    def screen_details(self) -> list[str]:
        out = super().screen_details()
        state = self.state
        phase = state.phase
        if phase is P.BONUS:
            exposed = tuple(sorted([n for n, s in state.seats.items() if s.exposed]))  # the few kept, then sorted
            out.append(seats_line("exposed", exposed) if exposed else "exposed: none")
        elif phase is P.SECOND_WAGER:
            waiting = tuple(
                sorted([n for n, s in state.seats.items() if s.folded_at is None and "second" not in s.wagers])
            )
            if waiting:
                out.append(seats_line("waiting", waiting))
        elif phase is C.SETTLEMENT and any(s.folded_at is None for s in state.seats.values()):
            out.append(cards_line("dealer", self.dealer))
        return out

    def card_place(self, placed: int) -> str:
        order = sorted(self.seats)
        first = 3 * len(order)
        if placed < first:
            return f"seat {order[placed // 3]} card {placed % 3 + 1}"
        if placed < first + 3:
            return f"dealer card {placed - first + 1}"
        playing = self.in_play()
        k = placed - first - 3
        if k < 2 * len(playing):
            return f"seat {playing[k // 2].number} card {4 + k % 2}"
        return f"dealer card {4 + k - 2 * len(playing)}"

    def uses_next_previous(self) -> bool:
        return self.phase is P.BONUS or super().uses_next_previous()

    def fold(self, seat: Seat) -> None:
        """24.10(b), (c): the seat folds (or withdraws its second wager): ante and first wager collected now."""
        seat.folded_at = "second"
        self._playing = None  # one seat fewer in play
        collect = tuple(Action("collect", spot, seat.wagers[spot]) for spot in ("ante", "first"))
        self.walk.collect_at_fold(seat, Step("fold", seat.number, collect, "folds", DISCARD_UNEXPOSED))

    def final_cards_begun(self) -> bool:
        return self.dealt > 3 * len(self.seats) + 3

    def round_record(self) -> dict[str, object]:
        seats = self.seat_records(lambda s: {"exposed_bonus": s.exposed, "folded": s.folded_at is not None})
        return {"game": "boston5", "seats": seats, "dealer": format_cards(self.dealer)}

    # --- events ---------------------------------------------------------------------------------

    def dealing(self) -> bool:
        # A fold's collection (a withdrawal after "deal") is confirmed before the next card: a card
        # before it waits for the supervisor, as any card dealt when none was expected.
        state = self.state
        phase = state.phase
        if phase is _FIRST_DEAL:
            return True
        return phase is _FINAL_DEAL and bool(self.playing()) and not self.display.steps_pending()

    def deal_size(self) -> int:
        # 24.8(c): three cards to each seat and the dealer; 24.10(d): two more to each seat with a
        # second wager and to the dealer (none when every seat folded); 24.8(d): the stub then goes
        # to the discard rack without exposing the cards
        playing = len(self.playing())
        return 3 * len(self.state.seats) + 3 + (2 * playing + 2 if playing else 0)

    def cards_seen(self) -> list[Card]:
        return super().cards_seen() + self.dealer

    def on_card(self, dealt: Card, index: int) -> None:
        state = self.state  # the round's state itself: ``phase``, ``seats`` and ``dealt`` are its properties
        seats, placed, phase = state.seats, state.dealt, state.phase
        if phase is _FIRST_DEAL:
            order = sorted(seats)
            if placed < 3 * len(order):
                number = order[placed // 3]
                seats[number].cards.append(dealt)
                self.intake.placed(dealt, f"seat {number}")
            else:
                self.dealer.append(dealt)
                self.intake.placed(dealt, "dealer")
            state.dealt = placed = placed + 1
            if placed == 3 * len(order) + 3:
                self.first_cards_complete()
            return
        playing = self.playing()
        first = 3 * len(seats) + 3
        k = placed - first
        if k < 2 * len(playing):
            playing[k // 2].cards.append(dealt)
            self.intake.placed(dealt, f"seat {playing[k // 2].number}")
        else:
            self.dealer.append(dealt)
            self.intake.placed(dealt, "dealer")
        state.dealt = placed = placed + 1
        if placed == first + 2 * len(playing) + 2:
            self.final_cards_complete()
        elif phase is _FINAL_DEAL or (phase is _HOLD and state.held_from is _FINAL_DEAL):
            # what each seat still needs (a card accepted while held included): the seats in play
            # are the ones just read (placing a card folds nobody)
            self.prompt_final(playing)

    def on_SpotReport(self, e: SpotReport) -> None:
        wagers = self.wagers
        step = wagers.take_while_open(e)
        if step is _BETTING:
            return
        state = self.state
        state.screen_changed()  # a report in play: what the details show may change
        seat = state.seats.get(e.seat)
        now = wagers.step_now()
        # 24.10(c): the second wager may be withdrawn "at any time prior to the deal of the final two
        # cards": until the first of them leaves the shoe.
        withdrawal_open = now is _SECOND_WAGER or (now is _FINAL_DEAL and not self.final_cards_begun())
        if withdrawal_open and seat and e.spot == "second" and e.cents == 0 and "second" in seat.wagers:
            seat.wagers.pop("second")
            self.display.note(f"seat {e.seat}: second wager withdrawn, folds")
            self.fold(seat)  # withdrawn before the final cards: a fold
            return
        # A seat still deciding places its second wager; a change to a decided seat's spot (a second
        # wager placed, or the seat folded: its ante and first wager collected) is a late bet, as a
        # changed street or play wager is in the other games (the withdrawal is above).
        if (
            step is _SECOND_WAGER
            and seat
            and e.spot == "second"
            and seat.folded_at is None
            and "second" not in seat.wagers
        ):
            if e.cents == seat.wagers["first"]:
                seat.wagers["second"] = e.cents
                self.devices.lamp(e.seat, "second", "accepted")
            else:
                self.display.note(
                    f"correct: seat {e.seat} second: must equal the first wager {seat.wagers['first'] / 100:.2f}"
                )
            return
        self.late.late_bet(e.seat, e.spot, e.cents)

    def on_seat_button(self, seat: int) -> None:
        s = self.seats.get(seat)
        if self.phase is not P.BONUS or not s or "bonus" not in s.wagers:
            return
        if not s.exposed:  # 24.10(a): the player elects to expose his three cards
            s.exposed = True
            self.display.shown(f"seat {seat}: bonus hand exposed")  # in the details
            return
        # Exposed cards cannot be unseen: only the supervisor corrects a wrong press (journaled);
        # refused, journaled too, without the key. Once the bonus settlement began, no press changes it.
        self.supervisor.attempt(UNEXPOSE, f"seat_{seat}", seat=seat)

    def unexpose_bonus(self, button: str, record: Record, seat: int) -> None:
        """Supervisor action: seat ``seat``'s bonus hand was marked exposed by a wrong press (the
        player did not expose it): marked not exposed again, its bonus settled as not exposed."""
        self.seats[seat].exposed = False
        record(f"seat {seat}: a wrong press corrected (24.10(a))")

    def dealer_button(self, button: str) -> bool:
        return (button == "next" and self.phase is P.BONUS) or super().dealer_button(button)

    def on_game_button(self, button: str) -> None:
        if button == "confirm" and self.phase is P.BONUS_SETTLEMENT:
            self.next_bonus_step()
        elif button == "next" and self.phase is P.BONUS:
            self.bonus_done()
        elif button == "fold" and self.phase is P.SECOND_WAGER:
            seat = self.seats.get(self.selected_seat or 0)
            if seat and seat.folded_at is None and "second" not in seat.wagers:
                self.fold(seat)
            self.selected_seat = None
        elif button == "deal" and self.phase is P.SECOND_WAGER:
            if not self.all_decided():
                waiting = [n for n, s in sorted(self.seats.items()) if s.folded_at is None and "second" not in s.wagers]
                self.display.note(f"cannot deal: waiting for {seats_named(waiting)}")
            elif self.display.steps_pending():
                self.display.note("cannot deal: confirm the collection first")
            self.deal()
