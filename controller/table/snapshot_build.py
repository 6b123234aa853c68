"""The snapshot builder: the only code outside the machines that reads a
:class:`~controller.table.round.RoundTable` (its collaborators), run on the engine thread after
each event. It makes a :class:`~controller.table.snapshot.TableSnapshot` with the reveal rules
(:mod:`controller.table.reveal`) applied, so that no card face down reaches it, and reuses the
parts that did not change; and the bench players' own hands (:class:`PlayerHands`), apart.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from controller.game.definition import DealPlan, GameDefinition
from controller.game.hooks import TableHooks
from controller.game.registry import definition
from controller.table.reveal import NOTHING_SHOWN, Shown, card_tokens, face_up, mask_cards, reveal_step
from controller.table.snapshot import (
    RECENT,
    SUPERVISOR_BUTTONS,
    GameView,
    HoldView,
    LastRound,
    LateBet,
    NoticeView,
    PlayerHands,
    SeatNet,
    SeatView,
    SignedInView,
    SupervisorOption,
    TableSnapshot,
    WagerNet,
)

if TYPE_CHECKING:
    from controller.table.round import RoundTable

__all__ = ["build_snapshot", "build_hands", "with_version"]


class _Cache:
    """What a table's snapshots reuse while it does not change (kept on the builder's side)."""

    __slots__ = (
        "result",
        "last_round",
        "masked",
        "shown_key",
        "shown",
        "face",
        "seats",
        "texts_key",
        "texts",
        "notices",
        "buttons",
        "tokens",
        "lamps",
        "levels",
        "log_entries",
        "log",
        "hands",
    )

    def __init__(self) -> None:
        self.result: object = None
        self.last_round: LastRound | None = None
        self.masked: dict[tuple[str, tuple[str, ...]], str] = {}
        """Lines of text by the cards they name that are face down (most lines repeat event after
        event, and their face-down cards stay the same while other cards are turned)."""
        self.shown_key: object = None
        self.shown: Shown = Shown((), (), "dealer")
        self.face: frozenset[str] = frozenset()
        self.seats: dict[int, tuple[object, SeatView]] = {}
        self.texts_key: object = None
        self.texts: tuple[tuple[str, ...], tuple[str, ...], str] = ((), (), "")
        self.notices: tuple[object, tuple[NoticeView, ...]] = ((), ())
        self.buttons: dict[object, tuple[tuple[str, ...], bool]] = {}
        """By machine state: the dealer's buttons among the supervisor's, and whether it is a confirm step."""
        self.tokens: dict[str, tuple[str, ...]] = {}
        """The cards each line of text names, whatever is face up (most name none)."""
        self.lamps: tuple[object, tuple[tuple[tuple[int, str], str], ...], tuple[tuple[str, bool], ...]] = (
            None,
            (),
            (),
        )
        """The spot and panel lamps, by the count of lamp commands they were read at."""
        self.levels: tuple[object, tuple[tuple[tuple[int, str], int], ...]] = (None, ())
        """The bet spots' levels, by the count of reports they were read at."""
        self.log_entries: list[object] = []
        """The card ledger's entries the players' log (:attr:`log`) was made of, in order."""
        self.log: tuple[tuple[int, str, str], ...] = ()
        """The players' log of the cards reported (:func:`build_hands`), one line per entry."""
        self.hands: dict[int | str, tuple[tuple[Any, ...], tuple[str, ...]]] = {}
        """Each hand's cards and their texts, by its seat (:data:`_SHARED`: the dealer's or the
        community cards): :func:`_hand_texts`."""

    def mask(self, text: str, up: frozenset[str]) -> str:
        """``text`` with every card not in ``up`` masked."""
        tokens = self.tokens.get(text)
        if tokens is None:
            if len(self.tokens) > 4096:
                self.tokens.clear()
            tokens = self.tokens[text] = card_tokens(text)
        if not tokens:
            return text
        # masking depends only on which named cards are face down: a line keeps its masked form
        # from one reveal to the next while they stay the same
        down = tuple([t for t in tokens if t not in up])
        if not down:
            return text
        key = (text, down)
        masked = self.masked.get(key)
        if masked is None:
            if len(self.masked) > 4096:
                self.masked.clear()
            masked = self.masked[key] = mask_cards(text, up)
        return masked

    def mask_all(self, texts: Iterable[str], up: frozenset[str]) -> tuple[str, ...]:
        """Each of ``texts`` masked (:meth:`mask`), the usual line (naming no card) without a call."""
        tokens, mask = self.tokens, self.mask
        return tuple([text if tokens.get(text) == () else mask(text, up) for text in texts])


_new_snapshot = tuple.__new__
"""Makes a :class:`TableSnapshot` from its values in the fields' order."""

_CACHES: weakref.WeakKeyDictionary[RoundTable, _Cache] = weakref.WeakKeyDictionary()
"""Each table's cache, gone with the table."""


def _cache(table: RoundTable) -> _Cache:
    cache = _CACHES.get(table)
    if cache is None:
        cache = _CACHES[table] = _Cache()
    return cache


def _last_round(table: RoundTable, cache: _Cache) -> LastRound | None:
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


def _shown(table: RoundTable, cache: _Cache, game: GameDefinition, step: str, held_from: str | None) -> Shown:
    rounds = table.rounds
    settled = bool(rounds) and rounds[-1].number == table.round_no and rounds[-1].settlement is not None
    effective = reveal_step(step, held_from, settled)
    if effective in NOTHING_SHOWN:
        if cache.shown_key != effective:
            cache.shown_key, cache.shown, cache.face = effective, face_up(game.deal, effective, ()), frozenset()
        return cache.shown
    hooks: TableHooks = game.hooks()
    # what is face up changes only with the step, the cards placed and the seats' folds and exposes
    key = (
        effective,
        table.round_no,
        table.dealt,
        tuple([(n, s.folded_at, s.exposed) for n, s in table.seats.items()]),
        len(hooks.turned(table)),
    )
    if key != cache.shown_key:
        cache.shown_key, cache.shown = key, _reveal(table, cache, game.deal, hooks, effective)
        face = cache.shown.face_up()
        if face != cache.face:  # kept while equal: the masked texts are cached by this set's identity
            cache.face = face
    return cache.shown


def _reveal(table: RoundTable, cache: _Cache, plan: DealPlan, hooks: TableHooks, effective: str) -> Shown:
    seats, dealer = hooks.holdings(table)
    # each hand's facts as a plain tuple in :class:`HandFacts`' order (named, it costs a call a seat)
    facts = [(n, _hand_texts(cache, n, cards), folded, exposed) for n, cards, folded, exposed in seats]
    return face_up(plan, effective, facts, _hand_texts(cache, _SHARED, dealer), hooks.turned(table))


_SHARED = "shared"
"""The key of the shared hand (the dealer's or the community cards) among a cache's hands."""


def _hand_texts(cache: _Cache, holder: int | str, cards: Iterable[Any]) -> tuple[str, ...]:
    """The texts of a hand's ``cards`` (``holder``: its seat, or :data:`_SHARED`), made again only
    when one of its cards changed: a deal changes one hand a card (a pai gow snapshot during the
    deal made every hand's texts again after each of its 49 cards). Cards are the deck's own
    objects, compared by identity first."""
    key = tuple(cards)
    known = cache.hands.get(holder)
    if known is not None and known[0] == key:
        return known[1]
    texts = tuple([c.text for c in key])
    cache.hands[holder] = (key, texts)
    return texts


def _texts(
    table: RoundTable, cache: _Cache, up: frozenset[str], asked: str
) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    display = table.display
    screen = display.lines
    shown = display.texts_shown
    key = (screen, shown, asked, up)  # ``up`` is the cache's own set until the reveals change
    old = cache.texts_key
    # the last key while the cards face up are the same set (else every text is masked again)
    prev: tuple[Any, ...] | None = old if isinstance(old, tuple) and len(old) == 4 and old[3] is up else None
    if prev is None or prev[:3] != key[:3]:
        mask_all = cache.mask_all
        cache.texts_key = key
        was_screen, was_recent, was_asked = cache.texts
        if prev is not None and prev[1] <= shown < prev[1] + RECENT:  # only the texts shown since are new
            new = shown - prev[1]
            recent = (*was_recent, *mask_all(display.prompts[len(display.prompts) - new :], up))[-RECENT:]
        else:
            recent = mask_all(display.prompts[-RECENT:], up)
        cache.texts = (
            was_screen if prev is not None and prev[0] is screen else mask_all(screen, up),
            recent,
            was_asked if prev is not None and prev[2] == asked else cache.mask(asked, up),
        )
    return cache.texts


def _seats(table: RoundTable, cache: _Cache, shown: Shown) -> tuple[SeatView, ...]:
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


def _notices(table: RoundTable, cache: _Cache, up: frozenset[str]) -> tuple[NoticeView, ...]:
    notices = table.display.notices
    if not notices:
        return ()
    key = (tuple(notices), up)
    old = cache.notices[0]
    if not (isinstance(old, tuple) and len(old) == 2 and old[1] is up and old[0] == key[0]):
        mask = cache.mask
        cache.notices = (
            key,
            tuple(NoticeView(mask(n.title, up), cache.mask_all(n.lines, up), n.blocking) for n in notices),
        )
    return cache.notices[1]


_VOID_ONLY = (SupervisorOption("void", "void"),)
"""The supervisor's options while a round is played with nothing pending (most events)."""


def _options(table: RoundTable, step: str) -> tuple[SupervisorOption, ...]:
    supervisor = table.supervisor
    if step != "hold" and not table.late.pending:
        if step not in supervisor.in_play:
            return ()
        refused = table.walk.why_not_void()
        return _VOID_ONLY if refused is None else (SupervisorOption("void", "void", refused),)
    out = []
    for button in SUPERVISOR_BUTTONS:
        action = supervisor.match(button)
        if action is not None:
            refused = supervisor.why_not_allowed(action)
            out.append(SupervisorOption(button, action.name, refused))
    return tuple(out)


_NO_TEXTS: tuple[tuple[str, ...], tuple[str, ...], str] = ((), (), "")
"""The dealer's texts of a snapshot made without them (``texts=False``)."""


def build_snapshot(table: RoundTable, version: int = 0, texts: bool = True) -> TableSnapshot:
    """The snapshot of ``table`` (a :class:`~controller.table.round.RoundTable`) now: call on the
    thread that runs it (the engine's), after an event. The only function that reads a table's
    internals for anyone outside the table package.

    ``texts=False`` leaves the dealer's texts out (``screen`` and ``recent`` empty, ``asked``
    ""): for a reader with no screen that never reads them (the soak). The screen of a table
    whose devices show none is then never made (it is made when read), nor its texts masked."""
    cache = _cache(table)
    config = table.table
    game = definition(config.game)
    phase = table.phase
    step: str = phase._value_
    held = step == "hold"
    holds, display, walk = table.holds, table.display, table.walk
    held_from: str | None = holds.held_from._value_ if held and holds.held_from is not None else None
    shown = _shown(table, cache, game, step, held_from)
    up = cache.face
    seats = _seats(table, cache, shown)
    asked = table.hold_prompt() if held else display.prompt
    screen, recent, asked = _texts(table, cache, up, asked) if texts else _NO_TEXTS
    wager_step = table.wagers.open_step()
    hold = None
    if held:
        refused = walk.why_not_void()
        hold = HoldView(
            cache.mask(holds.reason, up),
            cache.mask(holds.shown_reason(refused), up),
            held_from,
            table.hold_clears(),
            holds.kind.ends_by_itself,
            holds.kind.who,
            table.links.device_links.why_not_back(),
            len(table.ledger.waiting),
            table.intake.misread_index is not None,
            refused,
        )
    known = cache.buttons.get(phase)
    if known is None:  # a function of the machine's state (and the table's config) alone
        buttons = tuple(b for b in SUPERVISOR_BUTTONS if table.dealer_button(b))
        known = cache.buttons[phase] = (
            buttons,
            step in table.CONFIRM_PHASES or step == "count_stub" or "confirm" in buttons,
        )
    dealer_buttons, confirm_step = known
    shown_state = table.shown
    notices = display.notices
    pending_links = table.links.device_links.pending
    lamps = cache.lamps
    if lamps[0] != shown_state.lamps_set:  # lamps and levels change only with a command or a report
        lamps = cache.lamps = (
            shown_state.lamps_set,
            tuple(shown_state.spot_lamps.items()),  # in the order first lit (no sort)
            tuple(shown_state.panel_lamps.items()),
        )
    _, spot_lamps, panel_lamps = lamps
    board = table.board
    if cache.levels[0] != board.reports:
        cache.levels = (board.reports, tuple(board.levels.items()))
    spot_levels = cache.levels[1]
    # by position, in the fields' order (keywords cost a 36-field named tuple several times more)
    return _new_snapshot(
        TableSnapshot,
        (
            version,  # version
            config.game,  # game
            config.name,  # table
            config.seats,  # seat_count
            table.DECK,  # deck_size
            table.round_no,  # round_no
            step,  # step
            asked,  # asked
            seats,  # seats
            shown.dealer,  # dealer
            shown.dealer_label,  # dealer_label
            table.dealt,  # dealt
            game.hooks().game_view(table, GameView) if step != "closed" else GameView(),  # game_view
            hold,  # hold
            bool(table.supervisor.key_on),  # key_on
            _options(table, step),  # supervisor_options
            dealer_buttons,  # dealer_buttons
            confirm_step,  # confirm_step
            screen,  # screen
            _notices(table, cache, up),  # notices
            display.page if notices else display.detail_page,  # notice_page
            recent,  # recent
            tuple([LateBet(*bet) for bet in table.late.pending]) if table.late.pending else (),  # late_bets
            tuple(table.late.noted),  # late_notes
            walk.step_index,  # settlement_step
            max(0, len(walk.steps) - walk.step_index - 1) if step == "settlement" else 0,  # steps_left
            _last_round(table, cache),  # last_round
            tuple(sorted(pending_links.items())) if pending_links else (),  # links_pending
            spot_lamps,  # spot_lamps
            panel_lamps,  # panel_lamps
            bool(shown_state.locked),  # locked
            shown_state.stub_count_asked,  # stub_count_asked
            (display.size.lines, display.size.columns),  # display
            display.texts_shown,  # texts_shown
            spot_levels,  # spot_levels
            table.machine_error,  # machine_error
            wager_step._value_ if wager_step is not None else None,  # wager_step
            _signed_in(table),  # signed_in
        ),
    )


def _signed_in(table: RoundTable) -> SignedInView | None:
    signins = table.signins
    if not signins.required:
        return None
    dealer, supervisor, after = signins.dealer, signins.supervisor, signins.next_dealer
    return SignedInView(
        dealer.id if dealer else None,
        dealer.name if dealer else None,
        supervisor.id if supervisor else None,
        supervisor.name if supervisor else None,
        after.id if after else None,
    )


def with_version(snapshot: TableSnapshot, version: int) -> TableSnapshot:
    """``snapshot`` published again as ``version`` (after an event that changed nothing it shows):
    the same fields by position, as :func:`build_snapshot` makes them (``_replace`` names each)."""
    return _new_snapshot(TableSnapshot, (version, *snapshot[1:]))


def build_hands(table: RoundTable, version: int = 0) -> PlayerHands:
    """Every card of the round where it went (the bench's simulated players look at their own
    hands; the HIL tests check the deal): call on the thread that runs ``table``."""
    hooks: TableHooks = definition(table.table.game).hooks()
    held, shared = hooks.holdings(table)
    cache = _cache(table)
    seats = tuple([(n, _hand_texts(cache, n, cards)) for n, cards, _, _ in held])
    dealer = _hand_texts(cache, _SHARED, shared)
    entry_card = table.intake.entry_card
    entry = str(entry_card) if entry_card is not None else None
    return PlayerHands(table.round_no, version, seats, dealer, _log(cache, table.ledger.entries), entry)


def _log(cache: _Cache, entries: list[Any]) -> tuple[tuple[int, str, str], ...]:
    """The players' log of ``entries`` (the card ledger's): the lines of the entries already made
    kept while those entries stay the same objects in the same places (a new card adds one; a card
    burned or placed replaces its entry, a new round empties the list: then made again)."""
    seen = cache.log_entries
    made = len(seen)
    if made > len(entries) or entries[:made] != seen:
        made, cache.log, cache.log_entries = 0, (), []
    if len(entries) > made:
        cache.log += tuple([(e.index, str(e.card), str(e.to)) for e in entries[made:]])
        cache.log_entries = entries[:]
    return cache.log
