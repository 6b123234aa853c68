"""Cards: text form, parse errors with positions, duplicates, decks."""

from __future__ import annotations

import pytest
from conftest import hands_of
from hypothesis import given
from hypothesis import strategies as st

from controller.vocab import ALL_CARDS, JOKER, CardError, card, deck, format_cards, parse_cards
from controller.vocab._cards import Rank, Suit


def test_spaced_and_run_together_forms_read_the_same() -> None:
    spaced = parse_cards("As Kd Th")
    assert spaced == parse_cards("AsKdTh")
    assert [(c.rank, c.suit) for c in spaced] == [
        (Rank.ACE, Suit.SPADES),
        (Rank.KING, Suit.DIAMONDS),
        (Rank.TEN, Suit.HEARTS),
    ]


def test_joker_is_written_jk() -> None:
    cards = parse_cards("JK As")
    assert cards[0] is JOKER and cards[0].is_joker
    assert str(cards[0]) == "JK"
    assert parse_cards("JKAs") == cards


def test_ten_may_be_written_10() -> None:
    assert parse_cards("10s Jd") == parse_cards("Ts Jd")


@given(hands_of(7, joker=True))
def test_format_round_trips(cards: list) -> None:
    text = format_cards(cards)
    assert parse_cards(text) == tuple(cards)
    assert parse_cards(text.replace(" ", "")) == tuple(cards)


@pytest.mark.parametrize(
    "text, position, token, reason",
    [
        ("As Kd Tx", 3, "Tx", "unknown suit 'x'"),
        ("As 1d", 2, "1d", "unknown rank '1'"),
        ("AsKdT", 3, "T", "incomplete card"),
        ("As Kdd", 2, "Kdd", "too long"),
        ("As Kd As", 3, "As", "duplicate of card 1"),
    ],
)
def test_bad_tokens_name_position_token_and_reason(text: str, position: int, token: str, reason: str) -> None:
    with pytest.raises(CardError) as info:
        parse_cards(text)
    err = info.value
    assert (err.position, err.token) == (position, token)
    assert reason in err.reason
    assert str(err).startswith(f"card {position} '{token}': ")


def test_duplicates_can_be_allowed_for_misdeal_reports() -> None:
    assert len(parse_cards("As As", allow_duplicates=True)) == 2


def test_decks_have_52_and_53_cards_in_a_fixed_order() -> None:
    d52, d53 = deck(), deck(joker=True)
    assert len(d52) == 52 and len(set(d52)) == 52
    assert len(d53) == 53 and d53[-1] is JOKER and d53[:52] == d52
    assert [c.index for c in d53] == list(range(53))
    assert str(d52[0]) == "2c" and str(d52[12]) == "Ac" and str(d52[51]) == "As"
    assert deck() == deck()  # the same order every time


def test_card_reads_one_card() -> None:
    assert card("Qh") is ALL_CARDS[2 * 13 + 10]
    with pytest.raises(CardError):
        card("Qz")


@given(st.text(max_size=12))
def test_parse_never_fails_with_anything_but_card_error(text: str) -> None:
    try:
        parse_cards(text)
    except CardError as err:
        assert err.position >= 1
