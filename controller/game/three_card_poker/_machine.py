"""Three Card Poker at the table: the round as a ``transitions`` machine (N.J.A.C. 13:69F-20;
its text was not found: every step below is inferred from published rule sheets, named in
:data:`SOURCES`).

The states and transitions are the data below, each step with its source; what every game shares
is in :mod:`controller.table.phases` and :mod:`controller.table.round`. The model turns device
events into triggers: wagers from the bet-spot reports (an ante, a pair plus, a 6 Card Bonus
before the deal), three cards to each seat and three to the dealer from the shoe, each seat's
decision (a play wager equal to the ante, or a fold), and at the end the settlement from the
rules layer (the same code as ``tablectl settle``), shown to the dealer step by step.

Buttons: ``no_more_bets``; a play wager is a bet-spot report on the ``play`` spot equal to the
ante, a fold is ``seat_N`` then ``fold`` (the seat's wagers collected at once, its cards to the
discard rack unexposed, confirmed with ``confirm``); ``reveal`` exposes the dealer's hand once
every seat has decided; ``confirm`` moves through the settlement. Seats are numbered from the
dealer's left (seat 1), so clockwise dealing is seat order.
"""

from __future__ import annotations

from enum import Enum

from controller.game.three_card_poker import DEFINITION
from controller.game.three_card_poker._table_rules import SIX_CARD, fold_step
from controller.table.phases import Common, Trigger, betting_closes, common_transitions, once_decided
from controller.table.round import RoundTable, Seat
from controller.table.screen import seats_named
from controller.vocab import Card, format_cards
from controller.wagers import Settlement, Step
from drivers.bet_spots import SpotReport

__all__ = ["Phase", "TRANSITIONS", "SOURCES", "ThreeCardTable"]

SOURCES = (
    "N.J.A.C. 13:69F-20 (text not found): inferred from the published rule sheets of Three Card "
    'Poker and its 6 Card Bonus (Wizard of Odds "Three Card Poker"; table-games-online.com '
    '"Three Card Poker rules"; Two Kings casino, Lady Luck Nemacolin house rule pages)'
)
"""What every step of this machine is inferred from."""

CARDS = 3
"""Cards to each seat and to the dealer."""

_PLACED = "20.6, inferred: placed before the deal"
_PRE_DEAL_CLOSED = {
    "ante": f"its ante bonus is paid on the player's own three cards (20.11(b)), and the play decided on them ({_PLACED})",
    "pair_plus": f"the pair plus is settled on the player's own three cards (20.11(c)) ({_PLACED})",
    SIX_CARD: f"the 6 Card Bonus is settled on the player's three cards and the dealer's three ({_PLACED})",
}
"""Why a late change to each wager placed before the deal cannot enter once a card is out
(:meth:`.round.RoundTable.pre_deal_closed`); the play wager is no wager before the deal."""


class Phase(Enum):
    """This game's own steps; the machine's states are the common ones around them (:func:`.phases.round_states`)."""

    DEALING = "dealing"
    PLAY = "play"


P, C = Phase, Common

TRANSITIONS: list[dict[str, object]] = [
    # 20.6 (inferred): an ante, optional pair plus and 6 Card Bonus, then "no more bets" before any card.
    *betting_closes(P.DEALING),  # the first card out of the shoe starts the deal
    # 20.8 (inferred): three cards to each seat with a wager, clockwise, then three to the dealer, face down.
    {"trigger": "cards_complete", "source": P.DEALING, "dest": P.PLAY, "after": "prompt_play"},
    # 20.10(b) (inferred): each seat with an ante plays (a play wager equal to the ante) or folds;
    # 20.10(d): once all have decided the dealer's hand is exposed; 20.10(e), 20.11: settlement from
    # the dealer's right, folded hands collected first.
    once_decided("reveal", P.PLAY, C.SETTLEMENT, "all_decided", "show_and_settle"),
    *common_transitions(P),  # the stub counted every fifth round, as at every table
]
"""Every transition of the round; ``tablectl diagram`` draws exactly this."""


class ThreeCardTable(RoundTable):
    """The model of the Three Card Poker machine."""

    Phase = Phase
    TRANSITIONS = TRANSITIONS
    DEFINITION = DEFINITION
    WAGER_STEPS = ("betting", "play")
    PRE_DEAL_CLOSED = _PRE_DEAL_CLOSED
    cards_complete = Trigger()
    reveal = Trigger()

    def reset_game(self) -> None:
        self.dealer: list[Card] = []

    def extra_wager_problems(self, number: int, seat: Seat) -> list[str]:
        # 20.6 (inferred): a pair plus may be bet alone; the 6 Card Bonus needs an ante
        w = seat.wagers
        if "ante" not in w and "pair_plus" not in w:
            return [f"seat {number}: needs an ante or a pair plus wager"]
        if SIX_CARD in w and "ante" not in w:
            return [f"seat {number} 6 Card Bonus: needs an ante"]
        return []

    def deciding(self) -> list[Seat]:
        """The seats still to play or fold, in seat order."""
        return [s for s in self.in_play() if _decides(s)]

    def all_decided(self) -> bool:
        return not self.deciding()

    def prompt_play(self) -> None:
        self.display.ask("play (a play wager equal to the ante) or seat, fold; then reveal")

    def show_and_settle(self) -> None:
        if self.dealer_exposed():  # nothing left to settle against it: the dealer's hand stays down
            self.display.shown(f"dealer: {format_cards(self.dealer)}")  # 20.10(d), inferred
        self.walk.settle()

    def steps_to_show(self, settlement: Settlement) -> tuple[Step, ...]:
        # every hand folded, no 6 Card Bonus: the dealer's hand is not exposed
        steps = super().steps_to_show(settlement)
        if self.dealer_exposed():
            return steps
        return tuple(s for s in steps if s.phase != "dealer") or (Step("done", None, (), "nothing left to settle"),)

    def screen_details(self) -> list[str]:
        out = super().screen_details()
        if self.phase is P.PLAY:
            waiting = [str(s.number) for s in self.deciding()]
            if waiting:
                out.append(f"waiting: {seats_named(waiting)}")
        elif self.phase is C.SETTLEMENT and self.dealer_exposed():
            out.append(f"dealer: {format_cards(self.dealer)}")
        return out

    def card_place(self, placed: int) -> str:
        order = sorted(self.seats)
        if placed < CARDS * len(order):
            return f"seat {order[placed // CARDS]} card {placed % CARDS + 1}"
        return f"dealer card {placed - CARDS * len(order) + 1}"

    def round_record(self) -> dict[str, object]:
        return {"game": "three_card_poker", "seats": self.seat_records(), "dealer": format_cards(self.dealer)}

    def fold(self, seat: Seat) -> None:
        """20.10(b), (c) (inferred): the seat folds: its ante and pair plus collected now, its cards
        to the discard rack unexposed (kept face down while its 6 Card Bonus is in action)."""
        seat.folded_at = "play"
        seat.acted.add("play")
        self.walk.collect_at_fold(seat, fold_step(seat.number, seat.wagers))

    def dealer_exposed(self) -> bool:
        """The dealer's hand is exposed at settlement: some hand is in action, or some 6 Card Bonus
        (a folded hand's too) is settled with it."""
        return bool(self.in_play()) or any(SIX_CARD in s.wagers for s in self.seats.values())

    # --- events ---------------------------------------------------------------------------------

    def dealing(self) -> bool:
        return self.phase is P.DEALING

    def deal_size(self) -> int:
        # three to each seat and three to the dealer; the rest of the cards go to the discard rack
        # unexposed
        return CARDS * len(self.seats) + CARDS

    def cards_seen(self) -> list[Card]:
        return super().cards_seen() + self.dealer

    def on_card(self, dealt: Card, index: int) -> None:
        order = sorted(self.seats)
        if self.dealt < CARDS * len(order):
            number = order[self.dealt // CARDS]
            self.seats[number].cards.append(dealt)  # three to each seat clockwise
            self.intake.placed(dealt, f"seat {number}")
        else:
            self.dealer.append(dealt)  # then three to the dealer
            self.intake.placed(dealt, "dealer")
        self.dealt += 1
        if self.dealt == CARDS * len(order) + CARDS:
            self.cards_complete()

    def on_SpotReport(self, e: SpotReport) -> None:
        if self.wagers.bet_while_open(e):
            return
        self.state.screen_changed()  # a report in play: what the details show may change
        seat = self.seats.get(e.seat)
        step = self.wagers.open_step(e.seat, e.spot)  # held or not
        if step is P.PLAY and seat and e.spot == "play" and _decides(seat):
            ante = seat.wagers["ante"]
            if e.cents == ante:
                seat.wagers["play"] = e.cents  # 20.6 (inferred): the play wager equals the ante
                seat.acted.add("play")
                self.devices.lamp(e.seat, "play", "accepted")
            else:
                self.display.note(f"correct: seat {e.seat} play: must equal the ante {ante / 100:.2f}")
            return
        self.late.late_bet(e.seat, e.spot, e.cents)  # any other change once the bets are locked

    def on_game_button(self, button: str) -> None:
        if button == "fold" and self.phase is P.PLAY:
            seat = self.seats.get(self.selected_seat or 0)
            if seat is not None and _decides(seat):
                self.fold(seat)
            self.selected_seat = None
        elif button == "reveal" and self.phase is P.PLAY:
            if not self.all_decided():
                self.display.note(f"cannot reveal: waiting for {seats_named([s.number for s in self.deciding()])}")
            elif self.display.steps_pending():
                self.display.note("cannot reveal: confirm the collection first")
            self.reveal()


def _decides(seat: Seat) -> bool:
    """The seat has still to play or fold: an ante, no play wager, not folded."""
    return seat.folded_at is None and "ante" in seat.wagers and "play" not in seat.wagers
