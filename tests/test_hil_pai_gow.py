"""Pai gow over real ptys: the real controller and drivers against the simulated shoe, bet spots
and panel, one scenario per seed rule (31.8, 31.11, 11.15). Every round that settles is checked
against ``tablectl settle`` on its record, and the dealer was shown every step."""

from __future__ import annotations

from hil_table import HilTable, corrected_before_no_more_bets, late_and_removed, shoe_lost_mid_deal

from controller.configuration import config_dir, load_table
from controller.game.pai_gow._deal import DEALER, deal, start_position
from controller.vocab import deck, parse_cards

TABLE = load_table(config_dir() / "bench" / "pai_gow.yaml")
O = TABLE.options
DICE = 8  # the dealer's hand is dealt first


def shoe_for(hands: dict[int, str], dice: int = DICE, size: int = 53) -> list[str]:
    """A shoe whose deal gives each position in ``hands`` those seven cards (the rest at random
    order of the deck), ``size`` cards in all."""
    first = start_position("dice", dice, O["count_direction"], TABLE.seats)
    slots = list(range(53))
    placeholder = list(deck(joker=True))
    dealt = deal(placeholder, first, O["deal_direction"], O["deal_method"], TABLE.seats).hands
    where = {c.index: (p, k) for p, cards in dealt.items() for k, c in enumerate(cards)}  # shoe slot -> (position, k)
    wanted = {p: [str(c) for c in parse_cards(text)] for p, text in hands.items()}
    used = {c for cards in wanted.values() for c in cards}
    rest = iter(str(c) for c in placeholder if str(c) not in used)
    out = []
    for slot in slots:
        p, k = where.get(placeholder[slot].index, (None, None))
        out.append(wanted[p][k] if p in wanted else next(rest))
    return out[:size]


def to_setting(
    t: HilTable, wagers: dict[int, dict[str, int]], hands: dict[int, str] | None = None, size: int = 53
) -> None:
    for seat, spots in wagers.items():
        for spot, cents in spots.items():
            t.spot(seat, spot, cents)
        if spots.get("bonus", 0) >= 500:
            t.spot(seat, "envy_marker", 1)  # 11.15(c): the dealer marks every bonus of $5.00 or more
    t.press("no_more_bets")
    t.press(*["next"] * (DICE - 3), "confirm")
    assert t.step == "dealing"
    t.load(shoe_for(hands or {}, size=size))
    before = t.count("ShoeStatus")
    t.deal(49)
    t.settled("ShoeStatus", before, 1)  # the controller asks the shoe for the cards left
    if t.step == "set_hands":  # four remain: the players set their hands face down, the dealer confirms
        t.press("confirm")


def set_all_by_house_way(t: HilTable) -> None:
    while t.step in ("set_hands", "setting"):
        t.press("confirm")


def test_clean_round_sets_shown_house_way_first_and_cycled(t: HilTable) -> None:
    to_setting(t, {2: {"pai_gow": 1000, "bonus": 500}, 5: {"pai_gow": 2500}})
    assert t.step == "setting"
    assert t.snap.notices[0].title.startswith("dealer: house way")  # 11.9: the dealer's hand first
    assert not t.snap.game_view.turned  # no player's hand before the dealer's set is confirmed
    t.press("confirm")  # the dealer's hand, exposed and set
    assert t.texts[-1].startswith("seat 5: high ") and t.texts[-1].endswith("(house way)")  # from the dealer's right
    t.press("confirm")  # seat 5's set
    t.press("confirm")  # seat 5's pai gow wager, settled as it is turned
    house = next(text for text in reversed(t.texts) if text.startswith("seat 2: high "))
    assert house.endswith("(house way)")
    t.press("next", "next")
    assert "set 3 of" in t.texts[-1]
    t.press("previous", "previous")
    assert t.texts[-1] == house
    t.press("next", "confirm")  # seat 2 sets the second legal set
    t.press("confirm")  # its pai gow wager settled
    assert t.step == "settlement"
    result = t.finish()
    assert "high" in result.record["seats"]["2"]  # the set the dealer confirmed is recorded
    t.settles_as_tablectl_settle(result)


def test_a_foul_forfeits(t: HilTable) -> None:
    to_setting(t, {3: {"pai_gow": 1000}})
    t.press("fold")  # refused: the dealer's hand is exposed and set first (11.9)
    assert t.texts[-1] == "confirm the step shown first"
    t.press("confirm")
    t.press("fold")  # the dealer marks seat 3's set a foul
    result = t.finish()
    assert result.record["seats"]["3"]["foul"] is True and result.settlement.seat(3).net == -1000
    t.settles_as_tablectl_settle(result)


def test_a_copy_goes_to_the_banker_and_one_hand_each_pushes(t: HilTable) -> None:
    hands = {DEALER: "Ah Kd 9c 7s 5h 3c 2d", 1: "As Kc Qc 7d 5c 3d 2h"}  # the same high hand; seat 1's low is better
    to_setting(t, {1: {"pai_gow": 1000}}, hands)
    set_all_by_house_way(t)
    result = t.finish()
    (wager,) = result.settlement.seat(1).wagers
    assert wager.result.value == "push" and "copy on the high hand goes to the banker" in wager.why
    t.settles_as_tablectl_settle(result)


def test_bonus_and_envy(t: HilTable) -> None:
    # seat 2 has $5 on the bonus (an envy marker); seat 5 holds four of a kind: seat 2 is paid envy
    hands = {5: "9h 9d 9c 9s 5h 3c 2d", 2: "Ah Kd Qc 7s 6h 4c 2h"}
    t.spot(2, "envy_marker", 1)
    to_setting(t, {2: {"pai_gow": 1000, "bonus": 500}, 5: {"pai_gow": 1000, "bonus": 100}}, hands)
    set_all_by_house_way(t)
    result = t.finish()
    settled = t.settles_as_tablectl_settle(result)
    wagers = settled["seats"]["2"]["wagers"]
    assert wagers["envy"]["result"] == "win" and wagers["envy"]["net"] == 500
    assert settled["seats"]["5"]["wagers"]["bonus"]["result"] == "win"


def test_an_envy_marker_under_five_dollars_is_shown_and_blocks_the_deal(t: HilTable) -> None:
    t.spot(1, "pai_gow", 1000)
    t.spot(1, "bonus", 100)
    t.spot(1, "envy_marker", 1)
    corrected_before_no_more_bets(
        t, "correct: seat 1 envy marker: only for a bonus wager of 5.00 or more (11.15(c))", (1, "envy_marker", 0)
    )


def test_a_late_bet_and_a_removed_bet(t: HilTable) -> None:
    to_setting(t, {1: {"pai_gow": 1000}, 4: {"pai_gow": 1000, "bonus": 500}})
    t.press("confirm")  # the dealer's hand, exposed and set (a notice takes next / previous until read)
    late_and_removed(t, (1, "bonus", 500), (4, "bonus"))
    t.key()
    t.press("previous", "previous")
    assert [r.data["action"] for r in t.journal.records() if r.kind == "SupervisorAction"] == [
        "late bet refused",
        "late bet refused",
    ]
    set_all_by_house_way(t)
    result = t.finish()
    assert (
        result.record["seats"]["4"]["wagers"] == {"pai_gow": 1000, "bonus": 500}
        and "bonus" not in result.record["seats"]["1"]["wagers"]
    )
    t.settles_as_tablectl_settle(result)


def test_a_misdeal_when_four_cards_do_not_remain(t: HilTable) -> None:
    to_setting(t, {2: {"pai_gow": 1000}}, size=52)  # a card short: three remain
    assert t.step == "hold" and t.hold_reason.startswith("misdeal check: 3 cards remain, not 4")
    assert t.screen()[0].startswith("R1 HOLD") and "why: misdeal check" in t.screen_text()
    t.key()
    t.press("void")
    assert t.results[-1].settlement is None and "void: seat 2: return pai_gow 10.00" in t.texts
    assert t.step == "betting"


def test_shoe_link_lost_mid_deal_and_restored(t: HilTable) -> None:
    t.spot(1, "pai_gow", 1000)
    t.press("no_more_bets")
    t.press(*["next"] * (DICE - 3), "confirm")
    t.load(shoe_for({}))
    shoe_lost_mid_deal(t, 20, 29, "set_hands")
    set_all_by_house_way(t)
    t.settles_as_tablectl_settle(t.finish())


def test_supervisor_void_while_setting(t: HilTable) -> None:
    to_setting(t, {1: {"pai_gow": 1000}, 2: {"pai_gow": 2000}})
    t.press("confirm")
    t.key()
    t.press("void")
    result = t.results[-1]
    assert result.settlement is None and "void: seat 2: return pai_gow 20.00" in t.texts
    assert [r.data["action"] for r in t.journal.records() if r.kind == "SupervisorAction"] == ["void"]
