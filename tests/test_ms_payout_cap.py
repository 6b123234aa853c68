"""Mississippi Stud's aggregate payout cap (the table's ``payout_cap`` and the main paytable's
``cap``): it limits what the ante and the 3rd, 4th and 5th street bets pay together, per seat and
round (regulations digest 2.6: the $50,000 cap stands with the ante and bet wagers' paytable, PA
58 Pa. Code 655a.12 found, NJ inferred; the Ocean casino's published rules put the "maximum
aggregate payout" under that table and none under the 3-card bonus's). The 3-card bonus is never
cut by it. Where it bites, the excess comes off the largest payouts first and, among equal ones,
off the last bet made first (5th street, 4th, 3rd, the ante). Found on main: the table cap took
the bonus into the aggregate, so a max bet with a royal flush and a straight-flush bonus was paid
$50,000 in all, $1,000 short."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from controller.configuration import default_table_path, load_table
from controller.game.record import settle_record
from controller.wagers import Settlement
from hil.reference import load_ref_table
from hil.reference.games import SeatState, expect_round

TABLE = load_table(default_table_path("mississippi_stud"))
NO_PAYTABLE_CAP = replace(TABLE, paytables={**TABLE.paytables, "main": replace(TABLE.paytables["main"], cap=None)})
JACKS = ("Jd 2c", "Js Qh Kh")
"""A pair of jacks (1 to 1) on a community straight (the bonus: 6 to 1)."""


def _settle(
    cards: str, community: str, wagers: dict[str, int], table=TABLE, folded_at: str | None = None
) -> Settlement:
    seat = {"wagers": wagers, "cards": cards, "folded_at": folded_at, "communication_violation": False}
    return settle_record({"game": "mississippi_stud", "seats": {"1": seat}, "community": community}, table)


def _nets(s: Settlement) -> dict[str, int]:
    return {w.spot: w.net for w in s.seat(1).wagers}


def _paid_by_the_dealer(s: Settlement) -> int:
    """What the dealer's steps pay seat 1, less what they collect: the actions, not the results."""
    total = 0
    for step in s.procedure:
        if step.seat == 1:
            for action in step.actions:
                total += action.cents if action.verb == "pay" else -action.cents if action.verb == "collect" else 0
    return total


# ante 50.00 and each street 1x: the pair of jacks pays 50.00 on each of the four, 200.00 in all
@pytest.mark.parametrize("bonus", [0, 1000], ids=["no bonus", "bonus won"])
@pytest.mark.parametrize(
    "cap, main",
    [
        (25_000, {"ante": 5000, "third": 5000, "fourth": 5000, "fifth": 5000}),  # below the cap
        (20_000, {"ante": 5000, "third": 5000, "fourth": 5000, "fifth": 5000}),  # at the cap
        (19_999, {"ante": 5000, "third": 5000, "fourth": 5000, "fifth": 4999}),  # a cent above: 5th street cut
        (15_000, {"ante": 5000, "third": 5000, "fourth": 5000, "fifth": 0}),  # 5th street's payout all cut
        (12_000, {"ante": 5000, "third": 5000, "fourth": 2000, "fifth": 0}),  # then 4th street
        (7_000, {"ante": 5000, "third": 2000, "fourth": 0, "fifth": 0}),  # then 3rd street
        (3_000, {"ante": 3000, "third": 0, "fourth": 0, "fifth": 0}),  # then the ante
    ],
    ids=["below", "at", "a cent above", "fifth cut", "fourth cut", "third cut", "ante cut"],
)
def test_the_table_cap_cuts_the_ante_and_bets_last_bet_first_and_never_the_bonus(
    cap: int, main: dict[str, int], bonus: int
) -> None:
    wagers = {"ante": 5000, "third": 5000, "fourth": 5000, "fifth": 5000} | ({"bonus": bonus} if bonus else {})
    s = _settle(*JACKS, wagers, replace(TABLE, payout_cap=cap))
    assert _nets(s) == main | ({"bonus": 6 * bonus} if bonus else {})
    assert s.seat(1).net == sum(main.values()) + 6 * bonus == _paid_by_the_dealer(s)
    capped = {w.spot: w.capped_from for w in s.seat(1).wagers if w.capped_from is not None}
    assert capped == {spot: 5000 for spot, net in main.items() if net < 5000}
    assert [c.label for c in s.seat(1).caps] == (["table payout_cap"] if capped else [])


def test_unequal_bets_lose_the_largest_payout_first() -> None:
    # 3rd street 1x, 4th 3x, 5th 2x: payouts 50.00, 150.00, 100.00 and the ante's 50.00; 100.00 over the cap
    wagers = {"ante": 5000, "third": 5000, "fourth": 15000, "fifth": 10000}
    s = _settle(*JACKS, wagers, replace(TABLE, payout_cap=25_000))
    assert _nets(s) == {"ante": 5000, "third": 5000, "fourth": 5000, "fifth": 10000}


@pytest.mark.parametrize("table", [TABLE, NO_PAYTABLE_CAP], ids=["both caps", "table cap alone"])
@pytest.mark.parametrize("bonus", [0, 2500], ids=["no bonus", "straight flush bonus"])
def test_a_max_bet_royal_flush_is_paid_the_cap_and_the_bonus_in_full(table, bonus: int) -> None:
    # ante 100.00, every street 3x: 500 to 1 is 500,000.00, cut to 50,000.00 (the ante's own payout):
    # every street's payout is cut; the bonus, Q-J-10 suited on the community (40 to 1), is paid whole
    wagers = {"ante": 10000, "third": 30000, "fourth": 30000, "fifth": 30000} | ({"bonus": bonus} if bonus else {})
    s = _settle("As Ks", "Qs Js Ts", wagers, replace(table, limits={}))
    assert _nets(s) == {"ante": 5_000_000, "third": 0, "fourth": 0, "fifth": 0} | ({"bonus": 100_000} if bonus else {})
    assert s.seat(1).net == 5_000_000 + 40 * bonus == _paid_by_the_dealer(s)


def test_a_folded_seats_bonus_is_paid_whatever_the_cap() -> None:
    s = _settle("2d 3c", "Qs Js Ts", {"ante": 500, "bonus": 2500}, replace(TABLE, payout_cap=1000), "third")
    assert _nets(s) == {"ante": -500, "bonus": 100_000}
    assert s.seat(1).caps == ()


@pytest.mark.parametrize(
    "table_cap, net",
    [(None, 5_000_000 + 100_000), (2_000_000, 2_000_000 + 100_000), (10_000_000, 5_000_000 + 100_000)],
    ids=["paytable cap", "table cap below it", "table cap above it"],
)
def test_the_reference_model_caps_the_ante_and_bets_and_pays_the_bonus_whole(table_cap: int | None, net: int) -> None:
    """The simulation's checker (hil/reference, written from the rules' text) caps as the table does."""
    bench = Path(__file__).resolve().parent.parent / "config" / "bench" / "mississippi_stud.yaml"
    ms = replace(load_ref_table(bench), cap=table_cap)
    seats = {1: SeatState({"ante": 10000, "third": 30000, "fourth": 30000, "fifth": 30000, "bonus": 2500})}
    exp = expect_round(ms, "As Ks Qs Js Ts".split(), seats)  # a royal flush; Q-J-10 suited: the bonus 40 to 1
    assert exp.nets[1] == net and exp.capped == {1}
