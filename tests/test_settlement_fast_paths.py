"""The settlement's shortcuts give what the plain way gives: a five-card hand's best cards picked
in one sort, wager results kept by the paytable line that decides them, a paytable's lines by
category kept while it lives. Each test fails when its shortcut forgets what it depends on."""

from __future__ import annotations

import contextlib
import random
from dataclasses import replace
from itertools import combinations

import pytest

from controller.configuration import Limit, TableConfig, default_table_path, load_table
from controller.game.record import RecordError, settle_record
from controller.hands import MISSISSIPPI_STUD, PAI_GOW, Category
from controller.hands._value import _evaluate, _pick_best, _pick_five
from controller.hands.categories import FIVE_CARD_ORDER, unpack
from controller.hands.rules import HandRules
from controller.vocab import Odds, deck, parse_cards
from controller.wagers import Result

# At least one hand of each category, the wheel straight and straight flush among them, and hands
# whose equal ranks come in every order of suits.
CRAFTED = [
    "As Ks Qs Js Ts",
    "5h 4h 3h 2h Ah",
    "Ah 2d 3c 4s 5h",
    "2c 3d 4h 5s 6c",
    "9c 9d 9h 9s 2c",
    "2s 2h 2d 3c 3s",
    "Kd 9d 7d 4d 2d",
    "7s 7c 7h Kd 2c",
    "Jh Jc 4d 4s As",
    "4s Jc 4d Jh As",
    "Qs Qh 9c 5d 3s",
    "Ad Kc 9h 6s 3d",
]


def _plain(cards: tuple, rules: HandRules) -> tuple:
    value = _evaluate(cards, rules)
    index, fields = unpack(value.strength)
    return _pick_best(cards, FIVE_CARD_ORDER[index], fields, rules)


@pytest.mark.parametrize("rules", [MISSISSIPPI_STUD, PAI_GOW], ids=lambda r: r.game)
def test_five_card_best_is_the_plain_pick_for_every_category_and_order(rules: HandRules) -> None:
    rng = random.Random(5)
    seen = set()
    for text in CRAFTED:
        cards = parse_cards(text)
        for order in (cards, cards[::-1], tuple(rng.sample(cards, 5))):
            value = _evaluate(order, rules)
            seen.add(value.category)
            assert value.best == _plain(order, rules), (text, order)
    assert seen >= set(FIVE_CARD_ORDER) - {Category.FIVE_ACES}  # five aces needs the joker


def test_five_card_best_is_the_plain_pick_on_random_hands() -> None:
    # (every one of the 2,598,960 hands under both wheels was checked once, outside the suite)
    rng = random.Random(11)
    cards = list(deck())
    for _ in range(20_000):
        five = tuple(rng.sample(cards, 5))
        value = _evaluate(five, MISSISSIPPI_STUD)
        assert _pick_five(five, value.category) == _plain(five, MISSISSIPPI_STUD)


def test_every_wheel_straight_and_straight_flush_shows_its_ace_last() -> None:
    wheel = [c for c in deck() if c.rank in (14, 2, 3, 4, 5)]
    for five in combinations(wheel, 5):
        if len({c.rank for c in five}) < 5:
            continue  # a pair or more: no straight
        value = _evaluate(five, PAI_GOW)
        assert value.category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH)
        assert value.best == _plain(five, PAI_GOW)
        assert value.best[-1].rank == 14


def _with_main_odds(table: TableConfig, category: Category, odds: Odds) -> TableConfig:
    main = table.paytables["main"]
    rows = tuple(replace(row, odds=odds) if row.category is category else row for row in main.rows)
    return replace(table, paytables={**table.paytables, "main": replace(main, rows=rows)})


FLUSH_ROUND = {
    "game": "mississippi_stud",
    "seats": {
        "1": {"wagers": {"ante": 500, "third": 500, "fourth": 500, "fifth": 500}, "cards": "2h 9h", "folded_at": None},
        "2": {"wagers": {"ante": 500, "third": 500, "fourth": 500, "fifth": 500}, "cards": "Kh 3h", "folded_at": None},
    },
    "community": "5h 7h Jh",
}


def test_wager_results_follow_the_paytable_they_are_settled_under() -> None:
    table = load_table(default_table_path("mississippi_stud"))
    six, nine = _with_main_odds(table, Category.FLUSH, Odds(6)), _with_main_odds(table, Category.FLUSH, Odds(9))
    for first, second, odds in ((six, nine, 9), (nine, six, 6), (six, six, 6)):
        settle_record(FLUSH_ROUND, first)  # the first table's results are kept...
        s = settle_record(FLUSH_ROUND, second)  # ...and never given for the other's line
        for seat in s.seats:
            assert [w.net for w in seat.wagers] == [odds * 500] * 4


def _pai_gow_record() -> dict:
    seat = "As Ad Ah Ac 2c 3d 4h"
    dealer = "Ks Kd 7h 6c 5s 9d 2s"
    used = set((seat + " " + dealer).split())
    rest = [str(c) for c in deck(joker=True) if str(c) not in used]
    empty = {str(n): " ".join(rest[7 * i : 7 * i + 7]) for i, n in enumerate(range(2, 7))}
    return {
        "game": "pai_gow",
        "seats": {"1": {"wagers": {"pai_gow": 1000, "bonus": 500}, "cards": seat, "set": "house_way"}},
        "dealer": dealer,
        "start": {"method": "rng", "value": 1},
        "empty": empty,
    }


def test_pai_gow_bonus_follows_the_paytable_it_is_settled_under() -> None:
    table = load_table(default_table_path("pai_gow"))
    bonus = table.paytables["bonus"]
    rows = tuple(
        replace(r, odds=Odds(r.odds.numerator * 2)) if r.category is Category.FOUR_OF_A_KIND else r for r in bonus.rows
    )
    doubled = replace(table, paytables={**table.paytables, "bonus": replace(bonus, rows=rows)})
    record = _pai_gow_record()
    plain = settle_record(record, table).seat(1).wager("bonus")
    double = settle_record(record, doubled).seat(1).wager("bonus")
    again = settle_record(record, table).seat(1).wager("bonus")
    assert plain is not None and double is not None and again is not None
    assert double.net == 2 * plain.net > 0
    assert again.net == plain.net


@pytest.mark.parametrize("joker", [False, True])
def test_the_straight_or_flush_sets_are_the_legal_sets_with_one_in_the_high_hand(joker: bool) -> None:
    """The house way's shortcut ranks only the high hands first: the sets it keeps are the legal
    sets of that kind, in their order, whether the joker is among the seven or not."""
    from controller.hands.paigow import legal_sets, sets_with_high

    kinds = frozenset({Category.STRAIGHT, Category.FLUSH, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH})
    rng = random.Random(13)
    cards = list(deck(joker=True))
    found = 0
    for _ in range(3_000):
        seven = rng.sample(cards[:52], 7)
        if rng.random() < 0.5:  # most of one suit: flushes and straight flushes
            suit = rng.randrange(4)
            seven = rng.sample(cards[13 * suit : 13 * suit + 13], 5) + rng.sample(cards[:52], 2)
            seven = list(dict.fromkeys(seven)) + [c for c in cards[:52] if c not in seven][: 7 - len(set(seven))]
        if joker:
            seven[rng.randrange(7)] = cards[52]
        seven = list(dict.fromkeys(seven))
        if len(seven) != 7:
            continue
        want = [s for s in legal_sets(seven) if s.high.category in kinds]
        got = sets_with_high(seven, kinds)
        found += bool(want)
        assert [(s.high.cards, s.low.cards) for s in got] == [(s.high.cards, s.low.cards) for s in want]
        assert [(s.high.strength, s.low.strength) for s in got] == [(s.high.strength, s.low.strength) for s in want]
    assert found > 300  # the shortcut was tried on many hands that hold one


def _with_ante(ante: object) -> dict:
    seat = FLUSH_ROUND["seats"]["1"]  # type: ignore[index]
    return {**FLUSH_ROUND, "seats": {"1": {**seat, "wagers": {**seat["wagers"], "ante": ante}}}}


@pytest.mark.parametrize("ante", [True, 500.0, "500", [500]], ids=repr)
def test_wagers_kept_once_read_are_never_given_for_another_type(ante: object) -> None:
    table = replace(load_table(default_table_path("mississippi_stud")), limits={})
    equal = 1 if ante is True else 500  # True == 1 and 500.0 == 500, with the same hashes
    with contextlib.suppress(RecordError):  # (the street bets are 500: not 1x-3x an ante of 1)
        settle_record(_with_ante(equal), table)  # the wagers read, and kept for this table...
    with pytest.raises(RecordError) as refused:  # ...and never given for a value equal to them but not cents
        settle_record(_with_ante(ante), table)
    assert any(p.startswith("$.seats.1.wagers.ante: must be whole cents") for p in refused.value.problems)


def test_wagers_kept_for_one_table_are_read_again_under_another() -> None:
    table = load_table(default_table_path("mississippi_stud"))
    higher = replace(table, limits={**table.limits, "ante": Limit(1000, 10000)})
    settle_record(_with_ante(500), table)
    with pytest.raises(RecordError) as refused:
        settle_record(_with_ante(500), higher)
    assert "$.seats.1.wagers.ante: 500 is outside the table limits 1000 to 10000" in refused.value.problems
    settle_record(_with_ante(500), table)  # the first table's are still its own


@pytest.mark.parametrize("option", ["commission_percent", "commission_rounding"])
def test_pai_gow_wager_results_follow_the_commission_they_are_settled_under(option: str) -> None:
    table = load_table(default_table_path("pai_gow"))
    other = {"commission_percent": 4, "commission_rounding": "up"}[option]
    changed = replace(table, options={**table.options, option: other})
    record = _pai_gow_record()
    record["seats"]["1"]["wagers"]["pai_gow"] = 1010  # 5% is 50.5 cents: rounded down or up
    first, second, again = (settle_record(record, t).seat(1).wager("pai_gow") for t in (table, changed, table))
    assert first is not None and second is not None and again is not None
    assert first.result is Result.WIN  # both hands win: a commission is taken
    assert (first.commission, again.commission) == (50, 50) and second.commission == {
        "commission_percent": 40,
        "commission_rounding": 51,
    }[option]
