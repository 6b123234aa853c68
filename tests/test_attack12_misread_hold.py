"""Attacks on the misread card's new hold (CHANGELOG "2026-12-07 (afternoon)": "card N dealt before
shoe card M was read again or entered"): every way to clear it, each with a second fault at the
same time, and a restart of the controller mid-hold (the runtime on its SQLite journal, the round
recovered from it as ``tablectl run`` does after a crash).

``tests/test_attack11_card_intake.py`` checks the hold and one way out (the misread card entered
with ``next`` / ``confirm``); these check the others: the misread card read again by the shoe at
its own number, the round voided, the key turned off and on again while held, and a restart with
the hold open (the hold, the misread card still to be read and the card that waits all come back
from the journal, and the card is then entered or read again in its own place)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import pytest
from table_helpers import ManualClock
from test_attack11_card_intake import Walk, each_case, held_for_a_misread
from test_replay_authority import Fed

from controller.table.events import OpenTable
from controller.table.round import RoundTable
from drivers.bet_spots import SpotReport
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, CardUnreadable, Jam
from drivers.state import PanelState, ShoeState

NEW_HOLD = "dealt before shoe card"
READ_AGAIN = "Qd"  # the misread card's true face, read again (never dealt before in these rounds)


def _resumed(game: str, deal: str, misread: str, second: str | None) -> tuple[Walk, int, int, Enum]:
    """The new hold: a misread card's hold cleared (clear fault), the shoe's next card dealt."""
    w = held_for_a_misread(game, misread, deal)
    index, dealt, step = w.m.intake.misread_index, w.m.state.dealt, w.m.state.held_from
    assert index is not None and step is not None
    w.key(True)
    w.press("clear_fault")
    w.card("8d", index + 1)
    assert w.step_name() == "hold" and NEW_HOLD in w.m.holds.reason, w.m.holds.reason
    if second == "jam":
        w.feed(Jam(device="shoe"))
        w.jammed = True
    elif second == "link":
        w.link_down("bet_spots")
    return w, index, dealt, step


def _clear_second(w: Walk, second: str | None) -> None:
    if second == "jam":
        w.jammed = False
        w.feed(ShoeState(device="shoe", status="ok", cards_out=w.m.ledger.shoe_count))
    elif second == "link":
        w.link_up("bet_spots")


@each_case([None, "jam", "link"])
def test_the_misread_card_read_again_at_its_number_clears_the_new_hold_in_its_own_place(
    game: str, deal: str, misread: str, second: str | None
) -> None:
    w, index, dealt, step = _resumed(game, deal, misread, second)
    place = w.m.card_place(dealt).rsplit(" card", 1)[0]
    _clear_second(w, second)
    w.card(READ_AGAIN, index)  # the shoe reads the misread card again, at its own number
    entries = [(e.index, str(e.card), e.to) for e in w.m.ledger.entries]
    assert (index, READ_AGAIN, place) in entries, entries
    assert w.m.state.dealt == dealt + 1
    assert [i for i, _ in w.m.ledger.waiting] == [index + 1], "the card that waited is the supervisor's"
    w.press("confirm")
    assert w.m.state.dealt == dealt + 2 and w.step_name() == str(step.value), w.m.holds.reason
    after = w.m.card_place(dealt + 1).rsplit(" card", 1)[0]
    assert [e.to for e in w.m.ledger.entries if e.index == index + 1] == [after]


@each_case([None, "jam", "link"])
def test_void_on_the_new_hold_is_a_misdeal_that_places_neither_card(
    game: str, deal: str, misread: str, second: str | None
) -> None:
    w, index, dealt, _ = _resumed(game, deal, misread, second)
    w.press("void")
    assert w.m.rounds[-1].settlement is None, "not a misdeal"
    assert w.m.intake.misread_index is None
    assert not [e for e in w.m.ledger.entries if e.index == index + 1 and "seat" in str(e.to)]
    before = w.m.state.dealt
    w.card(READ_AGAIN, index)  # the misread card read again after the void: no card of the void round
    assert w.m.state.dealt == before
    assert READ_AGAIN not in w.placed()


@each_case([None, "jam", "link"], "how", ("enter", "read_again"))
def test_the_key_off_and_on_again_keeps_the_new_hold_and_its_way_out(
    game: str, deal: str, how: str, second: str | None
) -> None:
    w, index, dealt, step = _resumed(game, deal, "unreadable", second)
    w.key(False)
    assert w.step_name() == "hold" and NEW_HOLD in w.m.holds.reason
    w.press("next", "confirm", "confirm")  # the dealer's presses without the key: nothing entered
    assert w.m.state.dealt == dealt and w.m.intake.misread_index == index
    _clear_second(w, second)
    w.key(True)
    if how == "enter":
        w.press("next", "confirm")
    else:
        w.card(READ_AGAIN, index)
    assert w.m.state.dealt == dealt + 1 and w.m.intake.misread_index is None
    w.press("confirm")
    assert w.m.state.dealt == dealt + 2 and w.step_name() == str(step.value), w.m.holds.reason


# --- a restart mid-hold: the round recovered from the journal ------------------------------------


def _machine(fed: Fed) -> RoundTable:
    machine = fed.runtime.round
    assert isinstance(machine, RoundTable)
    return machine


def _held_live(fed: Fed, second: str | None) -> None:
    """Mississippi Stud, seat 1: card 1 dealt, card 2 unreadable, clear fault, card 3: the new hold."""
    clock = fed.clock
    fed.feed(ShoeState(device="shoe", at=clock.now, status="ok", cards_out=0))
    fed.press("supervisor_key", pressed=False)
    fed.feed(SpotReport(device="bet_spots", at=clock.now, seat=1, spot="ante", cents=1000))
    fed.press("no_more_bets")
    fed.feed(CardDealt(device="shoe", at=clock.now, card="As", index=1, quality=100))
    fed.feed(CardUnreadable(device="shoe", at=clock.now, index=2))
    fed.press("supervisor_key")
    fed.press("clear_fault")
    fed.feed(CardDealt(device="shoe", at=clock.now, card="8d", index=3, quality=100))
    machine = _machine(fed)
    assert fed.phase == "hold" and NEW_HOLD in machine.holds.reason, machine.holds.reason
    if second == "jam":
        fed.feed(Jam(device="shoe", at=clock.now))


@pytest.mark.parametrize("second", [None, "jam"])
@pytest.mark.parametrize("how", ["enter", "read_again"])
def test_a_restart_mid_hold_recovers_the_hold_the_misread_card_and_the_card_that_waits(
    tmp_path: Path, how: str, second: str | None
) -> None:
    clock = ManualClock(1_800_000_000.0)
    path = tmp_path / "j.db"
    live = Fed("mississippi_stud", path, clock, roster=False)
    try:
        live.feed(OpenTable())
        _held_live(live, second)
        machine = _machine(live)
        reason, dealt = machine.holds.reason, machine.state.dealt
    finally:
        live.close()  # the controller stops (a crash: nothing more is journaled)
    again = Fed("mississippi_stud", path, clock, roster=False)
    try:
        assert again.runtime.recover()
        m = _machine(again)
        assert again.phase == "hold" and m.holds.reason == reason
        assert m.intake.misread_index == 2 and [i for i, _ in m.ledger.waiting] == [3]
        assert m.state.dealt == dealt and not m.supervisor.key_on
        again.press("next")
        again.press("confirm")  # the key replayed is not evidence of now: nothing entered
        assert m.state.dealt == dealt
        again.feed(PanelState(device="panel", at=clock.now, key_on=True, held=()))
        if second == "jam":
            again.feed(ShoeState(device="shoe", at=clock.now, status="ok", cards_out=m.ledger.shoe_count))
        again.feed(ButtonChanged(device="panel", at=clock.now, button="supervisor_key", pressed=True))
        if how == "enter":
            again.press("next")
            again.press("confirm")
        else:
            again.feed(CardDealt(device="shoe", at=clock.now, card=READ_AGAIN, index=2, quality=100))
        assert m.state.dealt == dealt + 1 and m.intake.misread_index is None, m.holds.reason
        again.press("confirm")
        assert m.state.dealt == dealt + 2 and again.phase != "hold", m.holds.reason
        seat = [str(c) for c in m.cards_seen()]
        assert seat[:3] == ["As", seat[1], "8d"] and seat[1] != "8d"
    finally:
        again.close()
