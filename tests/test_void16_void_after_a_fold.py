"""A void (a misdeal) after a fold's collection was confirmed: refused, as once any settlement step
moved chips (``why_not_void``). A folded hand forfeits its wagers, collected into the table
inventory container when it folds (24.10(b), (c); 35.10(b), (e), (g); 20 inferred): returned by a
void, they would be paid back on top of the chips in the rack. The seeds set nothing else on a
misdeal after a fold. Until the dealer confirms the collection no chips moved: the void is taken,
every wager returned. Every game that folds, at every decision where a fold is confirmed (Boston
5's fold and its second wager withdrawn before or after ``deal``; Mississippi Stud's 3rd, 4th and
5th streets; Three Card Poker's play), held from it or not.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from table_helpers import FedTable, closed_table
from test_turn16_turned_in_order import DEAL

from drivers.link import LinkDown
from drivers.panel import ButtonChanged

PAID = "round 1 is being settled: wagers already paid or collected"


def boston5(how: str) -> Callable[[], FedTable]:
    """Seat 1 folds (``fold``) or withdraws its second wager (``withdrawn``: at the decision;
    ``withdrawn after deal``: after ``deal``, before the final cards)."""

    def dealt() -> FedTable:
        t = closed_table("boston5", ((1, "ante", 500), (1, "first", 1000), (2, "ante", 500), (2, "first", 1000)))
        t.deal(" ".join(DEAL[:9]))
        t.press("next")  # no bonus to expose
        if how == "fold":
            t.press("seat_1", "fold")
            return t
        t.spot(1, "second", 1000)
        if how == "withdrawn after deal":
            t.spot(2, "second", 1000)
            t.press("deal")
        t.spot(1, "second", 0)
        return t

    return dealt


def mississippi_stud(street: str) -> Callable[[], FedTable]:
    """Seat 1 folds at ``street`` (each street before it bet by both seats)."""

    def dealt() -> FedTable:
        t = closed_table("mississippi_stud", ((1, "ante", 500), (2, "ante", 500)))
        t.deal(" ".join(DEAL[:7]))
        for before in ("third", "fourth", "fifth")[: ("third", "fourth", "fifth").index(street)]:
            t.spot(1, before, 500)
            t.spot(2, before, 500)
            t.press("reveal")
        t.press("seat_1", "fold")
        return t

    return dealt


def three_card_poker() -> FedTable:
    t = closed_table("three_card_poker", ((1, "ante", 500), (2, "ante", 500)))
    t.deal(" ".join(DEAL[:9]))
    t.press("seat_1", "fold")
    return t


FOLDS: dict[str, Callable[[], FedTable]] = {
    "boston5-fold": boston5("fold"),
    "boston5-withdrawn": boston5("withdrawn"),
    "boston5-withdrawn-after-deal": boston5("withdrawn after deal"),
    "mississippi_stud-third": mississippi_stud("third"),
    "mississippi_stud-fourth": mississippi_stud("fourth"),
    "mississippi_stud-fifth": mississippi_stud("fifth"),
    "three_card_poker-play": three_card_poker,
}


def folded(case: str, confirmed: bool, held: bool) -> FedTable:
    """Seat 1's fold shown (``confirmed``: its collection confirmed); ``held``: then the bet
    spots' link goes down; the supervisor key turned on."""
    t = FOLDS[case]()
    s = t.snapshot()
    assert [n.title for n in s.notices if n.blocking and n.title.startswith("seat 1: ")], (s.step, s.notices)
    if confirmed:
        t.press("confirm")
        assert any(line.startswith("confirmed: seat 1: ") for line in t.snapshot().recent), t.snapshot().recent
    if held:
        t.feed(LinkDown(device="bet_spots", reason="no reply"))
        assert t.snapshot().step == "hold", t.snapshot().step
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    return t


@pytest.mark.parametrize("held", [False, True], ids=["", "held"])
@pytest.mark.parametrize("case", FOLDS)
def test_the_void_is_refused_once_the_folds_collection_is_confirmed(case: str, held: bool) -> None:
    t = folded(case, confirmed=True, held=held)
    step = t.snapshot().step
    assert t.snapshot().why_not_void() == PAID
    t.press("void")
    s = t.snapshot()
    assert s.last_round is None and s.step == step, (s.step, s.recent[-3:])
    assert not [line for line in s.recent if line.startswith("void: ")], s.recent


@pytest.mark.parametrize("held", [False, True], ids=["", "held"])
@pytest.mark.parametrize("case", FOLDS)
def test_the_void_is_taken_before_the_folds_collection_is_confirmed(case: str, held: bool) -> None:
    t = folded(case, confirmed=False, held=held)
    assert t.snapshot().why_not_void() is None
    t.press("void")
    s = t.snapshot()
    assert s.last_round is not None and s.last_round.void, (s.step, s.recent[-3:])
    returns = [line for n in s.notices for line in n.lines]
    assert "void: seat 1: return ante 5.00" in returns, returns  # nothing collected yet: all returned
    assert not any(n.blocking for n in s.notices)  # the fold's collection dropped with the round
