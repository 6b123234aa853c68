"""Best five of seven, from 52 cards and from 53 with the joker as a bug, against the reference
(the maximum over all 21 five-card subsets and every legal joker substitution)."""

from __future__ import annotations

import pytest
import reference
from conftest import hand, hands_of, to_ref
from hypothesis import given, settings

from controller.hands import BOSTON5, PAI_GOW, Category, HandError, evaluate_best
from controller.vocab import JOKER, parse_cards

C = Category


@settings(max_examples=300)
@given(hands_of(7))
def test_best_of_seven_equals_the_best_subset(cards: list) -> None:
    value = evaluate_best(cards, BOSTON5)
    expected = reference.best_key(to_ref(cards))
    assert reference.key5(to_ref(value.best)) == expected
    assert value.category.value == reference.category(expected)


@settings(max_examples=150)
@given(hands_of(6))
def test_best_of_seven_with_the_joker_equals_the_best_substitution(six: list) -> None:
    cards = six + [JOKER]
    value = evaluate_best(cards, PAI_GOW)
    expected = reference.best_key(to_ref(cards), wheel_second_highest=True)
    assert value.category.value == reference.category(expected)
    best_real = [c for c in value.best if not c.is_joker]
    if len(best_real) == 5:
        assert reference.key5(to_ref(best_real), True) == expected
    else:
        assert max(reference.joker_keys(to_ref(best_real), True)) == expected


@settings(max_examples=150)
@given(hands_of(4))
def test_five_cards_with_the_joker_equal_the_best_substitution(four: list) -> None:
    value = evaluate_best(four + [JOKER], PAI_GOW)
    assert reference.category(max(reference.joker_keys(to_ref(four), True))) == value.category.value


@given(hands_of(7, joker=True), hands_of(7, joker=True))
def test_seven_card_order_is_consistent(a: list, b: list) -> None:
    va, vb = evaluate_best(a, PAI_GOW), evaluate_best(b, PAI_GOW)
    ka = reference.best_key(to_ref(a), True)
    kb = reference.best_key(to_ref(b), True)
    assert (va < vb) == (ka < kb) and (va == vb) == (ka == kb)


@given(hands_of(7, joker=True))
def test_seven_card_result_ignores_card_order(cards: list) -> None:
    a = evaluate_best(cards, PAI_GOW)
    b = evaluate_best(list(reversed(cards)), PAI_GOW)
    assert (a.strength, a.best) == (b.strength, b.best)


@pytest.mark.parametrize(
    "text, category, best",
    [
        ("Ac Ad Ah As JK 2c 3d", C.FIVE_ACES, "As Ah Ad Ac JK"),
        ("Kh Qh Jh Th JK 2c 3d", C.ROYAL_FLUSH, "JK Kh Qh Jh Th"),
        ("9s 8s 6s 5s JK 2c 3d", C.STRAIGHT_FLUSH, "9s 8s JK 6s 5s"),
        ("9s 8s 4s 2s JK Kc 3d", C.FLUSH, "JK 9s 8s 4s 2s"),
        ("As 8s 4s 2s JK Kc 3d", C.FLUSH, "As JK 8s 4s 2s"),  # the joker is the best missing card: Ks
        ("9c 8d 6h 5s JK 2c Kd", C.STRAIGHT, "9c 8d JK 6h 5s"),
        ("Kc Kd 9h 5s JK 2c 3d", C.ONE_PAIR, "Kd Kc JK 9h 5s"),  # as an ace: a kicker
        ("Ac Kd 9h 6s JK 2c 8d", C.ONE_PAIR, "Ac JK Kd 9h 8d"),  # as an ace: a pair of aces
        ("Qc Qd Qh 5s JK 2c 3d", C.THREE_OF_A_KIND, "Qh Qd Qc JK 5s"),  # not four queens
        ("Qc Qd 5h 5s JK 2c 3d", C.TWO_PAIR, "Qd Qc 5s 5h JK"),  # not a full house
        ("Ac Ad Kh Ks JK 2c 3d", C.FULL_HOUSE, "Ad Ac JK Ks Kh"),  # as the third ace
        ("2c 3d 4h 5s JK 9c Td", C.STRAIGHT, "5s 4h 3d 2c JK"),  # A-2-3-4-5 beats 6-high in pai gow
    ],
)
def test_joker_is_an_ace_or_completes_a_straight_or_flush(text: str, category: Category, best: str) -> None:
    value = hand(text, PAI_GOW)
    assert value.category is category
    assert value.best == parse_cards(best)


def test_five_aces_is_the_top_hand() -> None:
    assert hand("Ac Ad Ah As JK", PAI_GOW) > hand("As Ks Qs Js Ts", PAI_GOW)


def test_seven_cards_from_52_reject_the_joker() -> None:
    with pytest.raises(HandError, match="no joker"):
        hand("Ac Ad Ah As JK 2c 3d", BOSTON5)


def _multisets(size: int, rank: int = 14):
    """Every multiset of ``size`` ranks (at most four of each) as {rank: count}."""
    if size == 0:
        yield {}
        return
    if rank < 2:
        return
    for n in range(min(4, size), -1, -1):
        for rest in _multisets(size - n, rank - 1):
            yield {rank: n, **rest} if n else rest


def _unsuited(counts: dict) -> list:
    """Cards with these rank counts, suits spread so that no five share a suit."""
    used = {s: 0 for s in "cdhs"}
    cards = []
    for rank, n in counts.items():
        for suit in sorted(used, key=lambda s: (used[s], s))[:n]:
            used[suit] += 1
            cards.append((rank, suit))
    return cards


@pytest.mark.parametrize("second_highest_wheel", [False, True])
def test_every_seven_card_rank_multiset_is_ranked_as_the_reference_ranks_it(second_highest_wheel: bool) -> None:
    from controller.hands.fast import evaluator_for
    from controller.hands.rules import Wheel

    strength = evaluator_for(Wheel.SECOND_HIGHEST if second_highest_wheel else Wheel.LOWEST).strength
    suit_index = {"c": 0, "d": 1, "h": 2, "s": 3}
    rows = []
    for counts in _multisets(7):
        cards = _unsuited(counts)
        ours = strength([suit_index[s] * 13 + r - 2 for r, s in cards])
        rows.append((reference.best_key(cards, second_highest_wheel), ours))
    assert len(rows) == 49205
    rows.sort()
    for (k1, s1), (k2, s2) in zip(rows, rows[1:]):
        assert (k1 < k2) == (s1 < s2), (k1, k2)


@pytest.mark.parametrize(
    "text, category, best",
    [
        ("9c 9d 9h 8c 8d 8h 2s", C.FULL_HOUSE, "9h 9d 9c 8h 8d"),  # two sets of trips
        ("9c 9d 8h 8c 7d 7h As", C.TWO_PAIR, "9d 9c 8h 8c As"),  # three pairs: the best two and a kicker
        ("9c 9d 8h 8c 7d 7h 2s", C.TWO_PAIR, "9d 9c 8h 8c 7h"),  # the third pair's card as the kicker
        ("9c 9d 9h 9s 8c 8d 8h", C.FOUR_OF_A_KIND, "9s 9h 9d 9c 8h"),
        ("9c 9d 9h 8c 8d 7h 7s", C.FULL_HOUSE, "9h 9d 9c 8d 8c"),
    ],
)
def test_seven_card_group_cases(text: str, category: Category, best: str) -> None:
    value = hand(text)
    assert (value.category, value.best) == (category, parse_cards(best))
