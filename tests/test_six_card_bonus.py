"""The 6 Card Bonus (issue 43 item 4): hand-made six-card sets ranked as a dealer reads them (the
best five of the player's three and the dealer's three), the exact counts of all 20,358,520
six-card sets, each shipped pay table's par against the published house edge
(table-games-online.com: 1000-200-50-25-20-10-5, 10.23%), and bad pay tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.game.three_card_poker._six_card import (
    SIX_CARD_SETS,
    SixCardError,
    SixCardHand,
    load_paytables,
    rank_six,
    shipped_paytables,
    six_card_counts,
    six_card_par,
)
from controller.vocab import parse_cards

H = SixCardHand

# Hand-made: (player, dealer, the hand a dealer calls), written from the rules, not the code.
EXAMPLES = [
    ("Ah Kh Qh", "Jh Th 2c", H.ROYAL_FLUSH),
    ("Ah Kh Qh", "Jh Th 9h", H.ROYAL_FLUSH),  # six suited: the royal, not the K-high straight flush
    ("9h Kh Qh", "Jh Th 2c", H.STRAIGHT_FLUSH),
    ("Ah 2h 3h", "4h 5h Kc", H.STRAIGHT_FLUSH),  # the wheel, suited
    ("Ah 2h 3h", "4h 5h 6h", H.STRAIGHT_FLUSH),
    ("Kh Ah 2h", "3h 4h 9c", H.FLUSH),  # K-A-2-3-4 is no straight: a flush
    ("7c 7d 7h", "7s 2c 3d", H.FOUR_OF_A_KIND),
    ("7c 7d 7h", "2s 2c 3d", H.FULL_HOUSE),
    ("7c 7d 7h", "2s 2c 2d", H.FULL_HOUSE),  # two trips: a full house
    ("7c 7d 2h", "2s 9c 9d", H.NOTHING),  # three pairs
    ("2c 5c 9c", "Jc Kc Kd", H.FLUSH),  # a flush beats the pair
    ("2c 5c 9c", "Jc 3d 4s", H.NOTHING),  # four to a flush
    ("8c 9d Th", "Js Qc 2d", H.STRAIGHT),
    ("Ac 2d 3h", "4s 5c Kd", H.STRAIGHT),  # the wheel
    ("Tc Jd Qh", "Ks Ac 2d", H.STRAIGHT),
    ("Qc Kd Ah", "2s 3c 9d", H.NOTHING),  # Q-K-A-2-3 wraps: no straight
    ("8c 9d Th", "Js Qc Kd", H.STRAIGHT),  # six in a row
    ("8c 8d 8h", "Js Qc 2d", H.THREE_OF_A_KIND),
    ("8c 8d 8h", "9s Tc Jd", H.THREE_OF_A_KIND),  # 8-9-T-J and trips: no straight
    ("8c 8d 8h", "9s Tc Qd", H.THREE_OF_A_KIND),
    ("7c 8d 8h", "9s Tc Jd", H.STRAIGHT),  # straight over the pair
    ("2c 3c 4c", "5c 7c 6d", H.FLUSH),  # 2-3-4-5-6 straight, 2-3-4-5-7 flush: the flush
    ("2c 3c 4c", "5c 6d 6c", H.STRAIGHT_FLUSH),
    ("Ac Ad Ah", "Kc Kd 2s", H.FULL_HOUSE),
]


@pytest.mark.parametrize(("player", "dealer", "expected"), EXAMPLES)
def test_hand_made_sets_rank_as_a_dealer_reads_them(player: str, dealer: str, expected: SixCardHand) -> None:
    assert rank_six(parse_cards(player), parse_cards(dealer)) is expected
    assert rank_six(parse_cards(dealer), parse_cards(player)) is expected


def test_bad_sets_are_refused_naming_what() -> None:
    with pytest.raises(SixCardError, match="three cards each"):
        rank_six(parse_cards("Ah Kh"), parse_cards("Qh Jh Th"))
    with pytest.raises(SixCardError, match="distinct"):
        rank_six(parse_cards("Ah Kh Qh"), parse_cards("Ah Jh Th", allow_duplicates=True))


def test_counts_of_every_six_card_set() -> None:
    """The six-card poker distribution (the figures published for the 6 Card Bonus)."""
    counts = six_card_counts()
    assert sum(counts.values()) == SIX_CARD_SETS == 20_358_520
    assert counts == {
        H.ROYAL_FLUSH: 188,  # 4 royals x 47 other cards: by hand
        H.STRAIGHT_FLUSH: 1_656,
        H.FOUR_OF_A_KIND: 14_664,  # 13 x C(48, 2) - 0: 13 x 1,128 = 14,664: by hand
        H.FULL_HOUSE: 165_984,
        H.FLUSH: 205_792,
        H.STRAIGHT: 361_620,
        H.THREE_OF_A_KIND: 732_160,
        H.NOTHING: 18_876_456,
    }


def test_straight_flush_count_by_hand() -> None:
    # 9 straight flushes below the royal a suit (A-5 ... 9-K); the sixth card any of 47, less the
    # one card that extends it upward (a higher straight flush: counted there): 46 each, 36 x 46.
    assert six_card_counts()[H.STRAIGHT_FLUSH] == 36 * 46


def test_each_shipped_table_par_and_the_published_edge() -> None:
    tables = {t.name: t for t in shipped_paytables()}
    assert len(tables) >= 2
    pars = {name: six_card_par(t).percent for name, t in tables.items()}
    # the source rounds 10.2248% to 10.23%: within its last digit
    assert abs(pars["six_card_1000_200_50_25_20_10_5"] - 10.23) <= 0.01
    for name, table in tables.items():
        if table.published_edge is not None:
            assert abs(pars[name] - table.published_edge) <= 0.01, name
    assert round(pars["six_card_1000_200_100_20_15_10_7"], 4) == 8.5614


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("paytables: 3\n", "needs a list 'paytables'"),
        ("paytables: [{name: x, source: y, rows: {pair: 1}}]\n", r"paytables\[0\]\.rows\.pair: unknown hand"),
        ("paytables: [{name: x, source: y, rows: {flush: 0}}]\n", r"rows\.flush: odds"),
        ("paytables: [{name: x, rows: {flush: 2}}]\n", "needs name, source"),
        ("paytables: [\n", "bad.yaml"),
    ],
)
def test_bad_paytables_name_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(SixCardError, match=message):
        load_paytables(path)
