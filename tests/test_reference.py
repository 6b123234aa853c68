"""The reference model (issue 41 item 1): written from the seeds, sharing no code with the table.

Its hand evaluator on hands made by hand (24.3), its paytables read from the YAML, where it
deals each card and when it lets a card be seen, what it pays; and the simulation's comparison
with it catching a table that pays, deals or settles otherwise."""

from __future__ import annotations

import ast
import copy
import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hil.reference import load_ref_table
from hil.reference.games import SeatState, deal_destinations, expect_round, visible_cards
from hil.reference.poker import CATEGORIES, best_five, five, parse, three
from hil.simulate.invariants import Broken
from hil.simulate.turning import TurningClock

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "config" / "bench"


def test_the_model_imports_only_the_standard_library_and_pyyaml() -> None:
    """A checker never shares code with what it checks: no controller, no drivers, nothing else of hil."""
    allowed = set(sys.stdlib_module_names) | {"yaml", "__future__"}
    for path in sorted((ROOT / "hil" / "reference").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{path.name}: a relative import"
                names = [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                ok = top in allowed or name == "hil.reference" or name.startswith("hil.reference.")
                assert ok, f"{path.name} imports {name}"


def _hand(text: str) -> tuple[int, tuple[int, ...]]:
    return five([parse(c) for c in text.split()])


def _name(text: str) -> str:
    return CATEGORIES[best_five([parse(c) for c in text.split()])[0][0]]


@pytest.mark.parametrize(
    ("cards", "category"),
    [
        ("As Ks Qs Js Ts", "royal_flush"),
        ("5h 4h 3h 2h Ah", "straight_flush"),
        ("9c 9d 9h 9s 2c", "four_of_a_kind"),
        ("3c 3d 3h 2s 2c", "full_house"),
        ("Ad Jd 9d 4d 2d", "flush"),
        ("As 2d 3h 4c 5s", "straight"),  # 24.3(a): the ace low in a wheel
        ("Ts Jd Qh Kc As", "straight"),
        ("Qs Kd Ah 2c 3s", "high_card"),  # 24.3(b)6: an ace never wraps round
        ("7c 7d 7h Ks 2c", "three_of_a_kind"),
        ("Ac Ad Kh Ks 2c", "two_pair"),
        ("6c 6d Kh Qs 2c", "one_pair"),
        ("Ac Qd 9h 7s 3c", "high_card"),
        ("Ac Ad Ah As JK", "five_aces"),
        ("JK Kd Qd Jd Td", "royal_flush"),  # the joker completes a royal flush
        ("JK 9c 7h 6s 5d", "straight"),  # ... a straight (the 8)
        ("JK Kc 7h 6s 5d", "high_card"),  # ... else it is an ace: ace high
        ("JK Ac 7h 6s 5d", "one_pair"),  # a pair of aces
    ],
)
def test_each_hand_is_named_as_24_3_ranks_it(cards: str, category: str) -> None:
    assert _name(cards) == category


def test_hands_compare_by_rank_then_by_the_highest_card_one_has_and_the_other_not() -> None:
    assert _hand("As Ks Qs Js Ts") > _hand("Kh Qh Jh Th 9h")
    assert _hand("6h 5h 4h 3h 2h") > _hand("5c 4c 3c 2c Ac")  # the wheel is the lowest straight flush
    assert _hand("Ac Ad 3h 3s 2c") > _hand("Kc Kd Qh Qs Jc")  # aces up beat kings up
    assert _hand("8c 8d Ah 4s 2c") > _hand("8h 8s Kh Qs Jc")  # the same pair: the ace decides (24.3(c))
    assert _hand("8c 8d Ah 4s 3c") > _hand("8h 8s As 4d 2d")
    assert _hand("8c 8d Ah 4s 3c") == _hand("8h 8s As 4d 3d")  # identical: a push
    assert _hand("3c 3d 3h 2s 2c") > _hand("Ac Kd Qh Js 9c") and _hand("2c 2d 2h 3s 3c") < _hand("3c 3d 3h 2s 2c")
    assert _hand("Ad Jd 9d 4d 2d") > _hand("Kc Qc Jc Tc 8c")


def test_pai_gow_ranks_the_wheel_second_of_the_straights() -> None:
    """Digest 3.3 item 3: in pai gow ace-to-five is the second-highest straight (found by the
    simulation: the model had the Boston 5 ranking, the table was right)."""
    wheel, queen, ace = ("5c 4d 3h 2s Ac", "Qh Js Ts 9c 8d", "Ah Ks Qs Jc Td")
    pai_gow = [best_five([parse(c) for c in h.split()], wheel_second=True)[0] for h in (wheel, queen, ace)]
    assert pai_gow[2] > pai_gow[0] > pai_gow[1]
    assert _hand(wheel) < _hand(queen)  # 24.3(b)6: the lowest straight at Boston 5 and Mississippi Stud


def test_the_best_five_of_seven_is_found_by_trying_every_choice() -> None:
    value, chosen = best_five([parse(c) for c in "2c 3d 4h 5s 9c Kd Ad".split()])
    assert CATEGORIES[value[0]] == "straight" and value[1] == (10,)
    assert sorted(chosen) == sorted(parse(c) for c in "2c 3d 4h 5s Ad".split())


@pytest.mark.parametrize(
    ("cards", "category"),
    [
        ("Ah Kh Qh", "mini_royal"),
        ("2s 3s As", "straight_flush"),
        ("7c 7d 7h", "three_of_a_kind"),
        ("Ac 2d 3h", "straight"),
        ("Qc Kd Ah", "straight"),
        ("Kc Ad 2h", "high_card"),  # 24.3(d)3: never an ace between a king and a two
        ("2d 9d Kd", "flush"),
        ("9c 9d 2h", "one_pair"),
        ("9c 5d 2h", "high_card"),
    ],
)
def test_each_three_card_hand_is_named_as_24_3_d_does(cards: str, category: str) -> None:
    assert three([parse(c) for c in cards.split()]) == category


def test_the_paytables_are_read_from_the_yaml() -> None:
    ms = load_ref_table(BENCH / "mississippi_stud.yaml")
    rows = {(r.hand, r.ranks): r for r in ms.paytables["main"]}
    assert rows[("royal_flush", ())].num == 500 and ms.cap == 5000000
    assert rows[("one_pair", ("6", "7", "8", "9", "T"))].push


def _ms_seats() -> dict[int, SeatState]:
    return {
        2: SeatState({"ante": 500, "third": 1500, "fourth": 500, "fifth": 500}),
        4: SeatState({"ante": 1000}, folded_at="third"),
        5: SeatState({"ante": 500, "third": 500, "fourth": 1000, "fifth": 1500, "bonus": 100}),
    }


def test_mississippi_stud_deals_two_each_from_the_dealers_left_and_pays_each_street_at_the_hands_odds() -> None:
    ms = load_ref_table(BENCH / "mississippi_stud.yaml")
    cards = "Ah Ad 9c 2d 7s 7d 7h 7c Ks".split()
    exp = expect_round(ms, cards, _ms_seats())
    assert exp.destinations == ["seat 2"] * 2 + ["seat 4"] * 2 + ["seat 5"] * 2 + ["community"] * 3
    seat2 = exp.outcomes[2]  # aces and sevens: two pair, 2 to 1 on every wager
    assert {k: (o.result, o.net) for k, o in seat2.items()} == {
        "ante": ("win", 1000),
        "third": ("win", 3000),
        "fourth": ("win", 1000),
        "fifth": ("win", 1000),
    }
    assert exp.outcomes[4]["ante"].net == -1000  # folded at third street: the ante forfeit
    assert exp.outcomes[5]["fifth"].net == 1500 * 40  # four sevens: 40 to 1
    assert exp.outcomes[5]["bonus"].net == 100  # the community's pair of sevens: 1 to 1
    assert exp.order == [5, 2]  # from the dealer's right, counterclockwise (35.10(i))


def test_mississippi_stud_pair_of_sixes_to_tens_pushes_and_below_loses() -> None:
    ms = load_ref_table(BENCH / "mississippi_stud.yaml")
    seats = {1: SeatState({"ante": 500, "third": 500, "fourth": 500, "fifth": 500})}
    push = expect_round(ms, "6h 6d 9c 2d Ks".split(), seats)
    lose = expect_round(ms, "5h 5d 9c 2d Ks".split(), seats)
    assert {o.result for o in push.outcomes[1].values()} == {"even"} and push.nets[1] == 0
    assert lose.nets[1] == -2000


def test_mississippi_stud_community_cards_are_seen_one_street_at_a_time() -> None:
    """35.10(d), (f), (h): each community card only after every remaining player decided that street."""
    ms = load_ref_table(BENCH / "mississippi_stud.yaml")
    cards = "Ah Ad 9c 2d 7h 7c Ks".split()
    seats = {2: SeatState({"ante": 500}), 4: SeatState({"ante": 1000})}
    assert visible_cards(ms, cards, seats) == set()
    seats[2] = SeatState({"ante": 500, "third": 500})
    assert visible_cards(ms, cards, seats) == set()  # seat 4 has not decided yet
    seats[4] = SeatState({"ante": 1000}, folded_at="third")
    assert visible_cards(ms, cards, seats) == {"7h"}
    seats[2] = SeatState({"ante": 500, "third": 500, "fourth": 500})
    assert visible_cards(ms, cards, seats) == {"7h", "7c"}
    seats[2] = SeatState({"ante": 500, "third": 500, "fourth": 500, "fifth": 500})
    assert visible_cards(ms, cards, seats) == {"7h", "7c", "Ks", "Ah", "Ad"}  # a folded hand stays down


def _b5_seats() -> dict[int, SeatState]:
    return {
        1: SeatState({"ante": 500, "first": 1000, "second": 1000, "bonus": 500}, exposed=True),
        3: SeatState({"ante": 500, "first": 1000}, folded_at="second"),
        6: SeatState({"ante": 500, "first": 1000, "second": 1000}),
    }


def test_boston5_deals_three_then_two_to_those_with_a_second_wager_and_the_dealer() -> None:
    b5 = load_ref_table(BENCH / "boston5.yaml")
    where = deal_destinations(b5, 18, _b5_seats())
    assert where == (
        ["seat 1"] * 3
        + ["seat 3"] * 3
        + ["seat 6"] * 3
        + ["dealer"] * 3
        + ["seat 1"] * 2
        + ["seat 6"] * 2
        + ["dealer"] * 2
    )


def test_boston5_settles_each_hand_against_the_dealers_with_the_ante_bonus_whatever_the_comparison() -> None:
    b5 = load_ref_table(BENCH / "boston5.yaml")
    # seat 1: 9 9 9 (bonus trips) + 2 2: a full house; seat 3 folds; seat 6: K K ... one pair
    cards = "9c 9d 9h 4c 5d 6h Kc Kd 3s Ac Ad 8s 2c 2d Jh Th As 7s".split()
    exp = expect_round(b5, cards, _b5_seats())
    one, three_, six = exp.outcomes[1], exp.outcomes[3], exp.outcomes[6]
    assert one["bonus"].net == 500 * 30 and one["first"].net == 1000 and one["ante_bonus"].net == 500 * 3
    assert three_["ante"].net == -500 and three_["first"].net == -1000 and "second" not in three_
    assert six["first"].net == -1000 and six["ante"].net == -500  # dealer's three aces beat a pair of kings
    assert exp.order == [6, 1]


def test_boston5_dealers_cards_are_seen_only_once_all_five_are_dealt_and_a_fold_never() -> None:
    b5 = load_ref_table(BENCH / "boston5.yaml")
    cards = "9c 9d 9h 4c 5d 6h Kc Kd 3s Ac Ad 8s 2c 2d Jh Th As 7s".split()
    seats = _b5_seats()
    assert visible_cards(b5, cards[:12], seats) == {"9c", "9d", "9h"}  # seat 1 exposed for its bonus
    assert visible_cards(b5, cards[:17], seats) == {"9c", "9d", "9h"}
    shown = visible_cards(b5, cards, seats)
    assert {"Ac", "Ad", "8s", "As", "7s"} <= shown and not {"4c", "5d", "6h"} & shown


def test_boston5_hands_are_seen_as_the_dealer_turns_them_from_his_right() -> None:
    """24.10(e), (f): the dealer reveals his five, then turns each player's cards from his right
    (seat 6) counterclockwise (seat 1): a hand is seen only once he has reached it, a folded one never."""
    b5 = load_ref_table(BENCH / "boston5.yaml")
    cards = "9c 9d 9h 4c 5d 6h Kc Kd 3s Ac Ad 8s 2c 2d Jh Th As 7s".split()
    seats = _b5_seats()
    dealer, exposed, six = {"Ac", "Ad", "8s", "As", "7s"}, {"9c", "9d", "9h"}, {"Kc", "Kd", "3s", "Jh", "Th"}
    assert visible_cards(b5, cards, seats, turning=math.inf) == dealer | exposed  # his reveal: none turned
    assert visible_cards(b5, cards, seats, turning=6) == dealer | exposed | six
    every = dealer | exposed | six | {"2c", "2d"}
    assert visible_cards(b5, cards, seats, turning=1) == visible_cards(b5, cards, seats) == every


def test_the_turning_clock_follows_the_dealers_steps() -> None:
    """The simulation's model reads how far the dealer has got from the steps the table asks for:
    nothing before his own step (a fold collected before it turns nothing), then the lowest seat
    asked; kept while held and at a later step naming a seat again; every hand after the settlement."""
    clock = TurningClock()
    assert clock.turning(1, "fifth_street", "bet 1-3x ante") == math.inf
    assert clock.turning(1, "settlement", "seat 4: folds at third street") == math.inf
    assert clock.turning(1, "settlement", "dealer: community cards Tc 9c 8d") == math.inf
    assert clock.turning(1, "settlement", "seat 5: high card") == 5
    assert clock.turning(1, "settlement", None) == 5  # held: what it asks is the fault's
    assert clock.turning(1, "settlement", "seat 2: straight") == 2
    assert clock.turning(1, "settlement", "seat 5: bonus on a pair") == 2
    assert clock.turning(1, "count_stub", None) is None
    assert clock.turning(2, "settlement", "seat 2: straight") == math.inf  # a new round: nothing turned yet


@pytest.mark.parametrize(("value", "first"), [(8, 0), (14, 1), (18, 4), (1, 0), (2, 6), (6, 2)])
def test_pai_gow_starts_where_the_count_from_the_dealer_counterclockwise_ends(value: int, first: int) -> None:
    """31.11: the dealer is 1, then each position counterclockwise (from his right: seat 6, 5, ...):
    8 is the dealer again, 14 the seventh counted (seat 1, farthest to the dealer's left)."""
    pg = load_ref_table(BENCH / "pai_gow.yaml")
    seats = {2: SeatState({"pai_gow": 1000})}
    where = deal_destinations(pg, 7, seats, {"method": "dice", "value": value})
    assert where[0] == ("dealer" if first == 0 else f"seat {first}" if first == 2 else f"position {first} (no wager)")
    assert len(set(where)) == 7


@pytest.mark.parametrize(
    ("direction", "order"), [("clockwise", [3, 4, 5, 6, 0, 1, 2]), ("counterclockwise", [3, 2, 1, 0, 6, 5, 4])]
)
@pytest.mark.parametrize("method", ["one_at_a_time", "stacks"])
def test_pai_gow_deals_one_at_a_time_or_a_stack_of_seven_to_each_position_in_turn(
    method: str, direction: str, order: list[int]
) -> None:
    """31.8: one card at a time to every position, the dealer's included, until each has seven;
    31.10: from an automated shoe, a stack of seven to each position in the same order, from the
    same start (31.11; a rng number of 5 counts the dealer, seat 6, 5, 4, 3: seat 3 first)."""
    pg = load_ref_table(BENCH / "pai_gow.yaml")
    table = replace(pg, settings={**pg.settings, "deal_method": method, "deal_direction": direction})
    seats = {1: SeatState({"pai_gow": 1000}), 4: SeatState({"pai_gow": 1000})}
    names = ["dealer" if p == 0 else f"seat {p}" if p in seats else f"position {p} (no wager)" for p in order]
    where = deal_destinations(table, 50, seats, {"method": "rng", "value": 5})
    expected = [n for n in names for _ in range(7)] if method == "stacks" else names * 7
    assert where == [*expected, "extra"]
    # the dealer's seven, as the model lets them be seen once the hands are set, are the ones he was dealt
    cards = [f"{r}{s}" for s in "cdhs" for r in "23456789TJQKA"][:49]
    dealer = {c for c, to in zip(cards, where, strict=False) if to == "dealer"}
    assert dealer <= visible_cards(table, cards, seats, {"method": "rng", "value": 5})


def _sim_round(game: str, tmp_path: Path) -> dict[str, Any]:
    from controller.journal import SqliteJournal
    from hil.simulate.run import run_seed

    res = run_seed(game, 3, (), rounds=1, folder=tmp_path)
    assert res.ok, f"{res.broken}: {res.detail}"
    journal = SqliteJournal.open_readonly(tmp_path / f"{game}-3.db")
    try:
        return next(r.data for r in journal.records() if r.kind == "RoundSettled")
    finally:
        journal.close()


def test_the_comparison_catches_a_wrong_amount_a_misplaced_card_and_a_wrong_order(tmp_path: Path) -> None:
    from hil.simulate.model_check import check_round, ref_table

    data = _sim_round("boston5", tmp_path)
    table = ref_table(BENCH / "boston5.yaml")
    assert check_round(table, data) is not None
    seat = next(iter(data["settlement"]["seats"]))
    wrong = copy.deepcopy(data)
    wager = next(iter(wrong["settlement"]["seats"][seat]["wagers"].values()))
    wager["net"] += 1 if wager["net"] >= 0 else -1
    with pytest.raises(Broken, match=f"seat {seat}"):
        check_round(table, wrong)
    swapped = copy.deepcopy(data)
    cards = swapped["cards"]
    cards[0]["to"], cards[-1]["to"] = cards[-1]["to"], cards[0]["to"]
    with pytest.raises(Broken, match="card 1 of"):
        check_round(table, swapped)
    backwards = copy.deepcopy(data)
    procedure = backwards["settlement"]["procedure"]
    procedure.reverse()
    with pytest.raises(Broken, match="order"):
        check_round(table, backwards)


def test_a_community_card_shown_a_street_early_is_found_in_the_snapshots_json(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 41: a Mississippi community card turned a street early was caught by no check (the
    table's own hidden-card check takes "hidden" from the same reveal rules). The model's rules
    find it in the snapshot's JSON; without the bug the same seed keeps the invariant."""
    from controller.game.registry import definition
    from controller.table import snapshot_build
    from hil.simulate.run import run_seed

    assert run_seed("mississippi_stud", 4, (), rounds=1).ok
    real, plan = snapshot_build.face_up, definition("mississippi_stud").deal

    def early(dealt: Any, step: str, *args: Any, **kwargs: Any) -> Any:
        if dealt is plan and step == "third_street":
            step = "fourth_street"
        return real(dealt, step, *args, **kwargs)

    monkeypatch.setattr(snapshot_build, "face_up", early)
    found = run_seed("mississippi_stud", 4, (), rounds=1)
    assert found.broken == "model_hidden" and "third_street" in found.detail
    assert "<hidden>" in found.detail


def test_the_foxwoods_house_way_sets_no_pair_and_one_pair_as_written() -> None:
    from hil.reference.games import foxwoods_low

    assert foxwoods_low("Ks 9s 8h 6h 2h Jd Tc".split()) == {"Jd", "Tc"}  # no pair: second and third highest
    assert foxwoods_low("Qh Qd 9d 4s 3s Kd Ts".split()) == {"Kd", "Ts"}  # one pair: the two highest others
    assert foxwoods_low("Qh Qd 9d 9s 3s Kd Ts".split()) is None  # two pair: not set by the model
    assert foxwoods_low("9h 8d 7d 6s 5s Kd Ts".split()) is None  # a straight: not set by the model
    assert foxwoods_low("JK 8d 7d 4s 3s Kd Ts".split()) is None  # the joker: not set by the model


def test_the_comparison_catches_a_dealers_hand_not_set_the_house_way(tmp_path: Path) -> None:
    from controller.journal import SqliteJournal
    from hil.simulate.model_check import check_round, ref_table
    from hil.simulate.run import run_seed

    table = ref_table(BENCH / "pai_gow.yaml")
    assert run_seed("pai_gow", 3, (), rounds=3, folder=tmp_path).ok
    journal = SqliteJournal.open_readonly(tmp_path / "pai_gow-3.db")
    try:
        rounds = [r.data for r in journal.records() if r.kind == "RoundSettled"]
    finally:
        journal.close()
    set_by_model = [d for d in rounds if (e := check_round(table, d)) is not None and e.dealer_low is not None]
    assert set_by_model, "no round with a dealer's hand the model sets: pick another seed"
    wrong = copy.deepcopy(set_by_model[0])
    dealer = wrong["settlement"]["dealer"]
    low, high = dealer["low"].split(), dealer["high"].split()
    low[0], high[0] = high[0], low[0]
    dealer["low"], dealer["high"] = " ".join(low), " ".join(high)
    with pytest.raises(Broken, match="the house way sets"):
        check_round(table, wrong)


def test_the_comparison_catches_the_envy_pass_out_of_order(tmp_path: Path) -> None:
    """11.15(d)3: after every bonus and insurance wager, from the dealer's right counterclockwise,
    each seat with an envy marker or a bonus wager and a premium hand."""
    from controller.journal import SqliteJournal
    from hil.simulate.model_check import check_round, ref_table
    from hil.simulate.run import run_seed

    table = ref_table(BENCH / "pai_gow.yaml")
    assert run_seed("pai_gow", 2, (), rounds=1, folder=tmp_path).ok
    journal = SqliteJournal.open_readonly(tmp_path / "pai_gow-2.db")
    try:
        data = next(r.data for r in journal.records() if r.kind == "RoundSettled")
    finally:
        journal.close()
    steps = data["settlement"]["procedure"]
    envy = [i for i, step in enumerate(steps) if step["phase"] == "envy"]
    assert len(envy) >= 2, "no round with two envy steps: pick another seed"
    backwards = copy.deepcopy(data)
    moved = backwards["settlement"]["procedure"]
    moved[envy[0]], moved[envy[1]] = moved[envy[1]], moved[envy[0]]
    with pytest.raises(Broken, match="the envy pass"):
        check_round(table, backwards)
    early = copy.deepcopy(data)
    step = early["settlement"]["procedure"].pop(envy[0])
    first_bonus = next(i for i, s in enumerate(early["settlement"]["procedure"]) if s["phase"] == "bonus_insurance")
    early["settlement"]["procedure"].insert(first_bonus, step)
    with pytest.raises(Broken, match="an envy step before every bonus"):
        check_round(table, early)


def test_pai_gow_hands_stay_face_down_until_every_player_has_set_his() -> None:
    """31.8, 11.9: the players set their hands face down; only then does the dealer turn his own
    over (the mutant that showed the dealer's hand while the players set theirs went unseen)."""
    pg = load_ref_table(BENCH / "pai_gow.yaml")
    seats = {2: SeatState({"pai_gow": 1000})}
    cards = [f"{r}{s}" for s in "cdhs" for r in "23456789TJQKA"][:49]
    start = {"method": "dice", "value": 8}
    assert visible_cards(pg, cards, seats, start, hands_set=False) == set()
    assert len(visible_cards(pg, cards, seats, start, hands_set=True)) == 14  # the dealer's and seat 2's
