"""Properties of settlement over random valid rounds of both games: money is conserved, pushes return
exactly the stake, nothing is paid negatively, seat order does not matter, records round-trip."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from test_settlement_digest import mississippi_round  # its violations after a fold too

from controller.configuration import default_table_path, load_table
from controller.game.record import settle_record
from controller.game.record._settle import GAMES
from controller.vocab import deck, format_cards
from controller.wagers import Result

TABLES = {g: load_table(default_table_path(g)) for g in ("boston5", "mississippi_stud")}
# No limits and a small cap, so that rounds often hit the cap too.
CAPPED = {g: replace(t, limits={}, payout_cap=200_000) for g, t in TABLES.items()}


def boston5_round(rnd: random.Random) -> dict:
    cards = list(deck())
    rnd.shuffle(cards)
    seats = {}
    for number in rnd.sample(range(1, 7), rnd.randint(1, 6)):
        ante = rnd.choice([500, 1000, 2500, 10000])
        folded = rnd.random() < 0.3
        wagers = {"ante": ante, "first": 2 * ante}
        if not folded:
            wagers["second"] = 2 * ante
        if rnd.random() < 0.5:
            wagers["bonus"] = rnd.choice([100, 500, 5000])
        hand = [cards.pop() for _ in range(3 if folded else 5)]
        seats[str(number)] = {
            "wagers": wagers,
            "cards": format_cards(hand),
            "exposed_bonus": rnd.random() < 0.8,
            "folded": folded,
        }
    return {"game": "boston5", "seats": seats, "dealer": format_cards(cards.pop() for _ in range(5))}


ROUNDS = st.tuples(
    st.sampled_from([boston5_round, mississippi_round]), st.randoms(use_true_random=False), st.booleans()
)


def build(case) -> tuple[dict, object]:
    maker, rnd, capped = case
    record = maker(rnd)
    return record, (CAPPED if capped else TABLES)[record["game"]]


@settings(max_examples=300)
@given(ROUNDS)
def test_money_is_conserved_and_results_are_consistent(case) -> None:
    record, table = build(case)
    s = settle_record(record, table)
    assert s.house_net == -sum(seat.net for seat in s.seats)
    for seat in s.seats:
        stakes = record["seats"][str(seat.seat)]["wagers"]
        assert {w.spot for w in seat.wagers} - {"ante_bonus"} == set(stakes)
        for w in seat.wagers:
            if w.result is Result.WIN:
                assert w.net >= 0  # no payout is negative (a cap may take a payout down to 0)
            elif w.result is Result.LOSE:
                assert w.net == -w.stake
            else:
                assert w.net == 0  # a push or return gives back exactly the stake
            if w.spot != "ante_bonus":
                assert w.stake == stakes[w.spot]
        if table.payout_cap is not None:
            assert sum(w.net for w in seat.wagers if w.net > 0) <= table.payout_cap


@settings(max_examples=150)
@given(ROUNDS, st.randoms(use_true_random=False))
def test_settlement_does_not_depend_on_the_order_seats_are_listed(case, shuffler) -> None:
    record, table = build(case)
    items = list(record["seats"].items())
    shuffler.shuffle(items)
    reordered = {**record, "seats": dict(items)}
    assert settle_record(reordered, table).to_json() == settle_record(record, table).to_json()


@settings(max_examples=150)
@given(ROUNDS)
def test_round_record_round_trips(case) -> None:
    record, table = build(case)
    game = GAMES[record["game"]]
    again = game.round_record(game.read_round(record, table))
    assert settle_record(again, table).to_json() == settle_record(record, table).to_json()


@settings(max_examples=100)
@given(ROUNDS)
def test_every_seat_has_exactly_one_settle_or_fold_or_violation_step(case) -> None:
    record, table = build(case)
    s = settle_record(record, table)
    main_phases = {"settle", "fold", "violation", "third_street", "fourth_street", "fifth_street"}
    seats = [step.seat for step in s.procedure if step.phase in main_phases]
    # a seat that folded before its violation (``violation_at``): its fold, then the violation (35.10(c))
    twice = [int(n) for n, seat in record["seats"].items() if "violation_at" in seat]
    assert sorted(seats) == sorted([*(int(n) for n in record["seats"]), *twice])
    paid = sum(a.cents for step in s.procedure for a in step.actions if a.verb == "pay")
    collected = sum(a.cents for step in s.procedure for a in step.actions if a.verb == "collect")
    assert paid - collected == -s.house_net  # the procedure moves exactly the settled money


@settings(max_examples=300)
@given(ROUNDS)
def test_every_hand_goes_to_the_discard_rack_once_and_every_text_is_in_plain_words(case) -> None:
    """24.10(b), (f), 35.10(a), (e), (g), (i): each hand's cards are collected to the discard rack in
    exactly one step; no step or reason a person reads holds a code name (``one_pair``)."""
    record, tables = build(case)
    s = settle_record(record, tables)
    for n in record["seats"]:
        discards = [p.text for p in s.procedure if p.seat == int(n) and p.after.startswith("discard the cards")]
        assert len(discards) == 1, (n, [p.text for p in s.procedure if p.seat == int(n)])
    words = [p.text for p in s.procedure] + [w.why for x in s.seats for w in x.wagers]
    assert not [t for t in words if "_" in t], "a code name in a text a person reads"
