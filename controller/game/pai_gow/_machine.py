"""Pai gow poker at the table: the round as a ``transitions`` machine (11.15; digest 3.4).

Buttons: ``no_more_bets``; the dice are entered one die at a time with the seat buttons 1-6 (the
die's face: three presses, a fourth starts again) or the total stepped with ``next`` / ``previous``
(it starts at 3), then ``confirm``: any total in at most four presses; or with ``start_method: rng`` a number 1-7 is drawn (31.11: counted from the
dealer as 1 in the configured direction); the shoe
then deals seven hands of seven (to every position, wagered or not) and reports its stub, which
must be four (31.8; otherwise the dealer checks that every hand has seven cards and the table
holds for the supervisor: ``clear_fault`` when each has, the round goes on; ``void`` when one has
not, a misdeal: digest 3.4 item 5, 31.14); the players then set their hands and place them face down, and the dealer
confirms when all are set (``confirm``, step "set_hands"); only then is the dealer's hand exposed
and set by the house way (11.9, which 11.15(d) follows: ``confirm``, step "setting"), then each
seat's hand is turned, counterclockwise from the dealer's right, once the step before it is
confirmed, its set shown house way first: ``next`` / ``previous`` move through the legal sets,
``confirm`` records the one shown, ``fold`` marks the player's set a foul; its pai gow wager is
settled at once (``confirm``). ``confirm`` then moves through the rest of the settlement
(11.15(d)2, 3). The dealer's cards are face down until "setting", a seat's until it is turned
(:mod:`.reveal`). Citation: 11.15(d) says "the dealer shall observe the procedures set forth in
N.J.A.C. 13:69F-11.9"; 11.9's own text is not in the seeds (regulations digest 3.1: not found),
so the order here (players set and place face down, then the dealer exposes and sets his, then
turns and settles each hand counterclockwise from his right) is inferred from 11.15(d)1 and the
analogue issue 40 cites, Indiana's 68 IAC 10-9-13.

Envy markers (11.15(c)): the dealer puts one in front of every bonus wager of the envy minimum
($5.00) or more; the bet-spot sensors report it on the ``envy_marker`` spot (any amount: a
marker is there). A marker in front of a smaller bonus wager, or of none, must be taken away
before the deal. Markers are not wagers: settlement follows from the bonus amounts, and the
round record does not list them.
"""

from __future__ import annotations

from enum import Enum

from controller.game.pai_gow import DEFINITION
from controller.game.pai_gow._deal import DEALER, HAND_SIZE, REMAINING, dealing_order, start_position
from controller.game.pai_gow._house_way import house_way
from controller.game.pai_gow._rules import KnownSets, PaiGowSeat, RoundSettler, read_round
from controller.game.record import RecordError
from controller.hands.paigow import HandSet, legal_sets
from controller.table.engine import StartDrawn
from controller.table.phases import Common, Trigger, common_transitions, no_more_bets
from controller.table.round import Handler, Record, RoundTable, Seat, SupervisorAction
from controller.table.screen import Notice
from controller.vocab import Card, format_cards
from controller.wagers import Step
from drivers.bet_spots import SpotReport
from drivers.panel import ButtonChanged
from drivers.shoe import ShoeStatus

__all__ = ["Phase", "TRANSITIONS", "PaiGowTable"]


DICE = 3
"""Three dice give the starting total (31.11: 3 to 18)."""


class Phase(Enum):
    """This game's own steps; the machine's states are the common ones around them (:func:`.phases.round_states`)."""

    DEALING = "dealing"
    CHECK_DEAL = "check_deal"
    SET_HANDS = "set_hands"
    SETTING = "setting"


P, C = Phase, Common

TRANSITIONS: list[dict[str, object]] = [
    # 31.8(b)/31.10: "no more bets"; the optional wagers go with a pai gow wager (11.15(b)).
    # Bets locked, the dealer enters the dice total (or a random number is drawn) before any card.
    no_more_bets("lock_bets_and_ask_dice"),
    # 31.11: the starting position from the dice total, the dealer counted as 1.
    {"trigger": "start_entered", "source": C.NO_MORE_BETS, "dest": P.DEALING, "after": "prompt_deal"},
    # 31.8: seven cards to every position, dealer included, wagered or not.
    {"trigger": "hands_dealt", "source": P.DEALING, "dest": P.CHECK_DEAL, "after": "ask_remaining"},
    # 31.8: exactly four cards must remain; otherwise the dealer checks the hands (31.14): the
    # supervisor's clear fault when each has seven (the round goes on), void when one has not.
    {
        "trigger": "remaining_counted",
        "source": P.CHECK_DEAL,
        "dest": P.SET_HANDS,
        "conditions": "four_remain",
        "after": "ask_players_set",
    },
    {
        "trigger": "remaining_counted",
        "source": P.CHECK_DEAL,
        "dest": C.HOLD,
        "unless": "four_remain",
        "before": "misdeal",
    },
    # 11.9 (11.15(d) defers to it): each player sets both hands and places them face down; the
    # dealer confirms all are set; then he exposes his own hand and sets it the house way.
    {"trigger": "hands_set", "source": P.SET_HANDS, "dest": P.SETTING, "after": "show_next_set"},
    # 11.15(d)1: each seat's hand turned (house way shown first), counterclockwise from the dealer's right.
    {"trigger": "sets_done", "source": P.SETTING, "dest": C.SETTLEMENT, "after": "settle_round"},
    *common_transitions(P),
]
"""Every transition of the round; ``tablectl diagram`` draws exactly this."""

POSITIONS = 7

_PRE_DEAL_CLOSED = {
    # 31.10 (digest 3.4, the Asia poker analogue of the pai gow deal): "no more bets" before the
    # shoe dispenses any stack; the player sets both hands on his own seven cards (11.9, inferred,
    # module docstring), and the dealer's hand is exposed later.
    "pai_gow": "the player sets his hands on his own seven cards (11.9, inferred); the wager is placed "
    'before the deal ("no more bets", 31.10)',
    # 11.15(b): made "at the same time" as the pai gow wager; 11.15(d)2: settled on the player's
    # own seven cards.
    "bonus": "the bonus wager is settled on the player's own seven cards (11.15(b), (d)2)",
    "insurance": "the insurance wager is settled on the player's own seven cards (11.15(b), (d)2)",
}
"""Why a late change to each wager placed before the deal cannot enter once a card is out
(:meth:`.round.RoundTable.pre_deal_closed`)."""

CHECK = "misdeal check"
"""The start of the hold's reason when the stub is not four (digest 3.4 item 5, 31.14)."""


class PaiGowTable(RoundTable):
    """The model of the pai gow machine."""

    Phase = Phase
    TRANSITIONS = TRANSITIONS
    DEFINITION = DEFINITION
    CARD_STARTS_DEAL = False  # the dice total comes first
    PRE_DEAL_CLOSED = _PRE_DEAL_CLOSED
    start_entered = Trigger()
    hands_dealt = Trigger()
    remaining_counted = Trigger()
    hands_set = Trigger()
    sets_done = Trigger()

    def supervisor_actions(self) -> tuple[SupervisorAction, ...]:
        return (
            # Digest 3.4 item 5 (31.14): the stub is not four; the dealer checked the hands and each
            # has seven: not a misdeal, the round goes on (void when one has not: the misdeal).
            SupervisorAction(
                "hands of seven",
                ("clear_fault",),
                ("hold",),
                self.hands_of_seven,
                "every hand has seven cards",
                when=self.checking_hands,
                allowed=self.links.why_not_resume,
            ),
            *super().supervisor_actions(),
        )

    def routes(self) -> dict[type, Handler]:
        return {**super().routes(), StartDrawn: self.on_StartDrawn}

    def reset_game(self) -> None:
        self.dice = 3
        self.faces: list[int] = []
        """The dice entered one at a time with the seat buttons (a total once all three are in)."""
        self.order: list[int] = []
        self.hands: dict[int, list[Card]] = {}
        self.deal_plan: tuple[int, ...] = ()
        """The position each card of the deal goes to, in dealt order (made once a round, with ``order``)."""
        self.place_names: dict[int, str] = {}
        """Each position as the card ledger names it ("dealer", "seat 3", "position 4 (no wager)")."""
        self.remaining: int | None = None
        self.left_asked = REMAINING
        """The cards left the dealer was asked to count (:meth:`ask_left`)."""
        self.hands_checked = False
        """The stub was not four and the supervisor said every hand has seven cards (31.14)."""
        self.setting: list[int] = []
        self.options: list[HandSet] = []
        self.option_index = 0
        self.all_listed = False
        self.sets: dict[int, HandSet | None] = {}  # None: a foul
        self.turned: list[int] = []
        """Seats whose hands the dealer has turned face up, in order (11.9: one by one, each once
        the dealer's own set, and the seat before, are confirmed)."""
        self.markers: set[int] = set()  # seats with an envy marker (11.15(c))
        self.set_shown = ""
        self.house_sets: dict[int, HandSet] = {}
        """Each turned seat's set by the house way, made once a round (shown first, and played by
        the settlement where the dealer confirms it or the set is a foul)."""
        self.settler: RoundSettler | None = None
        """This round's settlement, its shared part computed once, when the dealer's hand is set."""

    def extra_wager_problems(self, number: int, seat: Seat) -> list[str]:
        w = seat.wagers
        problems = []
        if w and "pai_gow" not in w:
            problems.append(f"seat {number}: the optional wagers need a pai gow wager")
        minimum = self.option("bonus_minimum", int)
        if "bonus" in w and w["bonus"] < minimum:
            problems.append(f"seat {number} bonus: at least {minimum / 100:.2f} (11.15(b))")
        envy = self.option("envy_minimum", int)
        if number in self.markers and w.get("bonus", 0) < envy:
            problems.append(f"seat {number} envy marker: only for a bonus wager of {envy / 100:.2f} or more (11.15(c))")
        elif number not in self.markers and w.get("bonus", 0) >= envy:
            problems.append(f"seat {number} bonus {w['bonus'] / 100:.2f}: place its envy marker (11.15(c))")
        return problems

    def seat_checked(self, number: int, seat: Seat) -> bool:
        return bool(seat.wagers) or number in self.markers  # a marker alone is to be taken away (11.15(c))

    def wagers_valid(self) -> bool:
        for n in sorted(self.markers - set(self.seats)):  # a marker at a seat with no wager at all
            self.seats[n] = Seat(n)
        valid = super().wagers_valid()
        self.seats = {n: s for n, s in self.seats.items() if s.wagers}
        return valid

    def resend_requests(self) -> None:
        super().resend_requests()
        if self.phase is P.CHECK_DEAL:
            self.devices.request_stub_count()
        elif self.phase is C.NO_MORE_BETS and self.config.options["start_method"] == "rng":
            self.devices.draw_start()

    def four_remain(self) -> bool:
        """The cards expected remain (four: :meth:`left_expected`), or the hands were checked and
        each has seven (digest 3.4 item 5)."""
        return self.remaining == self.left_expected() or self.hands_checked

    def left_expected(self) -> int:
        """The cards that must remain after the deal (31.8, 31.10: four, the deck less the 49
        dealt), less each other card that left the shoe in the round (a card beyond the deal, or
        one out while the table held at the check, burned): they are out of the stub counted."""
        return self.shape.deck - self.ledger.out

    def checking_hands(self) -> bool:
        """Held because the stub is not four: the dealer checks each hand for seven cards."""
        return self.holds.on and self.holds.held_from is P.CHECK_DEAL and self.holds.reason.startswith(CHECK)

    def hands_of_seven(self, button: str, record: Record) -> None:
        """Supervisor action: every hand has seven cards although the stub is not four: not a
        misdeal (digest 3.4 item 5, 31.14: only a hand of more or fewer than seven voids them);
        the round goes on to the players' setting."""
        left = self.left_expected()
        record(f"round {self.round_no}: {self.remaining} cards remain, not {left}; every hand has seven: goes on")
        self.hands_checked = True
        self.holds.release()

    def lock_bets_and_ask_dice(self) -> None:
        self.lock_bets()
        if self.config.options["start_method"] == "rng":
            self.display.ask("drawing the starting number: wait")
            self.devices.draw_start()
        else:
            self.ask_dice()

    def ask_dice(self) -> None:
        if 0 < len(self.faces) < DICE:
            entered = " + ".join(map(str, self.faces))
            self.display.ask(f"dice {entered}: seat 1-6 for die {len(self.faces) + 1}")
        elif self.faces:
            self.display.ask(f"dice {' + '.join(map(str, self.faces))} = {self.dice}: confirm (or seat 1-6 again)")
        else:
            self.display.ask(f"dice total {self.dice}: seat 1-6 each die, or next / previous; then confirm")

    def on_seat_button(self, seat: int) -> None:
        """A die's face (seat buttons 1-6) while the dice are entered."""
        if self.phase is not C.NO_MORE_BETS or self.config.options["start_method"] != "dice":
            return
        self.selected_seat = None  # a die's face, not a seat
        if not 1 <= seat <= 6:
            self.display.note("a die shows 1 to 6")
            return
        if len(self.faces) == DICE:
            self.faces = []
        self.faces.append(seat)
        if len(self.faces) == DICE:
            self.dice = sum(self.faces)
        self.ask_dice()

    def screen_details(self) -> list[str]:
        out = super().screen_details()
        if self.state.phase is P.SETTING and self.set_shown:
            out.append(self.set_shown)
        return out

    def uses_next_previous(self) -> bool:
        return self.phase in (C.NO_MORE_BETS, P.SETTING) or super().uses_next_previous()

    def card_place(self, placed: int) -> str:
        if not self.order:
            return f"card {placed + 1}"
        if self.config.options["deal_method"] == "stacks":
            position, nth = self.order[placed // HAND_SIZE], placed % HAND_SIZE
        else:
            position, nth = self.order[placed % POSITIONS], placed // POSITIONS
        who = (
            "dealer" if position == DEALER else f"seat {position}" if position in self.seats else f"position {position}"
        )
        return f"{who} card {nth + 1}"

    def on_StartDrawn(self, e: StartDrawn) -> None:
        if self.phase is C.NO_MORE_BETS and self.config.options["start_method"] == "rng":
            self.dice = e.value
            self.display.shown(f"starting number {e.value}")
            self.start_entered()

    def prompt_deal(self) -> None:
        o = self.config.options
        seats = self.config.seats
        first = start_position(self.option("start_method", str), self.dice, self.option("count_direction", str), seats)
        self.order = order = dealing_order(first, self.option("deal_direction", str), seats)
        self.hands = {p: [] for p in order}
        # where each card goes and the name it is noted under: fixed once the wagers are locked
        stacks = o["deal_method"] == "stacks"
        dealt = range(POSITIONS * HAND_SIZE)
        self.deal_plan = tuple([order[i // HAND_SIZE] if stacks else order[i % POSITIONS] for i in dealt])
        wagered = self.seats
        self.place_names = {
            p: "dealer" if p == DEALER else f"seat {p}" if p in wagered else f"position {p} (no wager)" for p in order
        }
        self.display.ask(
            f"{'dice' if o['start_method'] == 'dice' else 'number'} {self.dice}: first hand to"
            f" {'the dealer' if first == DEALER else f'seat {first}'}; deal the cards"
        )

    def ask_remaining(self) -> None:
        self.devices.request_stub_count()
        self.ask_left()

    def ask_left(self) -> None:
        """Ask the dealer for the cards left (:meth:`left_expected`)."""
        self.left_asked = self.left_expected()
        self.display.ask(f"count the cards left: {self.left_asked} expected, then confirm")

    def ask_players_set(self) -> None:
        self.display.ask("players: set your hands and place them face down; confirm when all are set")

    def misdeal(self) -> None:
        left = self.left_expected()
        self.holds.entered(f"{CHECK}: {self.remaining} cards remain, not {left}: does every hand have seven?")

    def show_next_set(self) -> None:
        if not self.setting:
            self.setting = sorted((n for n in self.seats), reverse=True)  # counterclockwise from the dealer's right
            # 11.9, 11.15(d): the dealer's hand is exposed and set by the house way first
            self.settler = self.round_settler()
            dealer = self.settler.dealer_step() if self.settler is not None else None
            self.settle_now([dealer] if dealer is not None else [])
        if len(self.sets) == len(self.seats):
            self.sets_done()
            return
        self.options, self.set_shown = [], ""
        if self.display.steps_pending():  # the next hand is turned once the step shown is confirmed
            self.display.ask("confirm the step shown; then the next hand is turned")
            return
        self.turn_next()

    def turn_next(self) -> None:
        """Turn the next seat's hand (11.9) and show its set, the house way first."""
        n = self.setting[len(self.sets)]
        if n not in self.turned:
            self.turned.append(n)
        way = self.house_sets.get(n)
        if way is None:
            way = self.house_sets[n] = (
                house_way(self.option("house_way", str)).set(self.hands[n], self.config.options).set
            )
        self.options, self.option_index, self.all_listed = [way], 0, False
        self.show_option(n, "house way")

    def notice_confirmed(self, notice: Notice) -> None:
        # The dealer's set, or the last hand's settlement, confirmed: the next hand is turned (while
        # a hold from "setting" lasts too: the dealer reads it when the hold ends).
        setting = self.phase is P.SETTING or (self.phase is C.HOLD and self.holds.held_from is P.SETTING)
        if notice.blocking and setting and not self.options and not self.display.steps_pending():
            if len(self.sets) < len(self.setting):
                self.turn_next()

    def resumed(self) -> None:
        super().resumed()
        if self.phase is P.CHECK_DEAL and self.remaining is not None:
            # the supervisor found every hand of seven: the round goes on; a hold for the devices
            # (a journal outage) took the check's place and ended by itself: the check again
            self.remaining_counted()
            return
        if self.phase is P.CHECK_DEAL and self.left_asked != self.left_expected():
            self.ask_left()  # a card left the shoe while held at the check (burned): one fewer left
        if self.phase is P.SETTING and not self.options and not self.display.steps_pending():
            self.show_next_set()

    def round_settler(self) -> RoundSettler | None:
        """The round's settlement as it stands once dealt (seats not set yet count as set by the
        house way: neither the dealer's step nor a seat's depends on another seat's set), or
        ``None`` when its record cannot be settled (held for it at the settlement, as any round)."""
        try:
            # read as `tablectl settle` reads its JSON: the record holds only JSON's own values
            # (strings, numbers, booleans, objects with string keys), so it is what its JSON reads
            # back as (controller.game.record.settle_written relies on the same), read without the
            # round trip
            return RoundSettler(read_round(self.round_record(), self.config, keep=True), self.config)
        except RecordError:
            return None

    def pai_gow_steps(self, n: int) -> list[Step]:
        """Seat ``n``'s pai gow step, with the set the dealer recorded (read from the round's
        settler: the shared part of the settlement is not computed again)."""
        if self.settler is None:
            return []
        chosen = self.sets.get(n)
        high, low = (chosen.high.cards, chosen.low.cards) if chosen is not None else (None, None)
        seat = self.seats[n]
        mine = PaiGowSeat(n, dict(seat.wagers), tuple(self.hands[n]), high, low, foul=chosen is None)
        step = self.settler.pai_gow_step(mine, KnownSets(chosen, self.house_sets.get(n)))
        return [step] if step is not None else []

    def settle_now(self, steps: list[Step]) -> None:
        """Show ``steps`` to do now, each confirmed before the round goes on (not shown again at the
        settlement)."""
        for step in steps:
            self.walk.settled_in_turn(step)
            self.display.notify(step.text, blocking=True)

    def list_legal_sets(self, n: int) -> None:
        """Every other legal set of seat ``n``, after the house way (listed when the dealer first asks)."""
        if self.all_listed:
            return
        shown = set(self.options[0].low.cards)
        self.options += [
            s for s in legal_sets(sorted(self.hands[n], key=lambda c: c.index)) if set(s.low.cards) != shown
        ]
        self.all_listed = True

    def show_option(self, seat: int, label: str) -> None:
        s = self.options[self.option_index]
        self.display.ask(f"seat {seat} {label}: confirm, next / previous, or fold (foul)")
        words = s.words()  # kept: the settlement of this seat writes them again
        self.set_shown = f"high {words['high']} / low {words['low']}"
        self.display.shown(f"seat {seat}: {self.set_shown} ({label})")

    def round_record(self) -> dict[str, object]:
        seats: dict[str, object] = {}
        for n, seat in sorted(self.seats.items()):
            entry: dict[str, object] = {"wagers": dict(seat.wagers), "cards": format_cards(self.hands.get(n, []))}
            chosen = self.sets.get(n, "unset")
            if chosen is None:
                entry["foul"] = True
            elif isinstance(chosen, HandSet):
                entry["high"], entry["low"] = format_cards(chosen.high.cards), format_cards(chosen.low.cards)
            else:
                entry["set"] = "house_way"
            seats[str(n)] = entry
        empty = {str(p): format_cards(c) for p, c in sorted(self.hands.items()) if p != DEALER and p not in self.seats}
        record: dict[str, object] = {
            "game": "pai_gow",
            "start": {"method": self.config.options["start_method"], "value": self.dice},
            "remaining": self.remaining if self.remaining is not None else REMAINING,
            "seats": seats,
            "dealer": format_cards(self.hands.get(DEALER, [])),
        }
        if empty:
            record["empty"] = empty
        return record

    # --- events ---------------------------------------------------------------------------------

    def dealing(self) -> bool:
        return self.phase is P.DEALING

    def deal_size(self) -> int:
        # 31.8, 31.10: seven cards to every position, the dealer's included (digest 3.4); the four
        # left are counted, never dealt
        return POSITIONS * HAND_SIZE

    def cards_seen(self) -> list[Card]:
        return [c for h in self.hands.values() for c in h]

    def on_card(self, dealt: Card, index: int) -> None:
        state = self.state  # the round's state itself: ``dealt`` and ``seats`` are its properties
        position = self.deal_plan[state.dealt]
        hand = self.hands[position]
        hand.append(dealt)
        self.intake.placed(dealt, self.place_names[position])
        state.dealt += 1
        seats = state.seats
        if position in seats:
            seats[position].cards = hand
        if state.dealt == POSITIONS * HAND_SIZE:
            self.hands_dealt()

    def on_ShoeStatus(self, e: ShoeStatus) -> None:
        if self.phase is P.CHECK_DEAL:
            self.remaining = e.stub_count
            self.remaining_counted()
        else:
            super().on_ShoeStatus(e)

    def on_SpotReport(self, e: SpotReport) -> None:
        if e.spot == "envy_marker" and self.wagers.betting_open(e.seat, e.spot):
            (self.markers.add if e.cents else self.markers.discard)(e.seat)
            return
        if not self.wagers.bet_while_open(e):
            self.late.late_bet(e.seat, e.spot, e.cents)

    def dealer_button(self, button: str) -> bool:
        if self.phase is C.NO_MORE_BETS and self.config.options["start_method"] == "dice":
            return button in ("next", "previous", "confirm")
        if self.phase is P.SETTING:
            return button in ("next", "previous", "confirm", "fold")
        return (button == "confirm" and self.phase in (P.CHECK_DEAL, P.SET_HANDS)) or super().dealer_button(button)

    def on_game_button(self, button: str) -> None:
        if self.phase is C.NO_MORE_BETS and self.config.options["start_method"] == "dice":
            if button in ("next", "previous"):
                self.faces = []
                self.dice = min(18, self.dice + 1) if button == "next" else max(3, self.dice - 1)
                self.ask_dice()
            elif button == "confirm" and 0 < len(self.faces) < DICE:
                self.display.note(f"enter die {len(self.faces) + 1} first (seat 1-6)")
            elif button == "confirm":
                self.start_entered()
        elif self.phase is P.CHECK_DEAL and button == "confirm":
            self.remaining = self.left_expected()  # the dealer counted four (:meth:`left_expected`) by hand
            self.remaining_counted()
        elif self.phase is P.SET_HANDS and button == "confirm":
            self.hands_set()  # every player's hands set and face down
        elif self.phase is P.SETTING and (not self.options or self.display.steps_pending()):
            self.display.note("confirm the step shown first")  # the dealer's hand, or the last hand settled
        elif self.phase is P.SETTING and self.options:
            n = self.setting[len(self.sets)]
            if button in ("next", "previous"):
                self.list_legal_sets(n)
                step = 1 if button == "next" else -1
                self.option_index = (self.option_index + step) % len(self.options)
                self.show_option(
                    n, "house way" if self.option_index == 0 else f"set {self.option_index + 1} of {len(self.options)}"
                )
            elif button == "confirm":
                self.sets[n] = self.options[self.option_index]
                self.settle_now(self.pai_gow_steps(n))  # 11.9: each hand settled as it is turned
                self.show_next_set()
            elif button == "fold":
                self.sets[n] = None
                self.display.note(f"seat {n}: foul")
                self.settle_now(self.pai_gow_steps(n))
                self.show_next_set()

    def on_ButtonChanged(self, e: ButtonChanged) -> None:
        # confirm means "dice entered", "four counted" or "this set" before it means "next settlement step"
        if e.pressed and e.button == "confirm" and self.phase in (C.NO_MORE_BETS, P.CHECK_DEAL, P.SET_HANDS, P.SETTING):
            self.on_game_button("confirm")
            return
        super().on_ButtonChanged(e)
