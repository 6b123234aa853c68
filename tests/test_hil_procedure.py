"""The dealer's procedure at its time (issue 12), one test per item, over real ptys: the real
controller and drivers against the simulated shoe, bet spots and panel. Each fails on the code
before the item was built."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

import pytest
from hil_table import HilTable, corrected_before_no_more_bets, shoe, to_third, wait

from controller.configuration import TableConfig, config_dir, load_table

MS = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
B5 = load_table(config_dir() / "bench" / "boston5.yaml")
PG = load_table(config_dir() / "bench" / "pai_gow.yaml")
STREETS = ("third", "fourth", "fifth")


@pytest.fixture
def ms(hil_table: Callable[[TableConfig], HilTable]) -> HilTable:
    return hil_table(MS)


@pytest.fixture
def b5(hil_table: Callable[[TableConfig], HilTable]) -> HilTable:
    return hil_table(B5)


@pytest.fixture
def pg(hil_table: Callable[[TableConfig], HilTable]) -> HilTable:
    return hil_table(PG)


def b5_first_deal(t: HilTable, seats: tuple[int, ...], cards: str) -> None:
    for s in seats:
        t.spot(s, "ante", 500)
        t.spot(s, "first", 1000)
    t.press("no_more_bets")
    t.load(shoe(cards))
    t.deal(3 * len(seats) + 3)
    wait(lambda: t.step == "second_wager", "the second wagers")


# --- 1. folds collected at the fold (24.10(b), 35.10(a), (e), (g)) ---------------------------------


def test_1_a_fold_is_collected_when_it_happens_and_confirmed_before_the_reveal(ms: HilTable) -> None:
    to_third(ms)
    ms.spot(1, "third", 500)
    ms.spot(4, "third", 1000)
    ms.press("reveal")
    ms.spot(1, "fourth", 500)
    ms.press("seat_4", "fold")
    step = "seat 4: folds at fourth street: collect ante 10.00, third 10.00"
    assert step in ms.screen_text() and "confirm" in ms.screen_text()
    ms.press("reveal")
    assert ms.step == "fourth_street"  # not before the collection is confirmed
    assert "cannot reveal: confirm the collection first" in ms.texts and step in ms.screen_text()
    ms.confirm_steps()
    ms.press("reveal")
    assert ms.step == "fifth_street"
    ms.spot(1, "fifth", 500)
    ms.press("reveal")
    settlement_prompts = len(ms.texts)
    result = ms.finish()
    assert step not in ms.texts[settlement_prompts:]  # settlement has no step for seat 4
    assert result.settlement.seat(4).net == -2000
    ms.settles_as_tablectl_settle(result)


# --- 2. 35.10(c) communication violation ---------------------------------------------------------


def test_2_a_communication_violation_forfeits_every_wager_of_the_seat(ms: HilTable) -> None:
    to_third(ms, bonus=((1, 100),))
    ms.spot(1, "third", 500)
    ms.spot(4, "third", 1000)
    ms.press("reveal")
    ms.press("seat_1", "settle")  # without the key: nothing
    assert ms.snap.seat(1).folded_at is None
    ms.key()
    ms.press("seat_1", "settle")
    step = "seat 1: communication violation (35.10(c)): collect ante 5.00, bonus 1.00, third 5.00"
    assert step in ms.screen_text()
    ms.confirm_steps()
    ms.spot(4, "fourth", 1000)
    ms.press("reveal")
    ms.spot(4, "fifth", 1000)
    ms.press("reveal")
    result = ms.finish()
    assert result.record["seats"]["1"]["communication_violation"] is True
    assert result.settlement.seat(1).net == -1100  # the bonus too, though the community pair of 8s would pay it
    actions = [r.data for r in ms.journal.records() if r.kind == "SupervisorAction"]
    assert actions[-1]["action"] == "communication violation" and "35.10(c)" in actions[-1]["reason"]
    ms.settles_as_tablectl_settle(result)


# --- 3. the stub counted every fifth round dealt (24.8(e)) ----------------------------------------


def test_3_a_voided_fifth_round_still_brings_the_stub_count(ms: HilTable) -> None:
    for _ in range(4):
        to_third(ms)
        for s in STREETS:
            ms.spot(1, s, 500)
            ms.spot(4, s, 1000)
            ms.press("reveal")
        ms.finish()
    asked = ms.count("ShoeStatus")
    to_third(ms)  # round 5, dealt
    ms.key()
    ms.press("void")
    wait(lambda: ms.count("ShoeStatus") > asked, "the shoe's stub count after the voided fifth round")
    assert "count the stub: 45 cards expected, then confirm" in ms.texts
    wait(lambda: ms.step == "betting" and ms.snap.round_no == 6, "round 6")


# --- 4. hidden cards never on the display nor in the log -----------------------------------------


def test_4_a_misread_community_card_is_named_by_position_everywhere(
    ms: HilTable, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    ms.spot(1, "ante", 500)
    ms.spot(4, "ante", 1000)
    ms.press("no_more_bets")
    ms.load(shoe("As Ad Kc Qd 7h 8h 2c"))
    ms.deal(5)
    before = ms.count("CardDealt")
    ms.shoe.duplicate()  # the shoe reports 7h again as the second community card
    ms.settled("CardDealt", before, 1)
    assert ms.step == "hold" and "community card 2" in ms.screen_text()
    before = ms.count("CardDealt")
    ms.shoe.position -= 1  # the same card, read again at the same index
    ms.shoe.count -= 1
    ms.shoe.deal(1)  # read again (it is the 8h) without the key: not accepted, named by position
    ms.settled("CardDealt", before, 1)
    assert "read again" in ms.screen_text() and "8h" not in ms.screen_text()  # refused: the key is off
    ms.key()
    ms.press("next", "next")  # entering it: the display names the candidate by its deck number only
    screen = ms.screen_text()
    assert "deck no." in screen
    hidden = ("7h", "8h", "2c", "3c", "2d")
    shown = " ".join([*ms.texts, screen, caplog.text])
    # Whole tokens only: a random hex boot id in a log line ("boot 2d1bbb6f") is not the 2d.
    assert not any(re.search(rf"(?<![0-9a-zA-Z]){card}(?![0-9a-zA-Z])", shown) for card in hidden)


def test_4_a_boston5_dealer_card_entered_before_second_wagers_is_not_shown(b5: HilTable) -> None:
    for s in (1,):
        b5.spot(s, "ante", 500)
        b5.spot(s, "first", 1000)
    b5.press("no_more_bets")
    b5.load(shoe("As Ks Qs 2h 7d 9c"))
    b5.deal(5)
    b5.shoe.unreadable()  # the dealer's third card is not read
    wait(lambda: b5.step == "hold", "the hold")
    assert "dealer card 3" in b5.screen_text()
    b5.key()
    b5.press("next")
    b5.press("confirm")
    wait(lambda: b5.step == "second_wager", "the second wagers")
    dealer = [str(c) for c in b5.hands().dealer]
    assert not any(c in " ".join(b5.texts + [b5.screen_text()]) for c in dealer)
    actions = [r.data["reason"] for r in b5.journal.records() if r.kind == "SupervisorAction"]
    assert actions == ["dealer card 3 (shoe card 6) entered"]


# --- 6. pai gow (d)3iii only for cards that were kept ---------------------------------------------


def pg_to_setting(t: HilTable, wagers: dict[int, dict[str, int]], hands: dict[int, str]) -> None:
    from test_hil_pai_gow import to_setting

    to_setting(t, wagers, hands)


def test_6_no_collect_the_cards_step_when_the_cards_were_not_kept(pg: HilTable) -> None:
    hands = {5: "9h 9d 9c 9s 5h 3c 2d"}  # four of a kind, no bonus wager; the only bonus is $1
    pg_to_setting(pg, {2: {"pai_gow": 1000, "bonus": 100}, 5: {"pai_gow": 1000}}, hands)
    while pg.step == "setting":
        pg.press("confirm")
    result = pg.finish()
    assert not any("collect the cards" in step.text for step in result.settlement.procedure)
    pg.settles_as_tablectl_settle(result)


def test_6_the_step_is_shown_when_insurance_kept_the_cards(pg: HilTable) -> None:
    hands = {5: "9h 9d 9c 9s 5h 3c 2d"}
    pg_to_setting(pg, {2: {"pai_gow": 1000, "insurance": 100}, 5: {"pai_gow": 1000}}, hands)
    while pg.step == "setting":
        pg.press("confirm")
    result = pg.finish()
    steps = [s.text for s in result.settlement.procedure]
    assert "seat 5: premium hand, no bonus wager; discard the cards" in steps


# --- 7. a $5 bonus needs its envy marker ---------------------------------------------------------


def test_7_a_five_dollar_bonus_without_its_envy_marker_blocks_the_deal(pg: HilTable) -> None:
    pg.spot(3, "pai_gow", 1000)
    pg.spot(3, "bonus", 500)
    corrected_before_no_more_bets(
        pg, "correct: seat 3 bonus 5.00: place its envy marker (11.15(c))", (3, "envy_marker", 1)
    )


# --- 8. Boston 5: a winner's actions in 24.10(f)3's order ------------------------------------------


def test_8_a_winner_is_paid_first_and_second_then_the_ante_bonus_then_the_ante_returned(b5: HilTable) -> None:
    # seat 1: a straight (an ante bonus hand in the bench table), the dealer a pair of twos
    b5_first_deal(b5, (1,), "9s Ts Jd 2h 2d 5c 8c Qh 7h 4s")
    b5.spot(1, "second", 1000)
    b5.press("deal")
    b5.deal(4)
    wait(lambda: b5.step == "settlement", "the settlement")
    while not b5.texts[-1].startswith("seat 1:"):
        b5.press("confirm")
    text = b5.texts[-1]  # the step as shown (it takes more than one page of the 4-line screen)
    assert "pay first 10.00, second 10.00, ante bonus" in text and text.index("ante bonus") < text.index(
        "return ante 5.00"
    )
    b5.settles_as_tablectl_settle(b5.finish())


# --- 9. Boston 5: the second wager withdrawn after "deal", before the final cards ------------------


def test_9_the_second_wager_may_be_withdrawn_until_the_first_final_card(b5: HilTable) -> None:
    b5_first_deal(b5, (1, 3), "As Ks Qs 2h 7d 9c 8h 8d 2s Js Ts 9s 9d")
    b5.spot(1, "second", 1000)
    b5.spot(3, "second", 1000)
    b5.press("deal")
    assert b5.step == "final_deal"
    b5.spot(3, "second", 0)  # 24.10(c): "at any time prior to the deal of the final two cards"
    assert b5.snap.seat(3).folded_at == "second" and not b5.snap.late_notes
    assert "seat 3: folds: collect ante 5.00, first 10.00" in b5.screen_text()
    b5.confirm_steps()
    assert "deal the final two cards: seat 1, then the dealer" in b5.screen_text()
    b5.deal(4)  # seat 1 and the dealer only
    result = b5.finish()
    assert result.settlement.seat(3).net == -1500
    b5.settles_as_tablectl_settle(result)


def test_9_after_the_first_final_card_a_withdrawal_is_a_removed_bet(b5: HilTable) -> None:
    b5_first_deal(b5, (1, 3), "As Ks Qs 2h 7d 9c 8h 8d 2s Js Ts 9s 9d 4c 4d")
    b5.spot(1, "second", 1000)
    b5.spot(3, "second", 1000)
    b5.press("deal")
    b5.deal(1)
    b5.spot(3, "second", 0)
    assert b5.snap.seat(3).folded_at is None and list(b5.snap.late_notes) == [
        "removed bet: seat 3 second 0.00 not accepted"
    ]


def test_4_a_failed_event_is_logged_and_journaled_without_its_card(caplog: pytest.LogCaptureFixture) -> None:
    from controller.table.engine import Engine
    from drivers.shoe import CardDealt

    def fail(event: object) -> None:
        raise RuntimeError("boom")

    engine = Engine(fail)
    engine.start()
    engine.post(CardDealt(device="shoe", card="Qh", index=9, quality=100))
    engine.stop()
    errors = [r.data for r in engine.journal.records() if r.kind == "ControllerError"]
    assert errors == [{"event": "CardDealt", "seq": 1}]
    assert "CardDealt" in caplog.text and "Qh" not in caplog.text
