"""A seat's winner lamps are lit at the step that turns its hand, never before (the outside
review's attack16b finding, tests/test_attack16b_winner_lamps_before_the_turn.py), in every state
where it applies: each seat position of a full table, a seat that folded (never turned: its lamps
never ``winner``), held at each step, the events replayed into a new table, and a restart of the
controller on its journal. After the last step the lamps lit are every winning wager's, as before.

The rules: Boston 5 24.10(e), (f) and Mississippi Stud 35.10(i): each player's hand is turned (and
so what it makes told) one at a time, counterclockwise from the dealer's right, after the dealer's;
a folded hand is collected face down (24.10(b), 35.10(a)); Three Card Poker the same (13:69F-20,
inferred from the published rule sheets). A ``winner`` lamp on a face-down hand tells what it makes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from table_helpers import FedTable
from test_turn16_turned_in_order import GAMES, ROUNDS, face_up_seats, hold, replay, restarted

from controller.table.snapshot import TableSnapshot
from controller.wagers import Result


def lit(s: TableSnapshot) -> set[tuple[int, str]]:
    """The spots lit ``winner`` in the snapshot (the layout's lamps as commanded)."""
    return {spot for spot, how in s.spot_lamps if how == "winner"}


def winning(t: FedTable) -> set[tuple[int, str]]:
    """Every winning wager's spot of the round's settlement (a seat still at the table)."""
    settlement = t.m.walk.settlement
    assert settlement is not None
    seats = t.m.seats
    return {
        (paid.seat, w.spot)
        for paid in settlement.seats
        if paid.seat in seats
        for w in paid.wagers
        if w.result is Result.WIN and w.spot in seats[paid.seat].wagers
    }


def check(t: FedTable, won: set[tuple[int, str]], turned: set[int], folded: int | None) -> None:
    """Lit ``winner``: exactly the winning spots (``won``) of the seats turned; never a folded seat's."""
    s = t.snapshot()
    assert lit(s) == {(n, spot) for n, spot in won if n in turned}, (s.step, s.asked, sorted(turned))
    assert {n for n, _ in lit(s)} <= face_up_seats(s), (s.asked, s.spot_lamps)
    assert all(n != folded for n, _ in lit(s)), s.spot_lamps


@pytest.mark.parametrize("folded", [None, 1, 4, 6], ids=["none-folded", "seat1-folded", "seat4-folded", "seat6-folded"])
@pytest.mark.parametrize("game", GAMES)
def test_each_seats_winner_lamps_lit_at_its_own_step(game: str, folded: int | None) -> None:
    """Through the whole settlement of a full table, held at each step and back: none lit at the
    dealer's step; each seat's as its step turns it, and they stay; a folded seat's never. At the
    last step every winning wager is lit (what the lamps meant before: the end state unchanged)."""
    t = ROUNDS[game](folded)
    assert t.snapshot().step == "settlement"
    won = winning(t)
    assert won, "a round with no winner shows nothing"
    turned: set[int] = set()
    while t.snapshot().step == "settlement":
        asked = t.snapshot().asked or ""
        seat = re.match(r"seat (\d+):", asked)
        if seat is not None and int(seat.group(1)) != folded:
            turned.add(int(seat.group(1)))
        check(t, won, turned, folded)
        hold(t)
        check(t, won, turned, folded)
        t.devices_back(("shoe",), ())
        assert t.snapshot().asked == asked
        check(t, won, turned, folded)
        last = lit(t.snapshot())
        t.press("confirm")
    assert last == won and all(n != folded for n, _ in last)


@pytest.mark.parametrize("game", GAMES)
def test_the_events_replayed_light_the_same_lamps_at_each_step(game: str) -> None:
    """A recovery (the round's events replayed into a new machine): at each step of the settlement
    the same winner lamps as the table that handled them live, none on a hand not turned."""
    t = ROUNDS[game](4)
    while t.snapshot().step == "settlement":
        live, replayed = t.snapshot(), replay(t, game)
        assert lit(replayed) == lit(live)
        assert {n for n, _ in lit(replayed)} <= face_up_seats(replayed)
        t.press("confirm")


@pytest.mark.parametrize("confirmed", [0, 2], ids=["at-the-dealer", "two-seats-turned"])
@pytest.mark.parametrize("game", GAMES)
def test_a_restart_at_the_settlement_lights_no_hand_not_turned(tmp_path: Path, game: str, confirmed: int) -> None:
    """The controller stopped at a step of the settlement and started again on its journal: the
    recovered table's winner lamps are those of the hands turned before the stop, no other."""
    _, before, again = restarted(game, tmp_path / "j.db", confirmed)
    assert {n for n, _ in lit(before)} <= face_up_seats(before), before.spot_lamps
    after = again.snapshot
    assert (after.step, after.held_from) == ("hold", "settlement"), after.step
    assert lit(after) == lit(before) and {n for n, _ in lit(after)} <= face_up_seats(after)
    again.store.close()
