"""Mississippi Stud settlement, sentence by sentence from N.J.A.C. 13:69F-35.10 (seed 001) and the
default paytable (digest 2.6), with the bench table config/mississippi_stud.yaml."""

from __future__ import annotations

from dataclasses import replace

import pytest
from table_helpers import assert_refused

from controller.configuration import default_table_path, load_table
from controller.game.record import RecordError, settle_record

TABLE = load_table(default_table_path("mississippi_stud"))


def seat(
    cards: str,
    ante: int = 500,
    streets=(1, 1, 1),
    folded_at: str | None = None,
    bonus: int | None = None,
    violation: bool = False,
) -> dict:
    wagers = {"ante": ante}
    for street, mult in zip(("third", "fourth", "fifth"), streets):
        if folded_at == street:
            break
        wagers[street] = mult * ante
    if bonus:
        wagers["bonus"] = bonus
    return {"wagers": wagers, "cards": cards, "folded_at": folded_at, "communication_violation": violation}


def settle(seats: dict, community: str = "Qs 7h 2c", table=TABLE):
    return settle_record({"game": "mississippi_stud", "seats": seats, "community": community}, table)


def results(settlement, number: int) -> dict:
    return {w.spot: (w.result.value, w.net) for w in settlement.seat(number).wagers}


@pytest.mark.parametrize(
    "cards, community, category, odds",
    [
        ("As Ks", "Qs Js Ts", "royal_flush", 500),
        ("9s Ks", "Qs Js Ts", "straight_flush", 100),
        ("7c 7d", "7h 7s 2c", "four_of_a_kind", 40),
        ("7c 7d", "7h 2s 2c", "full_house", 10),
        ("3s 9s", "Qs Js Ts", "flush", 6),
        ("9d Kc", "Qs Js Ts", "straight", 4),
        ("4d 4c", "4s Js Ts", "three_of_a_kind", 3),
        ("4d Jc", "4s Js Ts", "two_pair", 2),
        ("Jd 2c", "4s Js Ts", "one_pair", 1),
        ("Ad 2c", "4s As Ts", "one_pair", 1),
    ],
)
def test_i3_winning_hands_pay_every_live_wager_at_the_paytable_odds(
    cards: str, community: str, category: str, odds: int
) -> None:
    s = settle({"1": seat(cards, ante=500, streets=(3, 2, 1))}, community)
    assert s.seat(1).hands["player"]["category"] == category
    assert results(s, 1) == {
        "ante": ("win", 500 * odds),
        "third": ("win", 1500 * odds),
        "fourth": ("win", 1000 * odds),
        "fifth": ("win", 500 * odds),
    }


@pytest.mark.parametrize("pair", ["6", "7", "8", "9", "T"])
def test_i2_pair_of_sixes_to_tens_pushes(pair: str) -> None:
    s = settle({"1": seat(f"{pair}d 2d", streets=(3, 3, 3))}, f"{pair}s Kh 4c")
    assert {r for r, _ in results(s, 1).values()} == {"push"} and s.seat(1).net == 0


@pytest.mark.parametrize("cards, community", [("5d 5c", "Ks 8h 2c"), ("2d 2c", "Ks 8h 4c"), ("Ad 3c", "Ks 8h 4c")])
def test_i1_anything_lower_loses(cards: str, community: str) -> None:
    s = settle({"1": seat(cards, streets=(1, 2, 3))}, community)
    assert results(s, 1) == {
        "ante": ("lose", -500),
        "third": ("lose", -500),
        "fourth": ("lose", -1000),
        "fifth": ("lose", -1500),
    }


def test_a_fold_at_third_street_forfeits_the_ante() -> None:
    s = settle({"1": seat("9d 3c", folded_at="third")})
    assert results(s, 1) == {"ante": ("lose", -500)}


def test_e_fold_at_fourth_street_forfeits_ante_and_third() -> None:
    s = settle({"1": seat("9d 3c", streets=(2, 1, 1), folded_at="fourth")})
    assert results(s, 1) == {"ante": ("lose", -500), "third": ("lose", -1000)}


def test_g_fold_at_fifth_street_forfeits_ante_third_and_fourth() -> None:
    s = settle({"1": seat("9d 3c", streets=(2, 3, 1), folded_at="fifth")})
    assert results(s, 1) == {"ante": ("lose", -500), "third": ("lose", -1000), "fourth": ("lose", -1500)}


def test_folds_are_collected_street_by_street_before_the_showdown() -> None:
    s = settle({"2": seat("9d 3c", folded_at="fifth"), "5": seat("4d 3d", folded_at="third"), "6": seat("Kd Kc")})
    assert [(st.phase, st.seat) for st in s.procedure] == [
        ("third_street", 5),
        ("fifth_street", 2),
        ("dealer", None),
        ("settle", 6),
    ]


def test_c_communication_violation_forfeits_every_wager_including_the_bonus() -> None:
    s = settle({"1": seat("As Ks", bonus=500, violation=True)}, "Qs Js Ts")
    assert results(s, 1) == {
        "ante": ("lose", -500),
        "third": ("lose", -500),
        "fourth": ("lose", -500),
        "fifth": ("lose", -500),
        "bonus": ("lose", -500),
    }
    assert s.procedure[0].phase == "violation"


@pytest.mark.parametrize("street", ["third", "fourth", "fifth"])
def test_c_a_violation_marked_after_the_street_bet_forfeits_that_bet_too(street: str) -> None:
    """The table records the violation's street as ``folded_at``; the seat may have bet it already."""
    violator = seat("As Ks", folded_at=street, bonus=100, violation=True)
    violator["wagers"][street] = 1000
    s = settle({"1": violator, "2": seat("4d 9c")}, "Qs Js Ts")
    assert s.seat(1).net == -(500 + 100 + 500 * ("third", "fourth", "fifth").index(street) + 1000)
    assert [(p.phase, p.seat) for p in s.procedure][:1] == [("violation", 1)]
    assert s.seat(2).net == settle({"2": seat("4d 9c")}, "Qs Js Ts").seat(2).net  # the rest as without it


def test_c_a_violation_after_a_fold_forfeits_the_bonus_left_in_play() -> None:
    folded = {**seat("As Ks", folded_at="third", bonus=100, violation=True), "violation_at": "fifth"}
    s = settle({"1": folded}, "Qs Qd Ts")  # the community pair would pay the bonus
    assert results(s, 1) == {"ante": ("lose", -500), "bonus": ("lose", -100)}
    assert [(p.phase, p.text) for p in s.procedure[:2]] == [
        ("violation", "seat 1: communication violation (35.10(c)): collect bonus 1.00"),
        ("third_street", "seat 1: folds at third street: collect ante 5.00; discard the cards"),
    ]


@pytest.mark.parametrize("street", ["third", "fourth", "fifth"])
def test_c_a_violation_in_the_street_folded_at_forfeits_the_bonus_left_in_play(street: str) -> None:
    """Issue 32: a fold and a violation in the same street (a player folds and shows his cards to a
    neighbour still deciding) settles: the fold as any fold, the violation collects the bonus."""
    folded = {**seat("As Ks", folded_at=street, bonus=100, violation=True), "violation_at": street}
    s = settle({"1": folded, "2": seat("4d 9c")}, "Qs Qd Ts")  # the community pair would pay the bonus
    lost = 500 * (1 + ("third", "fourth", "fifth").index(street))
    assert s.seat(1).net == -(lost + 100) and results(s, 1)["bonus"] == ("lose", -100)
    assert s.seat(2).net == settle({"2": seat("4d 9c")}, "Qs Qd Ts").seat(2).net  # the rest as without it


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"violation_at": "sixth"}, "violation_at: must be null or one of third, fourth, fifth"),
        ({"violation_at": "fourth", "communication_violation": False}, "only with communication_violation"),
        (
            {"folded_at": "fourth", "wagers": {"ante": 500, "third": 500, "bonus": 100}, "violation_at": "third"},
            "must come at the street folded_at or a later one",
        ),
        ({"violation_at": "fourth", "wagers": {"ante": 500}}, "no bonus has no wager left"),
    ],
)
def test_c_violation_at_is_checked(change: dict, problem: str) -> None:
    bad = {**seat("As Ks", folded_at="third", bonus=100, violation=True), **change}
    with pytest.raises(RecordError) as info:
        settle({"1": bad})
    assert problem in str(info.value)


def test_bonus_is_paid_on_the_community_cards_and_stays_in_action_after_a_fold() -> None:
    s = settle({"1": seat("2d 3c", folded_at="third", bonus=200), "2": seat("4d 9c", bonus=100)}, "Qh Kh Ah")
    assert results(s, 1)["bonus"] == ("win", 200 * 50)  # mini royal
    assert results(s, 2)["bonus"] == ("win", 100 * 50)
    assert s.seat(1).hands["bonus"]["category"] == "mini_royal"
    lose = settle({"1": seat("2d 3c", bonus=200)}, "Qh 8c 4h")
    assert results(lose, 1)["bonus"] == ("lose", -200)


def test_i_resolved_counterclockwise_from_the_dealers_right() -> None:
    s = settle({n: seat(c) for n, c in (("1", "Kd Kc"), ("3", "5d 4c"), ("6", "Ad Ac"))})
    assert [st.seat for st in s.procedure if st.phase == "settle"] == [6, 3, 1]
    assert (
        s.procedure[-1].text
        == "seat 1: one pair (Kd Kc Qs 7h 2c): pay ante 5.00, third 5.00, fourth 5.00, fifth 5.00; discard the cards"
    )


def test_aggregate_payout_cap_is_applied_and_reported() -> None:
    # A royal flush with the ante at 100.00 and every street at 3x pays 500 to 1 on 1,000.00: far over 50,000.00.
    big = replace(TABLE, limits={})
    s = settle({"1": seat("As Ks", ante=10000, streets=(3, 3, 3))}, "Qs Js Ts", table=big)
    seat1 = s.seat(1)
    assert seat1.net == 5_000_000
    (report,) = seat1.caps
    assert (report.cap, report.uncapped, report.paid) == (5_000_000, 500 * 100_000, 5_000_000)
    assert report.label == "paytable ms_main_standard"
    assert all(w.capped_from is not None for w in seat1.wagers if w.spot != "ante")
    assert s.house_net == -5_000_000


def test_table_cap_limits_the_ante_and_bet_wagers_never_the_bonus() -> None:
    # digest 2.6: the aggregate cap is on the ante and bet wagers; the 3-card bonus (a straight, 6 to 1) is apart
    tight = replace(TABLE, payout_cap=10_000)
    s = settle({"1": seat("Jd 2c", ante=5000, streets=(1, 1, 1), bonus=1000)}, "Js Qh Kh", table=tight)
    assert s.seat(1).net == 10_000 + 6_000
    assert [c.label for c in s.seat(1).caps] == ["table payout_cap"]


def test_street_bets_must_be_one_to_three_times_the_ante() -> None:
    bad = {"1": seat("9d 3c")}
    bad["1"]["wagers"]["third"] = 700
    bad["2"] = seat("8d 3d", folded_at="fourth")
    bad["2"]["wagers"]["fifth"] = 500
    bad["3"] = {"wagers": {"ante": 500, "third": 500}, "cards": "Jd Jc"}
    bad["4"] = {**seat("As Ad"), "folded_at": "sixth"}
    assert_refused(
        lambda: settle(bad, "Qs Ks 4c"),
        "$.seats.1.wagers.third: must be 1x, 2x or 3x the ante (500, 1000 or 1500), got 700",
        "$.seats.2.wagers.fifth: no fifth street bet after folding at fourth",
        "$.seats.3.wagers: missing the fourth street bet (or set folded_at: fourth)",
        "$.seats.4.folded_at: must be null or one of third, fourth, fifth, got 'sixth'",
    )


def test_card_problems_across_hands() -> None:
    assert_refused(
        lambda: settle({"1": seat("As Kd"), "2": seat("Qs As"), "3": seat("JK 2c"), "4": seat("2d 3d 4d")}, "Qs Js"),
        "$.seats.2.cards: card 2 'As' is also dealt at $.seats.1.cards",
        "$.seats.3.cards: card 1 'JK': this game is dealt from 52 cards, with no joker",
        "$.seats.4.cards: needs 2 cards, got 3",
        "$.community: needs 3 cards, got 2",
    )


def test_cap_takes_the_excess_from_the_largest_payouts_first() -> None:
    big = replace(TABLE, limits={})
    s = settle({"1": seat("As Ks", ante=10000, streets=(3, 3, 3))}, "Qs Js Ts", table=big)
    nets = {w.spot: (w.net, w.capped_from) for w in s.seat(1).wagers}
    # 500 to 1: ante 5,000,000; each street 15,000,000. The 45,000,000 excess comes off the streets.
    assert nets == {
        "ante": (5_000_000, None),
        "third": (0, 15_000_000),
        "fourth": (0, 15_000_000),
        "fifth": (0, 15_000_000),
    }
    assert s.seat(1).caps[0].reduced == (("fifth", 15_000_000), ("fourth", 15_000_000), ("third", 15_000_000))
