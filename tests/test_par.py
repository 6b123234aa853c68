"""The par sheets checked against independent derivations: category counts, brute force over
small cases, a direct recursion over ordered deals, and published figures."""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pytest

from controller.configuration import default_table_path, load_table
from controller.hands import BOSTON5, MISSISSIPPI_STUD, Category
from controller.hands.batch import strengths
from controller.hands.rules import Wheel
from controller.par import SpotPar, boston5_expose, mississippi_decision, par_sheet
from controller.par._three_card import three_card_counts, three_card_par
from controller.par.combos import colex_index, combinations_array
from controller.par.lines import five_card_lines
from controller.par.pai_gow_main import main_edge, simulate_main
from controller.par.sheets import ParError, with_paytable
from controller.par.strategy import set_index
from controller.vocab import ALL_CARDS, parse_cards

pytestmark = pytest.mark.usefixtures("mississippi_solved_once")  # solved once with test_par_data.py


def _table(game: str):  # type: ignore[no-untyped-def]
    return load_table(default_table_path(game))


# --- combinations -------------------------------------------------------------------------


def test_combinations_are_in_colex_order() -> None:
    rows = combinations_array(9, 4)
    assert rows.shape == (comb(9, 4), 4)
    assert (colex_index(rows) == np.arange(rows.shape[0])).all()
    assert {tuple(r) for r in rows.tolist()} == set(combinations(range(9), 4))


def test_set_index_of_cards() -> None:
    assert set_index(parse_cards("2c 3c")) == 0
    assert set_index(parse_cards("2c 4c")) == 1
    assert set_index(parse_cards("As Ks")) == set_index(parse_cards("Ks As"))


# --- three-card bonuses -------------------------------------------------------------------


def _by_category(rules) -> dict[Category, int]:  # type: ignore[no-untyped-def]
    out: dict[Category, int] = {}
    for (category, _), n in three_card_counts(rules).items():
        out[category] = out.get(category, 0) + n
    return out


def test_three_card_category_counts() -> None:
    # 12 straights (A-2-3 lowest, Q-K-A highest) in 4^3 suits; 4 suits of C(13,3) rank sets
    straights, flushes = 12 * 64, 4 * comb(13, 3)
    sf = 12 * 4
    expected = {
        Category.STRAIGHT_FLUSH: sf,
        Category.THREE_OF_A_KIND: 13 * comb(4, 3),
        Category.STRAIGHT: straights - sf,
        Category.FLUSH: flushes - sf,
        Category.ONE_PAIR: 13 * comb(4, 2) * 48,
    }
    expected[Category.HIGH_CARD] = comb(52, 3) - sum(expected.values())
    assert _by_category(BOSTON5) == expected
    ms = _by_category(MISSISSIPPI_STUD)
    assert ms[Category.MINI_ROYAL] == 4 and ms[Category.STRAIGHT_FLUSH] == sf - 4


def test_three_card_par_by_hand() -> None:
    table = _table("boston5").paytables["bonus"]
    par = three_card_par("bonus", table, BOSTON5)
    # by hand from the counts above, Table A: SF 40, trips 30, straight 6, flush 4, pair 1
    ret = (48 * 40 + 52 * 30 + 720 * 6 + 1096 * 4 + 3744 * 1 - (22100 - 48 - 52 - 720 - 1096 - 3744)) / 22100
    assert par.edge_per_unit == pytest.approx(-ret, abs=1e-12)
    assert round(100 * par.edge_per_unit, 1) == 2.3  # published: Casino City Times, Table A 2.3%
    assert sum(p for _, p, _ in par.lines) == pytest.approx(1.0)
    assert sum(c for _, _, c in par.lines) == pytest.approx(-par.edge_per_unit)


def test_three_card_table_b_published() -> None:
    table = with_paytable(_table("boston5"), "b5_bonus_b").paytables["bonus"]
    assert round(100 * three_card_par("bonus", table, BOSTON5).edge_per_unit, 1) == 7.3  # Casino City Times 7.3%


def test_boston5_expose_only_paying_hands() -> None:
    assert boston5_expose(parse_cards("As Ad 4c"))
    assert boston5_expose(parse_cards("2h 3h 5h"))
    assert not boston5_expose(parse_cards("As Kd 4c"))


# --- Mississippi Stud ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def ms_par():  # type: ignore[no-untyped-def]
    from controller.par.mississippi import solve

    return solve(_table("mississippi_stud").paytables["main"])  # the solver itself, not the kept result


def _reference_third(two: list[int], pay: dict[int, float]) -> tuple[float, int]:
    """The value and best third-street bet of two cards, straight from the rules over the
    117,600 ordered community deals (no card sets, no tables)."""
    rest = [c for c in range(52) if c not in two]
    order = np.array([(a, b, c) for a in rest for b in rest if b != a for c in rest if c != a and c != b])
    hands = np.hstack([np.tile(two, (order.shape[0], 1)), order])
    values = np.vectorize(pay.__getitem__)(strengths(hands, Wheel.LOWEST)).reshape(50, 49, 48)

    def best(options: list[tuple[int, float]]) -> tuple[float, int]:
        top = max(v for _, v in options)
        return top, max(b for b, v in options if v == top)

    m = values.mean(axis=2)  # (50, 49): mean payout per unit at fifth street
    v3 = []
    for b3 in (1, 3):
        fourth = []
        for i in range(50):
            opts = [(0, -(1 + b3))]
            for b4 in (1, 3):
                s = 1 + b3 + b4
                v5 = [best([(0, -s), (1, (s + 1) * m[i, j]), (3, (s + 3) * m[i, j])])[0] for j in range(49)]
                opts.append((b4, float(np.mean(v5))))
            fourth.append(best(opts)[0])
        v3.append((b3, float(np.mean(fourth))))
    return best([(0, -1.0), *v3])


@pytest.mark.slow
def test_mississippi_matches_a_direct_recursion_over_ordered_deals(ms_par) -> None:  # type: ignore[no-untyped-def]
    table = _table("mississippi_stud").paytables["main"]
    h5 = combinations_array(52, 5)
    s5 = strengths(h5, Wheel.LOWEST)
    _, pays = five_card_lines(table, s5)
    pay = dict(zip(s5.tolist(), pays.tolist(), strict=True))
    for text in ("As Ks", "7c 2d", "Th 9h"):
        cards = parse_cards(text)
        value, bet = _reference_third([c.index for c in cards], pay)
        i = set_index(cards)
        assert ms_par.third_value[i] == pytest.approx(value, abs=1e-9), text
        assert int(ms_par.strategy.third[i]) == bet, text


def test_mississippi_published_figures(ms_par) -> None:  # type: ignore[no-untyped-def]
    # Eliot Jacobson (888casino blog) 4.9149%; wizardofodds.com: 4.91%, average total bet 3.59, element of risk 1.37%
    assert round(-100 * ms_par.ev_per_ante, 4) == 4.9149
    assert round(ms_par.average_total_wager, 2) == 3.59
    assert round(-100 * ms_par.ev_per_ante / ms_par.average_total_wager, 2) == 1.37


def test_mississippi_forward_pass_adds_up(ms_par) -> None:  # type: ignore[no-untyped-def]
    showdown = sum(p for _, p, _ in ms_par.lines)
    assert showdown + sum(ms_par.fold_rates.values()) == pytest.approx(1.0, abs=1e-12)
    net = sum(m[0] for m in ms_par.spot_moments.values())
    assert net == pytest.approx(ms_par.ev_per_ante, abs=1e-12)
    assert sum(m[1] for m in ms_par.spot_moments.values()) == pytest.approx(ms_par.average_total_wager)
    assert float(ms_par.third_value.mean()) == pytest.approx(ms_par.ev_per_ante, abs=1e-12)


def test_mississippi_decision_plays_the_tables() -> None:
    assert mississippi_decision(parse_cards("As Ad"), []) == 3  # a paying pair: the most
    assert mississippi_decision(parse_cards("7c 2d"), []) == 0
    # a made royal at fifth street: 3x
    assert mississippi_decision(parse_cards("As Ks"), parse_cards("Qs Js")) == 3
    # with nothing and no draw at fifth street after folding nothing: a fold
    assert mississippi_decision(parse_cards("Kc Qd"), parse_cards("2h 7s")) in (0, 1)


# --- Boston 5 -----------------------------------------------------------------------------


@pytest.mark.slow
def test_boston5_dealer_counts_match_brute_force() -> None:
    from controller.par.boston5 import dealer_counts

    strength, win, tie = dealer_counts()
    hands = combinations_array(52, 5)
    dealer = combinations_array(47, 5)
    cats = strength >> 20
    picks = [0, 1, 1286]  # a straight flush, a flush-free low hand, the top
    picks += [int(np.nonzero(cats == c)[0][0]) for c in (1, 4, 5)]  # a pair, a straight, a flush
    for i in picks:
        rest = np.array([c for c in range(52) if c not in hands[i]])
        ds = strengths(rest[dealer], Wheel.LOWEST)
        assert win[i] == (ds < strength[i]).sum()
        assert tie[i] == (ds == strength[i]).sum()


def test_boston5_sheet_is_consistent() -> None:
    sheet = par_sheet("boston5", _table("boston5"))
    assert sheet.exact
    out = dict(sheet.tables["main_outcomes"])
    assert out["win"] + out["tie"] + out["lose"] + out["fold"] == pytest.approx(1.0)
    if out["fold"] == 0:  # every hand played: the player's and dealer's hands are alike, so win = lose
        assert out["win"] == pytest.approx(out["lose"], abs=1e-12)
    assert set(sheet.spots) >= {"ante", "first", "second", "ante_bonus", "bonus"}


# --- pai gow ------------------------------------------------------------------------------


def _runs7_with_joker() -> int:
    """Seven-card straight flushes made with the joker, counted directly: six cards of a suit
    that the joker turns into seven consecutive ranks (the ace high or low)."""
    runs = [set(range(s, s + 7)) for s in range(7)] + [{12, 0, 1, 2, 3, 4, 5}]
    found = 0
    for six in combinations(range(13), 6):
        if any(set(six) < run for run in runs):
            found += 1
    return 4 * found


@pytest.mark.slow
def test_pai_gow_classes_cover_every_hand() -> None:
    from controller.par.pai_gow import HANDS, bonus_counts

    counts = bonus_counts()  # the kept counts (tests/test_par_data.py checks them against the classes)
    assert sum(counts.values()) == HANDS == 154_143_080
    having = lambda c: sum(n for q, n in counts.items() if c in q)  # noqa: E731
    assert having(Category.SEVEN_CARD_STRAIGHT_FLUSH) == 8 * 4
    assert having(Category.SEVEN_CARD_STRAIGHT_FLUSH_JOKER) == _runs7_with_joker()
    assert having(Category.FIVE_ACES) == comb(48, 2)  # four aces, the joker, any two others


def _pai_gow_by_top() -> dict[int, int]:
    """Pai gow hands (no pair, straight or flush; the joker only an ace) by top card, counted
    from rank sets and suit patterns directly."""
    straights = [set(range(s, s + 5)) for s in range(9)] + [{12, 0, 1, 2, 3}]
    suitings7 = 4**7 - 4 * sum(comb(7, k) * 3 ** (7 - k) for k in (5, 6, 7))
    suitings6 = 4**6 - 4 * sum(comb(6, k) * 3 ** (6 - k) for k in (5, 6))
    out: dict[int, int] = {}
    for ranks in combinations(range(13), 7):
        if not any(s <= set(ranks) for s in straights):
            out[ranks[-1] + 2] = out.get(ranks[-1] + 2, 0) + suitings7
    for ranks in combinations(range(12), 6):  # the joker is the ace
        if not any(s <= set(ranks) | {12} for s in straights):
            out[14] = out.get(14, 0) + suitings6
    return out


def test_pai_gow_insurance_counts_match_direct_count() -> None:
    from controller.par.pai_gow import insurance_counts

    assert insurance_counts() == _pai_gow_by_top()


@pytest.mark.slow
def test_pai_gow_class_example_stands_for_each_hand() -> None:
    """For random hands, the class example the counts use classifies exactly as the hand."""
    import random

    from controller.hands import PAI_GOW, classify_bonus
    from controller.par.pai_gow import hand_classes

    def key(cards) -> tuple:  # type: ignore[no-untyped-def]
        real = [c for c in cards if not c.is_joker]
        joker = len(real) < 7
        ranks = tuple(sorted(c.index % 13 for c in real))
        need = 4 if joker else 5
        suits = [c.index // 13 for c in real]
        top = max(range(4), key=suits.count)
        if suits.count(top) < need:
            return (joker, ranks, None, None)
        inside = tuple(sorted(c.index % 13 for c in real if c.index // 13 == top))
        outside = [c for c in real if c.index // 13 != top]
        kq = sorted(c.index % 13 for c in outside) == [10, 11]
        return (joker, ranks, inside, (outside[0].index // 13 == outside[1].index // 13) if kq else None)

    rng = random.Random(14)
    samples = [rng.sample(list(ALL_CARDS), 7) for _ in range(300)]
    wanted = {key(cards)[:2] for cards in samples}
    examples = {}
    for cards, _ in hand_classes():
        if (cards[-1].is_joker, tuple(sorted(c.index % 13 for c in cards if not c.is_joker))) in wanted:
            examples.setdefault(key(cards), cards)
    for cards in samples:
        example = examples[key(cards)]
        assert classify_bonus(example, PAI_GOW).qualifies == classify_bonus(cards, PAI_GOW).qualifies


def test_pai_gow_sheet_published_bonus_figure() -> None:
    sheet = par_sheet("pai_gow", _table("pai_gow"))
    # wizardofodds.com, Fortune pai gow, the 8000/2000/1000/400/150/50/25/5/4/3/2 table: 7.77%
    assert round(100 * sheet.spots["bonus"].edge_per_unit, 2) == 7.77
    assert not sheet.spots["pai_gow"].exact and sheet.spots["pai_gow"].interval95 is not None
    assert sheet.spots["envy"].edge_per_unit < 0  # the envy bonus only pays


def test_pai_gow_main_simulation_counts() -> None:
    counts = simulate_main("foxwoods", 200, seed=3)
    assert counts.win + counts.push + counts.lose == 200 * 6
    edge, variance, (lo, hi) = main_edge(counts, 5)
    assert lo < edge < hi and variance > 0
    no_commission, _, _ = main_edge(counts, 0)
    assert no_commission < edge


# --- the sheet API and the CLI ------------------------------------------------------------


def test_spot_hold_interval_narrows_with_handle() -> None:
    spot = SpotPar("bonus", 0.05, 4.0)
    lo, hi = spot.hold_interval(100)
    assert lo == pytest.approx(0.05 - 1.96 * 0.2) and hi == pytest.approx(0.05 + 1.96 * 0.2)
    assert spot.hold_interval(10_000)[1] - spot.hold_interval(10_000)[0] < hi - lo
    # stakes of 1 each: the same range; stakes of 500 cents each: the same range in cents
    assert spot.hold_interval_for_stakes(100, 100, 100) == pytest.approx((lo, hi))
    assert spot.hold_interval_for_stakes(50_000, 50_000, 100 * 500**2) == pytest.approx((lo, hi))


def test_with_paytable_swaps_the_spot() -> None:
    table = with_paytable(_table("boston5"), "b5_bonus_b")
    assert table.paytables["bonus"].name == "b5_bonus_b"
    with pytest.raises(ParError, match="is for mississippi_stud"):
        with_paytable(_table("boston5"), "ms_main_standard")
    with pytest.raises(ParError, match="no paytable named"):
        with_paytable(_table("boston5"), "nope")


def test_cli_par_text_json_and_errors(capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from controller.cli import main

    assert main(["par", "--game", "boston5", "--paytable", "b5_bonus_b", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["paytables"]["bonus"] == "b5_bonus_b" and data["exact"] is True
    assert main(["par", "--game", "mississippi_stud"]) == 0
    out = capsys.readouterr().out
    assert "4.9149% per ante" in out and "royal flush" in out
    assert main(["par", "--game", "pai_gow", "--paytable", "nope"]) == 2
    assert "no paytable named 'nope'" in capsys.readouterr().err
    assert main(["par", "--game", "boston5", "--config", str(default_table_path("pai_gow"))]) == 2
    assert "not boston5" in capsys.readouterr().err


def test_cli_par_strategy_as_data(capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from controller.cli import main

    assert main(["par", "--game", "mississippi_stud", "--strategy", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    third = [r for r in data["rows"] if r["street"] == "third"]
    assert len(third) == 169  # 13 pairs, 78 suited and 78 offsuit
    assert {r["bet"] for r in data["rows"]} <= {0, 1, 3}
    aces = [r for r in third if r["cards"].split()[0][0] == "A" == r["cards"].split()[1][0]]
    assert [r["bet"] for r in aces] == [3]


def _ballys_table(tmp_path):  # type: ignore[no-untyped-def]
    from controller.configuration import config_dir

    text = default_table_path("pai_gow").read_text().replace("house_way: foxwoods", "house_way: ballys_ac")
    config = tmp_path / "pai_gow.yaml"
    config.write_text(text + f"paytables_dir: {config_dir() / 'paytables'}\n")
    return config


def test_pai_gow_main_wager_for_each_house_way(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from controller.par._pai_gow_data import MAIN_COUNTS, MAIN_SOURCE

    ballys = par_sheet("pai_gow", load_table(_ballys_table(tmp_path))).spots["pai_gow"]
    foxwoods = par_sheet("pai_gow", load_table(default_table_path("pai_gow"))).spots["pai_gow"]
    for spot in (ballys, foxwoods):  # both near the published 2.7% of house way against house way
        assert (
            spot.interval95 is not None and 0.025 < spot.interval95[0] < spot.edge_per_unit < spot.interval95[1] < 0.03
        )
    assert "--way ballys_ac" in ballys.note and "--way foxwoods" in foxwoods.note
    assert set(MAIN_COUNTS) == set(MAIN_SOURCE)


def test_pai_gow_house_way_without_stored_simulation(tmp_path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import json

    from controller.cli import main
    from controller.par import pai_gow

    monkeypatch.delitem(pai_gow.MAIN_COUNTS, "ballys_ac")  # a way nobody has simulated yet
    config = _ballys_table(tmp_path)
    sheet = par_sheet("pai_gow", load_table(config))
    assert "pai_gow" not in sheet.spots and "bonus" in sheet.spots
    assert any("no stored simulation" in n for n in sheet.notes)
    assert main(["par", "--game", "pai_gow", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "no stored simulation" in out and "main game: no figures" in out
    assert main(["par", "--game", "pai_gow", "--config", str(config), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["edge_per_ante"] is None
