"""Every screen the dealer is sent is the screen of the table's state then, made from scratch.

The screen is made again only when something it is made of changed (``screen_version``), and
what makes it keeps what it made (the prompts' lines, the status lines, the games' seat and card
lines, the one-page screen made without the layout): after every event the table handles, held
or not, the screen last sent must be the screen a from-scratch render (:mod:`screen_reference`:
textwrap, no cache) makes of details made with nothing kept. A collaborator that changes what
the screen shows without saying so, or a kept text that outlives what it was made of, leaves the
dealer reading another screen: this finds it, in the simulation's seeds (faults, wrong presses,
the supervisor voiding) and in rounds of each game with random presses between the steps."""

from __future__ import annotations

import random
from typing import Any

import pytest
from screen_reference import reference_screen
from table_helpers import FedTable, bench_table

from controller.game.registry import table_names
from controller.table import screen
from controller.table.game_tables import GAME_TABLES
from controller.table.round import RoundTable
from controller.vocab import deck
from drivers.bet_spots import SpotReport
from drivers.messages import BUTTONS
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, ShoeStatus
from hil.simulate.faults import CI_KINDS, SWARM_KINDS
from hil.simulate.run import run_seed

GAMES = table_names()
"""Every game dealt at a table."""

SEEDS = (1, 2)
"""Seeds whose faults and presses change each kind of thing the screen is made of (a game's
details, a card outside the deal, a notice or a detail page, a note that goes): checked once by
dropping each kind's ``screen_changed``."""


def from_scratch(table: RoundTable) -> tuple[str, ...]:
    """The screen of ``table``'s state now, its details made with no card line kept (a seat line
    is kept by all it is made of), rendered from scratch."""
    kept = dict(screen._CARDS_SHOWN)  # kept as they were: the next screen sent is made with them
    screen._CARDS_SHOWN.clear()
    try:
        display = table.display
        return reference_screen(display.state(), display.size)[0]
    finally:
        screen._CARDS_SHOWN.clear()
        screen._CARDS_SHOWN.update(kept)


def stale_screen(table: RoundTable, event: Any) -> str | None:
    """What is wrong with the screen last sent after ``table`` handled ``event`` (None: nothing)."""
    display = table.display
    if not display._target_shows or display._stale or not display._lines:
        return None  # devices without a screen of their own, or nothing sent yet
    fresh = from_scratch(table)
    if fresh == display._lines:
        return None
    return f"{type(event).__name__} in {table.state.phase.value}: shown {display._lines}, now {fresh}"


def _fresh_screen_after_each_event(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Compare, after each event the table handles, the screen last sent with one made from
    scratch; the differences found, named by the event's kind and the round's step."""
    stale: list[str] = []
    handle = RoundTable.handle

    def checked(table: RoundTable, event: Any) -> None:
        handle(table, event)
        wrong = stale_screen(table, event)
        if wrong is not None:
            stale.append(wrong)

    monkeypatch.setattr(RoundTable, "handle", checked)
    return stale


@pytest.mark.parametrize("game", GAMES)
def test_the_screen_shown_after_each_event_is_the_screen_of_the_table_now(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = _fresh_screen_after_each_event(monkeypatch)
    for seed in SEEDS:
        result = run_seed(game, seed, CI_KINDS, rounds=3)
        assert result.ok, f"seed {seed}: {result.broken}: {result.detail}"
        assert not stale, f"seed {seed}: {len(stale)} stale screens, the first: {stale[0]}"


@pytest.mark.parametrize("game", GAMES)
def test_the_screen_is_the_table_s_now_with_the_supervisor_voiding(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = _fresh_screen_after_each_event(monkeypatch)
    result = run_seed(game, 100, (*CI_KINDS, *SWARM_KINDS), rounds=3, swarm=True)
    assert result.ok, f"{result.broken}: {result.detail}"
    assert not stale, f"{len(stale)} stale screens, the first: {stale[0]}"


# --- rounds with random presses -----------------------------------------------------------------


def _steps(game: str, rng: random.Random) -> list[tuple[str, Any]]:
    """One round of ``game`` as a dealer plays it: ("spot", (seat, spot, cents)), ("press", button)
    and ("cards", n) steps (six seats; some bonus wagers, a fold)."""
    steps: list[tuple[str, Any]] = []
    seats = range(1, 7)
    confirms: list[tuple[str, Any]] = [("press", "confirm")] * 10
    if game == "mississippi_stud":
        steps += [("spot", (s, "ante", 500)) for s in seats]
        steps += [("press", "no_more_bets"), ("cards", 15)]
        for street in ("third", "fourth", "fifth"):
            steps += [("spot", (s, street, 500)) for s in seats if rng.random() < 0.9]
            steps.append(("press", "reveal"))
        return steps + confirms
    if game == "boston5":
        for s in seats:
            steps += [("spot", (s, "ante", 500)), ("spot", (s, "first", 1000))]
            steps += [("spot", (s, "bonus", 500))] if rng.random() < 0.5 else []
        steps += [("press", "no_more_bets"), ("cards", 21), ("press", "seat_1"), ("press", "next")]
        steps += [("press", "confirm")] * 3 + [("press", "seat_6"), ("press", "fold"), ("press", "confirm")]
        steps += [("spot", (s, "second", 1000)) for s in range(1, 6)]
        return [*steps, ("press", "deal"), ("cards", 12), *confirms]
    if game == "pai_gow":
        steps += [("spot", (s, "pai_gow", 1000)) for s in seats]
        steps += [("press", "no_more_bets"), *[("press", "next")] * 5, ("press", "confirm"), ("cards", 49)]
        return [*steps, ("stub", 4), *confirms, *confirms]
    steps += [("spot", (s, "ante", 500)) for s in seats]
    steps += [("press", "no_more_bets"), ("cards", 21), ("press", "seat_1"), ("press", "fold"), ("press", "confirm")]
    steps += [("spot", (s, "play", 500)) for s in range(2, 7)]
    return [*steps, ("press", "reveal"), *confirms]


PRESSES = tuple(b for b in BUTTONS if b not in ("supervisor_key", "void"))
"""What a dealer may press out of turn (the supervisor's key and void are the seeds' to test)."""


class _Dealer:
    """Plays rounds of a game at a :class:`FedTable`, pressing a random button out of turn now and
    then; after each event, the screen last sent is compared with the one made from scratch."""

    def __init__(self, game: str) -> None:
        self.game, self.rng = game, random.Random(f"screen {game}")
        self.t = FedTable(GAME_TABLES[game], bench_table(game))
        self.stale: list[str] = []
        self.steps_seen: set[str] = set()
        self.sent = 0

    def feed(self, event: Any) -> None:
        self.t.feed(event)
        self.steps_seen.add(self.t.m.phase.value)
        wrong = stale_screen(self.t.m, event)
        if wrong is not None:
            self.stale.append(wrong)

    def press(self, *buttons: str) -> None:
        for button in buttons:
            self.feed(ButtonChanged(device="panel", button=button, pressed=True))

    def void(self) -> None:
        """The supervisor voids the round (the seeds test clearing the holds)."""
        for button, on in (("supervisor_key", True), ("void", True), ("supervisor_key", False)):
            self.feed(ButtonChanged(device="panel", button=button, pressed=on))

    def round(self) -> None:
        t, rng = self.t, self.rng
        cards = list(deck(joker=self.game == "pai_gow"))
        rng.shuffle(cards)
        for kind, what in _steps(self.game, rng):
            if t.m.phase is t.m.shape.common.hold:
                self.void()
            if rng.random() < 0.2:  # a press out of turn: paging, confirming, a seat, another step's button
                self.press(rng.choice(PRESSES))
            if kind == "spot":
                self.feed(SpotReport(device="spots", seat=what[0], spot=what[1], cents=what[2]))
            elif kind == "press":
                self.press(what)
            elif kind == "stub":
                self.feed(ShoeStatus(device="shoe", stub_count=what, deck_size=t.m.DECK))
            else:  # as many cards as the deal takes (a press out of turn may have changed it)
                for _ in range(what):
                    if t.m.phase._value_ not in ("no_more_bets", *t.m.shape.dealing_states):
                        break
                    self.feed(CardDealt(device="shoe", card=str(cards.pop()), index=t.shoe_index + 1, quality=100))
        self.to_next_round()
        self.sent += sum(1 for name, _ in t.devices.commands if name == "screen")
        t.devices.commands.clear()

    def to_next_round(self) -> None:
        """The steps left confirmed (the stub counted), or the round voided."""
        t = self.t
        for attempt in range(60):
            if t.m.phase.value == "betting":
                return
            if t.m.phase.value == "count_stub":
                self.feed(ShoeStatus(device="shoe", stub_count=t.m.stub.expected, deck_size=t.m.DECK))
            elif t.m.phase is t.m.shape.common.hold or attempt == 20:
                self.void()
            else:
                self.press("confirm")


@pytest.mark.parametrize("game", GAMES)
def test_every_screen_sent_with_random_presses_is_the_screen_made_from_scratch(game: str) -> None:
    dealer = _Dealer(game)
    for _ in range(16):
        dealer.round()
    assert not dealer.stale, f"{len(dealer.stale)} stale screens, the first: {dealer.stale[0]}"
    assert dealer.sent > 100 and {"settlement", "count_stub"} <= dealer.steps_seen  # played, not stuck
