"""Three-card bonus hands: Boston 5 seed 004 (d) sentence by sentence, the Mississippi mini royal,
and exhaustive counts over all 22,100 hands against the published three-card figures."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from conftest import hands_of
from hypothesis import given

from controller.hands import BOSTON5, MISSISSIPPI_STUD, PAI_GOW, Category, HandError, evaluate_three
from controller.vocab import ALL_CARDS, parse_cards

C = Category


def three(text: str, rules=BOSTON5):
    return evaluate_three(parse_cards(text), rules)


def test_d1_straight_flush_is_three_suited_consecutive_cards() -> None:
    assert three("9h Th Jh").category is C.STRAIGHT_FLUSH


def test_d2_three_of_a_kind_is_three_of_one_rank() -> None:
    assert three("7c 7d 7s").category is C.THREE_OF_A_KIND


def test_d3_straight_is_three_unsuited_consecutive_cards() -> None:
    assert three("9h Tc Jh").category is C.STRAIGHT
    assert three("Qd Kc Ah").category is C.STRAIGHT


def test_d3_ace_may_not_join_king_and_two() -> None:
    assert three("Kd Ac 2h").category is C.HIGH_CARD
    assert three("Kd Ad 2d").category is C.FLUSH


def test_ace_two_three_is_the_lowest_straight() -> None:
    # Decision recorded in evaluate_three's docstring: (d)3 forbids only K-A-2.
    low = three("Ad 2c 3h")
    assert low.category is C.STRAIGHT
    assert low < three("2d 3c 4h") < three("Qd Kc Ah")
    assert three("Ad 2d 3d").category is C.STRAIGHT_FLUSH
    assert three("Ad 2d 3d") < three("2h 3h 4h")


def test_d4_flush_is_three_suited_cards_not_consecutive() -> None:
    assert three("2s 7s Js").category is C.FLUSH


def test_d5_one_pair_is_two_cards_of_one_rank() -> None:
    assert three("Qs Qd 4c").category is C.ONE_PAIR


def test_d_order_straight_flush_trips_straight_flush_pair_high() -> None:
    ladder = ["4h 5h 6h", "2c 2d 2s", "4h 5c 6h", "2h 9h Kh", "Ac Ad Kc", "Ac Kd Jc"]
    values = [three(t) for t in ladder]
    assert values == sorted(values, reverse=True)
    assert len(set(v.strength for v in values)) == len(values)


def test_ties_break_by_highest_card_not_held_by_the_other() -> None:
    assert three("Ks Kd 9c") > three("Kh Kc 8c")
    assert three("As Jd 4c") > three("Ah Jc 3c")
    assert three("As Jd 4c") == three("Ah Jc 4d")


def test_mississippi_mini_royal_tops_its_straight_flush() -> None:
    mini = three("Ah Kh Qh", MISSISSIPPI_STUD)
    assert mini.category is C.MINI_ROYAL
    assert mini > three("Kh Qh Jh", MISSISSIPPI_STUD)
    # in Boston 5 the same cards are simply the best straight flush
    assert three("Ah Kh Qh").category is C.STRAIGHT_FLUSH


PUBLISHED_THREE_CARD = {
    C.STRAIGHT_FLUSH: 48,
    C.THREE_OF_A_KIND: 52,
    C.STRAIGHT: 720,
    C.FLUSH: 1096,
    C.ONE_PAIR: 3744,
    C.HIGH_CARD: 16440,
}


@pytest.mark.parametrize("rules", [BOSTON5, MISSISSIPPI_STUD], ids=lambda r: r.game)
def test_all_22100_three_card_hands_have_the_published_counts(rules) -> None:
    counts = Counter(evaluate_three(h, rules).category for h in combinations(ALL_CARDS[:52], 3))
    expected = dict(PUBLISHED_THREE_CARD)
    if rules is MISSISSIPPI_STUD:
        expected[C.STRAIGHT_FLUSH] = 44
        expected[C.MINI_ROYAL] = 4
    assert dict(counts) == expected


@given(hands_of(3), hands_of(3))
def test_order_is_consistent_with_category_then_ranks(a: list, b: list) -> None:
    va, vb = evaluate_three(a, MISSISSIPPI_STUD), evaluate_three(b, MISSISSIPPI_STUD)
    order = MISSISSIPPI_STUD.three_card
    assert order is not None
    if va.category != vb.category:
        assert (va < vb) == (order.index(va.category) < order.index(vb.category))
    assert (va.strength == vb.strength) == (va == vb)


@given(hands_of(3))
def test_permutation_does_not_change_three_card_value(cards: list) -> None:
    a = evaluate_three(cards, BOSTON5)
    b = evaluate_three(list(reversed(cards)), BOSTON5)
    assert (a.strength, a.best) == (b.strength, b.best)


def test_pai_gow_has_no_three_card_hands() -> None:
    with pytest.raises(HandError, match="no three-card hands"):
        three("As Kd Qh", PAI_GOW)
