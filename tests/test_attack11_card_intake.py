"""Attack on card intake's fast path (CHANGELOG 2026-12-07 morning: "a card whose number follows the
shoe's count ... skips the checks of a broken or restarted count"): cards that follow the count
arriving at the wrong time (during each kind of hold, beyond the deal, in a step that takes no
card, twice under the next number, after the shoe's count started over, while a void's notice is
open), each also with a second fault at the same time (a late bet, a link down, a jam).

The checks are the rules' consequences, not the intake's code (docs/table.md): a card reported
while the table holds is never placed by that report and waits for the supervisor; a card is never
placed twice in one round; no more cards are placed than the round's deal; every card the shoe
reported is in the round's card list (a physical fact is never dropped); a card is placed only in a
step that deals. A randomised walk feeds every event kind in every order, so two faults at once are
met in every step."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
from table_helpers import FedTable

from controller.configuration import config_dir, load_table
from controller.table.game_tables import GAME_TABLES
from controller.table.snapshot_build import build_hands
from controller.vocab import deck
from drivers.link import LinkDown, LinkUp
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, CardUnreadable, DoorChanged, Jam, ShoeStatus
from drivers.state import PanelState, ShoeState, SpotsState

GAMES = ("mississippi_stud", "boston5")
SPOTS = {"mississippi_stud": {"ante": 500}, "boston5": {"ante": 500, "first": 1000}}
DEALING = {"mississippi_stud": {"dealing"}, "boston5": {"first_deal", "final_deal"}}
"""The steps whose cards are placed (a first card after "no more bets" starts the deal)."""
OPENING = {"mississippi_stud": "no_more_bets", "boston5": "no_more_bets"}
FACES = [str(c) for c in deck()]
WAITING_1 = "1 card dealt while held: supervisor: confirm accepts, void declares a misdeal"


class Walk(FedTable):
    """A table fed events by a seeded random walk, checked against the rules after each event."""

    def __init__(self, game: str) -> None:
        super().__init__(GAME_TABLES[game], load_table(config_dir() / "bench" / f"{game}.yaml"))
        self.game = game
        self.audited: list[tuple[str, dict[str, Any]]] = []
        self.m.audit = lambda kind, data: self.audited.append((kind, dict(data)))
        self.reported: dict[int, list[tuple[int, str]]] = {}
        """The cards the shoe reported in each round (shoe number, face; ``??`` unreadable)."""
        self.key_on = False
        self.down: set[str] = set()
        self.jammed = False
        self.door = False

    # --- what the test reads -------------------------------------------------------------------

    def placed(self) -> list[str]:
        """Every card the round placed (seats, dealer, community), read from the game's hands."""
        return [str(c) for c in self.m.cards_seen()]

    def step_name(self) -> str:
        return str(self.m.state.phase.value)

    # --- events ----------------------------------------------------------------------------------

    def card(self, face: str, index: int) -> None:
        self.reported.setdefault(self.m.round_no, []).append((index, face))
        self.feed(CardDealt(device="shoe", card=face, index=index, quality=100))

    def unreadable(self, index: int) -> None:
        self.reported.setdefault(self.m.round_no, []).append((index, "??"))
        self.feed(CardUnreadable(device="shoe", index=index))

    def key(self, on: bool) -> None:
        self.key_on = on
        self.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=on))

    def link_down(self, device: str) -> None:
        self.down.add(device)
        if device == "panel":
            self.key_on = False
        self.feed(LinkDown(device=device, reason="no reply"))

    def link_up(self, device: str) -> None:
        self.down.discard(device)
        self.feed(LinkUp(device=device, boot_id=1, rebooted=False))
        if device == "shoe":
            status = "jam" if self.jammed else ("door_open" if self.door else "ok")
            self.feed(ShoeState(device="shoe", status=status, cards_out=self.m.ledger.shoe_count))
        elif device == "panel":
            self.feed(PanelState(device="panel", key_on=self.key_on, held=()))
        else:
            levels = tuple((s, spot, c) for (s, spot), c in sorted(self.m.board.levels.items()))
            self.feed(SpotsState(device="bet_spots", spots=levels))


def check(w: Walk, before: dict[str, Any], event: tuple[Any, ...]) -> None:
    """The rules after one event (``before``: what the table was as the event came)."""
    where = f"{w.game} after {event} (step before {before['step']}, now {w.step_name()})"
    placed = w.placed()
    assert len(placed) == len(set(placed)), f"{where}: a card placed twice: {placed}"
    size = w.m.deal_size()
    assert size is None or w.m.state.dealt <= size, f"{where}: {w.m.state.dealt} cards placed, the deal is {size}"
    if event[0] == "card" and before["round"] == w.m.round_no:
        grew = w.m.state.dealt - before["dealt"]
        _, face, index = event
        if before["misread"] == index:
            pass  # the misread card read again at its own number: the supervisor's (tests/test_card_numbers.py)
        elif before["step"] == "hold":
            assert grew == 0, f"{where}: a card reported while held was placed"
            waiting = [(i, str(c)) for i, c in w.m.ledger.waiting]
            assert (index, face) in waiting, f"{where}: the card does not wait: {waiting}"
            if before["fresh"](face, index):  # it waits as dealt while held, the hold's reason kept or added to
                to = [str(e.to) for e in w.m.ledger.entries if (e.index, str(e.card)) == (index, face)][-1]
                assert to == "waiting for the supervisor (dealt while held)", f"{where}: {to}"
                assert w.m.holds.reason in (before["reason"], WAITING_1), f"{where}: held now for {w.m.holds.reason}"
        elif before["step"] in DEALING[w.game] | {OPENING[w.game]} and before["fresh"](face, index):
            # the fast path's own case: the count goes on, a face not out of the shoe, a step that
            # deals, nothing held, room in the deal: the card goes to its place, and nothing holds
            assert grew == 1, f"{where}: a card the deal expects was not placed ({w.m.holds.reason})"
        elif before["step"] not in DEALING[w.game] | {OPENING[w.game]} and before["fresh"](face, index):
            # a step that deals none: the card waits for the supervisor, and the table holds for it
            assert grew == 0 and w.step_name() == "hold", f"{where}: a card no step expects was not held for"
            assert (index, face) in [(i, str(c)) for i, c in w.m.ledger.waiting], f"{where}: it does not wait"
        if grew:
            assert before["from"] in DEALING[w.game] | {OPENING[w.game]}, f"{where}: placed in a step that deals none"
            assert face not in before["placed"], f"{where}: a card already dealt was placed again"
    # a physical fact is never dropped: every card the shoe reported this round is in its card list
    logged = [(e.index, str(e.card)) for e in w.m.ledger.entries]
    for index, face in w.reported.get(w.m.round_no, []):
        # a card read again at a misread card's number is that card (its entry is the misread one)
        known = (index, face) in logged or (index, "??") in logged
        assert known, f"{where}: card {index} {face} not in the card list {logged}"


class Player:
    """Plays a table of ``game`` as a dealer and supervisor would, with faults fed at random
    between (a seeded ``rng``)."""

    def __init__(self, game: str, rng: random.Random) -> None:
        self.w, self.rng, self.game = Walk(game), rng, game
        self.spots = SPOTS[game]

    def bets(self) -> None:
        for seat in self.rng.sample(range(1, 7), self.rng.randint(1, 3)):
            for spot, cents in self.spots.items():
                self.w.spot(seat, spot, cents)

    def next_card(self) -> None:
        """The fast path: the number follows the count, a face not out of the shoe this round."""
        w = self.w
        out = {str(e.card) for e in w.m.ledger.entries}
        unseen = [f for f in FACES if f not in out]
        if unseen:
            w.card(self.rng.choice(unseen), w.m.ledger.shoe_count + 1)

    def repeat_face(self) -> None:
        """A face already dealt, under the next number."""
        placed = self.w.placed()
        if placed:
            self.w.card(self.rng.choice(placed), self.w.m.ledger.shoe_count + 1)

    def progress(self) -> None:
        """What the round asks for next (or what ends the hold)."""
        w = self.w
        step = w.step_name()
        if step == "betting":
            self.bets() if not w.m.state.seats else w.press("no_more_bets")
        elif step in DEALING[self.game] or step == "no_more_bets":
            self.next_card()
        elif step.endswith("_street") or step == "second_wager":
            self.decide(step)
        elif step == "count_stub":
            w.feed(ShoeStatus(device="shoe", stub_count=52 - w.m.ledger.shoe_count, deck_size=52))
            w.press("confirm")
        elif step == "hold":
            self.end_hold()
        elif w.key_on and self.rng.random() < 0.5:
            w.key(False)
        else:
            w.press("confirm")

    def decide(self, step: str) -> None:
        """A street's bet or fold (Mississippi Stud), a second wager (Boston 5); then the press on."""
        w = self.w
        seats = w.m.state.seats
        wager = "second" if step == "second_wager" else step.removesuffix("_street")
        decided = "second" if wager == "second" else None
        waiting = [
            n
            for n, s in sorted(seats.items())
            if s.folded_at is None and (decided not in s.wagers if decided else wager not in s.acted)
        ]
        if waiting and not decided and self.rng.random() < 0.2:
            w.press(f"seat_{waiting[0]}", "fold")
        elif waiting:
            w.spot(waiting[0], wager, seats[waiting[0]].wagers["first" if decided else "ante"])
        elif w.m.display.steps_pending():
            w.press("confirm")
        else:
            w.press("deal" if decided else "reveal")

    def end_hold(self) -> None:
        """What ends a hold: the shoe ok, a link back, the supervisor's key and a press."""
        w = self.w
        if w.jammed or w.door:
            w.jammed = w.door = False
            if "shoe" in w.down:
                w.link_up("shoe")
            else:
                w.feed(ShoeState(device="shoe", status="ok", cards_out=w.m.ledger.shoe_count))
        elif w.down:
            w.link_up(sorted(w.down)[0])
        elif not w.key_on:
            w.key(True)
        else:
            w.press(self.rng.choice(("confirm", "clear_fault", "next", "confirm", "void")))

    def fault(self, name: str) -> None:
        """One fault (or stray event) by its name."""
        w, rng = self.w, self.rng
        count = w.m.ledger.shoe_count
        if name == "jump":
            w.card(rng.choice(FACES), count + 3)
        elif name == "unreadable":
            w.unreadable(count + 1)
        elif name == "count over":
            w.feed(ShoeState(device="shoe", status="ok", cards_out=0))
        elif name == "jam":
            w.jammed = True
            w.feed(Jam(device="shoe"))
        elif name == "door":
            w.door = True
            w.feed(DoorChanged(device="shoe", open=True))
        elif name == "link down":
            w.link_down(rng.choice(("shoe", "panel", "bet_spots")))
        elif name == "key":
            w.key(not w.key_on)
        elif name == "late bet":
            w.spot(rng.randint(1, 6), rng.choice(list(self.spots)), rng.choice((0, 500, 2500)))
        else:
            w.press(rng.choice(("no_more_bets", "reveal", "deal", "confirm", "fold", "seat_1", "seat_2", "void")))

    def before(self) -> dict[str, Any]:
        """What the table is as the next event comes (:func:`check`)."""
        m = self.w.m
        step = self.w.step_name()
        out = {str(e.card) for e in m.ledger.entries}
        last, misread, size, dealt = m.ledger.shoe_count, m.intake.misread_index, m.deal_size(), m.state.dealt
        room = size is None or dealt < size

        def fresh(face: str, index: int) -> bool:
            """Whether a card would be the deal's next: its number follows the shoe's count, its
            face is not out of the shoe this round, no card was misread, the deal has room."""
            return index == last + 1 and face not in out and misread is None and room and last > 0

        held_from = m.state.held_from or m.state.phase
        return {
            "round": m.round_no,
            "step": step,
            "from": str(held_from.value) if step == "hold" else step,
            "dealt": dealt,
            "placed": self.w.placed(),
            "misread": misread,
            "fresh": fresh,
            "reason": m.holds.reason,
        }


MOVES = {
    "progress": 60,
    "next card": 6,
    "repeat face": 2,
    "jump": 1,
    "unreadable": 1,
    "count over": 1,
    "jam": 2,
    "door": 1,
    "link down": 2,
    "key": 2,
    "late bet": 3,
    "press": 4,
}
"""Each move of the walk and its weight: mostly the round played on, a fault now and then."""


def walk(game: str, seed: int, events: int = 400) -> None:
    rng = random.Random(seed)
    player = Player(game, rng)
    w = player.w
    names, weights = list(MOVES), list(MOVES.values())
    for _ in range(events):
        name = rng.choices(names, weights)[0]
        before = player.before()
        n = len(w.events)
        if name == "progress":
            player.progress()
        elif name == "next card":
            player.next_card()
        elif name == "repeat face":
            player.repeat_face()
        else:
            player.fault(name)
        if len(w.events) == n:
            continue
        last = w.events[-1]
        event = ("card", last.card, last.index) if isinstance(last, CardDealt) else (name,)
        check(w, before, event)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", range(40))
def test_cards_that_follow_the_count_obey_the_rules_in_a_random_walk_of_faults(game: str, seed: int) -> None:
    walk(game, seed)


# --- found by the walk (Boston 5 seed 164): a misread card of a round voided before its stub count ---


def voided_with_a_misread(game: str, misread: str) -> Walk:
    """A round of ``game`` whose stub is counted after it (its fifth dealt), held for a misread
    shoe card 2 (``unreadable``, or ``duplicate``: read as the card dealt before it), then voided by
    the supervisor: the table counts the stub."""
    w = Walk(game)
    w.m.stub.rounds_dealt = 4
    for spot, cents in SPOTS[game].items():
        w.spot(1, spot, cents)
    w.press("no_more_bets")
    w.card("9d", 1)
    if misread == "unreadable":
        w.unreadable(2)
    else:
        w.card("9d", 2)
    assert w.step_name() == "hold" and w.m.intake.misread_index == 2, w.m.holds.reason
    w.key(True)
    w.press("void")
    assert w.step_name() == "count_stub" and w.m.rounds[-1].settlement is None
    return w


@pytest.mark.parametrize("misread", ["unreadable", "duplicate"])
@pytest.mark.parametrize("game", GAMES)
def test_a_card_at_a_voided_rounds_misread_number_is_never_placed_in_that_round(game: str, misread: str) -> None:
    """The misread card of a round declared a misdeal is no longer read again or entered: a card
    the shoe reports under its number while the stub is counted (held or not) is a card outside
    any deal, which waits for the supervisor; it is never given to the void round's seats (Boston 5
    raised IndexError in its ``on_card``; Mississippi Stud placed it as seat 1's second card)."""
    w = voided_with_a_misread(game, misread)
    dealt, void_record = w.m.state.dealt, w.m.rounds[-1].record
    for face in ("Kc", "Qh"):  # the first holds (none expected), the second comes while held
        w.card(face, 2)
        assert w.m.state.dealt == dealt, f"{face}: placed in the void round"
        assert w.step_name() == "hold" and face in [str(c) for _, c in w.m.ledger.waiting]
    assert w.m.rounds[-1].record == void_record
    assert "re-read" not in w.snapshot().asked and w.m.intake.misread_index is None
    w.press("next")  # the key is on: nothing is entered in the void round
    assert w.m.intake.entry_card is None and w.m.state.dealt == dealt


# --- found by the walk (Boston 5 seed 226): clear fault on a misread card's hold resumed the deal ----

FINAL = "Js Ts 6h 6c".split()


def held_for_a_misread(game: str, misread: str, deal: str) -> Walk:
    """A round of ``game`` with seats 1 and 4 held for shoe card N misread (``unreadable``, or
    ``duplicate``: read as the card before it) in its ``deal`` (``first``, or Boston 5's ``final``)."""
    w = Walk(game)
    for seat in (1, 4):
        for spot, cents in SPOTS[game].items():
            w.spot(seat, spot, cents)
    w.press("no_more_bets")
    first = "As Ks Qs 2h 7d 9c 3c 4d 5h".split() if deal == "final" else ["As"]
    for n, face in enumerate(first, start=1):
        w.card(face, n)
    if deal == "final":
        w.press("confirm")  # no bonus exposed
        for seat in (1, 4):
            w.spot(seat, "second", 1000)
        w.press("deal")
        assert w.step_name() == "final_deal", w.m.holds.reason
        w.card(FINAL[0], 10)
    index = w.m.ledger.shoe_count + 1
    if misread == "unreadable":
        w.unreadable(index)
    else:
        w.card(w.placed()[-1], index)
    assert w.step_name() == "hold" and w.m.intake.misread_index == index, w.m.holds.reason
    return w


CASES = [
    ("mississippi_stud", "first"),
    ("boston5", "first"),
    ("boston5", "final"),
]
MISREADS = ("unreadable", "duplicate")


def each_case(
    seconds: Sequence[str | None], name: str = "misread", kinds: Sequence[str] = MISREADS
) -> pytest.MarkDecorator:
    """Every game and deal of ``CASES`` with each of ``kinds`` (passed as ``name``) and each
    ``seconds`` fault at the same time (None: none): one test each, ids ``game-deal-kind-second``."""
    return pytest.mark.parametrize(
        ("game", "deal", name, "second"),
        [pytest.param(g, d, k, s, id=f"{g}-{d}-{k}-{s}") for g, d in CASES for k in kinds for s in seconds],
    )


@each_case([None, "link", "late bet"])
def test_a_card_after_clear_fault_on_a_misread_card_never_takes_its_place(
    game: str, deal: str, misread: str, second: str | None
) -> None:
    """A misread card's place is kept until it is read again or entered (or the round is void):
    after the supervisor's clear fault (play resumes, the read still to be entered), the shoe's
    next card waits and the table holds again, also with a second fault at the same time (a link
    lost and back, a late bet); the misread card entered goes to its own place, then the card
    that waited to the next. It took the misread card's place before: the misread card was left
    out of the deal and every card after it went one place early."""
    w = held_for_a_misread(game, misread, deal)
    index, dealt, step = w.m.intake.misread_index, w.m.state.dealt, w.m.state.held_from
    assert index is not None and step is not None
    place = w.m.card_place(dealt).rsplit(" card", 1)[0]  # "seat 1 card 2": the card list names the seat
    if second == "link":
        w.link_down("bet_spots")
        w.link_up("bet_spots")
    elif second == "late bet":
        w.spot(6, "ante", 500)
    w.key(True)
    w.press("clear_fault")
    assert w.m.state.phase is step  # as the simulated supervisor does: the read is still to be entered
    w.card("8d", index + 1)
    assert w.step_name() == "hold" and w.m.state.dealt == dealt, "the next card took the misread card's place"
    assert [i for i, _ in w.m.ledger.waiting] == [index + 1]
    hold = w.snapshot().hold
    assert hold is not None and hold.clears == (
        "supervisor key on: read the misread card again, or enter it (next / previous, confirm),"
        " then confirm accepts the cards; or void"
    )
    w.press("next", "confirm")  # the misread card entered, in its own place
    log = build_hands(w.m).log
    assert w.m.state.dealt == dealt + 1 and log[-1][2] == place, log
    w.press("confirm")  # the card that waited, in the next
    assert w.m.state.dealt == dealt + 2 and w.step_name() == str(step.value)
    after = w.m.card_place(dealt + 1).rsplit(" card", 1)[0]
    assert [e.to for e in w.m.ledger.entries if e.index == index + 1] == [after]


@pytest.mark.parametrize("second", [None, "link"])
@pytest.mark.parametrize("game", GAMES)
def test_a_card_following_the_count_while_a_void_notice_is_open_waits(game: str, second: str | None) -> None:
    """Not found: a round voided (its returns shown until confirmed), then a card whose number
    follows the shoe's count (the fast path), alone or with the bet spots' link down at the same
    time: the next round takes no card before "no more bets": it waits, the table holds, and the
    supervisor's void of it is a misdeal of the new round, which places nothing."""
    w = Walk(game)
    for spot, cents in SPOTS[game].items():
        w.spot(1, spot, cents)
    w.press("no_more_bets")
    w.card("9d", 1)
    w.key(True)
    w.press("void")
    w.key(False)
    notice = w.snapshot().notices
    assert w.step_name() == "betting" and notice, "the void's returns are shown"
    if second == "link":
        w.link_down("bet_spots")
    w.card("Kc", 2)  # follows the count
    assert w.step_name() == "hold" and w.m.state.dealt == 0
    assert [(i, str(c)) for i, c in w.m.ledger.waiting] == [(2, "Kc")]
    w.key(True)
    w.press("void")
    assert w.m.rounds[-1].settlement is None and not w.placed()
