"""Each player's hand is turned at its own settlement step (the outside review's attack16 finding,
tests/test_attack16_turned_in_order.py), in every state where it applies: each seat position of a
full table, a seat that folded (its hand is never turned: collected face down), held or not at each
step, the stub counted after the round, the events replayed into a new table, and a restart of the
controller on its journal.

The rules: Boston 5 24.10(e), (f): the dealer reveals his five cards, then "starting with the
player farthest to his or her right and continuing counterclockwise around the table, turn[s] over
each player's cards"; a folded hand is collected "without exposing the cards" (24.10(b));
Mississippi Stud 35.10(i): each hand "evaluated and announced", "one player at a time", from the
dealer's right (a folded hand collected at once, 35.10(a)); Three Card Poker the same (13:69F-20,
inferred from the published rule sheets)."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from table_helpers import FedTable, ManualClock, bench_table, closed_table

from controller.journal import SqliteJournal
from controller.table.events import DevicesExpected, OpenTable
from controller.table.game_tables import GAME_TABLES
from controller.table.runtime import RuntimePorts, TableRuntime
from controller.table.snapshot import TableSnapshot
from controller.table.snapshot_build import build_hands
from controller.web.view import table_view
from drivers.link import LinkDown
from drivers.panel import ButtonChanged

CONFIRM = ButtonChanged(device="panel", button="confirm", pressed=True)

SEATS = (1, 2, 3, 4, 5, 6)
"""A full bench table: every seat position."""

GAMES = ("boston5", "mississippi_stud", "three_card_poker")

_DECK = [r + s for s in "cdhs" for r in "23456789TJQKA"]
random.Random(16).shuffle(_DECK)
DEAL = _DECK
"""The shoe's order (any: only where each card goes matters here)."""


def decide(t: FedTable, folded: int | None, spot: str, cents: int) -> None:
    """Each seat bets ``cents`` on ``spot``, but ``folded``, which folds (its collection confirmed)."""
    for n in SEATS:
        if n == folded:
            t.press(f"seat_{n}", "fold", "confirm")
        else:
            t.spot(n, spot, cents)


def boston5(folded: int | None) -> FedTable:
    bets = tuple((n, spot, cents) for n in SEATS for spot, cents in (("ante", 500), ("first", 1000)))
    t = closed_table("boston5", bets)
    t.deal(" ".join(DEAL[: 3 * len(SEATS) + 3]))
    t.press("next")  # no bonus to expose
    decide(t, folded, "second", 1000)
    t.press("deal")
    playing = len(SEATS) - (folded is not None)
    t.deal(" ".join(DEAL[3 * len(SEATS) + 3 : 3 * len(SEATS) + 3 + 2 * playing + 2]))
    return t


def antes_dealt(game: str, cards: int) -> FedTable:
    """A ``game`` table with an ante at every seat, its first ``cards`` dealt."""
    t = closed_table(game, tuple((n, "ante", 500) for n in SEATS))
    t.deal(" ".join(DEAL[:cards]))
    return t


def mississippi_stud(folded: int | None) -> FedTable:
    t = antes_dealt("mississippi_stud", 2 * len(SEATS) + 3)
    decide(t, folded, "third", 500)
    t.press("reveal")
    for street in ("fourth", "fifth"):
        for n in (n for n in SEATS if n != folded):  # the folded seat is out of the round
            t.spot(n, street, 500)
        t.press("reveal")
    return t


def three_card_poker(folded: int | None) -> FedTable:
    t = antes_dealt("three_card_poker", 3 * len(SEATS) + 3)
    decide(t, folded, "play", 500)
    t.press("reveal")
    return t


ROUNDS: dict[str, Callable[[int | None], FedTable]] = {
    "boston5": boston5,
    "mississippi_stud": mississippi_stud,
    "three_card_poker": three_card_poker,
}


def face_up_seats(s: TableSnapshot) -> set[int]:
    """The seats with a card face up in the snapshot."""
    return {seat.number for seat in s.seats if any(card is not None for card in seat.cards)}


def hands(t: FedTable) -> dict[int, tuple[str, ...]]:
    """Every seat's cards as dealt (the players' own view, never part of a snapshot)."""
    return dict(build_hands(t.m).hands)


def views(s: TableSnapshot, game: str, screen: list[str]) -> str:
    """Everything outside the table reads: the snapshot, its JSON (the status file, the floor),
    the web page's payload, and the dealer's display."""
    payload = table_view(s, bench_table(game), {}, [])
    return "\n".join((repr(s), json.dumps(s.to_json()), json.dumps(payload), *screen))


def named(text: str, cards: list[str]) -> set[str]:
    return {c for c in cards if re.search(rf"(?<![A-Za-z0-9]){re.escape(c)}(?![A-Za-z0-9])", text)}


def assert_turned(t: FedTable, game: str, turned: set[int], folded: int | None) -> None:
    """Exactly the hands in ``turned`` are face up, and no view names a card of another hand."""
    s = t.snapshot()
    assert face_up_seats(s) == turned, (s.step, s.asked, sorted(face_up_seats(s)), sorted(turned))
    down = [c for n, cards in hands(t).items() if n not in turned for c in cards]
    assert not named(views(s, game, list(s.screen)), down), (s.step, s.asked)
    if folded is not None:
        seat = s.seat(folded)
        assert seat is not None and seat.cards == (), seat  # collected face down: not even its backs


def hold(t: FedTable) -> None:
    """A hold from the settlement: the shoe's link down."""
    t.feed(LinkDown(device="shoe", reason="cable"))
    assert t.snapshot().step == "hold" and t.snapshot().held_from == "settlement"


@pytest.mark.parametrize("folded", [None, 1, 4, 6], ids=["none-folded", "seat1-folded", "seat4-folded", "seat6-folded"])
@pytest.mark.parametrize("game", GAMES)
def test_each_seat_is_turned_at_its_own_step_a_folded_hand_never(game: str, folded: int | None) -> None:
    """Through the whole settlement of a full table: no hand before the dealer's step; then each
    seat's, counterclockwise from the dealer's right, at the step that settles it, and it stays
    face up; a folded hand never; held at each step (the shoe's link down) and back: a hold shows
    what the step it holds from shows, and the step resumes showing it. The stub counted after the round shows every hand turned, the folded one down."""
    t = ROUNDS[game](folded)
    t.m.stub.rounds_dealt = 4  # the stub is counted after this round (24.8(e), 35.9(e))
    playing = [n for n in sorted(SEATS, reverse=True) if n != folded]  # counterclockwise from the dealer's right
    turned: set[int] = set()
    s = t.snapshot()
    assert s.step == "settlement" and (s.asked or "").startswith("dealer:"), s.asked
    order: list[int] = []
    while t.snapshot().step == "settlement":
        asked = t.snapshot().asked or ""
        seat = re.match(r"seat (\d+):", asked)
        if seat is not None and int(seat.group(1)) != folded:
            turned.add(int(seat.group(1)))
            order.append(int(seat.group(1)))
        assert_turned(t, game, turned, folded)
        hold(t)
        assert_turned(t, game, turned, folded)
        t.devices_back(("shoe",), ())
        assert t.snapshot().step == "settlement" and t.snapshot().asked == asked
        assert_turned(t, game, turned, folded)
        t.press("confirm")
    assert order[: len(playing)] == playing  # each in turn (a bonus step after them names a seat again)
    assert t.snapshot().step == "count_stub"
    assert_turned(t, game, set(playing), folded)


def replay(t: FedTable, game: str) -> TableSnapshot:
    """The snapshot of a new ``game`` table fed ``t``'s events (what a recovery does)."""
    again = FedTable(GAME_TABLES[game], bench_table(game))
    for event in t.events:
        again.feed(event)
    return again.snapshot()


@pytest.mark.parametrize("game", GAMES)
def test_the_events_replayed_show_the_same_hands_at_each_step(game: str) -> None:
    """What a recovery does (the round's events replayed into a new machine): at each step of the
    settlement the same hands face up as the table that handled them live."""
    t = ROUNDS[game](4)
    while t.snapshot().step == "settlement":
        live, replayed = t.snapshot(), replay(t, game)
        assert (replayed.asked, replayed.seats, replayed.dealer) == (live.asked, live.seats, live.dealer)
        t.press("confirm")


def _runtime(game: str, path: Path, clock: ManualClock) -> TableRuntime:
    table = bench_table(game)
    return TableRuntime(
        table,
        {role: "loop://" for role in table.devices},
        SqliteJournal(path, clock=clock),
        ports=RuntimePorts(wall=clock),
    )


def restarted(game: str, path: Path, confirmed: int) -> tuple[FedTable, TableSnapshot, TableRuntime]:
    """A full table's round of ``game`` played by a controller journaling at ``path`` to its
    settlement, ``confirmed`` steps confirmed; stopped and started again on its journal (recovered,
    its devices read again): the round, the snapshot before the stop, the restarted runtime."""
    fed = ROUNDS[game](None)
    clock = ManualClock(1_800_000_000.0)
    runtime = _runtime(game, path, clock)
    runtime.engine.step(OpenTable())
    for event in (*fed.events, *[CONFIRM] * confirmed):
        clock.now += 1
        runtime.engine.step(event)
    runtime.publish()
    before = runtime.snapshot
    runtime.store.close()
    again = _runtime(game, path, clock)
    assert again.recover()
    again.engine.step(DevicesExpected(tuple(sorted(again.drivers)), reread=True, since=clock.now))
    again.publish()
    return fed, before, again


@pytest.mark.parametrize("confirmed", [0, 2], ids=["at-the-dealer", "two-seats-turned"])
@pytest.mark.parametrize("game", GAMES)
def test_a_restart_at_the_settlement_shows_the_hands_turned_before_it_and_no_other(
    tmp_path: Path, game: str, confirmed: int
) -> None:
    """The controller stopped at a step of the settlement and started again on its journal: the
    recovered table (holding while its devices are read again) shows exactly the hands turned
    before the stop, and no view names another."""
    fed, before, again = restarted(game, tmp_path / "j.db", confirmed)
    assert before.step == "settlement" and len(face_up_seats(before)) == confirmed, before.asked
    after = again.snapshot
    assert (after.step, after.held_from) == ("hold", "settlement"), after.step
    assert (after.seats, after.dealer) == (before.seats, before.dealer)
    down = [c for n, cards in hands(fed).items() if n not in face_up_seats(before) for c in cards]
    assert not named(views(after, game, list(after.screen)), down)
    again.store.close()
