"""Shared helpers: build hands from text, convert cards for the reference evaluator."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

import pytest
from hypothesis import settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))

from controller.cards import ALL_CARDS, Card, parse_cards  # noqa: E402
from controller.hands import BOSTON5, HandValue, evaluate_best  # noqa: E402
from controller.hands.rules import HandRules  # noqa: E402

REPO = Path(__file__).resolve().parent.parent

# No timing in tests: the machines are shared, and first calls build lookup tables.
settings.register_profile("tablectl", deadline=None)
settings.load_profile("tablectl")


def hand(text: str, rules: HandRules = BOSTON5) -> HandValue:
    """The best-five value of the hand written as ``text``."""
    return evaluate_best(parse_cards(text), rules)


def to_ref(cards: Sequence[Card]) -> list[tuple[int, str] | None]:
    """Cards in the reference evaluator's form (the joker as ``None``)."""
    return [None if c.is_joker else (int(c.rank), c.suit.value) for c in cards]  # type: ignore[union-attr]


def hands_of(size: int, *, joker: bool = False) -> st.SearchStrategy[list[Card]]:
    """A strategy for ``size`` distinct cards from the 52-card (or 53-card) deck."""
    pool = ALL_CARDS if joker else ALL_CARDS[:52]
    return st.lists(st.sampled_from(pool), min_size=size, max_size=size, unique=True)


@pytest.fixture
def repo() -> Path:
    """The repository root."""
    return REPO
