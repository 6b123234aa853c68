"""The table's one read model: a frozen :class:`TableSnapshot`, made by the engine thread after
each event, and the queries everything outside the table asks of it (``can_*`` / ``why_not_*``).

Only :func:`controller.table.snapshot_build.build_snapshot` reads a :class:`~controller.table.round.RoundTable`'s internals; the
web views, the bench and soak players, ``tablectl status`` and the tests outside
``controller/table`` read snapshots (tests/test_snapshot_only.py enforces it).

Hidden cards are absent by construction: a seat's or the dealer's cards come only through the
reveal rules (:mod:`controller.table.reveal`), a face-down card being ``None``, and every line of
text (screen, prompt, hold reason, notices, recent texts) has every card not face up masked.
The snapshot, its seat and game parts and the last round's nets are named tuples (immutable,
made after every event or round: a tuple is made several times faster than a frozen dataclass,
as :class:`~controller.table.screen.ScreenState`); the rarer parts are frozen dataclasses.
The players' own hole cards at the bench (a simulated player looks at its own hand) are a
separate :class:`PlayerHands`, made only when asked for and never put in a snapshot, a page or a
file.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

from controller.table._holds import hold_clears

__all__ = [
    "SeatView",
    "LastRound",
    "GameView",
    "TableSnapshot",
    "PlayerHands",
    "hold_clears",
]

RECENT = 16
"""How many of the texts last shown to the dealer a snapshot carries (masked)."""

SUPERVISOR_BUTTONS = ("void", "clear_fault", "confirm", "next", "previous")
"""The panel buttons a supervisor action can take (checked in holds and with late bets pending)."""

PANEL_BUTTONS = ("confirm", "next", "previous", "void", "clear_fault", "no_more_bets", "reveal", "deal", "fold")
"""The dealer panel's named buttons (besides ``seat_N`` and the supervisor key) a snapshot answers for."""


class SeatView(NamedTuple):
    """A seat in the round: its wagers and decisions, and its cards as revealed (``None``: a card
    face down; empty when none dealt or collected unexposed)."""

    number: int
    wagers: tuple[tuple[str, int], ...]
    """(spot, cents) of each wager, in the order placed."""
    cards: tuple[str | None, ...]
    folded_at: str | None = None
    acted: tuple[str, ...] = ()
    """The streets (or decisions) the seat has acted on this round."""
    exposed: bool = False
    violation: bool = False
    envy_marker: bool = False

    @property
    def folded(self) -> bool:
        return self.folded_at is not None

    def wager(self, spot: str) -> int | None:
        """The cents on ``spot``, or None when the seat has no wager there."""
        for name, cents in self.wagers:
            if name == spot:
                return cents
        return None

    def wager_map(self) -> dict[str, int]:
        """The wagers as a new dict (spot: cents)."""
        return dict(self.wagers)


@dataclass(frozen=True, slots=True)
class SignedInView:
    """Who is signed in at a table with a roster, by roster id and name (never a PIN or badge)."""

    dealer_id: str | None
    dealer_name: str | None
    supervisor_id: str | None
    supervisor_name: str | None
    next_dealer_id: str | None = None
    """A dealer who signed in during a dealt round: deals from the next round."""


@dataclass(frozen=True, slots=True)
class SupervisorOption:
    """What a panel button does now as a supervisor action (it needs the key), and why it would
    be refused now (``None``: it would be done)."""

    button: str
    action: str
    refused: str | None = None


@dataclass(frozen=True, slots=True)
class HoldView:
    """Why the table holds, what clears it and who may clear it."""

    reason: str
    """Why (masked: names no card face down), as journaled: every way out it names."""
    shown_reason: str
    """The reason as a screen or page shows it (masked): the void it names offered only while the
    table takes it (:attr:`void_refused`)."""
    held_from: str | None
    clears: str
    """What clears it, in words."""
    by_itself: bool
    """A device link is down, or the shoe is jammed or its door open: the hold ends by itself once
    every device is back, or the shoe reports ok."""
    who: str
    """Who may clear it: "supervisor" (with the key on), or "device or supervisor"."""
    devices_not_back: str | None = None
    cards_waiting: int = 0
    """Cards that left the shoe while held (accepted with confirm, or a misdeal with void)."""
    card_to_enter: bool = False
    """A misread card must be read again or entered by the supervisor."""
    void_refused: str | None = None
    """Why the round's void is refused now (None: it is one way out): the texts leave it out."""


@dataclass(frozen=True, slots=True)
class LateBet:
    """A change to a locked spot waiting for the supervisor (next accepts, previous refuses)."""

    seat: int
    spot: str
    cents: int


@dataclass(frozen=True, slots=True)
class NoticeView:
    """Something the dealer must read and confirm (``blocking``: a procedure step the round waits on)."""

    title: str
    lines: tuple[str, ...]
    blocking: bool


class WagerNet(NamedTuple):
    """One wager's result in a finished round."""

    spot: str
    result: str
    net: int
    stake: int


class SeatNet(NamedTuple):
    """A seat's nets in a finished round (never its cards)."""

    seat: int
    net: int
    wagers: tuple[WagerNet, ...]


class LastRound(NamedTuple):
    """The last finished round: void, or each seat's nets."""

    number: int
    void: bool
    house_net: int
    seats: tuple[SeatNet, ...]


class GameView(NamedTuple):
    """The game's own decisions so far (fields of other games are left at their defaults)."""

    street: str | None = None
    """Mississippi Stud: the street being bet (third, fourth, fifth), or None."""
    bonus_step: int = 0
    """Boston 5: the bonus settlement step being done."""
    dice: int | None = None
    """Pai gow: the starting number shown."""
    setting_order: tuple[int, ...] = ()
    """Pai gow: the seats in the order their hands are set."""
    set_seats: tuple[int, ...] = ()
    """Pai gow: the seats whose set is recorded (a foul included)."""
    turned: tuple[int, ...] = ()
    """Pai gow: the seats whose hands the dealer has turned face up, in order (11.9)."""
    option_index: int = 0
    """Pai gow: which legal set is shown (0: the house way)."""
    all_listed: bool = False
    """Pai gow: every legal set of the seat being set is listed."""
    remaining: int | None = None
    """Pai gow: the cards counted left after the deal."""
    markers: tuple[int, ...] = ()
    """Pai gow: the seats with an envy marker (11.15(c))."""


class TableSnapshot(NamedTuple):
    """The whole table as anyone outside it may see it, at one moment (after one event)."""

    version: int
    """Counts the events handled (a newer snapshot has a larger one)."""
    game: str
    table: str
    """The table's name."""
    seat_count: int
    deck_size: int
    """52, or 53 with the joker (pai gow)."""
    round_no: int
    step: str
    """The machine's state (e.g. "betting", "hold")."""
    asked: str
    """What the dealer is asked to do now (the screen's prompt; masked)."""
    seats: tuple[SeatView, ...]
    """The seats in this round, in seat order."""
    dealer: tuple[str | None, ...]
    dealer_label: str
    """"dealer", or "community" (Mississippi Stud)."""
    dealt: int
    """How many cards were placed this round (a count: no card is named)."""
    game_view: GameView
    hold: HoldView | None
    key_on: bool
    """The supervisor's key, by the panel's last report (off after a panel link-down or a restart)."""
    supervisor_options: tuple[SupervisorOption, ...]
    dealer_buttons: tuple[str, ...]
    """Buttons among the supervisor's that mean something to the dealer now (then the supervisor
    action on them needs the key on)."""
    confirm_step: bool
    """The step waits for the dealer's confirm (a settlement step, a count, a set, the dice)."""
    screen: tuple[str, ...]
    """The dealer's screen as last sent (masked)."""
    notices: tuple[NoticeView, ...]
    notice_page: int
    recent: tuple[str, ...]
    """The last texts shown to the dealer, oldest first (masked)."""
    late_bets: tuple[LateBet, ...]
    """Late-bet changes pending for the supervisor."""
    late_notes: tuple[str, ...]
    """Every late or removed bet of this round, as shown."""
    settlement_step: int
    steps_left: int
    """Settlement steps after the one shown (each confirmed in turn)."""
    last_round: LastRound | None
    links_pending: tuple[tuple[str, str], ...]
    """Devices not back after a link-down, and why (empty: every device is back)."""
    spot_lamps: tuple[tuple[tuple[int, str], str], ...]
    """Each bet-spot lamp the table last set: ((seat, spot), state)."""
    panel_lamps: tuple[tuple[str, bool], ...]
    locked: bool
    stub_count_asked: bool
    display: tuple[int, int]
    """The panel display's lines and columns (the config's, or the panel's own when it reports one)."""
    texts_shown: int
    """How many texts the dealer has been shown since the table started (``recent`` holds the last)."""
    spot_levels: tuple[tuple[tuple[int, str], int], ...]
    """What the bet-spot sensors last reported on each spot ((seat, spot), cents): the chips there."""
    machine_error: str | None = None
    wager_step: str | None = None
    """The step a chip placed now counts in (the table's one wager rule, held or not: betting, a
    second wager, a street), or None: a chip now is a late bet."""
    signed_in: SignedInView | None = None
    """Who is signed in (None: the table has no roster; nobody signs in)."""

    # --- reading --------------------------------------------------------------------------------

    def seat(self, number: int) -> SeatView | None:
        """Seat ``number`` in this round, or None."""
        for s in self.seats:
            if s.number == number:
                return s
        return None

    def wagers(self) -> dict[int, dict[str, int]]:
        """Each seat's wagers (seats with at least one), as new dicts."""
        return {s.number: s.wager_map() for s in self.seats if s.wagers}

    def in_play(self) -> tuple[SeatView, ...]:
        """Seats still in the round (not folded), in seat order."""
        return tuple(s for s in self.seats if s.folded_at is None)

    @property
    def held_from(self) -> str | None:
        return self.hold.held_from if self.hold is not None else None

    @property
    def held(self) -> bool:
        return self.step == "hold"

    def steps_pending(self) -> bool:
        """A procedure step shown out of turn (a fold's collection) waits for confirm."""
        return any(n.blocking for n in self.notices)

    def lamp(self, seat: int, spot: str) -> str:
        """The lamp the table last set on ``seat``'s ``spot`` ("off" when never set)."""
        return dict(self.spot_lamps).get((seat, spot), "off")

    def face_up(self) -> frozenset[str]:
        """Every card face up now."""
        up = {c for s in self.seats for c in s.cards if c is not None}
        up.update(c for c in self.dealer if c is not None)
        return frozenset(up)

    def to_json(self) -> dict[str, object]:
        """The snapshot as JSON-ready data (what ``tablectl status`` reads from the table's file)."""
        out = _plain(self)
        assert isinstance(out, dict)
        return out

    # --- queries --------------------------------------------------------------------------------

    def option(self, button: str) -> SupervisorOption | None:
        for o in self.supervisor_options:
            if o.button == button:
                return o
        return None

    def why_not_press(self, button: str) -> str | None:
        """Why pressing ``button`` now does nothing, or is refused (None: it is taken)."""
        if button == "supervisor_key":
            return None
        if not (button in PANEL_BUTTONS or (button.startswith("seat_") and button[5:].isdigit())):
            return f"{button!r} is not a panel button"
        if self.step == "closed":
            return "the table is closed"
        option = self.option(button)
        if option is not None and not (button in self.dealer_buttons and not self.key_on):
            if not self.key_on:
                return f"{option.action}: the supervisor's key is needed"
            return f"{option.action}: {option.refused}" if option.refused else None
        if button in ("confirm", "next", "previous") and self.notices:
            return None
        if self.hold is not None and button not in self.dealer_buttons:
            return f"the table holds ({self.hold.reason}): {self.hold.clears}"
        if button == "confirm" and not self.confirm_step and button not in self.dealer_buttons:
            return f"nothing to confirm in {self.step}"
        return None

    def can_press(self, button: str) -> bool:
        """Whether pressing ``button`` now is taken (see :meth:`why_not_press`)."""
        return self.why_not_press(button) is None

    def why_not_confirm(self) -> str | None:
        """Why ``confirm`` does nothing now (None: it confirms a notice, a step, a count, a set)."""
        return self.why_not_press("confirm")

    def can_confirm(self) -> bool:
        return self.why_not_confirm() is None

    def why_not_bet(self, seat: int, spot: str, spots: tuple[str, ...] = ()) -> str | None:
        """Why a chip on ``seat``'s ``spot`` would not be taken as a bet now (``spots``: the
        game's bet spots, when the caller knows them)."""
        if not 1 <= seat <= self.seat_count:
            return f"seat {seat}: the table has seats 1-{self.seat_count}"
        if spots and spot not in spots:
            return f"{spot}: not a spot of {self.game}"
        if self.wager_step != "betting":  # a hold during betting locks nothing; a press journaled before closes it
            return f"betting is closed ({self.step}): a change is a late bet"
        return None

    def can_bet(self, seat: int, spot: str, spots: tuple[str, ...] = ()) -> bool:
        return self.why_not_bet(seat, spot, spots) is None

    def why_not_void(self) -> str | None:
        """Why the supervisor cannot void the round now."""
        option = self.option("void")
        if option is None or option.action not in ("void", "misdeal"):
            return f"nothing to void in {self.step}"
        return self._refused_with_key(option)

    def can_void(self) -> bool:
        return self.why_not_void() is None

    def why_not_clear_fault(self) -> str | None:
        """Why the supervisor cannot clear the hold now."""
        if self.hold is None:
            return "the table does not hold"
        option = self.option("clear_fault")
        if option is None:
            return f"clear fault does not clear this hold: {self.hold.clears}"
        return self._refused_with_key(option)

    def can_clear_fault(self) -> bool:
        return self.why_not_clear_fault() is None

    def _refused_with_key(self, option: SupervisorOption) -> str | None:
        """Why ``option``, a supervisor's action offered now, is not taken: the key is off, or its own refusal."""
        return option.refused if self.key_on else "the supervisor's key is needed"


@dataclass(frozen=True, slots=True)
class PlayerHands:
    """Every card of the round where it went, face down or not: what a simulated player at the
    bench looks at (its own hand, as a player at a real table does), and what the HIL tests check
    a deal against. Never part of a snapshot, a page, a log or a file."""

    round_no: int
    version: int
    hands: tuple[tuple[int, tuple[str, ...]], ...]
    dealer: tuple[str, ...] = ()
    """The dealer's cards (Mississippi Stud: the community cards)."""
    log: tuple[tuple[int, str, str], ...] = ()
    """Each card the shoe reported this round: (shoe index, card, where it went or why not used)."""
    entry: str | None = None
    """The card shown to the supervisor entering a misread card (by deck number on the panel)."""

    def of(self, seat: int) -> tuple[str, ...]:
        """Seat ``seat``'s cards."""
        for n, cards in self.hands:
            if n == seat:
                return cards
        return ()


def _plain(value: object) -> object:
    """``value`` as JSON-ready data: named tuples and dataclasses as objects, tuples as lists."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value
