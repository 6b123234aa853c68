"""The simulation's reference model of Three Card Poker (hil/reference, written from published
rule sheets, importing nothing it checks) agrees with the rules layer's settlement on random
rounds (played and folded hands, with and without pair plus), deals three to each seat then
three to the dealer, and shows no card before every player decided (issue 43)."""

from __future__ import annotations

import random

import pytest

from controller.configuration import default_table_path, load_table
from controller.game.record import settle_record
from controller.vocab import ALL_CARDS, format_cards
from hil.reference.games import SeatState, deal_destinations, expect_round, visible_cards
from hil.reference.paytables import load_ref_table

PATH = default_table_path("three_card_poker")
TABLE = load_table(PATH)
REF = load_ref_table(PATH)


def _round(rng: random.Random) -> tuple[list[str], dict[int, SeatState], dict]:
    seats_n = sorted(rng.sample(range(1, 7), rng.randint(1, 4)))
    deck = [format_cards([c]) for c in rng.sample(ALL_CARDS[:52], 3 * len(seats_n) + 3)]
    seats: dict[int, SeatState] = {}
    record_seats: dict[str, dict[str, object]] = {}
    for i, n in enumerate(seats_n):
        cards = deck[3 * i : 3 * i + 3]
        fold = rng.random() < 0.3
        wagers = {"ante": 500, **({"pair_plus": 200} if rng.random() < 0.5 else {})}
        if not fold:
            wagers["play"] = 500
        seats[n] = SeatState(wagers, folded_at="play" if fold else None)
        record_seats[str(n)] = {"wagers": wagers, "cards": " ".join(cards)}  # a fold: no play wager
    record = {"game": "three_card_poker", "seats": record_seats, "dealer": " ".join(deck[-3:])}
    return deck, seats, record


@pytest.mark.parametrize("seed", range(300))
def test_reference_agrees_with_the_settlement(seed: int) -> None:
    deck, seats, record = _round(random.Random(seed))
    expected = expect_round(REF, deck, seats)
    settled = settle_record(record, TABLE)
    for n in seats:
        got = {w.spot: w.net for w in settled.seat(n).wagers}
        want = {spot: o.net for spot, o in expected.outcomes[n].items()}
        assert {k: v for k, v in got.items() if v} == {k: v for k, v in want.items() if v}, (n, record)


def test_deal_order_and_hidden_cards() -> None:
    seats = {2: SeatState({"ante": 5}), 5: SeatState({"ante": 5})}
    assert deal_destinations(REF, 9, seats) == ["seat 2"] * 3 + ["seat 5"] * 3 + ["dealer"] * 3
    cards = ["As", "Kd", "2c", "3h", "4h", "5h", "Qc", "Jc", "9d"]
    assert visible_cards(REF, cards, seats) == set()  # nobody decided yet
    decided = {2: SeatState({"ante": 5, "play": 5}), 5: SeatState({"ante": 5}, folded_at="play")}
    assert visible_cards(REF, cards, decided) == {"As", "Kd", "2c", "Qc", "Jc", "9d"}  # the fold stays down
