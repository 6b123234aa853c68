"""Boston 5 stud settlement, sentence by sentence from N.J.A.C. 13:69F-24.10 (seed 000) and 24.8
(seed 002), with the default bench table (config/boston5.yaml)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from table_helpers import assert_refused

from controller.configuration import default_table_path, load_table
from controller.game.record import RecordError, settle_record

TABLE = load_table(default_table_path("boston5"))
DEALER_PAIR_OF_NINES = "9c 9d 5h 3s 2c"


def seat(cards: str, ante: int = 500, bonus: int | None = None, exposed: bool = False, folded: bool = False) -> dict:
    wagers = {"ante": ante, "first": 2 * ante}
    if not folded:
        wagers["second"] = 2 * ante
    if bonus:
        wagers["bonus"] = bonus
    return {"wagers": wagers, "cards": cards, "exposed_bonus": exposed, "folded": folded}


def settle(seats: dict, dealer: str = DEALER_PAIR_OF_NINES, table=TABLE):
    return settle_record({"game": "boston5", "seats": seats, "dealer": dealer}, table)


def results(settlement, number: int) -> dict:
    return {w.spot: (w.result.value, w.net) for w in settlement.seat(number).wagers}


# --- 24.10(a): the optional bonus on the first three cards --------------------------------------


def test_a_exposed_qualifying_bonus_is_paid_per_the_bonus_paytable() -> None:
    s = settle({"1": seat("Kc Kd 4h 7s 8d", bonus=500, exposed=True)})
    assert results(s, 1)["bonus"] == ("win", 500)  # pair pays 1 to 1 (b5_bonus_a)
    s = settle({"1": seat("4h 6h 7h Ks 8d", bonus=200, exposed=True)})
    assert results(s, 1)["bonus"] == ("win", 800)  # three-card flush 4 to 1
    s = settle({"1": seat("6h 7h 8h Ks Qd", bonus=200, exposed=True)})
    assert results(s, 1)["bonus"] == ("win", 8000)  # three-card straight flush 40 to 1


def test_a_bonus_not_exposed_loses_even_with_a_qualifying_hand() -> None:
    s = settle({"1": seat("Kc Kd 4h 7s 8d", bonus=500, exposed=False)})
    assert results(s, 1)["bonus"] == ("lose", -500)


def test_a_exposed_non_qualifying_bonus_loses() -> None:
    s = settle({"1": seat("Kc Qd 4h 7s 7d", bonus=500, exposed=True)})
    assert results(s, 1)["bonus"] == ("lose", -500)  # the pair of 7s is in the last two cards


def test_a_bonus_uses_the_chosen_paytable() -> None:
    table_b = replace(TABLE, paytables={**TABLE.paytables, "bonus": _paytables()["b5_bonus_b"]})
    flush = {"1": seat("2h 7h Jh Ks 8d", bonus=500, exposed=True)}
    assert results(settle(flush), 1)["bonus"] == ("win", 2000)  # table A: flush 4 to 1
    assert results(settle(flush, table=table_b), 1)["bonus"] == ("win", 1500)  # table B: 3 to 1


def test_a_losing_bonus_collected_then_winning_bonus_paid_before_the_rest() -> None:
    s = settle(
        {"1": seat("Kc Kd 4h 7s 8d", bonus=500, exposed=True), "6": seat("Ac Qd 4s 7c 8c", bonus=500, exposed=True)}
    )
    phases = [(step.phase, step.seat, step.actions[0].verb if step.actions else None) for step in s.procedure]
    assert phases[:2] == [("bonus", 6, "collect"), ("bonus", 1, "pay")]
    assert phases[2][0] == "dealer"


def test_bonus_is_settled_whatever_the_player_does_next() -> None:
    s = settle({"1": seat("Kc Kd 4h", bonus=500, exposed=True, folded=True)})
    assert results(s, 1) == {"bonus": ("win", 500), "ante": ("lose", -500), "first": ("lose", -1000)}


# --- 24.10(b): second wager or fold ----------------------------------------------------------------


def test_b_fold_forfeits_ante_and_first_wager() -> None:
    s = settle({"3": seat("2d 7d 9h", folded=True)})
    assert results(s, 3) == {"ante": ("lose", -500), "first": ("lose", -1000)}
    assert s.procedure[0].text == "seat 3: folds: collect ante 5.00, first 10.00; discard the cards unexposed"


def test_b_second_wager_must_equal_the_first() -> None:
    record = {"1": seat("Ac Kd Qh Js 9s")}
    record["1"]["wagers"]["second"] = 500
    with pytest.raises(
        RecordError, match=r"\$\.seats\.1\.wagers\.second: must equal the first wager \(1000\), got 500"
    ):
        settle(record)


# --- 24.10(f): resolution against the dealer ---------------------------------------------------------


def test_f1_dealer_higher_ante_first_and_second_lose() -> None:
    s = settle({"1": seat("8c 8d 5c 3d 2h")})
    assert results(s, 1) == {"ante": ("lose", -500), "first": ("lose", -1000), "second": ("lose", -1000)}


def test_f2_tie_is_a_push() -> None:
    s = settle({"1": seat("9h 9s 5d 3c 2s")})
    assert results(s, 1) == {"ante": ("push", 0), "first": ("push", 0), "second": ("push", 0)}


def test_f3_player_higher_first_and_second_win_even_money_ante_returned() -> None:
    s = settle({"1": seat("Tc Td 5c 3d 2h")})
    assert results(s, 1) == {"ante": ("returned", 0), "first": ("win", 1000), "second": ("win", 1000)}


def test_f3_player_higher_with_an_ante_bonus_hand() -> None:
    s = settle({"1": seat("Kc Kd Ks 3d 2h")})  # trips: 1 to 1 in the example ante bonus table
    assert results(s, 1) == {
        "ante": ("returned", 0),
        "first": ("win", 1000),
        "second": ("win", 1000),
        "ante_bonus": ("win", 500),
    }


def test_f3_ante_bonus_paid_even_when_the_player_loses() -> None:
    s = settle({"1": seat("8c 8d 8h 3d 2h")}, dealer="Jc Jd Jh 4s 4c")  # dealer full house beats trips
    assert results(s, 1) == {
        "ante": ("lose", -500),
        "first": ("lose", -1000),
        "second": ("lose", -1000),
        "ante_bonus": ("win", 500),
    }
    step = [st for st in s.procedure if st.phase == "settle"][0]
    assert step.text.endswith("collect ante 5.00, first 10.00, second 10.00; pay ante bonus 5.00; discard the cards")


def test_f3_ante_bonus_paid_on_a_tie() -> None:
    s = settle({"1": seat("Ac Kc 9c 5c 2c")}, dealer="Ad Kd 9d 5d 2d")
    assert results(s, 1)["ante"] == ("push", 0) and results(s, 1)["ante_bonus"] == ("win", 1000)  # flush 2 to 1


def test_f_resolved_counterclockwise_from_the_dealers_right() -> None:
    s = settle(
        {n: seat(cards) for n, cards in (("1", "Tc Td 5c 3d 2h"), ("4", "8c 8d 5d 3h 2d"), ("6", "Ac Ad 6s 4s 2s"))}
    )
    assert [st.seat for st in s.procedure if st.phase == "settle"] == [6, 4, 1]


def test_dealer_sets_the_highest_hand() -> None:
    s = settle({"1": seat("Tc Td 6c 3d 2h")}, dealer="As 2d 3c 4h 5c")
    assert s.dealer["category"] == "straight"
    assert results(s, 1)["first"] == ("lose", -1000)


# --- the record is checked before anything is settled -------------------------------------------------


def test_first_must_be_twice_the_ante_and_bonus_needs_the_main_wagers() -> None:
    bad = {
        "1": {"wagers": {"ante": 500, "first": 500, "second": 500}, "cards": "Ac Kd Qh Js 9s"},
        "2": {"wagers": {"bonus": 500}, "cards": "2c 3c 4c", "folded": True},
    }
    assert_refused(
        lambda: settle(bad),
        "$.seats.1.wagers.first: must be 2 x the ante (1000), got 500",
        "$.seats.2.wagers: missing the ante wager (ante and first are required)",
        "$.seats.2.wagers: missing the first wager (ante and first are required)",
    )


def test_record_problems_are_all_listed_by_json_path() -> None:
    bad = {
        "1": seat("Ac Kd Qh Js", ante=500),
        "2": {"wagers": {"ante": 500, "first": 1000}, "cards": "2c 3c 4c 5c 6c"},
        "3": {**seat("Ac 2d 3h", folded=True), "wagers": {"ante": 500, "first": 1000, "second": 1000}},
        "9": seat("7c 7d 7h 7s 6d"),
        "4": {**seat("2s 3s 4s 5s 6s"), "tip": 100},
    }
    bad["1"]["wagers"]["side"] = 100
    assert_refused(
        lambda: settle(bad, dealer="Ac 9d 8d 7d 6d"),
        "$.seats.1.wagers.side: unknown wager spot (known: ante, first, second, bonus)",
        "$.seats.1.cards: needs 5 cards, got 4",
        "$.seats.2.wagers: missing the second wager (equal to the first), or set folded: true",
        "$.seats.3.wagers.second: a player who folded has no second wager",
        "$.seats.9: no seat '9' at this table (seats 1 to 6)",
        "$.seats.4.tip: unknown key (a seat has cards, exposed_bonus, folded, wagers)",
        "$.dealer: card 1 'Ac' is also dealt at $.seats.3.cards",
    )


def test_limits_come_from_the_table() -> None:
    with pytest.raises(RecordError, match=r"\$\.seats\.1\.wagers\.ante: 100 is outside the table limits 500 to 50000"):
        settle({"1": seat("Tc Td 5c 3d 2h", ante=100)})


def test_a_table_without_the_bonus_paytable_refuses_bonus_wagers() -> None:
    plain = replace(TABLE, paytables={"ante_bonus": TABLE.paytables["ante_bonus"]})
    with pytest.raises(RecordError, match="does not offer the bonus wager"):
        settle({"1": seat("Tc Td 5c 3d 2h", bonus=500)}, table=plain)


def _paytables():
    from controller.configuration import load_paytables

    return load_paytables(default_table_path("boston5").parent / "paytables")
