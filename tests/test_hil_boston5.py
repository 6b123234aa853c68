"""Boston 5 over real ptys: the real controller and drivers against the simulated shoe, bet spots
and panel, one scenario per seed rule (24.8, 24.10). Every round that settles is checked
against ``tablectl settle`` on its record, and the dealer was shown every step."""

from __future__ import annotations

import pytest
from hil_table import HilTable, late_and_removed, shoe, shoe_lost_mid_deal, wait
from test_table_boston5 import bets

from controller.configuration import config_dir, load_table

TABLE = load_table(config_dir() / "bench" / "boston5.yaml")


def first_deal(t: HilTable, seats: tuple[int, ...], cards: str, bonus: tuple[int, ...] = (), size: int = 52) -> None:
    bets(t, seats, bonus)
    t.load(shoe(cards, size))
    t.deal(3 * len(seats) + 3)


def seconds_and_final(t: HilTable, seats: tuple[int, ...]) -> None:
    if t.step == "bonus":
        t.press("next")
    for s in seats:
        t.spot(s, "second", 1000)
    t.press("deal")
    t.deal(2 * len(seats) + 2)


def test_clean_round_bonus_exposed_and_settled_before_the_second_wager(t: HilTable) -> None:
    first_deal(t, (2, 5), "As Ks Qs 2h 7d 9c 3c 4d 5h Js Ts 6h 6c 8c 9s", bonus=(2, 5))
    assert [str(c) for c in t.hands().of(2)] == ["As", "Ks", "Qs"] and [str(c) for c in t.hands().dealer] == [
        "3c",
        "4d",
        "5h",
    ]
    assert not any(c in p for p in t.texts for c in ("3c", "4d", "5h"))  # the dealer's cards stay down
    assert t.step == "bonus"
    t.press("seat_2", "next")  # seat 2 exposes; seat 5 does not
    assert t.step == "bonus_settlement"
    assert t.texts[-1] == "seat 5: three-card hand not exposed (24.10(a)): collect bonus 5.00"  # losing bonus first
    assert t.texts[-1] in t.screen_text()  # the panel shows the bonus step
    t.press("confirm")
    assert t.texts[-1].startswith("seat 2: ") and "pay bonus" in t.texts[-1]
    t.press("confirm")
    assert t.step == "second_wager"
    seconds_and_final(t, (2, 5))
    result = t.finish()
    settled = t.settles_as_tablectl_settle(result)
    assert (
        settled["seats"]["2"]["wagers"]["bonus"]["result"] == "win"
        and settled["seats"]["5"]["wagers"]["bonus"]["result"] == "lose"
    )


@pytest.mark.parametrize("how", ["fold", "withdraw"])
def test_fold_or_withdraw_the_second_wager(t: HilTable, how: str) -> None:
    first_deal(t, (1, 3), "As Ks Qs 2h 7d 9c 8h 8d 2s Js Ts 9s 9d")
    t.spot(1, "second", 1000)
    if how == "fold":
        t.press("seat_3", "fold")  # 24.10(b)
    else:
        t.spot(3, "second", 1000)
        t.spot(3, "second", 0)  # 24.10(c): withdrawn before the final two cards
    assert t.snap.seat(3).folded_at == "second"
    assert "seat 3: folds: collect ante 5.00, first 10.00" in t.screen_text()  # collected now (24.10(b))
    t.confirm_steps()
    t.press("deal")
    t.deal(4)  # seat 1 and the dealer only
    result = t.finish()
    assert result.settlement.seat(3).net == -1500 and len(result.record["seats"]["3"]["cards"].split()) == 3
    t.settles_as_tablectl_settle(result)


def test_a_tie_pushes(t: HilTable) -> None:
    first_deal(t, (1,), "Ah Kd 9c Ac Kh 9d 5s 3h 5d 3c")
    seconds_and_final(t, (1,))
    result = t.finish()
    assert {w.result.value for w in result.settlement.seat(1).wagers} == {"push"}
    t.settles_as_tablectl_settle(result)


def test_a_late_bet_and_a_removed_bet(t: HilTable) -> None:
    first_deal(t, (1, 4), "As Ks Qs 2h 7d 9c 3c 4d 5h Js Ts 6h 6c 8c 9s")
    t.press("next")
    late_and_removed(t, (2, "ante", 500), (4, "first"))
    t.key()
    t.press("previous", "next")  # refuse the late ante; try to accept the removal: refused, the round is dealt
    actions = [(r.data["action"], r.data["reason"]) for r in t.journal.records() if r.kind == "SupervisorAction"]
    assert [a for a, _ in actions] == [
        "late bet refused",
        "late bet refused",
    ] and "cannot enter a round already dealt" in actions[1][1]
    seconds_and_final(t, (1, 4))
    result = t.finish()
    assert result.record["seats"]["4"]["wagers"]["first"] == 1000 and "2" not in result.record["seats"]
    t.settles_as_tablectl_settle(result)


@pytest.mark.parametrize("fault", ["duplicate", "extra card"])
def test_a_misdeal_holds_and_the_supervisor_voids(t: HilTable, fault: str) -> None:
    t.spot(1, "ante", 500)
    t.spot(1, "first", 1000)
    t.press("no_more_bets")
    t.load(shoe("As Ks Qs 2h 7d 9c 3c"))
    if fault == "duplicate":
        t.deal(2)
        before = t.count("CardDealt")
        t.shoe.duplicate()  # the last card read reported again
        t.settled("CardDealt", before, 1)
        assert t.step == "hold" and t.hold_reason.startswith("duplicate card: seat 1 card 3 (shoe card 3)")
    else:
        t.deal(6)
        assert t.step == "bonus_settlement" or t.step == "second_wager"
        t.deal(1)  # a seventh card when none is expected
        assert t.step == "hold" and t.hold_reason == "card 7 from the shoe dealt when none was expected"
    t.key()
    t.press("void")
    result = t.results[-1]
    assert result.settlement is None and t.step == "betting"
    assert "void: seat 1: return ante 5.00" in t.texts and "void: seat 1: return first 10.00" in t.texts


def test_shoe_link_lost_mid_deal_and_restored(t: HilTable) -> None:
    for s in (1, 2):
        t.spot(s, "ante", 500)
        t.spot(s, "first", 1000)
    t.press("no_more_bets")
    t.load(shoe("As Ks Qs 2h 7d 9c 3c 4d 5h Js Ts 6h 6c 8c 9s"))
    shoe_lost_mid_deal(t, 4, 5, "second_wager")
    assert [str(c) for c in t.hands().dealer] == ["3c", "4d", "5h"]
    seconds_and_final(t, (1, 2))
    t.settles_as_tablectl_settle(t.finish())


def test_supervisor_void_at_the_second_wager(t: HilTable) -> None:
    first_deal(t, (1, 2), "As Ks Qs 2h 7d 9c 3c 4d 5h")
    t.spot(1, "second", 1000)
    t.key()
    t.press("void")
    result = t.results[-1]
    assert result.settlement is None and "void: seat 1: return second 10.00" in t.texts
    assert [r.data["action"] for r in t.journal.records() if r.kind == "SupervisorAction"] == ["void"]


def test_stub_count_mismatch_on_the_fifth_round_holds(t: HilTable) -> None:
    cards = "As Ks Qs 2h 7d 9c 3c 4d 5h Js Ts 6h 6c 8c 9s"
    for n in range(5):
        first_deal(t, (1, 2), cards, size=51 if n == 4 else 52)
        seconds_and_final(t, (1, 2))
        t.settles_as_tablectl_settle(t.finish())
    wait(lambda: t.step == "hold", "the stub-count hold")
    assert t.hold_reason == "stub count 36, expected 37"  # 52 - 15 dealt
    t.key()
    t.press("clear_fault", "confirm")  # recounted by hand
    assert t.step == "betting" and t.snap.round_no == 6
