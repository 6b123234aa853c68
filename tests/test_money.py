"""Odds and cents."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.vocab import Odds, OddsError, format_cents, parse_odds


@pytest.mark.parametrize(
    "text, odds",
    [("40 to 1", Odds(40, 1)), ("3 to 2", Odds(3, 2)), ("push", Odds(0, 1, True)), ("PUSH", Odds(0, 1, True))],
)
def test_odds_forms(text: str, odds: Odds) -> None:
    assert parse_odds(text) == odds


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("-1 to 1", "negative"),
        ("1 to -1", "negative"),
        ("2 for 1", "'for'"),
        ("5 to 0", "zero"),
        (6, "N to M"),
        ("lots", "N to M"),
    ],
)
def test_bad_odds_say_why(text: object, fragment: str) -> None:
    with pytest.raises(OddsError, match=fragment):
        parse_odds(text)


def test_payouts_are_whole_cents_rounded_down() -> None:
    assert Odds(40, 1).payout(500) == 20000
    assert Odds(3, 2).payout(105) == 157  # 157.5 rounds down
    assert Odds(0, 1, True).payout(500) == 0


@given(st.integers(0, 10**9), st.integers(0, 1000), st.integers(1, 20))
def test_payout_is_exact_or_floored(stake: int, n: int, d: int) -> None:
    paid = Odds(n, d).payout(stake)
    assert paid * d <= stake * n < (paid + 1) * d


def test_format_cents() -> None:
    assert format_cents(500) == "5.00" and format_cents(123456) == "1,234.56" and format_cents(-5) == "-0.05"
