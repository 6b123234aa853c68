"""The numpy batch path equals the scalar path hand by hand, and the scalar joker tables equal
the explicit list of joker uses."""

from __future__ import annotations

import pytest
from conftest import hands_of
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.hands.fast import Evaluator, evaluator_for
from controller.hands.rules import Wheel
from controller.vocab import JOKER

np = pytest.importorskip("numpy")
from controller.hands.batch import strengths  # noqa: E402


@settings(max_examples=60)
@given(
    st.sampled_from([5, 6, 7]).flatmap(lambda k: st.lists(hands_of(k, joker=True), min_size=1, max_size=40)),
    st.sampled_from(list(Wheel)),
)
def test_batch_equals_scalar(hands: list, wheel: Wheel) -> None:
    rows = [[c.index for c in h] for h in hands]
    scalar = evaluator_for(wheel).strength
    assert strengths(np.array(rows), wheel).tolist() == [scalar(r) for r in rows]


@given(hands_of(6))
def test_joker_tables_equal_the_best_listed_option(six: list) -> None:
    ev = evaluator_for(Wheel.SECOND_HIGHEST)
    real = [c.index for c in six]
    assert ev.strength(real + [JOKER.index]) == max(s for s, _ in ev.joker_options(real))


@given(hands_of(4))
def test_joker_tables_for_five_card_hands(four: list) -> None:
    ev = evaluator_for(Wheel.SECOND_HIGHEST)
    real = [c.index for c in four]
    assert ev.strength(real + [JOKER.index]) == max(s for s, _ in ev.joker_options(real))


def _listed_categories(ev: Evaluator, real: list[int]) -> int:
    bits = 0
    for s, _ in ev.joker_options(real):
        bits |= 1 << (s >> 20)
    return bits


@pytest.mark.parametrize("wheel", list(Wheel))
def test_joker_categories_equal_the_listed_options_whatever_was_asked_before(wheel: Wheel) -> None:
    """The remembered categories (by rank counts and four-suit mask) are each hand's own: every
    four cards of one suit, then random hands of 4-6 cards, all through one warm memo."""
    import random
    from itertools import combinations

    ev = evaluator_for(wheel)
    hands = [[13 * suit + r for r in ranks] for suit in range(4) for ranks in combinations(range(13), 4)]
    rng = random.Random(5)
    hands += [rng.sample(range(52), rng.choice((4, 5, 6))) for _ in range(6000)]
    for real in hands:
        assert ev.joker_categories(real) == _listed_categories(ev, real), real


def test_batch_rejects_bad_shapes_and_indices() -> None:
    with pytest.raises(ValueError, match="shape"):
        strengths(np.zeros((3, 4), dtype=int))
    with pytest.raises(ValueError, match="0-51"):
        strengths(np.array([[0, 1, 2, 3, 53]]))
