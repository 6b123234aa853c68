"""Attack on the supervisor's void in every state of a round (docs/dealer-guide.md: "Void the
round ... any time the round is in play or on hold"), after the settlement has begun to move chips.

Found: ``void`` was done in the stub count after a settled round (the fifth round, paid and
recorded: the dealer was told to return every wager again, the round was handed on a second
time as void, and the stub count was skipped), in the settlement after steps that paid or
collected were confirmed (the round recorded void: what was paid in no record or meter), and in
pai gow after hands were settled as they were turned. Now the void is refused there, journaled
with why, and the snapshot says so (``why_not_void``); before the settlement pays anything it is
done as before."""

from __future__ import annotations

import pytest
from table_helpers import FedTable, bench_table
from test_attack14_late_settled import boston5_bonus

from controller.table.game_tables import GAME_TABLES
from controller.vocab import deck
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, Jam

CARDS = [str(c) for c in deck(joker=False)]


def table(game: str) -> FedTable:
    return FedTable(GAME_TABLES[game], bench_table(game))


def key(t: FedTable) -> None:
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))


def mississippi_round(t: FedTable, first: int, fold: bool = True) -> None:
    """Seats 1 and 3 (ante and three streets 5.00) and seat 2 (ante 5.00, folds at third; ``fold``
    False: plays as seats 1 and 3), to the settlement."""
    for seat in (1, 2, 3):
        t.spot(seat, "ante", 500)
    t.press("no_more_bets")
    t.deal(" ".join(CARDS[first : first + 9]))
    if fold:
        t.press("seat_2", "fold", "confirm")
    for street in ("third", "fourth", "fifth"):
        for seat in (1, 3) if fold else (1, 2, 3):
            t.spot(seat, street, 500)
        t.press("reveal")
    assert t.snapshot().step == "settlement"


def refused(t: FedTable, why: str, action: str = "void") -> None:
    """``void`` pressed (key on): ``action`` refused with ``why``, nothing voided."""
    before = t.snapshot()
    assert before.why_not_void() == why
    t.press("void")
    after = t.snapshot()
    assert after.last_round == before.last_round and after.round_no == before.round_no  # nothing voided
    assert f"{action} refused: {why}" in t.snapshot().recent


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
def test_no_void_in_the_stub_count_after_the_round_is_settled(held: bool) -> None:
    t = table("mississippi_stud")
    for r in range(5):
        mississippi_round(t, 9 * r)
        while t.snapshot().step == "settlement":
            t.press("confirm")
    s = t.snapshot()
    assert (
        s.step == "count_stub" and s.last_round is not None and (s.last_round.number, s.last_round.void) == (5, False)
    )
    if held:
        t.feed(Jam(device="shoe"))
    key(t)
    refused(t, "round 5 is over: count the stub")
    assert t.snapshot().step == ("hold" if held else "count_stub")


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
def test_no_void_once_a_settlement_step_paid_or_collected(held: bool) -> None:
    t = table("mississippi_stud")
    mississippi_round(t, 0, fold=False)  # a fold's confirmed collection moved chips (void16): none here
    key(t)
    assert t.snapshot().why_not_void() is None  # the first step shown, none confirmed: a void returns all
    t.press("confirm")  # the dealer's community cards: no chips
    assert t.snapshot().why_not_void() is None
    t.press("confirm")  # a seat paid or collected, the other's step shown
    if held:
        t.feed(Jam(device="shoe"))
    refused(t, "round 1 is being settled: wagers already paid or collected")


def test_no_void_once_a_pai_gow_hand_is_settled_as_it_is_turned() -> None:
    t = table("pai_gow")
    t.spot(2, "pai_gow", 1000)
    t.spot(5, "pai_gow", 2500)
    t.press("no_more_bets", "confirm")
    t.deal(" ".join(str(c) for c in deck(joker=True)[:49]))
    t.press("confirm", "confirm", "confirm")  # the stub, the hands set, the dealer's hand
    key(t)
    assert t.snapshot().why_not_void() is None
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=False))
    t.press("confirm")  # seat 5's hand set by the house way: its settlement shown (holds16: no chips moved yet)
    key(t)
    assert t.snapshot().why_not_void() is None
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=False))
    t.press("confirm")  # its step done: settled as it is turned
    key(t)
    refused(t, "round 1 is being settled: wagers already paid or collected")


def test_a_card_out_of_the_shoe_in_the_stub_count_is_no_misdeal_of_the_settled_round() -> None:
    """A card dealt in the stub count waits for the supervisor: ``void`` (a misdeal) voided the
    settled fifth round again; now refused, and ``confirm`` burns the card (it has no place)."""
    t = table("mississippi_stud")
    for r in range(5):
        mississippi_round(t, 9 * r)
        while t.snapshot().step == "settlement":
            t.press("confirm")
    t.feed(CardDealt(device="shoe", card="Ks", index=46, quality=100))
    assert t.snapshot().step == "hold"
    key(t)
    refused(t, "round 5 is over: count the stub", "misdeal")
    t.press("confirm")
    s = t.snapshot()
    assert (
        s.step == "count_stub" and s.last_round is not None and (s.last_round.number, s.last_round.void) == (5, False)
    )


@pytest.mark.parametrize("exposed", [True, False], ids=["bonus paid", "bonus collected"])
def test_no_void_once_a_boston5_bonus_is_paid(exposed: bool) -> None:
    """Seat 1's straight flush exposed, its bonus paid at the bonus settlement (24.10(a)): a void
    then recorded the round void, the bonus paid in no record. A bonus only collected (not
    exposed) is returned by a void, as a fold's collection is."""
    t = table("boston5")
    boston5_bonus(t, exposed)  # the bonus settlement's one step confirmed
    key(t)
    if exposed:
        refused(t, "round 1 is being settled: wagers already paid or collected")
        return
    t.press("void")
    s = t.snapshot()
    assert s.last_round is not None and s.last_round.void and "void: seat 1: return bonus 5.00" in s.notices[0].lines
