"""Five-card hands: every sentence of the Boston 5 rank-of-cards section (seed 004), exhaustive
counts against the published figures, and property tests against the reference evaluator."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, permutations

import pytest
import reference
from conftest import hand, hands_of, to_ref
from hypothesis import given
from hypothesis import strategies as st

from controller.hands import BOSTON5, MISSISSIPPI_STUD, PAI_GOW, Category, HandError, evaluate_five
from controller.hands.categories import FIVE_CARD_ORDER
from controller.hands.fast import evaluator_for
from controller.hands.rules import Wheel
from controller.vocab import parse_cards

C = Category


def beats(a: str, b: str, rules=BOSTON5) -> bool:
    return hand(a, rules) > hand(b, rules)


# --- (a) rank of the cards -------------------------------------------------------------------

RANK_ORDER = "AKQJT98765432"


@pytest.mark.parametrize("higher, lower", list(zip(RANK_ORDER, RANK_ORDER[1:])))
def test_a_each_rank_outranks_the_next(higher: str, lower: str) -> None:
    # Two high-card hands that differ only in one card: the higher rank wins.
    filler = [r for r in "AKQJT98765432" if r not in (higher, lower)]
    # pick four fillers that do not make a straight with either card
    for combo in combinations(filler, 4):
        a = [higher + "s"] + [r + "d" for r in combo[:2]] + [r + "c" for r in combo[2:]]
        b = [lower + "s"] + a[1:]
        if hand(" ".join(a)).category is C.HIGH_CARD and hand(" ".join(b)).category is C.HIGH_CARD:
            assert beats(" ".join(a), " ".join(b))
            return
    pytest.fail("no filler found")


def test_a_ace_completes_a_straight_with_two_three_four_five() -> None:
    assert hand("As 2d 3c 4h 5s").category is C.STRAIGHT
    assert hand("As 2s 3s 4s 5s").category is C.STRAIGHT_FLUSH


def test_a_ace_is_high_otherwise() -> None:
    assert beats("As 7d 5c 4h 2s", "Ks Qd Jc 9h 7s")


# --- (b) the permissible hands, highest to lowest ----------------------------------------------

LADDER = [
    ("As Ks Qs Js Ts", C.ROYAL_FLUSH),
    ("9h 8h 7h 6h 5h", C.STRAIGHT_FLUSH),
    ("7c 7d 7h 7s 2d", C.FOUR_OF_A_KIND),
    ("4c 4d 4h 9s 9d", C.FULL_HOUSE),
    ("Kd 9d 6d 4d 2d", C.FLUSH),
    ("9c 8d 7h 6s 5d", C.STRAIGHT),
    ("Qc Qd Qh 9s 2d", C.THREE_OF_A_KIND),
    ("Jc Jd 4h 4s 2d", C.TWO_PAIR),
    ("Tc Td 8h 4s 2d", C.ONE_PAIR),
    ("Ac Qd 8h 4s 2d", C.HIGH_CARD),
]


@pytest.mark.parametrize("text, category", LADDER)
def test_b_each_category_is_recognised(text: str, category: Category) -> None:
    assert hand(text).category is category


@pytest.mark.parametrize("i", range(len(LADDER) - 1))
def test_b_categories_rank_in_the_listed_order(i: int) -> None:
    assert beats(LADDER[i][0], LADDER[i + 1][0])


def test_b1_royal_flush_is_ace_to_ten_of_one_suit() -> None:
    assert hand("Ah Kh Qh Jh Th").category is C.ROYAL_FLUSH
    assert hand("Ah Kh Qh Jh Td").category is C.STRAIGHT


def test_b2_straight_flush_highest_and_lowest() -> None:
    assert beats("Kc Qc Jc Tc 9c", "Qd Jd Td 9d 8d")
    lowest = hand("Ad 2d 3d 4d 5d")
    assert lowest.category is C.STRAIGHT_FLUSH
    assert lowest < hand("2h 3h 4h 5h 6h")
    assert all(lowest <= hand(f"{s}") for s in ["2h 3h 4h 5h 6h", "9s Ts Js Qs Ks"])


def test_b3_four_aces_highest_four_twos_lowest() -> None:
    assert beats("Ac Ad Ah As 2c", "Kc Kd Kh Ks Qc")
    assert beats("3c 3d 3h 3s 4c", "2c 2d 2h 2s Ac")


def test_b4_full_house_highest_and_lowest() -> None:
    assert beats("Ac Ad Ah Kc Kd", "Ac Ad Ah Qc Qd")
    assert beats("Ac Ad Ah 2c 2d", "Kc Kd Kh Ac Ad")  # the trips decide first
    assert beats("2c 2d 2h 4c 4d", "2c 2d 2h 3c 3d")
    assert hand("2c 2d 2h 3c 3d") < hand("3c 3d 3h 2c 2d")


def test_b5_flush_is_not_consecutive_highest_and_lowest() -> None:
    assert hand("Ac Kc Qc Jc 9c").category is C.FLUSH
    assert hand("2c 3c 4c 5c 7c").category is C.FLUSH
    assert hand("2c 3c 4c 5c 6c").category is C.STRAIGHT_FLUSH
    assert beats("Ac Kc Qc Jc 9c", "Ac Kc Qc Jc 8c")
    assert beats("2c 3c 4c 6c 7c", "2d 3d 4d 5d 7d")


def test_b6_straight_highest_lowest_and_no_wrap_around() -> None:
    assert beats("Ac Kd Qh Js Tc", "Kc Qd Jh Ts 9c")
    assert hand("Ac 2d 3h 4s 5c") < hand("2c 3d 4h 5s 6c")
    assert hand("Qc Kd Ah 2s 3c").category is C.HIGH_CARD
    assert hand("Kc Ad 2h 3s 4c").category is C.HIGH_CARD
    assert hand("Jc Qd Kh As 2c").category is C.HIGH_CARD


def test_b7_three_of_a_kind_highest_and_lowest() -> None:
    assert beats("Ac Ad Ah 2c 3d", "Kc Kd Kh Qc Jd")
    assert beats("3c 3d 3h 4c 5d", "2c 2d 2h Ac Kd")


def test_b8_two_pairs_highest_and_lowest() -> None:
    assert beats("Ac Ad Kh Ks 2c", "Ac Ad Qh Qs Kc")
    assert beats("4c 4d 2h 2s 3c", "3c 3d 2h 2s Ac")


def test_b9_one_pair_highest_and_lowest() -> None:
    assert beats("Ac Ad 4h 3s 2c", "Kc Kd Qh Js 9c")
    assert beats("3c 3d 4h 5s 7c", "2c 2d Ah Ks Qc")


# --- (c) ties -----------------------------------------------------------------------------------


def test_c_highest_card_not_held_by_the_other_hand_decides() -> None:
    assert beats("Kc Kd 9h 5s 3c", "Kh Ks 9c 5d 2c")  # 3 beats 2 after K K 9 5
    assert beats("Ac Qd 8h 4s 3c", "Ad Qh 8c 4d 2s")
    assert beats("9c 9d 8h 8s Ac", "9h 9s 8c 8d Kc")
    assert beats("Ac Jc 9c 7c 5c", "Ad Jd 9d 7d 4d")


def test_c_identical_ranks_are_a_push_whatever_the_suits() -> None:
    assert hand("Ac Qd 8h 4s 3c") == hand("Ad Qh 8c 4d 3s")
    assert hand("Tc Jc Qc Kc 9c") == hand("Th Jh Qh Kh 9h")
    assert hand("5c 5d 5h 9s 9c") == hand("5s 5d 5h 9d 9h")


def test_c_suits_never_break_ties() -> None:
    # A spade hand against the same ranks in clubs: equal, either way round.
    a, b = hand("As Ks 9s 5s 2s"), hand("Ac Kc 9c 5c 2c")
    assert not a > b and not b > a and a == b


# --- exhaustive counts --------------------------------------------------------------------------

PUBLISHED_FIVE_CARD = {
    C.ROYAL_FLUSH: 4,
    C.STRAIGHT_FLUSH: 36,
    C.FOUR_OF_A_KIND: 624,
    C.FULL_HOUSE: 3744,
    C.FLUSH: 5108,
    C.STRAIGHT: 10200,
    C.THREE_OF_A_KIND: 54912,
    C.TWO_PAIR: 123552,
    C.ONE_PAIR: 1098240,
    C.HIGH_CARD: 1302540,
}


@pytest.mark.parametrize("wheel", list(Wheel))
def test_all_2598960_five_card_hands_have_the_published_counts(wheel: Wheel) -> None:
    strength = evaluator_for(wheel).strength
    per_category: Counter = Counter()
    distinct: set[int] = set()
    for five in combinations(range(52), 5):
        s = strength(five)
        per_category[s >> 20] += 1
        distinct.add(s)
    assert {FIVE_CARD_ORDER[i]: n for i, n in per_category.items()} == PUBLISHED_FIVE_CARD
    assert len(distinct) == 7462  # the published number of distinct five-card hand values


def _class_representatives() -> list[list]:
    """One hand for each of the 7462 distinct five-card values (by rank multiset and flushness)."""
    reps = []
    for ranks in combinations(range(2, 15), 5):
        reps.append([(r, "s") for r in ranks])  # flush (or straight flush)
        reps.append([(r, s) for r, s in zip(ranks, "cdhsc")])
    for shape in ((4, 1), (3, 2), (3, 1, 1), (2, 2, 1), (2, 1, 1, 1)):
        for ranks in permutations(range(2, 15), len(shape)):
            if any(ranks[i] < ranks[i + 1] and shape[i] == shape[i + 1] for i in range(len(shape) - 1)):
                continue
            cards = []
            for r, n in zip(ranks, shape):
                cards += [(r, s) for s in "cdhs"[:n]]
            reps.append(cards)
    return reps


@pytest.mark.parametrize("wheel", list(Wheel))
def test_order_of_every_distinct_value_matches_the_reference(wheel: Wheel) -> None:
    strength = evaluator_for(wheel).strength
    second = wheel is Wheel.SECOND_HIGHEST
    suit_index = {"c": 0, "d": 1, "h": 2, "s": 3}
    rows = []
    for cards in _class_representatives():
        ours = strength([suit_index[s] * 13 + r - 2 for r, s in cards])
        rows.append((reference.key5(cards, second), ours))
    assert len({k for k, _ in rows}) == 7462
    rows.sort()
    for (k1, s1), (k2, s2) in zip(rows, rows[1:]):
        assert (k1 < k2) == (s1 < s2) and (k1 == k2) == (s1 == s2), (k1, k2)


# --- properties ---------------------------------------------------------------------------------


@given(hands_of(5), hands_of(5))
def test_comparison_is_a_total_order_consistent_with_the_reference(a: list, b: list) -> None:
    va, vb = evaluate_five(a, BOSTON5), evaluate_five(b, BOSTON5)
    ka, kb = reference.key5(to_ref(a)), reference.key5(to_ref(b))
    assert (va < vb) == (ka < kb)
    assert (va == vb) == (ka == kb)
    assert (va < vb) + (va == vb) + (va > vb) == 1
    assert va.category.value == reference.category(ka)


@given(hands_of(5), st.randoms(use_true_random=False))
def test_permuting_the_cards_never_changes_the_result(cards: list, rnd) -> None:
    value = evaluate_five(cards, MISSISSIPPI_STUD)
    shuffled = list(cards)
    rnd.shuffle(shuffled)
    again = evaluate_five(shuffled, MISSISSIPPI_STUD)
    assert (again.strength, again.category, again.best) == (value.strength, value.category, value.best)


@given(hands_of(5))
def test_best_is_the_hand_itself_reordered(cards: list) -> None:
    value = evaluate_five(cards, BOSTON5)
    assert sorted(c.index for c in value.best) == sorted(c.index for c in cards)


def test_wrong_card_count_and_joker_outside_pai_gow_are_errors() -> None:
    with pytest.raises(HandError, match="needs 5 cards, got 4"):
        evaluate_five(parse_cards("As Kd Qh Jc"), BOSTON5)
    with pytest.raises(HandError, match="card 5 'JK'"):
        evaluate_five(parse_cards("As Kd Qh Jc JK"), BOSTON5)


def test_pai_gow_wheel_is_second_highest_but_not_in_boston5() -> None:
    wheel, broadway, king_high = "Ac 2d 3h 4s 5c", "Ac Kd Qh Js Tc", "Kc Qd Jh Ts 9c"
    assert hand(king_high, PAI_GOW) < hand(wheel, PAI_GOW) < hand(broadway, PAI_GOW)
    assert hand(wheel, BOSTON5) < hand("2c 3d 4h 5s 6c", BOSTON5) < hand(king_high, BOSTON5)
    sf_wheel, sf_king = "As 2s 3s 4s 5s", "Ks Qs Js Ts 9s"
    assert hand(sf_king, PAI_GOW) < hand(sf_wheel, PAI_GOW) < hand("As Ks Qs Js Ts", PAI_GOW)
