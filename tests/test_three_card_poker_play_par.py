"""The par sheet states the play wager's own edge (issue 43 item 5), not 0.0000%: the ante alone
and the play alone, weighted by what is wagered on each, add up to the published main game
figure (3.3730% of the ante, Wizard of Odds "Three Card Poker"), and the play's figure is the
one a direct count over the played hands gives."""

from __future__ import annotations

import pytest

from controller.configuration import default_table_path, load_table
from controller.game.three_card_poker import QUALIFIER
from controller.par.three_card_poker import table_sheet

TABLE = load_table(default_table_path("three_card_poker"))


@pytest.fixture(scope="module")
def sheet():  # type: ignore[no-untyped-def]
    return table_sheet(TABLE)


def test_ante_and_play_add_up_to_the_main_game(sheet) -> None:  # type: ignore[no-untyped-def]
    played = 1 - sheet.fold_rate
    ante, play = sheet.spots["ante"].edge_per_unit, sheet.spots["play"].edge_per_unit
    assert ante + played * play == pytest.approx(sheet.edge_per_ante, abs=1e-12)
    assert sheet.edge_per_ante == pytest.approx(0.033730, abs=5e-6)
    assert play != 0.0 and "share of the main game" in sheet.spots["play"].note


def test_the_play_figure_is_its_own_count(sheet) -> None:  # type: ignore[no-untyped-def]
    """Each played hand (queen-six-four or better) against the dealer hands of the other 49 cards
    (``versus``: checked against a direct count in test_three_card_poker): the play wins even
    money when the dealer qualifies and is lower, loses when higher, is back otherwise."""
    from itertools import combinations

    from controller.hands import THREE_CARD_POKER, evaluate_three
    from controller.par.three_card_poker import versus
    from controller.vocab import ALL_CARDS, parse_cards

    weakest = evaluate_three(parse_cards("Qs 6h 4d"), THREE_CARD_POKER).strength
    net = played = 0
    for hand in combinations(ALL_CARDS[:52], 3):
        if evaluate_three(hand, THREE_CARD_POKER).strength >= weakest:
            v = versus(hand, QUALIFIER)
            net += v.lower - v.higher
            played += 18_424
    assert sheet.spots["play"].edge_per_unit == pytest.approx(-net / played, abs=1e-12)
    assert played / (22_100 * 18_424) == pytest.approx(1 - sheet.fold_rate, abs=1e-12)
