"""Pai gow: the deal and misdeals, comparison and commission, and N.J.A.C. 13:69F-11.15 (seed 003)
sentence by sentence, with the bench table config/pai_gow.yaml."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from table_helpers import pai_gow_record

from controller.configuration import default_table_path, load_table
from controller.game.pai_gow._deal import DEALER, StartError, deal, start_position
from controller.game.pai_gow._rules import commission
from controller.game.record import RecordError, settle_record
from controller.vocab import deck, format_cards
from controller.wagers import Result

TABLE = load_table(default_table_path("pai_gow"))
DEALER_NO_PAIR = "Th 9h 8s 5c 4c 3h 2s"  # house way: high T-5-4-3-2, low 9-8


def seat(cards: str, pai_gow: int = 1000, high: str | None = None, low: str | None = None, **optional: int) -> dict:
    out: dict = {"wagers": {"pai_gow": pai_gow, **optional}, "cards": cards}
    if high is None:
        out["set"] = "house_way"
    else:
        out["high"], out["low"] = high, low
    return out


def settle(seats: dict, dealer: object = DEALER_NO_PAIR, table=TABLE, **extra):
    record = {
        "game": "pai_gow",
        "start": {"method": "dice", "value": 8},
        "remaining": 4,
        "seats": seats,
        "dealer": dealer,
        **extra,
    }
    return settle_record(record, table)


def results(s, n: int) -> dict:
    return {w.spot: (w.result.value, w.net) for w in s.seat(n).wagers}


# --- the deal ---------------------------------------------------------------------------------------


def test_start_position_counts_the_dealer_as_one_counterclockwise() -> None:
    assert start_position("dice", 8) == DEALER  # digest 3.4: 8 gives the dealer the first hand
    assert start_position("dice", 14) == 1  # the sixth betting position counted: seat 1
    assert start_position("dice", 9) == 6  # next after the dealer counterclockwise: the dealer's right
    assert [start_position("rng", n) for n in range(1, 8)] == [DEALER, 6, 5, 4, 3, 2, 1]
    assert start_position("rng", 2, "clockwise") == 1
    for bad in (("dice", 2), ("dice", 19), ("rng", 0), ("rng", 8)):
        with pytest.raises(StartError):
            start_position(*bad)


def test_seven_hands_of_seven_to_every_position_and_four_left() -> None:
    shoe = list(deck(joker=True))
    random.Random(7).shuffle(shoe)
    for method in ("one_at_a_time", "stacks"):
        result = deal(shoe, start=3, method=method)
        assert sorted(result.hands) == [DEALER, 1, 2, 3, 4, 5, 6]
        assert all(len(h) == 7 for h in result.hands.values()) and len(result.remaining) == 4
        assert sorted(c.index for h in result.hands.values() for c in h) + [] == sorted(c.index for c in shoe[:49])
    one = deal(shoe, start=3)
    assert one.hands[3][0] == shoe[0] and one.hands[4][0] == shoe[1] and one.hands[DEALER][0] == shoe[4]
    assert deal(shoe, start=3, method="stacks").hands[4] == tuple(shoe[7:14])
    assert deal(shoe, start=3, direction="counterclockwise").hands[2][0] == shoe[1]


def test_misdeal_voids_every_hand_and_returns_every_wager() -> None:
    base = {"1": seat("Ac Ad Kc Kd 7h 4s JK", bonus=500), "3": seat("9c 7d 6h 4d 3c 2d Jh")}
    cases = [
        ({"1": seat("Ac Ad Kc Kd 7h 4s", bonus=500), "3": base["3"]}, {}, "seat 1 has 6 cards, not 7"),
        ({"1": base["1"], "3": seat("9c 7d 6h 4d 3c 2d Ac")}, {}, "Ac dealt to seat 1 and to seat 3"),
        (base, {"empty": {"4": "5s 6s 7s 8s Ts Js"}}, "seat 4 (no wager) has 6 cards"),
    ]
    for seats, extra, reason in cases:
        s = settle(seats, **extra)
        assert all(w.result is Result.RETURNED and w.net == 0 for seat_ in s.seats for w in seat_.wagers)
        assert reason in s.procedure[0].text and "void" in s.procedure[0].text
        assert s.house_net == 0
    # Digest 3.4 item 5 (31.14): a stub of other than four with every hand of seven is no misdeal
    s = settle(base, remaining=5)
    assert "void" not in s.procedure[0].text and s.seat(1).wager("pai_gow").result is not Result.RETURNED


# --- comparison and commission ----------------------------------------------------------------------


def test_both_hands_win_pays_even_money_less_commission() -> None:
    s = settle({"1": seat("Ac Ad Kc Kd 7h 4s 2d", pai_gow=2000)})
    w = s.seat(1).wager("pai_gow")
    assert (w.result, w.net, w.commission) == (Result.WIN, 1900, 100)
    step = next(st for st in s.procedure if st.phase == "pai_gow")
    assert step.text.endswith("pay pai gow 20.00; collect commission 1.00; discard the cards")


def test_one_hand_wins_is_a_push_none_is_a_loss() -> None:
    # high A-K-Q-J-9 beats T-high; low 3-2 loses to 9-8
    assert results(settle({"1": seat("Ac Kd Qc Jd 9c 3d 2c", high="Ac Kd Qc Jd 9c", low="3d 2c")}), 1)["pai_gow"] == (
        "push",
        0,
    )
    assert results(settle({"1": seat("9c 8d 7c 6d 4s 3d 2c", high="9c 8d 7c 6d 4s", low="3d 2c")}), 1)["pai_gow"] == (
        "lose",
        -1000,
    )


def test_a_copy_goes_to_the_banker() -> None:
    # the low hand 9-8 copies the dealer's 9-8; the high hand wins: one won, one lost -> push
    s = settle({"1": seat("Ac Kd Qc Jd 7c 9d 8c", high="Ac Kd Qc Jd 7c", low="9d 8c")})
    w = s.seat(1).wager("pai_gow")
    assert w.result is Result.PUSH and "copy on the low hand goes to the banker" in w.why


def test_a_copy_of_the_high_hand_goes_to_the_banker() -> None:
    # the dealer sets K-7-5-3-2 / Q-9; the player's high K-7-5-3-2 is a copy, the low Q-T wins: push
    s = settle({"1": seat("Kc 7d 5d 3d 2d Qs Td", high="Kc 7d 5d 3d 2d", low="Qs Td")}, dealer="Kh Qh 9s 7c 5c 3h 2s")
    assert s.dealer["low"] == "Qh 9s"
    w = s.seat(1).wager("pai_gow")
    assert w.result is Result.PUSH and "copy on the high hand goes to the banker" in w.why


def test_foul_forfeits_by_default_or_is_reset_by_the_house_way() -> None:
    fouled = {"1": seat("Ac Ad Kc Kd 7h 4s 2d", high="Kc Kd 7h 4s 2d", low="Ac Ad")}
    assert results(settle(fouled), 1)["pai_gow"] == ("lose", -1000)
    reset = replace(TABLE, options={**TABLE.options, "foul_policy": "reset_by_house_way"})
    s = settle(fouled, table=reset)
    assert results(s, 1)["pai_gow"] == ("win", 950) and s.seat(1).hands["reset"]


@pytest.mark.parametrize(
    "stake, rounding, fee",
    [(1010, "down", 50), (1010, "up", 51), (1010, "nearest", 51), (1009, "nearest", 50), (2000, "down", 100)],
)
def test_commission_rounding_is_configurable(stake: int, rounding: str, fee: int) -> None:
    assert commission(stake, 5, rounding) == fee


def test_the_dealer_hand_is_set_by_the_house_way_unless_a_set_is_given() -> None:
    s = settle({"1": seat("Ac Ad Kc Kd 7h 4s 2d")})
    assert s.dealer["rule"] == "foxwoods.no_pair" and s.dealer["low"] == "9h 8s"
    given = settle(
        {"1": seat("Ac Ad Kc Kd 7h 4s 2d")}, dealer={"cards": DEALER_NO_PAIR, "high": "Th 9h 8s 5c 4c", "low": "3h 2s"}
    )
    assert given.dealer["rule"] == "given"
    ballys = replace(TABLE, options={**TABLE.options, "house_way": "ballys_ac"})
    assert settle({"1": seat("Ac Ad Kc Kd 7h 4s 2d")}, table=ballys).dealer["rule"] == "ballys_ac.no_pair"


# --- 11.15 ----------------------------------------------------------------------------------------


def test_b_bonus_wager_goes_with_a_pai_gow_wager_and_is_at_least_one_dollar() -> None:
    with pytest.raises(RecordError) as info:
        settle(
            {
                "1": {"wagers": {"bonus": 500}, "cards": "Ac Ad Kc Kd 7h 4s 2d", "set": "house_way"},
                "2": seat("As Qd Qc Jd 7c 3d 4c", bonus=50),
            }
        )
    problems = info.value.problems
    assert "$.seats.1.wagers: missing the pai gow wager (11.15(b): the optional wagers go with it)" in problems
    assert any(p.startswith("$.seats.2.wagers.bonus: a bonus wager is at least 100 cents") for p in problems)


def test_c_envy_marker_only_for_bonus_of_five_dollars() -> None:
    quads = "Qc Qd Qh Qs 8c 5d 2h"
    s = settle(
        {"1": seat(quads), "2": seat("As Kd Jc 9d 7c 3d 6c", bonus=500), "3": seat("Ad Ks Jd 9s 7d 3s 4d", bonus=400)}
    )
    assert results(s, 2)["envy"] == ("win", 500)  # $5 envy for another player's four of a kind
    assert "envy" not in results(s, 3)  # $4 bonus: no marker


def test_envy_is_paid_per_premium_hand_of_another_player_never_for_ones_own() -> None:
    s = settle(
        {
            "1": seat("Qc Qd Qh Qs 8c 5d 2h", bonus=500),  # four of a kind: $5 envy to others
            "2": seat("Ac Ad Ah As JK 9c 6d", bonus=500),  # five aces: $250 envy to others
            "3": seat("Kd Jc 9d 7c 3d 4c 6h", bonus=500),
        },
        dealer="Th 9h 8s 5c 4h 3h 2s",
    )
    assert results(s, 1)["envy"] == ("win", 25000)
    assert results(s, 2)["envy"] == ("win", 500)
    assert results(s, 3)["envy"] == ("win", 25500)


def test_the_dealers_premium_hand_pays_envy_only_if_configured() -> None:
    dealer_quads = "9c 9d 9h 9s 5c 4c 2s"
    seats = {"1": seat("Kd Jc Td 7c 3d 4h 6h", bonus=500)}
    assert "envy" not in results(settle(seats, dealer=dealer_quads), 1)
    with_dealer = replace(TABLE, options={**TABLE.options, "envy_includes_dealer": True})
    assert results(settle(seats, dealer=dealer_quads, table=with_dealer), 1)["envy"] == ("win", 500)


def test_d1_counterclockwise_from_the_dealers_right_and_cards_stay_on_the_layout() -> None:
    s = settle(
        {
            "1": seat("Ks Jc Td 7c 3d 4h 6h"),
            "4": seat("Ac Ad Kc Kd 7h 4s 2d"),
            "6": seat("As Qd Qc Jd 7d 3s 5d", bonus=100),
        }
    )
    steps = [st for st in s.procedure if st.phase == "pai_gow"]
    assert [st.seat for st in steps] == [6, 4, 1]
    assert "cards stay on the layout" in steps[0].text  # (d)1i: this seat has a bonus wager
    assert "cards stay on the layout" not in steps[1].text  # no insurance and no $5 bonus at the table
    s = settle({"1": seat("Ks Jc Td 7c 3d 4h 6h"), "4": seat("Ac Ad Kc Kd 7h 4s 2d", insurance=100)})
    assert all("cards stay on the layout" in st.text for st in s.procedure if st.phase == "pai_gow")  # (d)1ii


def test_d2_joker_completes_straights_for_the_bonus_but_is_only_an_ace_for_insurance() -> None:
    # 9-8-7-6 and the joker: a straight for the bonus; for insurance an ace-high pai gow
    s = settle({"1": seat("9c 8d 7h 6s JK 3c 2d", bonus=100, insurance=100)})
    assert results(s, 1)["bonus"] == ("win", 200)  # straight 2 to 1
    assert results(s, 1)["insurance"] == ("win", 100)  # ace-high pai gow 1 to 1 (example table)


def test_d2_all_cards_rearranged_when_any_five_dollar_bonus_is_on_the_table() -> None:
    s = settle({"1": seat("Kd Jc Td 7c 3d 4h 6h"), "2": seat("As Qd Qc Jd 7d 3s 5d", bonus=500)})
    assert {st.seat for st in s.procedure if st.phase == "bonus_insurance"} == {1, 2}
    s = settle({"1": seat("Kd Jc Td 7c 3d 4h 6h"), "2": seat("As Qd Qc Jd 7d 3s 5d", bonus=100)})
    assert {st.seat for st in s.procedure if st.phase == "bonus_insurance"} == {2}


def test_d2i_non_qualifying_collected_d2ii_qualifying_paid() -> None:
    s = settle(
        {"1": seat("As Qd Qc Jd 6s 3s 5d", bonus=100, insurance=100), "2": seat("7c 7d 7h 4s 2c Kd 9c", bonus=100)}
    )
    assert results(s, 1)["bonus"] == ("lose", -100) and results(s, 1)["insurance"] == ("lose", -100)
    assert results(s, 2)["bonus"] == ("win", 300)  # three of a kind 3 to 1
    texts = [st.text for st in s.procedure if st.phase == "bonus_insurance"]
    assert texts == [
        "seat 2: best hand three of a kind (7h 7d 7c Kd 9c): pay bonus 3.00; discard the cards",
        "seat 1: best hand one pair (Qd Qc As Jd 6s): collect bonus 1.00, insurance 1.00; discard the cards",
    ]


def test_d2_the_line_announced_is_the_line_paid() -> None:
    """Issue 40 item 8: A-A-joker with a straight is paid as three of a kind (3 to 1, more than the
    straight's 2 to 1: the highest-paying line); the dealer announced `best hand straight`. What the
    dealer is told and what is paid are one line, with the cards that make it."""
    s = settle({"1": seat("As Ad JK Kc Qh Jd Ts", bonus=100)})
    assert results(s, 1)["bonus"] == ("win", 300)
    assert s.seat(1).wager("bonus").why.startswith("three of a kind:")
    (step,) = [st.text for st in s.procedure if st.phase == "bonus_insurance"]
    assert step == "seat 1: best hand three of a kind (As Ad JK Kc Qh): pay bonus 3.00; discard the cards"


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False))
def test_d2_a_paid_bonus_is_announced_as_the_line_it_is_paid_on(rng: random.Random) -> None:
    cards = [c for c in deck(joker=True) if str(c) not in DEALER_NO_PAIR.split()]
    rng.shuffle(cards)
    s = settle({"1": seat(format_cards(cards[:7]), bonus=100)})
    paid = s.seat(1).wager("bonus")
    (step,) = [st.text for st in s.procedure if st.phase == "bonus_insurance"]
    if paid.result is Result.WIN:
        line = paid.why.split(":")[0].split(" (")[0]
        assert step.startswith(f"seat 1: best hand {line} ("), (step, paid.why)


def test_d2iii_premium_hand_announced_and_its_bonus_paid_with_the_envy_d3() -> None:
    s = settle({"1": seat("Qc Qd Qh Qs 8c 5d 2h", bonus=500), "2": seat("Kd Jc 9d 7c 3d 6c 2d", bonus=500)})
    phases = [(st.phase, st.seat, [a.spot for a in st.actions]) for st in s.procedure]
    assert ("bonus_insurance", 1, []) in phases  # premium: nothing moves yet, the bonus stays out
    envy = [p for p in phases if p[0] in ("envy", "premium")]
    # (d)3 counterclockwise: i each envy paid and its marker collected, ii the bonus on the premium hand
    assert envy == [("envy", 2, ["envy"]), ("envy", 1, []), ("premium", 1, ["bonus"])]
    assert results(s, 1)["bonus"] == ("win", 12500) and results(s, 2)["envy"] == ("win", 500)


def test_d3iii_premium_hand_without_a_bonus_wager_has_its_cards_collected_last() -> None:
    s = settle({"1": seat("Qc Qd Qh Qs 8c 5d 2h"), "2": seat("Kd Jc 9d 7c 3d 6c 2d", bonus=500)})
    assert s.procedure[-1].phase == "premium_cards" and s.procedure[-1].seat == 1


def test_bonus_is_paid_once_at_the_highest_paying_line() -> None:
    s = settle({"1": seat("5d 6d 7h 8c 9c 9d 9s", bonus=100)})
    assert results(s, 1)["bonus"] == ("win", 300)  # three of a kind (3 to 1) beats the straight (2 to 1)


def test_record_problems_are_listed() -> None:
    record = {
        "game": "pai_gow",
        "start": {"method": "dice", "value": 20},
        "seats": {
            "1": {"wagers": {"pai_gow": 1000}, "cards": "Ac Ad Kc Kd 7h 4s 2d", "high": "Ac Ad Kc Kd 7h"},
            "2": {
                "wagers": {"pai_gow": 1000},
                "cards": "As Qd Qc Jd 7d 3s 5d",
                "high": "As Qd Qc Jd 7d",
                "low": "3s 9d",
            },
        },
        "dealer": DEALER_NO_PAIR,
    }
    with pytest.raises(RecordError) as info:
        settle_record(record, TABLE)
    problems = info.value.problems
    assert "$.start: a dice start must be a whole number from 3 to 18, got 20" in problems
    assert "$.seats.1: give both high and low, or set: house_way" in problems
    assert "$.seats.2: high and low must be the seat's seven cards" in problems


@pytest.mark.parametrize(
    ("high", "low"),
    [
        ("Ac Ad Kc Kd 7h", "4s 2d"),  # as the table writes it
        ("AcAdKcKd7h", "4s2d"),  # run together
        ("ac AD kc Kd 7H", "4S 2d"),  # any case
        ("Ac Ad Kc Kd 7h", "2d 4s"),  # another order
    ],
)
def test_a_players_set_reads_the_same_however_it_is_written(high: str, low: str) -> None:
    cards = "Ac Ad Kc Kd 7h 4s 2d"
    given = settle({"1": seat(cards, high=high, low=low)})
    assert (
        given.seat(1).hands["set"]
        == settle({"1": seat(cards, high="Ac Ad Kc Kd 7h", low="4s 2d")}).seat(1).hands["set"]
    )
    assert given.seat(1).hands["set"]["low"] in ("4s 2d", "2d 4s")


@pytest.mark.parametrize(
    ("high", "low", "problem"),
    [
        ("Ac Ad Kc Kd 7h", "4s 4s", "high and low must be the seat's seven cards"),  # a card twice, one left out
        ("Ac Ad Kc Kd 7h", "4s 3d", "high and low must be the seat's seven cards"),  # a card not the seat's
        ("Ac Ad Kc Kd", "7h 4s 2d", "a set is 5 high cards and 2 low cards, got 4 and 3"),
    ],
)
def test_a_set_that_is_not_the_seats_seven_cards_is_refused(high: str, low: str, problem: str) -> None:
    with pytest.raises(RecordError) as info:
        settle({"1": seat("Ac Ad Kc Kd 7h 4s 2d", high=high, low=low)})
    assert f"$.seats.1: {problem}" in info.value.problems


# --- money is conserved -------------------------------------------------------------------------------


def random_round(rnd: random.Random) -> dict:
    shoe = list(deck(joker=True))
    rnd.shuffle(shoe)
    dealt = deal(shoe, start=rnd.choice([0, 1, 2, 3, 4, 5, 6]))
    seats = {}
    for n in rnd.sample(range(1, 7), rnd.randint(1, 6)):
        wagers = {"pai_gow": rnd.choice([1000, 2500, 10000])}
        if rnd.random() < 0.5:
            wagers["bonus"] = rnd.choice([100, 500, 2500])
        if rnd.random() < 0.3:
            wagers["insurance"] = rnd.choice([100, 500])
        seats[n] = wagers
    return pai_gow_record(dealt, seats)


@settings(max_examples=150)
@given(st.randoms(use_true_random=False), st.randoms(use_true_random=False))
def test_settlement_conserves_money_and_ignores_seat_order(rnd, shuffler) -> None:
    record = random_round(rnd)
    s = settle_record(record, TABLE)
    assert s.house_net == -sum(seat_.net for seat_ in s.seats)
    paid = sum(a.cents for step in s.procedure for a in step.actions if a.verb == "pay")
    collected = sum(a.cents for step in s.procedure for a in step.actions if a.verb == "collect")
    assert paid - collected == -s.house_net  # commission included
    for seat_ in s.seats:
        for w in seat_.wagers:
            assert (w.result is Result.LOSE) == (w.net < 0)
            if w.result in (Result.PUSH, Result.RETURNED):
                assert w.net == 0
    items = list(record["seats"].items())
    shuffler.shuffle(items)
    assert settle_record({**record, "seats": dict(items)}, TABLE).to_json() == s.to_json()


@settings(max_examples=60)
@given(st.randoms(use_true_random=False))
def test_pai_gow_round_record_round_trips(rnd) -> None:
    from controller.game.record._settle import GAMES

    record = random_round(rnd)
    game = GAMES["pai_gow"]
    again = game.round_record(game.read_round(record, TABLE))
    assert settle_record(again, TABLE).to_json() == settle_record(record, TABLE).to_json()


def test_a_foul_marked_by_the_dealer_follows_the_foul_policy() -> None:
    marked = {"1": {"wagers": {"pai_gow": 1000}, "cards": "Ac Ad Kc Kd 7h 4s 2d", "foul": True}}
    assert results(settle(marked), 1)["pai_gow"] == ("lose", -1000)
    reset = replace(TABLE, options={**TABLE.options, "foul_policy": "reset_by_house_way"})
    assert results(settle(marked, table=reset), 1)["pai_gow"] == ("win", 950)


# --- the cards collected where 11.15(d) puts them; the envy step as (d)3i words it ---------------


def test_d1ii_cards_kept_on_the_layout_by_another_seats_insurance_are_collected_at_the_end() -> None:
    """(d)1ii keeps every hand on the layout when anyone has insurance; (d)2 and (d)3 only say when
    the cards of seats with a bonus or insurance wager (or premium hands) go: the rest go last."""
    s = settle({"1": seat("Kd Jc Td 7c 3d 4h 6h"), "2": seat("As Qd Qc Jd 6s 3s 5d", insurance=100)})
    texts = [st.text for st in s.procedure]
    assert (
        "seat 1: high Kd 7c 6h 4h 3d / low Jc Td: pay pai gow 10.00; collect commission 0.50; cards stay on the layout"
        in texts
    )
    assert texts[-1] == "seat 1: discard the cards"


def test_d3i_the_envy_bonus_is_paid_then_its_marker_collected() -> None:
    s = settle({"1": seat("Qc Qd Qh Qs 8c 5d 2h"), "2": seat("Kd Jc 9d 7c 3d 6c 2d", bonus=500)})
    envy = [st.text for st in s.procedure if st.phase == "envy"]
    assert envy == ["seat 2: envy bonus: pay envy 5.00; collect the envy marker"]


def _random_round(rnd: random.Random) -> dict:
    cards = list(deck(joker=True))
    rnd.shuffle(cards)
    seats = {}
    for n in rnd.sample(range(1, 7), rnd.randint(1, 6)):
        optional = {k: rnd.choice([100, 500, 2500]) for k in ("bonus", "insurance") if rnd.random() < 0.4}
        seats[str(n)] = seat(format_cards(cards.pop() for _ in range(7)), **optional)
    return {"seats": seats, "dealer": format_cards(cards.pop() for _ in range(7))}


@settings(max_examples=150, deadline=None)
@given(st.randoms(use_true_random=False))
def test_every_hand_goes_to_the_discard_rack_once_and_every_text_is_in_plain_words(rnd: random.Random) -> None:
    r = _random_round(rnd)
    s = settle(r["seats"], r["dealer"])
    for n in r["seats"]:
        discards = [st.text for st in s.procedure if st.seat == int(n) and st.after.startswith("discard the cards")]
        assert len(discards) == 1, (n, [st.text for st in s.procedure if st.seat == int(n)])
    words = [st.text for st in s.procedure] + [w.why for x in s.seats for w in x.wagers]
    assert not [t for t in words if "_" in t.replace("pai gow", "")], "a code name in a text a person reads"


def test_the_shared_part_kept_from_the_last_round_is_reused_only_when_nothing_it_reads_differs() -> None:
    """Issue 42 item 5: the round's shared part (the dealer's house way, every hand's bonus and envy
    status) and each seat settled with it are kept from the last round settled (the table settles its round when the dealer's hand
    is set and again at the end); a round that differs in anything it reads is settled from scratch:
    each variation settles as it does with nothing kept, and so does the first round after it."""
    from controller.game.pai_gow import _rules as rules

    def doubled(name: str) -> dict:
        table = TABLE.paytables[name]
        rows = tuple(
            replace(r, amount=2 * r.amount)
            if r.amount
            else replace(r, odds=replace(r.odds, numerator=2 * r.odds.numerator))
            for r in table.rows
        )
        return {**TABLE.paytables, name: replace(table, rows=rows)}

    quads, other = "Qc Qd Qh Qs 8c 5d 2h", "Kd Jc 8d 7c 3d 6c 2d"  # four of a kind; a pai gow, king high
    dealer = "9c 9d 9h 9s 5c 4c 2s"
    seats = {"1": seat(quads, bonus=100), "3": seat(other, bonus=500, insurance=100)}
    first = (seats, dealer, TABLE)
    variations = [
        first,  # the same round (reused)
        ({"1": seats["1"], "3": seat(other, bonus=400, insurance=100)}, dealer, TABLE),  # no marker now
        ({"1": seat(quads), "3": seat(other, insurance=100)}, dealer, TABLE),  # insurance only
        ({"1": seat(quads), "3": seat(other)}, dealer, TABLE),  # and without it
        ({"1": seats["1"], "3": seat(other, bonus=500)}, dealer, TABLE),  # a marker, no insurance
        ({"1": seat(other, bonus=100), "3": seat(quads, bonus=500, insurance=100)}, dealer, TABLE),  # cards swapped
        ({"2": seats["1"], "3": seats["3"]}, dealer, TABLE),  # another seat
        ({"1": seat(quads, bonus=100, high="Qc Qd Qh Qs 8c", low="5d 2h"), "3": seats["3"]}, dealer, TABLE),  # a set
        (seats, "9c 9d 9h 9s 5c 4c 3s", TABLE),  # another dealer's hand
        (seats, {"cards": dealer, "high": "9c 9d 9h 9s 5c", "low": "4c 2s"}, TABLE),  # the dealer's set given
        (seats, dealer, replace(TABLE, options={**TABLE.options, "envy_includes_dealer": True})),
        (seats, dealer, replace(TABLE, options={**TABLE.options, "house_way": "ballys_ac"})),
        (seats, dealer, replace(TABLE, paytables=doubled("bonus"))),
        (seats, dealer, replace(TABLE, paytables=doubled("envy"))),
        (seats, dealer, replace(TABLE, paytables=doubled("insurance"))),
        ({"1": seat(quads, pai_gow=2000, bonus=100), "3": seats["3"]}, dealer, TABLE),  # another stake
        (
            {"1": {"wagers": {"pai_gow": 1000, "bonus": 100}, "cards": quads, "foul": True}, "3": seats["3"]},
            dealer,
            TABLE,
        ),
        (seats, dealer, replace(TABLE, payout_cap=1500)),  # a cap that bites
    ]

    def alone(seats: dict, dealer: object, table: object) -> dict:
        rules._LAST_ROUND = (None, None)  # nothing kept
        out = settle(seats, dealer=dealer, table=table).to_json()
        assert "misdeal" not in str(out)
        return out

    expected = [alone(*round_) for round_ in variations]
    for i in range(1, len(variations)):  # each after the first round and the one before it, and before both
        for j in (0, i, i - 1, i, 0):
            seats_, dealer_, table = variations[j]
            assert settle(seats_, dealer=dealer_, table=table).to_json() == expected[j], (i, j)
