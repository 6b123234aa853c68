"""A swarm fault counts for the coverage report (``Reached``, ``Coverage``) where it **acted**:
the table met its effect at that step, held or not (docs/simulate.md, "When a fault acted"). A
fault placed at a step where it does nothing there (an early card at a deal step, a void the table
does not offer, a key turned while the table offers nothing, a count that starts over before the
table sees it) counted there before, so a (step, kind) pair could be "reached" by a fault that
never touched the table at that step. Since faults16 a fault acts at its step where a real device
could then: an early card at a wager step (the table holds for it), a void pressed at once, a count
fault placed as a deal begins changing the count between two of its cards."""

from __future__ import annotations

import pytest

from hil.simulate.faults import Fault
from hil.simulate.run import run_seed
from hil.simulate.swarm import Reached


def _at(kind: str, step: str, round_no: int = 1, edge: str = "enter", device: str = "shoe") -> Fault:
    return Fault(0.0, kind, device, 1.0, 2, step=step, edge=edge, round_no=round_no)


NOMINAL = [
    # an early card at a deal step: the deal's cards are the dealer's (the world deals none: none is early)
    ("mississippi_stud", _at("early_card", "dealing")),
    ("boston5", _at("early_card", "final_deal")),
    # "no more bets" where the deal starts with a card: the card dealt is the deal's first, an ordinary card
    ("mississippi_stud", _at("early_card", "no_more_bets", round_no=2)),
    # before the seed's first deck is loaded: no card in the shoe to deal
    ("mississippi_stud", _at("early_card", "betting")),
    # a void where the table offers none: the round is over, its stub counted (after round 5; attack14)
    ("mississippi_stud", _at("void", "count_stub", round_no=5, device="panel")),
    # the key turned on a street that offers the supervisor nothing: he presses nothing
    ("mississippi_stud", _at("key", "third_street", device="panel")),
    # every card of the round is out at the deal: the count is next seen after a new deck starts it over
    ("mississippi_stud", _at("count_jump", "third_street")),
    ("mississippi_stud", _at("count_restart", "settlement")),
    # no state request comes while the round is played: nothing refused
    ("mississippi_stud", _at("state_nak", "third_street")),
    # an unreadable card or a duplicate report before the first deck: no card to leave the shoe
    ("mississippi_stud", _at("unreadable_card", "betting")),
    ("mississippi_stud", _at("duplicate_card", "betting")),
]


@pytest.mark.parametrize(("game", "fault"), NOMINAL, ids=[f"{g}-{f.kind}-{f.step}" for g, f in NOMINAL])
def test_a_fault_that_did_nothing_at_its_step_is_not_counted_there(game: str, fault: Fault) -> None:
    res = run_seed(game, 1, (), rounds=max(2, fault.round_no + 1), faults=[fault])
    assert res.ok, f"{res.broken}: {res.detail}"
    assert fault.kind in res.faults  # injected: its step came
    placed = Reached(fault.kind, str(fault.step), fault.edge == "held")
    assert placed not in res.reached, f"{placed.where}: {fault.kind} counted, but it did nothing there"


ACTED = [
    # an early card in pai gow's "no more bets" (the dice total comes first: no card is expected)
    ("pai_gow", _at("early_card", "no_more_bets", round_no=2), "no_more_bets"),
    # in betting once a deck is in the shoe (round 2: the stub of round 1)
    ("mississippi_stud", _at("early_card", "betting", round_no=2), "betting"),
    # a journal outage begins to act at the first write it refuses: the next round's betting
    ("mississippi_stud", _at("disk_full", "settlement", edge="leave"), "betting"),
    # Boston 5's count jumps as the second wager is taken: the final deal's first card carries it
    ("boston5", _at("count_jump", "second_wager"), "final_deal"),
    # a count fault placed as a deal begins: between two of its cards (its delay: how far into the deal)
    ("mississippi_stud", _at("count_jump", "dealing"), "dealing"),
    ("boston5", _at("count_restart", "first_deal"), "first_deal"),
    ("boston5", Fault(0.2, "count_repeat", "shoe", 1.0, 1, step="final_deal", edge="enter", round_no=1), "final_deal"),
    ("pai_gow", Fault(0.1, "count_jump", "shoe", 1.0, 1, step="dealing", edge="enter", round_no=1), "dealing"),
    ("three_card_poker", _at("count_repeat", "dealing"), "dealing"),
    # an early card at a wager step, or a settlement of its own: the table holds for it there
    ("mississippi_stud", _at("early_card", "fourth_street"), "fourth_street"),
    ("boston5", _at("early_card", "second_wager"), "second_wager"),
    ("boston5", _at("early_card", "bonus_settlement"), "bonus_settlement"),
    ("pai_gow", _at("early_card", "set_hands"), "set_hands"),
    ("three_card_poker", _at("early_card", "play"), "play"),
    # the void pressed at once, while the short step is current (the key and the press in one report)
    ("pai_gow", _at("void", "check_deal", device="panel"), "check_deal"),
    ("mississippi_stud", _at("void", "dealing", device="panel"), "dealing"),
    # a crash, a wrong press, a late bet act at once
    ("mississippi_stud", _at("crash", "third_street"), "third_street"),
    ("mississippi_stud", _at("wrong_press", "third_street", device="panel"), "third_street"),
    ("mississippi_stud", _at("late_bet", "third_street", device="bet_spots"), "third_street"),
]


@pytest.mark.parametrize(("game", "fault", "where"), ACTED, ids=[f"{g}-{f.kind}-{f.step}" for g, f, _ in ACTED])
def test_a_fault_counts_at_the_step_where_it_acted(game: str, fault: Fault, where: str) -> None:
    res = run_seed(game, 1, (), rounds=2, faults=[fault])
    assert res.ok, f"{res.broken}: {res.detail}"
    assert res.reached == [Reached(fault.kind, where, False)]
