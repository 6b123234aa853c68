"""Pai gow two-card low hands and the seven-card bonus categories (digest 3.3, 3.6)."""

from __future__ import annotations

import pytest
from conftest import hands_of
from hypothesis import given

from controller.hands import BOSTON5, PAI_GOW, Category, HandError, classify_bonus, evaluate_low, paying_line
from controller.vocab import JOKER, parse_cards

C = Category


def low(text: str):
    return evaluate_low(parse_cards(text), PAI_GOW)


def bonus(text: str):
    return classify_bonus(parse_cards(text), PAI_GOW)


def test_low_pair_beats_no_pair() -> None:
    assert low("2c 2d") > low("Ac Kd")
    assert low("Ac Ad") > low("Kc Kd") > low("2c 2d")
    assert low("Ac Kd") > low("Ac Qd") > low("Kc Qd") > low("3c 2d")
    assert low("Ac Kd") == low("Ad Kc")


def test_joker_in_the_low_hand_is_an_ace() -> None:
    assert low("JK Ac").category is C.ONE_PAIR
    assert low("JK Ac") == low("Ad Ac")
    assert low("JK Kc") == low("Ad Kc")
    assert low("JK 2c").category is C.HIGH_CARD


def test_low_hands_only_in_pai_gow() -> None:
    with pytest.raises(HandError):
        evaluate_low(parse_cards("As Kd"), BOSTON5)


@given(hands_of(2, joker=True), hands_of(2, joker=True))
def test_low_hand_order_is_pair_then_ranks(a: list, b: list) -> None:
    def key(cards: list) -> tuple:
        ranks = sorted((14 if c.is_joker else int(c.rank) for c in cards), reverse=True)
        return (ranks[0] == ranks[1], ranks)

    va, vb = evaluate_low(a, PAI_GOW), evaluate_low(b, PAI_GOW)
    assert (va < vb) == (key(a) < key(b)) and (va == vb) == (key(a) == key(b))


# --- seven-card bonus -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, category",
    [
        ("2h 3h 4h 5h 6h 7h 8h", C.SEVEN_CARD_STRAIGHT_FLUSH),
        ("Ah 2h 3h 4h 5h 6h 7h", C.SEVEN_CARD_STRAIGHT_FLUSH),  # the ace plays low, as the wheel does
        ("2h 3h 4h JK 6h 7h 8h", C.SEVEN_CARD_STRAIGHT_FLUSH_JOKER),
        ("9h Th Jh Qh Kh Ah JK", C.SEVEN_CARD_STRAIGHT_FLUSH_JOKER),  # the joker extends it down to 8h
        ("As Ks Qs Js Ts Kd Qd", C.ROYAL_FLUSH_ROYAL_MATCH),
        ("As Ks JK Js Ts Kd Qd", C.ROYAL_FLUSH_ROYAL_MATCH),  # the joker completes the royal
        ("As Ks Qs Js Ts Kd Qc", C.ROYAL_FLUSH),  # K-Q not suited: no match
        ("Ac Ad Ah As JK 2c 3d", C.FIVE_ACES),
        ("As Ks Qs Js Ts 2d 3d", C.ROYAL_FLUSH),
        ("9s Ts Js Qs Ks 2d 3d", C.STRAIGHT_FLUSH),
        ("9c 9d 9h 9s 2c 3d 5h", C.FOUR_OF_A_KIND),
        ("9c 9d 9h 2s 2c 3d 5h", C.FULL_HOUSE),
        ("2c 5c 9c Jc Kc 3d 5h", C.FLUSH),
        ("2c 3d 4h 5s 6c 9d Kh", C.STRAIGHT),
        ("9c 9d 9h 2s 4c 6d Kh", C.THREE_OF_A_KIND),
    ],
)
def test_bonus_categories(text: str, category: Category) -> None:
    assert bonus(text).category is category


def test_seven_card_straight_flush_with_joker_is_not_the_natural_one() -> None:
    assert C.SEVEN_CARD_STRAIGHT_FLUSH not in bonus("2h 3h 4h JK 6h 7h 8h").qualifies
    assert (
        bonus("2h 3h 4h 5h 6h 7h 8h").strength
        > bonus("As Ks Qs Js Ts Kd Qd").strength
        > bonus("2h 3h 4h JK 6h 7h 8h").strength
        > bonus("Ac Ad Ah As JK 2c 3d").strength
    )


def test_a_hand_qualifies_for_every_line_five_of_its_cards_make() -> None:
    value = bonus("5c 6d 7h 8s 9c 9d 9h")
    assert value.category is C.STRAIGHT
    assert C.THREE_OF_A_KIND in value.qualifies and C.STRAIGHT in value.qualifies
    assert C.FULL_HOUSE not in value.qualifies


def test_paid_once_at_the_highest_paying_line() -> None:
    fortune = {C.STRAIGHT: 2, C.THREE_OF_A_KIND: 3, C.FLUSH: 4}
    value = bonus("5c 6d 7h 8s 9c 9d 9h")
    assert paying_line(value.qualifies, fortune, key=lambda odds: odds) is C.THREE_OF_A_KIND
    assert paying_line(bonus("2c 5d 9h Js Kc 3d 4h").qualifies, fortune, key=lambda o: o) is None


def test_joker_is_only_an_ace_for_the_pair_lines() -> None:
    value = bonus("Qc Qd Qh 5s JK 2c 8d")
    assert C.FOUR_OF_A_KIND not in value.qualifies
    assert value.category is C.THREE_OF_A_KIND


def test_bonus_needs_seven_cards_in_pai_gow() -> None:
    with pytest.raises(HandError):
        classify_bonus(parse_cards("As Ks Qs Js Ts"), PAI_GOW)
    with pytest.raises(HandError):
        classify_bonus(parse_cards("As Ks Qs Js Ts 2c 3c"), BOSTON5)


@given(hands_of(6))
def test_bonus_top_category_agrees_with_best_five_unless_seven_card(six: list) -> None:
    from controller.hands import evaluate_best

    cards = six + [JOKER]
    value = classify_bonus(cards, PAI_GOW)
    five = evaluate_best(cards, PAI_GOW)
    assert five.category in value.qualifies
    seven_card = {C.SEVEN_CARD_STRAIGHT_FLUSH_JOKER, C.ROYAL_FLUSH_ROYAL_MATCH}
    assert value.category is five.category or value.category in seven_card


@given(hands_of(7))
def test_bonus_shown_is_the_classifications_category_and_best(seven: list) -> None:
    """What a hand's recall shows without its lines is classify_bonus's own category and cards."""
    from controller.hands import bonus_shown

    value = classify_bonus(seven, PAI_GOW)
    assert bonus_shown(seven, PAI_GOW) == (value.category, value.best)


@given(hands_of(6))
def test_bonus_shown_with_the_joker(six: list) -> None:
    from controller.hands import bonus_shown

    cards = [*six[:3], JOKER, *six[3:]]
    value = classify_bonus(cards, PAI_GOW)
    assert bonus_shown(cards, PAI_GOW) == (value.category, value.best)


@pytest.mark.parametrize(
    "text",
    [
        "2s 3s 4s 5s 6s 7s 8s",  # a seven-card straight flush
        "2s 3s 4s JK 6s 7s 8s",  # the joker completes it
        "As Ks Qs Js Ts Kh Qh",  # royal flush plus royal match
        "As Ks Qs JK Ts Kh Qh",
        "As Ad Ac JK Kd Ks 2c",  # five aces
        "9s Ts Js Qs Ks 2h 3d",  # a straight flush (five of seven)
        "9s 9h 9d 9c 2s 2h 3d",
    ],
)
def test_bonus_shown_on_the_top_categories(text: str) -> None:
    from controller.hands import bonus_shown

    value = bonus(text)
    assert bonus_shown(parse_cards(text), PAI_GOW) == (value.category, value.best)
