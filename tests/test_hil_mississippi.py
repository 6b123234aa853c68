"""Mississippi Stud over real ptys: the real controller and drivers against the simulated shoe,
bet spots and panel, one scenario per seed rule (35.9, 35.10). Every round that settles is
checked against ``tablectl settle`` on its record, and the dealer was shown every step."""

from __future__ import annotations

import pytest
from hil_table import HilTable, late_and_removed, locked, shoe, to_third, wait

from controller.configuration import config_dir, load_table
from drivers.messages import BUTTONS

TABLE = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
STREETS = ("third", "fourth", "fifth")


def play_round(t: HilTable, size: int = 52) -> None:
    to_third(t, size=size)
    for street in STREETS:
        t.spot(1, street, 500)
        t.spot(4, street, 1000)
        t.press("reveal")


def test_clean_round_with_a_bonus(t: HilTable) -> None:
    t.spot(1, "ante", 500)
    t.spot(1, "bonus", 500)
    t.spot(4, "ante", 1000)
    wait(lambda: t.spots.lamps.get((1, "bonus")) == "open", "the bonus lamp open")
    t.press("no_more_bets")
    wait(lambda: t.spots.locked and t.spots.lamps.get((1, "ante")) == "accepted", "the spots to lock and light")
    t.load(shoe("As Ad Kc Qd 7h 7c 2c"))
    t.deal(7)
    assert [str(c) for c in t.hands().of(1)] == ["As", "Ad"] and [str(c) for c in t.hands().of(4)] == ["Kc", "Qd"]
    assert not any(c in p for p in t.texts for c in ("7h", "7c", "2c"))  # 35.9(e): face down
    for street, card in zip(STREETS, ("7h", "7c", "2c")):
        t.spot(1, street, 1500)
        t.spot(4, street, 1000)
        t.press("reveal")
        assert any(card in p for p in t.texts)
    result = t.finish()
    settled = t.settles_as_tablectl_settle(result)
    assert settled["seats"]["1"]["wagers"]["bonus"]["result"] == "win"  # a pair of sevens in the community cards
    wait(
        lambda: (
            t.shown()[:2] == (f"R{t.snap.round_no} betting", f"round {t.snap.round_no}: place bets; then no more bets")
        ),
        "the next round on the panel",
    )


@pytest.mark.parametrize("street", STREETS)
def test_fold_at_every_street(t: HilTable, street: str) -> None:
    to_third(t)
    for s in STREETS:
        t.spot(1, s, 500)
        if s == street:
            t.press("seat_4", "fold", "confirm")  # the fold's collection, confirmed before the reveal
        elif t.snap.seat(4).folded_at is None:
            t.spot(4, s, 1000)
        t.press("reveal")
    result = t.finish()
    assert result.record["seats"]["4"]["folded_at"] == street
    assert result.settlement.seat(4).net == -1000 * (1 + STREETS.index(street))
    t.settles_as_tablectl_settle(result)


def test_a_pair_of_six_to_ten_pushes(t: HilTable) -> None:
    to_third(t, "8h 8d Kc Qd 2c 5s 9d")
    for s in STREETS:
        t.spot(1, s, 500)
        t.spot(4, s, 1000)
        t.press("reveal")
    result = t.finish()
    assert {w.result.value for w in result.settlement.seat(1).wagers} == {"push"} and result.settlement.seat(1).net == 0
    t.settles_as_tablectl_settle(result)


def test_a_late_bet_and_a_removed_bet(t: HilTable) -> None:
    to_third(t)
    late_and_removed(t, (2, "ante", 500), (1, "ante"))
    # the panel names seat and spot: the first on the first page, the rest on the next (the page is shown)
    assert "late bet: seat 2 ante 5.00 not accepted" in t.screen_text() and t.screen()[0].endswith("1/3")
    assert any("removed bet: seat 1 ante 0.00 not accepted" in page for page in t.all_pages())
    t.key()
    t.press("previous", "previous")  # the supervisor refuses both
    actions = [r.data["action"] for r in t.journal.records() if r.kind == "SupervisorAction"]
    assert actions == ["late bet refused", "late bet refused"]
    for s in STREETS:
        t.spot(1, s, 500)
        t.spot(4, s, 1000)
        t.press("reveal")
    result = t.finish()
    assert 2 not in result.settlement.seats
    assert result.late_bets == ("late bet: seat 2 ante 5.00 not accepted", "removed bet: seat 1 ante 0.00 not accepted")
    t.settles_as_tablectl_settle(result)


@pytest.mark.parametrize("fault", ["duplicate", "unreadable"])
def test_a_misdeal_holds_and_the_supervisor_voids(t: HilTable, fault: str) -> None:
    locked(t, "As Ad Kc")
    t.deal(2)
    before = t.count("CardDealt") + t.count("CardUnreadable")
    getattr(t.shoe, fault)()
    wait(lambda: t.count("CardDealt") + t.count("CardUnreadable") > before and t.step == "hold", "the hold")
    assert t.hold_reason.startswith(
        "duplicate card: seat 4 card 1 (shoe card 3)" if fault == "duplicate" else "unreadable card: seat 4 card 1"
    )
    wait(lambda: t.panel.lamps.get(BUTTONS.index("clear_fault") + 1) is True, "the clear-fault lamp")
    t.key()
    t.press("void")
    result = t.results[-1]
    assert result.settlement is None and t.step == "betting"
    assert "void: seat 1: return ante 5.00" in t.texts and "void: seat 4: return ante 10.00" in t.texts
    assert [r.data["action"] for r in t.journal.records() if r.kind == "SupervisorAction"] == ["void"]


def test_supervisor_void_mid_round(t: HilTable) -> None:
    to_third(t)
    t.spot(1, "third", 500)
    t.spot(4, "third", 2000)
    t.press("reveal")
    t.press("void")  # without the key: nothing
    assert t.step == "fourth_street"
    t.key()
    t.press("void")
    result = t.results[-1]
    assert result.settlement is None and result.record["seats"]["4"]["wagers"] == {"ante": 1000, "third": 2000}
    assert "void: seat 4: return third 20.00" in t.texts


def test_shoe_link_lost_mid_deal_and_restored(t: HilTable) -> None:
    locked(t, "As Ad Kc Qd 7h 8h 2c")
    t.deal(3)
    t.servers["shoe"].disconnect()
    wait(lambda: t.step == "hold" and t.hold_reason == "link down: shoe", "the hold")
    wait(
        lambda: t.shown()[0].startswith("R1 HOLD dealing") and "link down: shoe" in " ".join(t.shown()),
        "the panel to name the device",
    )
    t.shoe.deal(4)  # dealt while the link is down: kept on the device until delivered
    t.servers["shoe"].reconnect()
    wait(lambda: t.step == "third_street", "the round to resume")
    for s in STREETS:
        t.spot(1, s, 500)
        t.spot(4, s, 1000)
        t.press("reveal")
    t.settles_as_tablectl_settle(t.finish())


def test_stub_count_mismatch_on_the_fifth_round_holds(t: HilTable) -> None:
    for _ in range(4):
        play_round(t)
        t.settles_as_tablectl_settle(t.finish())
        assert t.step == "betting"
    play_round(t, size=51)  # one card short in the shoe
    t.finish()
    wait(lambda: t.step == "hold", "the stub-count hold")
    assert t.hold_reason == "stub count 44, expected 45"
    t.key()
    t.press("clear_fault")
    assert t.step == "count_stub"
    t.press("confirm")  # recounted by hand
    assert t.step == "betting" and t.snap.round_no == 6


def test_a_misread_card_is_entered_by_the_supervisor(t: HilTable) -> None:
    locked(t, "As Ad Kc Qd 7h 7c 2c")
    t.deal(2)
    before = t.count("CardDealt")
    t.shoe.duplicate()  # the shoe reads Ad again: the card is really the 3c
    t.settled("CardDealt", before, 1)
    assert t.step == "hold" and "enter it" in t.hold_reason
    t.press("next")  # without the key: nothing
    assert t.step == "hold" and "deck no." not in t.texts[-1]
    t.key()
    t.press("next")
    assert "seat 4 card 1: deck no. 1?" in t.screen_text()  # 2c, the deck's first
    t.press("next")
    assert "seat 4 card 1: deck no. 2?" in t.screen_text() and "3c" not in t.screen_text()  # by number only
    assert not any("deck no." in text for text in t.texts)  # on the screen only while chosen (holds16)
    t.press("confirm")
    assert t.step == "dealing" and [str(c) for c in t.hands().of(4)] == ["3c"]
    actions = [(r.data["action"], r.data["reason"]) for r in t.journal.records() if r.kind == "SupervisorAction"]
    assert actions == [("card corrected", "seat 4 card 1 (shoe card 3) entered")]
    t.shoe.load(["As", "Ad", "3c", "Qd", "7h", "7c", "2h"])
    t.shoe.dealt = 3
    t.deal(4)
    assert t.step == "third_street"
    for s in STREETS:
        t.spot(1, s, 500)
        t.spot(4, s, 1000)
        t.press("reveal")
    result = t.finish()
    assert result.record["seats"]["4"]["cards"] == "3c Qd"
    t.settles_as_tablectl_settle(result)
