"""The table's one read model: a frozen :class:`TableSnapshot`, made by the engine thread after
each event, and the queries everything outside the table asks of it (``can_*`` / ``why_not_*``).

Only :func:`build_snapshot` reads a :class:`~controller.table.round.RoundTable`'s internals; the
web views, the bench and soak players, ``tablectl status`` and the tests outside
``controller/table`` read snapshots (tests/test_snapshot_only.py enforces it).

Hidden cards are absent by construction: a seat's or the dealer's cards come only through the
reveal rules (:mod:`controller.table.reveal`), a face-down card being ``None``, and every line of
text (screen, prompt, hold reason, notices, recent texts) has every card not face up masked.
The snapshot and its seat and game parts are named tuples (immutable, made after every event:
a tuple is made several times faster than a frozen dataclass of forty fields, as
:class:`~controller.table.screen.ScreenState`); the rarer parts are frozen dataclasses.
The players' own hole cards at the bench (a simulated player looks at its own hand) are a
separate :class:`PlayerHands`, made only when asked for and never put in a snapshot, a page or a
file.
"""

from __future__ import annotations

import dataclasses
import weakref
from dataclasses import dataclass
from typing import Any, NamedTuple

from controller.table.holds import hold_clears
from controller.table.reveal import HandFacts, Shown, face_up, mask_cards, reveal_step

__all__ = [
    "SeatView",
    "HoldView",
    "SupervisorOption",
    "LateBet",
    "NoticeView",
    "WagerNet",
    "SeatNet",
    "LastRound",
    "GameView",
    "TableSnapshot",
    "PlayerHands",
    "build_snapshot",
    "build_hands",
    "hold_clears",
    "PANEL_BUTTONS",
]

RECENT = 16
"""How many of the texts last shown to the dealer a snapshot carries (masked)."""

_SUPERVISOR_BUTTONS = ("void", "clear_fault", "confirm", "next", "previous")
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
    """Why (masked: names no card face down)."""
    held_from: str | None
    clears: str
    """What clears it, in words."""
    by_itself: bool
    """A device link is down: the hold ends by itself once every device is back."""
    who: str
    """Who may clear it: "supervisor" (with the key on), or "device or supervisor"."""
    devices_not_back: str | None = None
    cards_waiting: int = 0
    """Cards that left the shoe while held (accepted with confirm, or a misdeal with void)."""
    card_to_enter: bool = False
    """A misread card must be read again or entered by the supervisor."""


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


@dataclass(frozen=True, slots=True)
class WagerNet:
    """One wager's result in a finished round."""

    spot: str
    result: str
    net: int
    stake: int


@dataclass(frozen=True, slots=True)
class SeatNet:
    """A seat's nets in a finished round (never its cards)."""

    seat: int
    net: int
    wagers: tuple[WagerNet, ...]


@dataclass(frozen=True, slots=True)
class LastRound:
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

    def to_json(self) -> dict[str, Any]:
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
        if self.step != "betting":
            return f"betting is closed ({self.step}): a change is a late bet"
        return None

    def can_bet(self, seat: int, spot: str, spots: tuple[str, ...] = ()) -> bool:
        return self.why_not_bet(seat, spot, spots) is None

    def why_not_void(self) -> str | None:
        """Why the supervisor cannot void the round now."""
        option = self.option("void")
        if option is None or option.action not in ("void", "misdeal"):
            return f"nothing to void in {self.step}"
        if not self.key_on:
            return "the supervisor's key is needed"
        return option.refused

    def can_void(self) -> bool:
        return self.why_not_void() is None

    def why_not_clear_fault(self) -> str | None:
        """Why the supervisor cannot clear the hold now."""
        if self.hold is None:
            return "the table does not hold"
        option = self.option("clear_fault")
        if option is None:
            return f"clear fault does not clear this hold: {self.hold.clears}"
        if not self.key_on:
            return "the supervisor's key is needed"
        return option.refused

    def can_clear_fault(self) -> bool:
        return self.why_not_clear_fault() is None


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


def _plain(value: Any) -> Any:
    """``value`` as JSON-ready data: named tuples and dataclasses as objects, tuples as lists."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


# --- the builder: the only code that reads a RoundTable ----------------------------------------------


class _Cache:
    """What a table's snapshots reuse while it does not change (kept on the builder's side)."""

    __slots__ = (
        "result",
        "last_round",
        "up",
        "lines",
        "shown_key",
        "shown",
        "face",
        "seats",
        "texts_key",
        "texts",
        "notices",
        "buttons",
    )

    def __init__(self) -> None:
        self.result: object = None
        self.last_round: LastRound | None = None
        self.up: frozenset[str] = frozenset()
        self.lines: dict[str, str] = {}
        """Lines of text masked for the cards face up in ``up`` (most lines repeat event after event)."""
        self.shown_key: object = None
        self.shown: Shown = Shown((), (), "dealer")
        self.face: frozenset[str] = frozenset()
        self.seats: dict[int, tuple[object, SeatView]] = {}
        self.texts_key: object = None
        self.texts: tuple[tuple[str, ...], tuple[str, ...], str] = ((), (), "")
        self.notices: tuple[object, tuple[NoticeView, ...]] = ((), ())
        self.buttons: dict[object, tuple[tuple[str, ...], bool]] = {}
        """By machine state: the dealer's buttons among the supervisor's, and whether it is a confirm step."""

    def mask(self, text: str, up: frozenset[str]) -> str:
        """``text`` masked for the cards in ``up`` (the cache's own set: compared by identity)."""
        if up is not self.up:
            self.up, self.lines = up, {}
        masked = self.lines.get(text)
        if masked is None:
            if len(self.lines) > 4096:
                self.lines.clear()
            masked = self.lines[text] = mask_cards(text, up)
        return masked


_CACHES: weakref.WeakKeyDictionary[Any, _Cache] = weakref.WeakKeyDictionary()
"""Each table's cache, gone with the table."""


def _cache(table: Any) -> _Cache:
    cache = _CACHES.get(table)
    if cache is None:
        cache = _CACHES[table] = _Cache()
    return cache


def _last_round(table: Any, cache: _Cache) -> LastRound | None:
    rounds = table.rounds
    if not rounds:
        return None
    result = rounds[-1]
    if cache.result is result:
        return cache.last_round
    s = result.settlement
    if s is None:
        last = LastRound(result.number, True, 0, ())
    else:
        last = LastRound(
            result.number,
            False,
            s.house_net,
            tuple(
                SeatNet(
                    seat.seat, seat.net, tuple(WagerNet(w.spot, w.result.value, w.net, w.stake) for w in seat.wagers)
                )
                for seat in s.seats
            ),
        )
    cache.result, cache.last_round = result, last
    return last


def _shown(table: Any, cache: _Cache, game: str, step: str, held_from: str | None) -> Shown:
    rounds = table.rounds
    settled = bool(rounds) and rounds[-1].number == table.round_no and rounds[-1].settlement is not None
    effective = reveal_step(step, held_from, settled)
    if effective in ("closed", "betting", "no_more_bets", "void"):
        if cache.shown_key != effective:
            cache.shown_key, cache.shown, cache.face = effective, face_up(game, effective, ()), frozenset()
        return cache.shown
    # what is face up changes only with the step, the cards placed and the seats' folds and exposes
    key = (
        effective,
        table.round_no,
        table.dealt,
        tuple((n, s.folded_at, s.exposed) for n, s in table.seats.items()),
        len(table.sets) if game == "pai_gow" else 0,
    )
    if key != cache.shown_key:
        cache.shown_key, cache.shown = key, _reveal(table, game, effective)
        cache.face = cache.shown.face_up()
    return cache.shown


def _reveal(table: Any, game: str, effective: str) -> Shown:
    if game == "pai_gow":
        hands = table.hands
        turned = set(table.sets)
        order = table.setting
        if effective == "setting" and len(turned) < len(order):
            turned.add(order[len(turned)])
        from controller.games.pai_gow_deal import DEALER

        facts = [HandFacts(n, tuple(str(c) for c in hands.get(n, ()))) for n in sorted(table.seats)]
        return face_up(game, effective, facts, tuple(str(c) for c in hands.get(DEALER, ())), turned)
    facts = [
        HandFacts(n, tuple(str(c) for c in s.cards), s.folded_at is not None, s.exposed)
        for n, s in sorted(table.seats.items())
    ]
    dealer = table.community if game == "mississippi_stud" else table.dealer
    return face_up(game, effective, facts, tuple(str(c) for c in dealer))


def _texts(table: Any, cache: _Cache, up: frozenset[str], asked: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    display = table.display
    screen = display.lines
    key = (screen, display.texts_shown, asked, up)  # ``up`` is the cache's own set until the reveals change
    old = cache.texts_key
    if not (isinstance(old, tuple) and len(old) == 4 and old[3] is up and old[:3] == key[:3]):
        mask = cache.mask
        cache.texts_key = key
        cache.texts = (
            tuple([mask(line, up) for line in screen]),
            tuple([mask(p, up) for p in display.prompts[-RECENT:]]),
            mask(asked, up),
        )
    return cache.texts


def _seats(table: Any, cache: _Cache, shown: Shown) -> tuple[SeatView, ...]:
    cards_of = dict(shown.seats)
    markers = getattr(table, "markers", ())
    views = cache.seats
    out = []
    for n, s in sorted(table.seats.items()):
        wagers = tuple(s.wagers.items())
        cards = cards_of.get(n, ())
        marked = n in markers
        key = (wagers, cards, s.folded_at, len(s.acted), s.exposed, s.violation, marked)
        known = views.get(n)
        if known is not None and known[0] == key:
            out.append(known[1])
            continue
        view = SeatView(n, wagers, cards, s.folded_at, tuple(sorted(s.acted)), s.exposed, s.violation, marked)
        views[n] = (key, view)
        out.append(view)
    return tuple(out)


def _notices(table: Any, cache: _Cache, up: frozenset[str]) -> tuple[NoticeView, ...]:
    notices = table.display.notices
    if not notices:
        return ()
    key = (tuple(notices), up)
    old = cache.notices[0]
    if not (isinstance(old, tuple) and len(old) == 2 and old[1] is up and old[0] == key[0]):
        mask = cache.mask
        cache.notices = (
            key,
            tuple(NoticeView(mask(n.title, up), tuple([mask(x, up) for x in n.lines]), n.blocking) for n in notices),
        )
    return cache.notices[1]


def _game_view(table: Any, game: str) -> GameView:
    if game == "mississippi_stud":
        return GameView(street=table.current_street())
    if game == "boston5":
        return GameView(bonus_step=table.bonus_index)
    if game == "pai_gow":
        return GameView(
            dice=table.dice,
            setting_order=tuple(table.setting),
            set_seats=tuple(table.sets),
            option_index=table.option_index,
            all_listed=table.all_listed,
            remaining=table.remaining,
            markers=tuple(sorted(table.markers)),
        )
    return GameView()


def _options(table: Any, step: str) -> tuple[SupervisorOption, ...]:
    supervisor = table.supervisor
    if step != "hold" and not table.late.pending:
        return (SupervisorOption("void", "void"),) if step in supervisor.in_play else ()
    out = []
    for button in _SUPERVISOR_BUTTONS:
        action = supervisor.match(button)
        if action is not None:
            refused = supervisor.why_not_allowed(action)
            out.append(SupervisorOption(button, action.name, refused))
    return tuple(out)


def build_snapshot(table: Any, version: int = 0) -> TableSnapshot:
    """The snapshot of ``table`` (a :class:`~controller.table.round.RoundTable`) now: call on the
    thread that runs it (the engine's), after an event. The only function that reads a table's
    internals for anyone outside the table package."""
    cache = _cache(table)
    config = table.table
    game = config.game
    phase = table.phase
    step: str = phase._value_
    held = step == "hold"
    holds, display, walk = table.holds, table.display, table.walk
    held_from: str | None = holds.held_from._value_ if held and holds.held_from is not None else None
    shown = _shown(table, cache, game, step, held_from)
    up = cache.face
    seats = _seats(table, cache, shown)
    asked = table.hold_prompt() if held else display.prompt
    screen, recent, asked = _texts(table, cache, up, asked)
    hold = None
    if held:
        hold = HoldView(
            cache.mask(holds.reason, up),
            held_from,
            holds.clears(),
            holds.kind.ends_by_itself,
            holds.kind.who,
            table.links.device_links.why_not_back(),
            len(table.ledger.waiting),
            table.intake.misread_index is not None,
        )
    known = cache.buttons.get(phase)
    if known is None:  # a function of the machine's state (and the table's config) alone
        buttons = tuple(b for b in _SUPERVISOR_BUTTONS if table.dealer_button(b))
        known = cache.buttons[phase] = (
            buttons,
            step in table.CONFIRM_PHASES or step == "count_stub" or "confirm" in buttons,
        )
    dealer_buttons, confirm_step = known
    shown_state = table.shown
    notices = display.notices
    pending_links = table.links.device_links.pending
    return TableSnapshot(
        version=version,
        game=game,
        table=config.name,
        seat_count=config.seats,
        deck_size=table.DECK,
        round_no=table.round_no,
        step=step,
        asked=asked,
        seats=seats,
        dealer=shown.dealer,
        dealer_label=shown.dealer_label,
        dealt=table.dealt,
        game_view=_game_view(table, game) if step != "closed" else GameView(),
        hold=hold,
        key_on=bool(table.supervisor.key_on),
        supervisor_options=_options(table, step),
        dealer_buttons=dealer_buttons,
        confirm_step=confirm_step,
        screen=screen,
        notices=_notices(table, cache, up),
        notice_page=display.page if notices else display.detail_page,
        recent=recent,
        late_bets=tuple(LateBet(seat, spot, cents) for seat, spot, cents in table.late.pending),
        late_notes=tuple(table.late.noted),
        settlement_step=walk.step_index,
        steps_left=max(0, len(walk.steps) - walk.step_index - 1) if step == "settlement" else 0,
        last_round=_last_round(table, cache),
        links_pending=tuple(sorted(pending_links.items())) if pending_links else (),
        spot_lamps=tuple(shown_state.spot_lamps.items()),  # in the order first lit (no sort: every event)
        panel_lamps=tuple(shown_state.panel_lamps.items()),
        locked=bool(shown_state.locked),
        stub_count_asked=shown_state.stub_count_asked,
        display=(display.size.lines, display.size.columns),
        texts_shown=display.texts_shown,
        spot_levels=tuple(table.board.levels.items()),
        machine_error=table.machine_error,
    )


def build_hands(table: Any, version: int = 0) -> PlayerHands:
    """Every card of the round where it went (the bench's simulated players look at their own
    hands; the HIL tests check the deal): call on the thread that runs ``table``."""
    game = table.table.game
    if game == "pai_gow":
        from controller.games.pai_gow_deal import DEALER

        hands = getattr(table, "hands", {})  # none before the first round
        seats = tuple((n, tuple(str(c) for c in hands.get(n, ()))) for n in sorted(table.seats))
        dealer = tuple(str(c) for c in hands.get(DEALER, ()))
    else:
        seats = tuple((n, tuple(str(c) for c in s.cards)) for n, s in sorted(table.seats.items()))
        dealer = tuple(str(c) for c in getattr(table, "community" if game == "mississippi_stud" else "dealer", ()))
    log = tuple((e.index, str(e.card), str(e.to)) for e in table.ledger.entries)
    entry_card = table.intake.entry_card
    entry = str(entry_card) if entry_card is not None else None
    return PlayerHands(table.round_no, version, seats, dealer, log, entry)
