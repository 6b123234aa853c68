"""Three Card Poker (N.J.A.C. 13:69F-20): the three-card ranking, settlement section by section
(20.10(b) folds, (d) the queen-high qualifier, (e)1-4 ante and play, 20.11(b) ante bonus, 20.11(c)
pair plus), against a slow reference settlement, bad records and paytables, and the exact par
sheet against the published figures (Wizard of Odds: 3.37% of the ante, element of risk 2.01%,
pair plus 40-30-6-3-1 7.28%, 40-30-6-4-1 2.32%; the queen-six-four strategy)."""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import combinations
from pathlib import Path

import pytest

from controller.configuration import ConfigError, default_table_path, load_paytables, load_table
from controller.configuration._paytables import read_paytables
from controller.game import game_name, wager_name
from controller.game.record import SPECS, RecordError, settle_record, spec_for
from controller.game.record._settle import GAMES
from controller.game.three_card_poker import QUALIFIER
from controller.game.three_card_poker._rules import qualifies
from controller.hands import THREE_CARD_POKER, Category, evaluate_three, rank_hand
from controller.vocab import ALL_CARDS, Card, format_cards, parse_cards

TABLE = load_table(default_table_path("three_card_poker"))


def settle(seats: dict, dealer: str = "Kc 8d 2s", table=TABLE):
    return settle_record({"game": "three_card_poker", "seats": seats, "dealer": dealer}, table)


def played(cards: str, ante: int = 1000, pair_plus: int | None = None) -> dict:
    wagers = {"ante": ante, "play": ante, **({"pair_plus": pair_plus} if pair_plus else {})}
    return {"wagers": wagers, "cards": cards}


def results(settlement, number: int = 1) -> dict:
    return {w.spot: (w.result.value, w.net) for w in settlement.seat(number).wagers}


# --- the ranking (20.11, rank of hands) ------------------------------------------------------


def test_three_card_order_differs_from_five_card_poker() -> None:
    order = ["Js Ts 9s", "4c 4d 4h", "Jc Td 9s", "Ks 8s 2s", "Ac Ad 2h", "Ac Kd 9h"]
    values = [evaluate_three(parse_cards(h), THREE_CARD_POKER) for h in order]
    assert [v.category for v in values] == [
        Category.STRAIGHT_FLUSH,
        Category.THREE_OF_A_KIND,
        Category.STRAIGHT,
        Category.FLUSH,
        Category.ONE_PAIR,
        Category.HIGH_CARD,
    ]
    assert [v.strength for v in values] == sorted((v.strength for v in values), reverse=True)


def test_ace_plays_high_or_low_in_a_straight_but_not_around_the_corner() -> None:
    a23 = rank_hand(parse_cards("Ah 2c 3d"), THREE_CARD_POKER)
    qka = rank_hand(parse_cards("Qh Kc Ad"), THREE_CARD_POKER)
    k_a_2 = rank_hand(parse_cards("Kh Ac 2d"), THREE_CARD_POKER)
    two34 = rank_hand(parse_cards("2h 3c 4d"), THREE_CARD_POKER)
    assert a23.category == qka.category == two34.category == Category.STRAIGHT
    assert a23.strength < two34.strength < qka.strength
    assert k_a_2.category == Category.HIGH_CARD
    assert rank_hand(parse_cards("Qh Kh Ah"), THREE_CARD_POKER).category == Category.STRAIGHT_FLUSH  # no mini royal


@pytest.mark.parametrize(
    "dealer, qualifies_",
    [("Qs 3h 2d", True), ("Jh Td 8c", False), ("Js Ts 9s", True), ("2c 2d 3h", True), ("Jh 9s 7s", False)],
)
def test_the_dealer_qualifies_on_queen_high_or_better(dealer: str, qualifies_: bool) -> None:
    assert qualifies(evaluate_three(parse_cards(dealer), THREE_CARD_POKER)) is qualifies_


# --- settlement, section by section -----------------------------------------------------------


@pytest.mark.parametrize("cards", ["5c 3d 2h", "Ac Kd 9h", "9h 9s 4c", "Jc Td 9s"])
def test_e1_dealer_not_qualifying_pays_the_ante_and_pushes_the_play(cards: str) -> None:
    s = settle({"1": played(cards)}, dealer="Jh 9d 7c")
    r = results(s)
    assert r["ante"] == ("win", 1000) and r["play"] == ("push", 0)
    assert "20.10(e)1" in s.seat(1).wager("ante").why
    assert s.dealer["qualifies"] == "no"


def test_e2_a_higher_qualifying_dealer_takes_ante_and_play() -> None:
    r = results(settle({"1": played("Qc 9d 4h")}, dealer="Kc 8d 2s"))
    assert r == {"ante": ("lose", -1000), "play": ("lose", -1000)}


def test_e2_a_played_hand_below_the_qualifier_loses_to_any_qualifying_dealer() -> None:
    r = results(settle({"1": played("Jc 9d 4h")}, dealer="Qs 3h 2d"))
    assert r == {"ante": ("lose", -1000), "play": ("lose", -1000)}


def test_e3_a_tie_with_a_qualifying_dealer_pushes_both() -> None:
    r = results(settle({"1": played("Kh 8s 2c")}, dealer="Kc 8d 2s"))
    assert r == {"ante": ("push", 0), "play": ("push", 0)}


def test_e4_a_higher_player_wins_ante_and_play_even_money() -> None:
    r = results(settle({"1": played("Ah 8s 2c")}, dealer="Kc 8d 2s"))
    assert r == {"ante": ("win", 1000), "play": ("win", 1000)}


@pytest.mark.parametrize(
    "dealer, main",
    [
        ("Js 9d 7c", ("win", 1000)),  # (e)1: dealer does not qualify
        ("Ks Qs Js", ("lose", -1000)),  # (e)2: dealer higher (a straight flush)
        ("Qc Jc Tc", ("push", 0)),  # (e)3: a tie
        ("Kc 8d 2s", ("win", 1000)),  # (e)4: player higher
    ],
)
def test_b_the_ante_bonus_is_paid_whatever_the_dealer_holds(dealer: str, main: tuple[str, int]) -> None:
    s = settle({"1": played("Qh Jh Th", pair_plus=500)}, dealer=dealer)
    r = results(s)
    assert r["ante"] == main
    assert r["ante_bonus"] == ("win", 5000)  # straight flush 5 to 1 on the ante
    assert r["pair_plus"] == ("win", 20000)  # straight flush 40 to 1, whatever the dealer holds
    assert "20.11(b)" in s.seat(1).wager("ante_bonus").why


@pytest.mark.parametrize(
    "cards, bonus, pair_plus",
    [
        ("4c 4d 4h", 4000, 30000),
        ("Jc Td 9s", 1000, 6000),
        ("Ks 8s 2s", None, 3000),
        ("Ac Ad 2h", None, 1000),
        ("Ac Kd 9h", None, -1000),
    ],
)
def test_c_pair_plus_and_ante_bonus_pay_the_paytables(cards: str, bonus: int | None, pair_plus: int) -> None:
    r = results(settle({"1": played(cards, pair_plus=1000)}, dealer="2c 3d 5h"))
    assert r.get("ante_bonus", (None, None))[1] == bonus
    assert r["pair_plus"][1] == pair_plus


def test_c_pair_plus_alone_is_settled_on_the_player_hand() -> None:
    s = settle(
        {
            "1": {"wagers": {"pair_plus": 500}, "cards": "9h 9d 4c"},
            "2": {"wagers": {"pair_plus": 500}, "cards": "9s Td 4d"},
        },
        dealer="Kc 8d 2s",
    )
    assert results(s, 1) == {"pair_plus": ("win", 500)}
    assert results(s, 2) == {"pair_plus": ("lose", -500)}


def test_b_a_fold_forfeits_ante_and_pair_plus_even_a_paying_one() -> None:
    s = settle({"1": {"wagers": {"ante": 1000, "pair_plus": 500}, "cards": "9h 9d 4c"}}, dealer="Jh 9s 7s")
    assert results(s) == {"ante": ("lose", -1000), "pair_plus": ("lose", -500)}
    assert s.seat(1).hands == {}  # a folded hand is not exposed


def test_folds_are_collected_first_then_the_dealer_reveals_then_seats_from_the_dealers_right() -> None:
    s = settle(
        {
            "1": played("Ah 8s 2c"),
            "2": {"wagers": {"ante": 1000}, "cards": "5c 4d 2h"},
            "3": played("Kh 8h 3c"),
            "5": {"wagers": {"ante": 500}, "cards": "6c 4c 2d"},
        },
        dealer="Kc 8d 2s",
    )
    assert [(p.phase, p.seat) for p in s.procedure] == [
        ("fold", 5),
        ("fold", 2),
        ("dealer", None),
        ("settle", 3),
        ("settle", 1),
    ]
    assert "Kc 8d 2s" not in s.procedure[0].text and "Kc 8d 2s" in s.procedure[2].text
    assert s.house_net == -1000 - 1000 + 1000 + 500 - 1000 - 1000  # seat 1 wins 2000, seat 3 loses 2000


def test_the_payout_cap_applies_to_ante_bonus_and_pair_plus() -> None:
    capped = replace(TABLE, payout_cap=10_000)
    r = results(settle({"1": played("Qh Jh Th", pair_plus=1000)}, dealer="Js 9d 7c", table=capped))
    assert sum(net for _, net in r.values() if net > 0) <= 10_000 + 1000  # the ante's even money is not capped


# --- against a slow reference -----------------------------------------------------------------


def _reference_rank(cards: list[Card]) -> tuple[int, ...]:
    """A plain three-card ranking: (category, ranks...), larger is better."""
    ranks = sorted((c.rank or 0 for c in cards), reverse=True)
    flush = len({c.suit for c in cards}) == 1
    straight = None
    if len(set(ranks)) == 3 and ranks[0] - ranks[2] == 2:
        straight = ranks[0]
    elif ranks == [14, 3, 2]:
        straight = 3
    if straight and flush:
        return (5, straight)
    if ranks[0] == ranks[2]:
        return (4, ranks[0])
    if straight:
        return (3, straight)
    if flush:
        return (2, *ranks)
    if ranks[0] == ranks[1] or ranks[1] == ranks[2]:
        pair = ranks[1]
        return (1, pair, ranks[2] if ranks[0] == pair else ranks[0])
    return (0, *ranks)


_BONUS = {5: 5, 4: 4, 3: 1}
_PAIR_PLUS = {5: 40, 4: 30, 3: 6, 2: 3, 1: 1}


def _reference_net(wagers: dict[str, int], cards: list[Card], dealer: list[Card]) -> int:
    if "ante" in wagers and "play" not in wagers:
        return -sum(wagers.values())
    p, d = _reference_rank(cards), _reference_rank(dealer)
    net = 0
    if "ante" in wagers:
        a = wagers["ante"]
        if d < (0, 12, 3, 2):
            net += a
        elif d > p:
            net -= 2 * a
        elif p > d:
            net += 2 * a
        net += _BONUS.get(p[0], 0) * a
    if "pair_plus" in wagers:
        net += _PAIR_PLUS[p[0]] * wagers["pair_plus"] if p[0] in _PAIR_PLUS else -wagers["pair_plus"]
    return net


def test_settlement_matches_a_slow_reference_on_random_rounds() -> None:
    rnd = random.Random(2026)
    deck = list(ALL_CARDS[:52])
    for _ in range(400):
        rnd.shuffle(deck)
        n = rnd.randint(1, 6)
        seats: dict[str, dict] = {}
        expected: dict[int, int] = {}
        for i in range(n):
            cards = deck[3 * i : 3 * i + 3]
            kind = rnd.choice(["played", "folded", "pair_plus", "both"])
            ante = rnd.choice([500, 1000, 2500])
            wagers = {
                "played": {"ante": ante, "play": ante},
                "folded": {"ante": ante, "pair_plus": 100},
                "pair_plus": {"pair_plus": 200},
                "both": {"ante": ante, "play": ante, "pair_plus": 300},
            }[kind]
            seats[str(i + 1)] = {"wagers": wagers, "cards": format_cards(cards)}
            expected[i + 1] = _reference_net(wagers, cards, deck[18:21])
        s = settle(seats, dealer=format_cards(deck[18:21]))
        assert {x.seat: x.net for x in s.seats} == expected


def test_round_record_round_trips() -> None:
    game = GAMES["three_card_poker"]
    record = {"game": "three_card_poker", "seats": {"2": played("Ah 8s 2c", pair_plus=500)}, "dealer": "Kc 8d 2s"}
    again = game.round_record(game.read_round(record, TABLE))
    assert settle_record(again, TABLE).to_json() == settle_record(record, TABLE).to_json()


# --- bad records: every problem at once, by JSON path ------------------------------------------


def test_bad_records_name_every_problem_by_json_path() -> None:
    with pytest.raises(RecordError) as err:
        settle(
            {
                "1": {"wagers": {"ante": 1000, "play": 2000}, "cards": "Ah 8s 2c"},
                "2": {"wagers": {"play": 1000}, "cards": "Ah 7s 3c"},
                "3": {"wagers": {}, "cards": "9h 9d"},
                "4": {"wagers": {"ante": 1000}, "cards": "5c 4d 2h", "folded_at": "x"},
            },
            dealer="Kc 8d",
        )
    text = "\n".join(err.value.problems)
    assert "$.seats.1.wagers.play: must equal the ante (1000), got 2000" in text
    assert "$.seats.2.wagers.play: a play wager needs an ante" in text
    assert "$.seats.2.cards" in text  # Ah twice (one deck), with the other problems
    assert "$.seats.3.wagers: needs an ante or a pair plus wager" in text
    assert "$.seats.3.cards" in text
    assert "$.seats.4.folded_at: unknown key" in text
    assert "$.dealer" in text


def test_a_card_in_two_hands_is_refused() -> None:
    with pytest.raises(RecordError) as err:
        settle({"1": played("Ah 8s 2c"), "2": played("Kc 7s 3c")}, dealer="Kc 8d 2s")
    (problem,) = err.value.problems
    assert problem == "$.dealer: card 1 'Kc' is also dealt at $.seats.2.cards"


def test_unknown_top_keys_are_refused() -> None:
    with pytest.raises(RecordError, match=r"\$\.community: unknown key"):
        settle_record({"game": "three_card_poker", "seats": {}, "dealer": "Kc 8d 2s", "community": "2c 3c 4c"}, TABLE)


# --- paytables and table configs ----------------------------------------------------------------

HEAD = """\
paytables:
  - name: t
    game: three_card_poker
    spot: pair_plus
    approved: false
    source: test
    rows:
"""


def test_shipped_paytables_are_the_published_ones() -> None:
    tables = load_paytables(default_table_path("three_card_poker").parent / "paytables")
    odds = lambda name: [(r.category.value, str(r.odds)) for r in tables[name].rows]  # noqa: E731
    assert odds("tcp_ante_bonus_1_4_5") == [
        ("straight_flush", "5 to 1"),
        ("three_of_a_kind", "4 to 1"),
        ("straight", "1 to 1"),
    ]
    assert [o for _, o in odds("tcp_pair_plus_40_30_6_3_1")] == ["40 to 1", "30 to 1", "6 to 1", "3 to 1", "1 to 1"]
    assert all(tables[n].source for n in tables if n.startswith("tcp_"))


@pytest.mark.parametrize(
    "row, message",
    [
        ("      - {hand: four_of_a_kind, pays: 9 to 1}\n", "four_of_a_kind"),
        ("      - {hand: mini_royal, pays: 50 to 1}\n", "mini_royal"),
        ("      - {hand: flush, pays: -3 to 1}\n", "pays"),
    ],
)
def test_bad_pair_plus_paytables_name_file_line_and_key(tmp_path: Path, row: str, message: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(HEAD + "      - {hand: one_pair, pays: 1 to 1}\n" + row + "      - {hand: florp, pays: 1 to 1}\n")
    with pytest.raises(ConfigError) as err:
        read_paytables([path])
    problems = [str(p) for p in err.value.problems]
    assert any(p.startswith(f"{path}:9: paytables[0].rows[1]") and message in p for p in problems), problems
    assert any(p.startswith(f"{path}:10: paytables[0].rows[2].hand") for p in problems), problems  # the second fault


@pytest.mark.parametrize(
    "drop, message",
    [
        ("  ante_bonus: tcp_ante_bonus_1_4_5\n", "ante_bonus"),
        ("  pair_plus: tcp_pair_plus_40_30_6_3_1\n", "the pair_plus wager is offered without paytables.pair_plus"),
    ],
)
def test_a_table_without_the_required_ante_bonus_or_with_a_half_offered_pair_plus_is_refused(
    tmp_path: Path, drop: str, message: str
) -> None:
    shipped = default_table_path("three_card_poker")
    (tmp_path / "paytables").mkdir()
    (tmp_path / "paytables" / "t.yaml").write_text((shipped.parent / "paytables" / "three_card_poker.yaml").read_text())
    path = tmp_path / "t.yaml"
    path.write_text(shipped.read_text().replace(drop, ""))
    with pytest.raises(ConfigError) as err:
        load_table(path)
    assert any(message in str(p) and str(p).startswith(str(path)) for p in err.value.problems), err.value.problems


# --- the spec -------------------------------------------------------------------------------------


def test_the_spec_gathers_the_game() -> None:
    spec = spec_for("three_card_poker")
    assert spec.display_name == game_name("three_card_poker") == "Three Card Poker"
    assert spec.rules is THREE_CARD_POKER and spec.catalog.wager_spots[:3] == ("ante", "play", "pair_plus")
    assert wager_name("pair_plus") == "pair plus"
    assert set(SPECS) == set(GAMES)
    for name in SPECS:
        assert spec_for(name).name == name and spec_for(name).catalog.game == name
        assert set(spec_for(name).par_options) <= {o.name for o in spec_for(name).options}
    with pytest.raises(KeyError, match="unknown game 'poker' \\(known: boston5, mississippi_stud"):
        spec_for("poker")


# --- the par sheet ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sheet():  # type: ignore[no-untyped-def]
    from controller.par.three_card_poker import table_sheet

    return table_sheet(TABLE)


def test_par_matches_the_published_figures(sheet) -> None:  # type: ignore[no-untyped-def]
    assert sheet.edge_per_ante == pytest.approx(0.033730, abs=5e-6)  # 3.37% of the ante
    assert sheet.edge_per_action == pytest.approx(0.020147, abs=5e-6)  # element of risk 2.01%
    assert sheet.fold_rate == pytest.approx(0.325792, abs=5e-6)
    assert sheet.spots["pair_plus"].edge_per_unit == pytest.approx(0.072760, abs=5e-6)  # 40-30-6-3-1: 7.28%


def test_par_of_the_other_pair_plus_table() -> None:
    from controller.par._three_card import three_card_par

    other = load_paytables(default_table_path("three_card_poker").parent / "paytables")["tcp_pair_plus_40_30_6_4_1"]
    assert three_card_par("pair_plus", other, THREE_CARD_POKER).edge_per_unit == pytest.approx(0.0232, abs=5e-5)


def test_the_best_strategy_is_queen_six_four() -> None:
    from controller.par.three_card_poker import ante_play, versus

    found = ante_play(TABLE.paytables["ante_bonus"], QUALIFIER)
    assert sorted(c.rank or 0 for c in found.weakest_played.cards) == [4, 6, 12]

    def play_ev(hand: str) -> int:
        v = versus(parse_cards(hand), QUALIFIER)
        return v.not_qualifying + 2 * v.lower - 2 * v.higher

    assert play_ev("Qs 6h 4d") > -18_424 > play_ev("Qs 6h 3d")  # play Q-6-4, fold Q-6-3


@pytest.mark.parametrize("hand", ["Qs 6h 4d", "2c 3d 5h", "As Kd Qc", "9h 9d 4c", "Qh Kh Ah", "Jc Td 9s", "Kc 8d 2s"])
def test_dealer_counts_match_a_direct_count(hand: str) -> None:
    from controller.par.three_card_poker import versus

    player = parse_cards(hand)
    p = evaluate_three(player, THREE_CARD_POKER).strength
    rest = [c for c in ALL_CARDS[:52] if c not in player]
    counts = {"not_qualifying": 0, "lower": 0, "equal": 0, "higher": 0}
    for dealer in combinations(rest, 3):
        d = evaluate_three(dealer, THREE_CARD_POKER).strength
        if d < QUALIFIER.strength:
            counts["not_qualifying"] += 1
        elif d < p:
            counts["lower"] += 1
        elif d == p:
            counts["equal"] += 1
        else:
            counts["higher"] += 1
    v = versus(player, QUALIFIER)
    assert counts == {"not_qualifying": v.not_qualifying, "lower": v.lower, "equal": v.equal, "higher": v.higher}


def test_cli_par_and_rank_take_the_game(capsys) -> None:  # type: ignore[no-untyped-def]
    from controller.cli import main

    assert main(["par", "--game", "three_card_poker"]) == 0
    out = capsys.readouterr().out
    assert "house edge 3.3730% per ante" in out and "pair_plus: house edge 7.2760%" in out
    assert main(["rank", "--game", "three_card_poker", "Qh Kc Ad"]) == 0
    assert '"straight"' in capsys.readouterr().out


def test_cli_settle_takes_the_game_and_refuses_a_bad_record_with_exit_2(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    good = {"game": "three_card_poker", "seats": {"1": played("Ah 8s 2c", pair_plus=500)}, "dealer": "Kc 8d 2s"}
    bad = {"game": "three_card_poker", "seats": {"1": {"wagers": {"ante": 1000, "play": 500}, "cards": "Ah 8s"}}}
    for name, record in (("good.json", good), ("bad.json", bad)):
        (tmp_path / name).write_text(json.dumps(record))

    def run(name: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "controller", "settle", str(tmp_path / name)]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)

    ok = run("good.json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["seats"]["1"]["net"] == 2000 - 500  # ante and play win, pair plus (high card) loses
    refused = run("bad.json")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    for path in ("$.seats.1.wagers.play", "$.seats.1.cards", "$.dealer"):
        assert path in refused.stderr, refused.stderr
