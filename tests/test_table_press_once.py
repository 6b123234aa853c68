"""Work a press does once (issue 42 item 5): Mississippi Stud's ``reveal`` has its street's
conditions asked by the machine alone when it reveals, and again only to say why it did not;
a card of Boston 5's final deal reads the seats in play once; the settlement walk reads no step's
text to leave out the steps done when none was done during the round. Each test counts the work
on the real table, fed events directly, and checks what the dealer is shown as well."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from table_helpers import FedTable

from controller.configuration import config_dir, load_table
from controller.game.boston5._machine import Boston5Table
from controller.game.boston5._machine import Phase as B5
from controller.game.mississippi_stud._machine import MississippiTable
from controller.game.mississippi_stud._machine import Phase as MS
from controller.wagers import Step

MS_TABLE = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
B5_TABLE = load_table(config_dir() / "bench" / "boston5.yaml")
STREETS = ("third", "fourth", "fifth")


def counted(table: object, name: str) -> list[int]:
    """Count the calls of ``table``'s method ``name`` from now on (the machine's conditions are
    looked up on the model by name, so the count sees them too)."""
    calls = [0]
    method: Callable[..., Any] = getattr(table, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return method(*args, **kwargs)

    setattr(table, name, counting)
    return calls


def mississippi_at_third() -> FedTable:
    t = FedTable(MississippiTable, MS_TABLE)
    t.spot(1, "ante", 500)
    t.spot(4, "ante", 1000)
    t.press("no_more_bets")
    t.deal("As Ad Kc Qd 7h 8h 2c")
    assert t.m.phase is MS.THIRD_STREET
    return t


@pytest.mark.parametrize("street", STREETS)
def test_a_reveal_asks_whether_every_seat_acted_once(street: str) -> None:
    t = mississippi_at_third()
    for s in STREETS[: STREETS.index(street)]:
        t.spot(1, s, 500)
        t.spot(4, s, 1000)
        t.press("reveal")
    t.spot(1, street, 500)
    t.spot(4, street, 1000)
    acted, pending = counted(t.m, "all_acted"), counted(t.m.display, "steps_pending")
    shown = len(t.m.display.prompts)
    t.press("reveal")
    assert t.m.phase is not MS[f"{street.upper()}_STREET"]
    assert (acted[0], pending[0]) == (1, 1)  # the machine's conditions, nothing asked before them
    assert not any(p.startswith("cannot reveal") for p in t.m.display.prompts[shown:])


@pytest.mark.parametrize("street", STREETS)
def test_a_refused_reveal_still_says_who_it_waits_for(street: str) -> None:
    t = mississippi_at_third()
    for s in STREETS[: STREETS.index(street)]:
        t.spot(1, s, 500)
        t.spot(4, s, 1000)
        t.press("reveal")
    t.spot(4, street, 1000)
    t.press("reveal")
    assert t.m.phase is MS[f"{street.upper()}_STREET"]
    assert t.m.display.prompts[-1] == "cannot reveal: waiting for seat 1"


@pytest.mark.parametrize("street", STREETS)
def test_a_refused_reveal_still_asks_for_the_fold_to_be_confirmed(street: str) -> None:
    t = mississippi_at_third()
    for s in STREETS[: STREETS.index(street)]:
        t.spot(1, s, 500)
        t.spot(4, s, 1000)
        t.press("reveal")
    t.spot(1, street, 500)
    t.press("seat_4", "fold")  # its collection shown, to be confirmed before the next reveal
    t.press("reveal")
    assert t.m.phase is MS[f"{street.upper()}_STREET"]
    assert "cannot reveal: confirm the collection first" in t.m.display.prompts[-2:]
    t.press("confirm", "reveal")
    assert t.m.phase is not MS[f"{street.upper()}_STREET"]


def test_a_reveal_with_no_street_to_reveal_notes_nothing() -> None:
    t = FedTable(MississippiTable, MS_TABLE)
    t.spot(1, "ante", 500)
    shown = len(t.m.display.prompts)
    t.press("reveal")
    assert t.m.phase is MS.BETTING and t.m.display.prompts[shown:] == []


def boston5_at_final_deal() -> FedTable:
    t = FedTable(Boston5Table, B5_TABLE)
    for s in (2, 3, 5):
        t.spot(s, "ante", 500)
        t.spot(s, "first", 1000)
    t.press("no_more_bets")
    t.deal("As Ks Qs 2h 7d 9c 3c 4d 5h Jh Jd Jc")
    assert t.m.phase is B5.SECOND_WAGER  # no bonus wager: no exposure, no bonus steps
    t.spot(2, "second", 1000)
    t.spot(5, "second", 1000)
    t.press("seat_3", "fold", "confirm", "deal")
    assert t.m.phase is B5.FINAL_DEAL
    return t


def test_a_final_card_reads_the_seats_in_play_once() -> None:
    t = boston5_at_final_deal()
    playing = counted(t.m, "in_play")
    t.deal("Ts")
    assert playing[0] == 1  # the card's place and the prompt that follows it
    assert t.m.display.prompts[-1] == "deal the final cards: seat 2 one more, seat 5 two, then the dealer two"
    t.deal("9s 6h")
    assert t.m.display.prompts[-1] == "deal the final cards: seat 5 one more, then the dealer two"
    t.deal("6c 8c")
    assert t.m.display.prompts[-1] == "deal the final cards: the dealer one more"
    t.deal("9h")
    assert t.m.phase is B5.SETTLEMENT


def test_a_walk_with_nothing_done_makes_each_step_text_when_it_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    made = [0]
    make = Step._make_text

    def counting(step: Step) -> str:
        made[0] += 1
        return make(step)

    monkeypatch.setattr(Step, "_make_text", counting)
    t = mississippi_at_third()
    for s in STREETS:
        t.spot(1, s, 500)
        t.spot(4, s, 1000)
        if s == "fifth":
            made[0] = 0
        t.press("reveal")
    walk = t.m.walk
    assert walk.settlement is not None and walk.steps is walk.settlement.procedure  # nothing left out
    assert made[0] == 1  # the first step, asked: no other step's text read to leave steps out
    for asked in range(2, len(walk.steps) + 1):
        t.press("confirm")
        assert made[0] == asked
    t.press("confirm")
    assert t.m.phase is MS.BETTING


def test_a_walk_leaves_out_the_steps_done_during_the_round() -> None:
    t = mississippi_at_third()
    t.spot(1, "third", 500)
    t.press("seat_4", "fold", "confirm")  # its collection done during the round
    for s in STREETS:
        if s != "third":
            t.spot(1, s, 500)
        t.press("reveal")
    walk = t.m.walk
    assert walk.settlement is not None
    folded = [step.text for step in walk.settlement.procedure if step.seat == 4]
    assert folded and not any(step.text in folded for step in walk.steps)
    assert len(walk.steps) == len(walk.settlement.procedure) - len(folded)


def test_each_step_text_is_made_once_a_round(monkeypatch: pytest.MonkeyPatch) -> None:
    made: dict[int, int] = {}
    make = Step._make_text

    def counting(step: Step) -> str:
        made[id(step)] = made.get(id(step), 0) + 1
        return make(step)

    monkeypatch.setattr(Step, "_make_text", counting)
    t = mississippi_at_third()
    for s in STREETS:
        t.spot(1, s, 500)
        t.spot(4, s, 1000)
        t.press("reveal")
    while t.m.phase is MS.SETTLEMENT:
        t.press("confirm")
    texts = [s.text for s in t.m.rounds[-1].settlement.procedure]
    assert texts and all(p in t.m.display.prompts for p in texts)
    assert made and set(made.values()) == {1}
