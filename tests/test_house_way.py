"""House ways: a hand for every rule line of ../shared/rules/house-ways.md, for Foxwoods and Bally's,
and properties: always legal, never dependent on card order, "highest possible" really highest."""

from __future__ import annotations

import pytest
from conftest import hands_of
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.game.pai_gow._house_way import HOUSE_WAYS, set_by_house_way
from controller.game.registry import definition
from controller.hands import Category
from controller.vocab import parse_cards

FOXWOODS = [
    # (cards, expected low hand, rule)
    ("Ah Kd 9c 7s 5h 3c 2d", "Kd 9c", "no_pair"),
    ("9h 9d Kc 8s 5h 3c 2d", "Kc 8s", "one_pair"),
    ("Jh Jd 4c 4s Ah 3c 2d", "4s 4c", "two_pair"),  # big pair J-A: split, small pair in front
    ("Th Td 4c 4s Ah 3c 2d", "Ah 3c", "two_pair"),  # big pair 10-7, an ace: both pairs in back
    ("Th Td 4c 4s Kh 3c 2d", "4s 4c", "two_pair"),  # big pair 10-7, no ace: split
    ("7h 7d 4c 4s Kh 3c 2d", "4s 4c", "two_pair"),  # 7s are in the 10-7 band: a king is not enough
    ("6h 6d 4c 4s Kh 3c 2d", "Kh 3c", "two_pair"),  # big pair 6-3, a king: both pairs in back
    ("6h 6d 4c 4s Qh 3c 2d", "4s 4c", "two_pair"),  # big pair 6-3, no king or ace: split
    ("9h 9d 6c 6s 3h 3c Kd", "9h 9d", "three_pair"),
    ("Ah Ad Ac Ks 5h 3c 2d", "Ah Ks", "three_of_a_kind"),  # aces: an ace and the next highest in front
    ("Kh Kd Kc 9s 5h 3c 2d", "9s 5h", "three_of_a_kind"),  # kings and below: trips in back
    ("Tc Td Th 3s 3c 3d 2h", "Th Td", "two_trips"),
    ("2h 5h 9h Jh Kh Ad Qc", "Ad Qc", "straight_or_flush"),  # no pair: two highest that leave the flush
    ("5c 6d 7h 8s 9c Kd Qh", "Kd Qh", "straight_or_flush"),
    ("4c 5d 6h 7s 8c 9d 9h", "9h 9d", "straight_or_flush"),  # one pair: the highest two, pair or not
    ("Ac Kd Kh Qs Jc Td 2h", "Ac Qs", "straight_or_flush"),  # exception: ace and a pair of K-T
    ("5c 6d 7h 8s 9c 9d 5h", "5h 5c", "two_pair"),  # with two pair: the two-pair rule
    ("5c 6d 7h 8s 9c 9d 9h", "9h 9d", "straight_or_flush"),  # with trips: complete hand back, pair front
    ("7c 7d 7h 4s 4c Kd 2h", "4s 4c", "full_house"),
    ("7c 7d 7h 4s 4c 2d 2h", "4s 4c", "full_house"),  # the highest permissible pair
    ("Qc Qd Qh Qs 9c 5d 2h", "Qs Qh", "four_of_a_kind"),  # A, K, Q, J: always split
    ("9c 9d 9h 9s Kc 5d 2h", "Kc 5d", "four_of_a_kind"),  # 10-7 with a king to go in front
    ("9c 9d 9h 9s Qc 5d 2h", "9s 9h", "four_of_a_kind"),  # 10-7 otherwise: split
    ("5c 5d 5h 5s 8c 9d 2h", "9d 8c", "four_of_a_kind"),  # 6 and below: never split
    ("Qc Qd Qh Qs 9c 9d 2h", "9d 9c", "four_of_a_kind"),  # with an extra pair: that pair in front
    ("As Ad Ac Ah JK Kc Kd", "Kd Kc", "five_aces"),  # unless a pair of kings can go in front
    ("As Ad Ac Ah JK 9c 2d", "As Ah", "five_aces"),  # a pair of aces in front
]

BALLYS = [
    ("5h 5d 3c 3s Kh 9c 2d", "Kh 9c", "two_pair"),  # low/low with a king: both in back
    ("5h 5d 3c 3s Qh 9c 2d", "3s 3c", "two_pair"),  # low/low: split
    ("8h 8d 3c 3s Ah 9c 2d", "Ah 9c", "two_pair"),  # low/middle with an ace
    ("8h 8d 3c 3s Qh 9c 2d", "3s 3c", "two_pair"),  # low/middle: split
    ("Jh Jd 3c 3s Ah 9c 2d", "Ah 9c", "two_pair"),  # low/high with an ace
    ("Jh Jd 3c 3s Kh 9c 2d", "3s 3c", "two_pair"),  # low/high, a king is not enough: split
    ("9h 9d 7c 7s Ah Kc 2d", "Ah Kc", "two_pair"),  # middle/middle with an ace
    ("9h 9d 7c 7s Kh Qc 2d", "7s 7c", "two_pair"),  # middle/middle: split
    ("Jh Jd 9c 9s Ah Kc 2d", "9s 9c", "two_pair"),  # middle/high: always split
    ("Kh Kd Jc Js Ah 9c 2d", "Js Jc", "two_pair"),  # high/high: always split
    ("Ah Ad 3c 3s Kh 9c 2d", "3s 3c", "two_pair"),  # aces with any pair: always split
    ("9h 9d 6c 6s 3h 3c Kd", "9h 9d", "three_pair"),
    ("Kh Kd Kc 9s 5h 3c 2d", "9s 5h", "three_of_a_kind"),
    ("Ah Ad Ac Ks 5h 3c 2d", "Ah Ks", "three_of_a_kind"),  # three aces: a pair high, one ace low
    ("Tc Td Th 3s 3c 3d 2h", "Th Td", "two_trips"),
    ("Ac Kd Kh Qs Jc Td 2h", "Kh 2h", "straight_or_flush"),  # the option with the two highest low cards
    ("7c 7d 7h 2s 2c Ad Kh", "2s 2c", "full_house"),  # split, the pair low
    ("Ah Kd 9c 7s 5h 3c 2d", "Kd 9c", "no_pair"),
    ("9h 9d Kc 8s 5h 3c 2d", "Kc 8s", "one_pair"),
    ("5c 5d 5h 5s 8c 9d 2h", "9d 8c", "four_of_a_kind"),  # 2-6: kept together
    ("9c 9d 9h 9s Ac 5d 2h", "Ac 5d", "four_of_a_kind"),  # 7-10 with an ace to play low
    ("9c 9d 9h 9s Kc 5d 2h", "9s 9h", "four_of_a_kind"),  # 7-10 otherwise: split
    ("Jc Jd Jh Js Ac 5d 2h", "Js Jh", "four_of_a_kind"),  # J-A: always split
    ("As Ad Ac Ah JK Kc Kd", "Kd Kc", "five_aces"),
    ("As Ad Ac Ah JK 9c 2d", "As Ah", "five_aces"),
]


@pytest.mark.parametrize(
    "way, cards, low, rule", [("foxwoods", *c) for c in FOXWOODS] + [("ballys_ac", *c) for c in BALLYS]
)
def test_every_rule_line(way: str, cards: str, low: str, rule: str) -> None:
    decision = set_by_house_way(parse_cards(cards), way)
    assert decision.rule == f"{way}.{rule}"
    assert set(decision.set.low.cards) == set(parse_cards(low)), decision.text
    assert not decision.set.foul


def test_ballys_full_house_deuces_exception_is_configurable() -> None:
    cards = parse_cards("7c 7d 7h 2s 2c Ad Kh")
    kept = set_by_house_way(cards, "ballys_ac", {"house_way_deuces_exception": True})
    assert set(kept.set.low.cards) == set(parse_cards("Ad Kh"))
    assert kept.set.high.category is Category.FULL_HOUSE


def test_the_joker_completes_a_straight_for_the_house_way() -> None:
    decision = set_by_house_way(parse_cards("5c 6d JK 8s 9c Kd 2h"))
    assert decision.set.high.category is Category.STRAIGHT
    assert set(decision.set.low.cards) == set(parse_cards("Kd 2h"))


def test_catalog_lists_exactly_the_house_ways() -> None:
    option = next(o for o in definition("pai_gow").catalog.options if o.name == "house_way")
    assert set(option.choices) == set(HOUSE_WAYS)


WAYS = st.sampled_from(sorted(HOUSE_WAYS))


@settings(max_examples=300)
@given(hands_of(7, joker=True), WAYS)
def test_house_way_always_sets_a_legal_partition(cards: list, way: str) -> None:
    decision = set_by_house_way(cards, way)
    assert not decision.set.foul
    assert sorted(c.index for c in decision.set.high.cards + decision.set.low.cards) == sorted(c.index for c in cards)


@settings(max_examples=200)
@given(hands_of(7, joker=True), WAYS, st.randoms(use_true_random=False))
def test_house_way_never_depends_on_card_order(cards: list, way: str, rnd) -> None:
    shuffled = list(cards)
    rnd.shuffle(shuffled)
    a, b = set_by_house_way(cards, way), set_by_house_way(shuffled, way)
    assert (set(a.set.low.cards), a.rule) == (set(b.set.low.cards), b.rule)


def _best_low_leaving_straight_or_flush(cards: list) -> int:
    from itertools import combinations

    from controller.hands.paigow import make_set

    best = -1
    for low in combinations(cards, 2):
        s = make_set([c for c in cards if c not in low], low)
        if not s.foul and s.high.category in (
            Category.STRAIGHT,
            Category.FLUSH,
            Category.STRAIGHT_FLUSH,
            Category.ROYAL_FLUSH,
        ):
            best = max(best, s.low.strength)
    return best


@settings(max_examples=150)
@given(
    st.lists(
        st.sampled_from(parse_cards("2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah 5c 6d 7s 8c JK")),
        min_size=7,
        max_size=7,
        unique=True,
    )
)
def test_highest_possible_low_hand_that_leaves_a_straight_or_flush(cards: list) -> None:
    # Hands rich in straights and flushes. Where the rule says "the two highest cards that still leave
    # a straight or flush", no other legal set leaving one has a better low hand.
    for way in HOUSE_WAYS:
        decision = set_by_house_way(cards, way)
        if (
            decision.rule.endswith("straight_or_flush")
            and "ace in front" not in decision.text
            and "trips" not in decision.text
        ):
            assert decision.set.low.strength == _best_low_leaving_straight_or_flush(cards)


_STRAIGHTS_AND_FLUSHES = st.one_of(
    hands_of(7, joker=True),
    st.lists(st.sampled_from(parse_cards("Ah 2h 3d 4c 5s 6h 9h Th Jh Qc Kd JK")), min_size=7, max_size=7, unique=True),
)
"""Seven cards, the joker allowed, often holding a straight or flush."""


@settings(max_examples=400)
@given(_STRAIGHTS_AND_FLUSHES)
def test_quick_straight_or_flush_test_never_misses_one(cards: list) -> None:
    # The quick test only spares the enumeration: when it says no, no five of the cards are a
    # straight or flush (checked by ranking every five); read from the summed card codes, it is
    # exact: when it says yes, some five are one.
    from itertools import combinations

    from controller.game.pai_gow._house_way import Hand
    from controller.hands._value import evaluate_five
    from controller.hands.rules import PAI_GOW

    five_card = {evaluate_five(list(five), PAI_GOW).category for five in combinations(cards, 5)}
    makes_one = bool(five_card & {Category.STRAIGHT, Category.FLUSH, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH})
    assert Hand(cards, {}).may_hold_straight_or_flush() is makes_one


# The hands where Foxwoods and Bally's part, which account for Foxwoods' lower push rate
# (docs/benchmarks.md, pai gow push rate): (cards, Foxwoods' low hand, Bally's low hand).
WAYS_PART = [
    ("Jh Jd 4c 4s Ah 8c 2d", "4s 4c", "Ah 8c"),  # J-K big pair, small 2-6, an ace: Foxwoods splits
    ("Th Td 4c 4s Kh 7c 6h", "4s 4c", "Kh 7c"),  # 7-10 big pair, a king, no ace: Foxwoods splits
    ("Ts Ks Jh Qc Kh 3c Ah", "Ah Qc", "Ks 3c"),  # straight, an ace and kings: Foxwoods drops the straight
]


@pytest.mark.parametrize("cards, foxwoods, ballys", WAYS_PART)
def test_the_hands_where_the_ways_part(cards: str, foxwoods: str, ballys: str) -> None:
    hand = parse_cards(cards)
    assert set(set_by_house_way(hand, "foxwoods").set.low.cards) == set(parse_cards(foxwoods))
    assert set(set_by_house_way(hand, "ballys_ac").set.low.cards) == set(parse_cards(ballys))


@settings(max_examples=300)
@given(hands_of(7, joker=True), st.integers(0, 5), st.booleans())
def test_best_two_is_the_best_low_hand_of_every_pair(cards: list, skip: int, shuffled: bool) -> None:
    # The best two-card low hand of a pool in the hand's order (as the rules pass them) and of any
    # other order: every pair ranked, a pair above no pair, ties to the earliest positions.
    from itertools import combinations

    from controller.game.pai_gow._house_way import Hand, make_low_key

    hand = Hand(cards, {})
    pool = list(hand.cards[skip:])
    if shuffled:
        pool.reverse()
    i, j = max(
        combinations(range(len(pool)), 2), key=lambda ij: (make_low_key((pool[ij[0]], pool[ij[1]])), -ij[0], -ij[1])
    )
    assert [c.index for c in hand.best_two(pool)] == [pool[i].index, pool[j].index]


@settings(max_examples=300)
@given(_STRAIGHTS_AND_FLUSHES)
def test_sets_with_a_straight_or_flush_are_the_legal_sets_with_one(cards: list) -> None:
    # The sets ranked from the seven's summed codes are the legal sets whose high hand is a
    # straight or flush (or better of those), in the same order, ranked alike.
    from controller.hands.paigow import legal_sets, sets_with_high

    wanted = {Category.STRAIGHT, Category.FLUSH, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH}
    expected = [s for s in legal_sets(cards) if s.high.category in wanted]
    got = sets_with_high(cards, wanted)
    assert [(s.high.cards, s.low.cards, s.high.strength, s.low.strength) for s in got] == [
        (s.high.cards, s.low.cards, s.high.strength, s.low.strength) for s in expected
    ]
