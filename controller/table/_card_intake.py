"""Cards from the shoe: each one expected now goes to the game (``on_card``); an unreadable or
duplicate read holds the table until the shoe reads it again or the supervisor enters it; a card
that leaves the shoe while the table is held, or when none was expected, waits for the supervisor,
who accepts it in its place in the dealing order or declares a misdeal. Every report is in the
card ledger (:mod:`.card_ledger`), which is the round record's ``cards``.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.table._dealer_screen import DealerScreen
from controller.table._device_state import DeviceLinks
from controller.table._hold_ways import MISDEAL, OR_VOID, Way, Ways, void
from controller.table._holds import Holds, cards_wait_reason
from controller.table._round_state import Fire, GameShape, RoundState
from controller.table._shoe_faults import ShoeFaults
from controller.table._supervisor import Record
from controller.table.card_ledger import BURNED, DUPLICATE, UNREADABLE, CardLedger
from controller.vocab import Card, CardError, card, deck
from drivers.shoe import CardDealt, CardUnreadable

__all__ = ["CardIntake", "misread_prompt"]

_DECKS = (deck(joker=False), deck(joker=True))
"""The cards a misread card may be entered as, in the deck's order (by its number): without and
with the joker."""

_READ_OR_ENTER = (Way("read it again"), Way("enter it", ", "), OR_VOID)
"""The ways out a misread card's reason names (the shoe reads it again, or the supervisor enters it)."""


def misread_prompt(gone: str | None) -> Ways:
    """The prompt while held for a misread card not yet being entered: the shoe reads it again
    (once every device is back: ``gone`` says which is not), or key: next enters it, or void."""
    again = f"wait for the device ({gone})" if gone is not None else "deal it again to re-read"
    return Ways("", (Way(again), Way("next enters it", "; or key: "), void(", ")))


def _unreadable_reason(place: str, index: int | None) -> Ways:
    """The hold's reason for an unreadable card at ``place`` (shoe card ``index``)."""
    return Ways(f"unreadable card: {place} (shoe card {index}): ", (Way("read it again"), OR_VOID))


def _burned_reason(what: str) -> Ways:
    """The hold's reason for an unreadable card with no place in the deal (``what``): burned."""
    return Ways(f"{what}, unreadable: burned unexposed; supervisor: ", (Way("clear fault goes on"), MISDEAL))


class CardIntake:
    """The cards the round takes from its shoe, into ``ledger``.

    The game's hooks it calls: ``on_card`` (a card to its place), ``card_place`` (where the card
    dealt after so many goes, in the dealer's words), ``dealing`` (a card is expected now),
    ``deal_size`` (the round's deal, when known), ``cards_seen`` (the cards dealt to places),
    ``hold_prompt`` (the screen's prompt while held) and ``why_not_void`` (why the round's void is
    refused now); ``deal_started`` fires the machine's trigger; ``read_again`` asks the
    supervisor's "card read again" action for a misread card read again.
    """

    def __init__(
        self,
        state: RoundState,
        shape: GameShape,
        ledger: CardLedger,
        holds: Holds,
        shoe_faults: ShoeFaults,
        device_links: DeviceLinks,
        display: DealerScreen,
        deal_started: Fire,
        read_again: Callable[[Card, int], object],
        on_card: Callable[[Card, int], None],
        card_place: Callable[[int], str],
        dealing: Callable[[], bool],
        deal_size: Callable[[], int | None],
        cards_seen: Callable[[], list[Card]],
        hold_prompt: Callable[[], str],
        why_not_void: Callable[[], str | None],
    ) -> None:
        self._state, self._shape, self._holds, self._shoe_faults = state, shape, holds, shoe_faults
        self._device_links = device_links
        self._display, self._deal_started, self._read_again = display, deal_started, read_again
        self._on_card, self._card_place, self._dealing = on_card, card_place, dealing
        self._deal_size, self._cards_seen, self._hold_prompt = deal_size, cards_seen, hold_prompt
        self._why_not_void = why_not_void
        self.ledger = ledger
        self.misread_index: int | None = None
        """The index of the card to read again or enter (an unreadable or duplicate card)."""
        self.misread_at = 0
        """The misread card's entry in the ledger (cards that wait before it came out first)."""
        self.entry: int | None = None
        self.entry_card: Card | None = None
        """The card the supervisor is choosing for the misread one (face down: named by deck number)."""
        self.card_index = 0
        """The shoe index of the card being placed (the ledger's entry for ``placed``)."""
        self._seen: tuple[int, int, set[int]] = (-1, -1, set())
        """The indices of ``cards_seen`` as of a round number and a count of cards dealt (each
        card the game places adds itself and one to the count: the set grows with it)."""

    def start_round(self) -> None:
        self.misread_index, self.entry, self.entry_card = None, None, None

    def round_void(self) -> None:
        """The round is void (a misdeal): a misread card of it is no longer read again or entered
        (the stub may be counted before the next round starts: a card the shoe reports under the
        misread card's number meanwhile is a card outside any deal, never one of the void round's)."""
        self.start_round()

    def placed(self, dealt: Card, to: str) -> None:
        """Note where a card went (the game's ``on_card``), for recall."""
        self.ledger.placed(self.card_index, dealt, to)

    def expected(self, index: int) -> bool:
        """A card is expected now: while dealing (or the first card after "no more bets")."""
        if self._shape.card_starts_deal and self._state.phase is self._shape.common.no_more_bets:
            return True
        return self._dealing()

    def deal_expected(self) -> bool:
        """A card is expected now, or would be once the hold ends (the state held from)."""
        shape, state = self._shape, self._state
        phase = state.held_from if state.phase is shape.common.hold else state.phase
        if phase is None:
            return False
        return (shape.card_starts_deal and phase is shape.common.no_more_bets) or phase.value in shape.dealing_states

    def deal_begun(self) -> bool:
        """A card of the round's deal is placed: the deal is under way, between its parts (Boston
        5's bonus, bonus settlement and second wager, 24.10(a)-(c)) or over (the streets, play,
        pai gow's setting, the settlement, the stub count after it, or after a misdeal declared
        during the deal). A card that waits then is decided on now by the supervisor, never "once
        the deal begins": the deal has begun (the round would otherwise go on with it out of the
        shoe: a bonus paid, a second wager withdrawn after a card left the shoe)."""
        return self._state.dealt > 0

    def decided_now(self) -> bool:
        """Cards that wait are for the supervisor to decide on now, before the table goes on: a
        card is expected (or would be once the hold ends), or the deal has begun."""
        return self.deal_expected() or self.deal_begun()

    def waiting_for_the_deal(self) -> None:
        """After an event: cards that wait while none was expected (they left the shoe during a
        journal outage, before the presses that start the deal were acted on) go to the
        supervisor once the deal is expected."""
        if self.ledger.waiting and self._state.phase in self._shape.playing and self.deal_expected():
            self._holds.hold(self.waiting_hold())

    def hold_prompt(self) -> Ways | None:
        """What clears a hold for a misread card (None: not held for one)."""
        if self.entry_card is not None:
            # The card is face down: the display names it by its deck number only (docs/dealer-guide.md).
            place = self._card_place(self._state.dealt)
            return Ways(f"{place}: deck no. {self.entry_card.index + 1}? next / previous, confirm")
        if self.misread_index is not None and not self.waiting_before_misread():
            # no card can be read again while a device is not back
            return misread_prompt(self._device_links.why_not_back())
        return None

    # --- reports from the shoe ------------------------------------------------------------------

    def _count_out(self, index: int) -> None:
        """Shoe card ``index`` reported (read or not): one more card out of the shoe this round
        (:meth:`.card_ledger.CardLedger.card_out`), unless it is the misread card reported again
        at its own number (the same card). A number of 1 before the deal is the shoe's count
        starting over (:meth:`count_broken`): the cards out are counted from it."""
        if index != self.misread_index:
            self.ledger.card_out(started_over=index == 1 and self.before_the_deal())

    def dealt(self, e: CardDealt) -> None:
        """A ``CardDealt`` report."""
        self._count_out(e.index)
        try:
            dealt = card(e.card)
        except CardError:
            self.misread_at = self.ledger.not_used(e.index, str(e.card), UNREADABLE)
            self.misread_index = e.index
            self._holds.hold(Ways(f"unreadable card report {e.card!r} (index {e.index}): ", _READ_OR_ENTER))
            return
        index, last = e.index, self.ledger.shoe_count
        if self.misread_index is None and (index == last + 1 or not last):
            # the shoe's count goes on and no misread card waits (almost every card): the count
            # neither broke nor started over (:meth:`count_broken`, :meth:`count_started_over`)
            if self._state.phase is not self._shape.common.hold:
                self.take(index, dealt)
                return
            stale = False
        else:
            stale = self.count_started_over(index)
            broken = self.count_broken(index)
            if broken is not None:
                self.ledger.wait(index, dealt, f"dealt after a {broken} in the shoe's card numbers")
                return
        if self._state.phase is self._shape.common.hold:
            if self.misread_index == e.index:  # the misread card read again
                self._read_again(dealt, e.index)
            else:  # left the shoe while held: kept, and waits for the supervisor
                self.ledger.wait(e.index, dealt, "dealt while held")
                self._display.note(f"card {e.index} dealt while held: it waits for the supervisor")
                if stale:  # held for the burned read: now for the card that waits
                    self._holds.hold(self.waiting_hold())
            return
        misread = self.misread_index
        if misread is not None and e.index != misread and self.deal_expected():
            # play resumed (clear fault) with a misread card neither read again nor entered: its
            # place in the deal is kept for it, so this card waits, and the table holds again
            self.ledger.wait(e.index, dealt, "dealt while a misread card is still to be read again or entered")
            self._holds.hold(
                Ways(
                    f"card {e.index} dealt before shoe card {misread} was read again or entered: key: ",
                    (Way("next enters it, then confirm accepts the cards"), void("; or ")),
                )
            )
            return
        if misread is not None and e.index == misread:
            # play resumed (clear fault) and the misread card is read again at its own number: it
            # takes its own place (the next: every other card waits for it), and nothing waits for it
            self.misread_index, self.entry, self.entry_card = None, None, None
            self._display.note(f"shoe card {e.index} read again")
        self.take(e.index, dealt)

    def card_out(self) -> bool:
        """A card of the round has left the shoe: placed in the deal, waiting for the supervisor
        (dealt while held, or when none was expected), or a misread one still to read again or
        enter. From then on a wager placed before the deal is a wager on cards already out
        (:mod:`._late_bets`). Reads set aside (burned) are no card of the deal."""
        return self._state.dealt > 0 or bool(self.ledger.waiting) or self.misread_index is not None

    def before_the_deal(self) -> bool:
        """No card of the round is placed or waits yet (reads set aside, unreadable or burned, may
        be in the ledger: they are no card of the deal)."""
        return not self._state.dealt and not self.ledger.waiting

    def count_started_over(self, index: int) -> bool:
        """Shoe card ``index`` numbered 1 before the round's first card: the shoe's count started
        over (a shuffle, a new deck). A misread read still to be entered came out before it, so
        from the last count: the last round's stub, which goes to the discard rack unexposed
        (Boston 5 24.8(d)), never a card of this deal (its first card is the new count's first,
        24.8(c)). It is burned, and no longer held for; a hold for it now holds for the cards
        that wait (the new count's first card waits for the supervisor's confirm). Whether the
        table was held for it."""
        stale = self.misread_index
        if index != 1 or stale is None or stale == 1 or not self.before_the_deal():
            return False
        self.ledger.burn(self.misread_at, "unreadable, out before the shoe's count started over")
        self.misread_index, self.entry, self.entry_card = None, None, None
        self._display.note(f"shoe card {stale}: out before the shoe's count started over at 1: burned")
        return self._state.phase is self._shape.common.hold and self._holds.reason.startswith(
            ("unreadable card", "duplicate card")
        )

    def count_broken(self, index: int) -> str | None:
        """How shoe card ``index`` breaks the shoe's count after the last card reported: the
        table holds, and the card waits for the supervisor (confirm accepts it in dealing order,
        void declares a misdeal). The count breaks when it skips numbers (2 then 5: cards 3 and 4
        left the shoe unreported), repeats one (a second card under number 2) or starts over at 1
        in the middle of a round with no shuffle. A number of 1 before the round's first card (reads
        set aside before it are no card of the deal) is the shoe's count starting over (a shuffle,
        a new shoe: :meth:`count_started_over`); the misread card read again keeps
        its own number; a shoe whose state said its count started over (0 out) begins again at 1.
        Returns the break in words ("jump", "repeat", "restart"), or None when the count goes on."""
        last = self.ledger.shoe_count
        if not last or index == last + 1 or index == self.misread_index:
            return None
        if index == 1 and self.before_the_deal():
            return None
        if index > last + 1:
            missing = f"card {last + 1}" if index == last + 2 else f"cards {last + 1} to {index - 1}"
            broken, what = "jump", f"jump from {last} to {index}: shoe {missing} never reported"
        elif index == 1:
            broken, what = "restart", f"start over at 1 after {last} in the middle of the round, with no shuffle"
        else:
            broken, what = "repeat", f"repeat: card {index} reported again after {last}"
        self._holds.hold(Ways(f"shoe card numbers {what}: supervisor: ", (Way("confirm accepts the cards"), MISDEAL)))
        return broken

    def beyond_deal(self, placed: int) -> bool:
        """Whether the card dealt after ``placed`` cards is beyond the round's deal (the game's
        ``deal_size``): it is no one's card, and goes to the discard rack unexposed with the stub
        (Boston 5 24.8(d); Mississippi Stud 35.9, digest 2.3 step 6; pai gow 31.8: four remain)."""
        size = self._deal_size()
        return size is not None and placed >= size

    def unreadable(self, e: CardUnreadable) -> None:
        """A ``CardUnreadable`` report: the table holds until it is read again or entered. A card
        beyond the deal has no place to enter it in: it is burned, and the table holds for the
        supervisor (clear fault goes on, void declares a misdeal), as for a readable one. So is
        one that left the shoe when no card is expected, before the deal (betting open) or between
        its parts (a wager step): the seats, or who plays on, may still change, so it has no place
        in the deal to enter it in. A misread card entered as the deal's first starts the deal."""
        self._count_out(e.index)
        self.count_started_over(e.index)
        dealt = self._state.dealt
        if self.beyond_deal(dealt + len(self.ledger.waiting)):
            broken = self.count_broken(e.index)
            self.ledger.not_used(e.index, "??", f"{BURNED} (unreadable, beyond the deal)")
            if broken is None:
                self._holds.hold(_burned_reason(f"card {e.index} from the shoe after the round's last card"))
            return
        if not self.deal_expected():  # the seats (or who plays on) may still change: no place to enter it in
            broken = self.count_broken(e.index)
            self.ledger.not_used(e.index, "??", f"{BURNED} (unreadable, dealt when none was expected)")
            if broken is None:
                when = "before the round's first card" if not dealt else "when none was expected"
                self._holds.hold(_burned_reason(f"card {e.index} from the shoe {when}"))
            return
        broken = self.count_broken(e.index)
        self.misread_at = self.ledger.not_used(e.index, "??", UNREADABLE)
        self.misread_index = e.index
        if broken is not None:
            return
        place = self._card_place(self._state.dealt)
        self._holds.hold(_unreadable_reason(place, e.index))

    def take(self, index: int, dealt: Card) -> None:
        """A card from the shoe while the round is played: placed by the game, or held for."""
        shape = self._shape
        opening = self._state.phase is shape.common.no_more_bets
        if not (opening and shape.card_starts_deal) and not self._dealing():  # :meth:`expected`
            self.ledger.wait(index, dealt, "dealt when none was expected")
            self._holds.hold(f"card {index} from the shoe dealt when none was expected")
            return
        if opening:
            self._deal_started()
        elif dealt.index in self.seen_indices():  # a card is its index (no __eq__ per card)
            # its entry: the place it came out of the shoe (a waiting card placed now keeps its own)
            self.misread_at = self.ledger.not_used(index, str(dealt), DUPLICATE)
            self.misread_index = index
            place = self._card_place(self._state.dealt)
            self._holds.hold(
                Ways(f"duplicate card: {place} (shoe card {index}) read as one already dealt: ", _READ_OR_ENTER)
            )
            return
        self.to_game(index, dealt)

    def to_game(self, index: int, dealt: Card) -> None:
        """Give shoe card ``index`` to the game (``on_card``) in its place in the deal; a card
        beyond the deal is never a seat's or a community card: it is burned."""
        state, shape = self._state, self._shape
        size = self._deal_size()
        if size is not None and state.dealt >= size:  # :meth:`beyond_deal`
            self.ledger.not_used(index, str(dealt), BURNED)
            self._display.note(f"shoe card {index}: no place in the deal, burned")
            return
        if shape.card_starts_deal and state.phase is shape.common.no_more_bets:
            self._deal_started()  # a misread first card entered or read again: the deal starts with it
        self.card_index = index
        round_no, before, seen = self._seen
        self._on_card(dealt, index)
        if round_no == state.round_no and before == state.dealt - 1:  # the game placed it: one more seen
            seen.add(dealt.index)
            self._seen = (round_no, state.dealt, seen)

    def seen_indices(self) -> set[int]:
        """The deck indices of the cards dealt to places this round (the game's ``cards_seen``),
        read again from the game only when the round or its count of cards dealt moved otherwise
        than by a card placed here (each card would make the check grow with the deal)."""
        state = self._state
        round_no, dealt, seen = self._seen
        if round_no != state.round_no or dealt != state.dealt:
            seen = {c.index for c in self._cards_seen()}
            self._seen = (state.round_no, state.dealt, seen)
        return seen

    def place_corrected(self, dealt: Card, index: int) -> None:
        """Deal the corrected misread card, then the cards that waited behind it (the supervisor
        decides on those: the table holds again for them)."""
        self.misread_index, self.entry, self.entry_card = None, None, None
        self._holds.release()
        self.to_game(index, dealt)
        if self.ledger.waiting and self._state.phase is not self._shape.common.hold:
            self._holds.hold(self.waiting_hold())

    def place_waiting(self, cards: list[tuple[int, Card]]) -> None:
        """Place cards that waited, in dealt order (a card with no place in the deal is burned);
        when one holds the table again, the rest wait again."""
        for n, (index, dealt) in enumerate(cards):
            if self._state.phase is self._shape.common.hold:  # a card held the table again
                for later, later_card in cards[n:]:
                    self.ledger.wait(later, later_card, "dealt while held")
                return
            if not self.expected(index):
                self.ledger.not_used(index, str(dealt), BURNED)
                self._display.note(f"shoe card {index}: no place in the deal, burned")
                continue
            self.take(index, dealt)

    # --- the supervisor's actions and their conditions ----------------------------------------

    def card_to_enter(self) -> bool:
        """A misread card to enter now (cards that wait before it are accepted first)."""
        return self.misread_index is not None and not self.waiting_before_misread()

    def waiting_before_misread(self) -> bool:
        """A misread card waits, and cards that came out of the shoe before it wait for the
        supervisor: they are placed first (confirm accepts them), then it is entered in its place."""
        return self.misread_index is not None and self.ledger.waiting_before(self.misread_at)

    def cards_waiting(self) -> bool:
        return bool(self.ledger.waiting)

    def waiting_hold(self) -> Ways:
        """The hold's reason while cards wait for the supervisor (journaled as it is)."""
        return cards_wait_reason(len(self.ledger.waiting))

    def waiting_reason(self) -> str:
        """Why clear fault is refused while cards wait: the hold's reason, the void offered only
        when the table would take it."""
        return self.waiting_hold().words(self._why_not_void())

    def why_not_accept(self) -> str | None:
        """Why the waiting cards cannot be placed now: a misread card before them comes first."""
        if self.misread_index is not None and not self.waiting_before_misread():
            return f"card {self.misread_index} must be read again or entered first"
        return self._shoe_faults.why_not_resume()

    def accept_read_again(self, button: str, record: Record, dealt: Card, index: int) -> None:
        """Supervisor action: the misread card read again by the shoe (not while cards that came
        out before it wait: they take their places first)."""
        if self.waiting_before_misread():
            self._display.note(f"shoe card {index} read again: accept the cards dealt before it first")
            return
        if dealt in self._cards_seen():
            self._display.note(f"shoe card {index} read again as a card already dealt: not accepted")
            return
        record(f"shoe card {index} read again")
        self.place_corrected(dealt, index)

    def enter_card(self, button: str, record: Record) -> None:
        """Supervisor action: enter the card the shoe misread: ``next`` / ``previous`` move through
        the whole deck in its order, ``confirm`` deals the one shown. Every card is a choice, the
        cards already out of the shoe too: a list that left them out would tell, number by
        number, the cards dealt face down. Nor is the choice kept among the texts shown (the
        page's and the snapshot's recent texts): it is on the screen only while it is chosen. A
        card already out of the shoe this round is not entered (the supervisor checks the card),
        the note naming no card."""
        if button in ("next", "previous"):
            choices = _DECKS[self._shape.deck == 53]
            step = 1 if button == "next" else -1
            self.entry = (
                (self.entry + step) % len(choices) if self.entry is not None else (0 if step == 1 else len(choices) - 1)
            )
            self.entry_card = choices[self.entry]
            self._state.screen_changed()  # the prompt (:meth:`hold_prompt`) names the choice
            return
        if self.entry_card is None:
            return
        dealt, index = self.entry_card, self.misread_index
        assert index is not None
        if dealt in self._cards_seen() or any(dealt == c for _, c in self.ledger.waiting):
            self._display.note("not entered: the card chosen is out of the shoe already: check it, or void")
            return
        record(f"{self._card_place(self._state.dealt)} (shoe card {index}) entered")
        self.place_corrected(dealt, index)

    def accept_waiting_cards(self, button: str, record: Record) -> None:
        """Supervisor action: the cards that left the shoe while held go to their places in the
        dealing order (a card with no place in the deal is burned)."""
        misread = self.misread_index is not None
        cards = self.ledger.take_waiting(self.misread_at if misread else None)
        record(f"shoe cards {', '.join(str(i) for i, _ in cards)} dealt while held, accepted in dealing order")
        self._holds.release()
        self.place_waiting(cards)
        if misread and self._state.phase is not self._shape.common.hold:  # the misread card that came out after them
            self._holds.hold(_unreadable_reason(self._card_place(self._state.dealt), self.misread_index))

    def declare_misdeal(self, button: str, record: Record) -> None:
        """Supervisor action: the cards dealt while held make a misdeal: the round is void."""
        cards = ", ".join(str(i) for i, _ in self.ledger.waiting)
        record(f"round {self._state.round_no}: shoe cards {cards} dealt while held: misdeal, all wagers returned")
        self._holds.void()
