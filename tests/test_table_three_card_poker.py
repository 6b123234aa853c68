"""Three Card Poker dealt at the table (issue 43): the machine event by event (the deal, each
seat's play or fold, the dealer's hand exposed, the settlement in the published order), the
6 Card Bonus settled from the table's paytable and checked against its own independent ranking,
hidden cards never on a snapshot or a payload before they are revealed, and the bench."""

from __future__ import annotations

import json
import random
import re
from itertools import combinations
from pathlib import Path

import pytest
from cli_helpers import cli
from table_helpers import FedTable

from controller.configuration import config_dir, load_table
from controller.game.record import settle_record
from controller.game.registry import definition, table_names
from controller.game.three_card_poker._machine import Phase, ThreeCardTable
from controller.game.three_card_poker._six_card import SOURCE, SixCardHand, rank_six
from controller.game.three_card_poker._table_rules import SIX_CARD, six_card_hand
from controller.table.phases import AFTER, BEFORE, Common
from controller.table.snapshot import TableSnapshot
from controller.vocab import ALL_CARDS, parse_cards
from controller.web.view import table_view
from hil.three_card_player import plays

TABLE = load_table(config_dir() / "bench" / "three_card_poker.yaml")
_TOKEN = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][cdhs])(?![A-Za-z0-9])")


class Table(FedTable):
    """The ThreeCardTable machine fed events directly."""

    def __init__(self) -> None:
        super().__init__(ThreeCardTable, TABLE)


def bets(t: Table, seats: dict[int, dict[str, int]]) -> None:
    for seat, spots in seats.items():
        for spot, cents in spots.items():
            t.spot(seat, spot, cents)
    t.press("no_more_bets")


def settle(t: Table) -> None:
    while t.m.phase is Common.SETTLEMENT:
        t.press("confirm")


# seat 1: Ah Kh Qh; seat 3: 7c 4d 2s; seat 5: 9d 9s 3c; the dealer: Qc 8h 4h (queen high: qualifies)
CARDS = "Ah Kh Qh 7c 4d 2s 9d 9s 3c Qc 8h 4h"
WAGERS = {
    1: {"ante": 500, "pair_plus": 100, SIX_CARD: 500},
    3: {"ante": 1000, "pair_plus": 500, SIX_CARD: 500},
    5: {"ante": 500, "pair_plus": 500},
}


def test_the_game_is_dealt_at_a_table_and_the_registry_names_its_parts() -> None:
    game = definition("three_card_poker")
    assert "three_card_poker" in table_names()
    assert game.machine() is ThreeCardTable and game.phases() == (*BEFORE, *Phase, *AFTER)
    assert SIX_CARD in game.catalog.wager_spots and game.catalog.paytable_spot(SIX_CARD) is not None
    assert all(step.cite for step in game.steps) and all(c.cite for s in game.deal.steps for c in s.cards)
    assert all("inferred" in step.cite for step in game.steps)  # 13:69F-20's text was not found


def test_three_cards_to_each_seat_clockwise_then_three_to_the_dealer() -> None:
    t = Table()
    bets(t, WAGERS)
    t.deal(CARDS)
    assert t.m.phase is Phase.PLAY
    assert [str(c) for c in t.m.seats[1].cards] == ["Ah", "Kh", "Qh"]
    assert [str(c) for c in t.m.seats[3].cards] == ["7c", "4d", "2s"]
    assert [str(c) for c in t.m.seats[5].cards] == ["9d", "9s", "3c"]
    assert [str(c) for c in t.m.dealer] == ["Qc", "8h", "4h"]


def test_the_settlement_is_in_the_published_order_and_as_tablectl_settle() -> None:
    """Folded hands' antes and pair plus collected first (at the fold), the dealer's hand exposed,
    then from the dealer's right (the highest seat first) each hand in action, and a folded hand's
    6 Card Bonus in its turn."""
    t = Table()
    bets(t, WAGERS)
    t.deal(CARDS)
    t.spot(1, "play", 500)
    t.spot(5, "play", 500)
    t.press("seat_3", "fold", "confirm", "reveal")
    assert t.m.phase is Common.SETTLEMENT
    settle(t)
    result = t.m.rounds[-1]
    expected = settle_record(result.record, TABLE)
    assert result.settlement.to_json() == expected.to_json()
    steps = [(s.phase, s.seat) for s in expected.procedure]
    assert steps == [("fold", 3), ("dealer", None), ("settle", 5), (SIX_CARD, 3), ("settle", 1)]
    shown = [p for p in t.m.display.prompts if "reveals" in p or "seat 5:" in p or "seat 1:" in p]
    assert "reveals" in shown[0] and "seat 5" in shown[1] and "seat 1" in shown[-1]
    seat1 = {w.spot: w for w in expected.seats[0].wagers}
    assert seat1["ante"].net == 500 and seat1["play"].net == 500  # straight flush over queen high
    assert seat1["ante_bonus"].net == 2500 and seat1["pair_plus"].net == 4000
    assert seat1[SIX_CARD].net == 7500  # Ah Kh Qh 8h 4h, a flush: 15 to 1 on this table


def test_the_played_hand_is_named_with_its_cards_and_a_wager_that_does_not_pay_says_why() -> None:
    """The dealer's step for a played hand names the hand and its cards, then its cards go to the
    discard rack; a pair plus and a 6 Card Bonus that do not pay name the hand and the rule each
    follows, in the same words."""
    seats = {
        "1": {"wagers": {"ante": 500, "play": 500, "pair_plus": 100, SIX_CARD: 500}, "cards": "Kc 9d 4s"},
        "2": {"wagers": {"ante": 500, "pair_plus": 100}, "cards": "7c 5d 2s"},
    }
    s = settle_record({"game": "three_card_poker", "seats": seats, "dealer": "Qc 8h 3h"}, TABLE)
    assert s.procedure[-1].text == (
        "seat 1: high card (Kc 9d 4s): pay ante 5.00, play 5.00; collect pair plus 1.00, six card bonus 5.00; "
        "discard the cards"
    )
    why = {w.spot: w.why for w in s.seat(1).wagers}
    assert why["pair_plus"] == "high card does not pay (20.11(c))"  # K-high; with the dealer's, K-Q-9-8-4
    assert why[SIX_CARD] == f"high card does not pay ({SOURCE})"


def test_a_fold_collects_the_ante_and_pair_plus_at_once_and_keeps_the_six_card_bonus() -> None:
    t = Table()
    bets(t, WAGERS)
    t.deal(CARDS)
    t.press("seat_3", "fold")
    assert t.m.seats[3].folded_at == "play"
    notice = t.m.display.prompts[-1]
    assert "seat 3: folds" in notice and "ante 10.00" in notice and "pair plus 5.00" in notice
    assert "6 Card Bonus stays" in notice and "keep the cards face down" in notice and "unexposed" not in notice
    assert not any(c in notice for c in ("7c", "4d", "2s"))
    lamps = [args for kind, args in t.devices.commands if kind == "lamp" and args[0] == 3]
    assert (3, "ante", "off") in lamps and (3, SIX_CARD, "off") not in lamps
    t.press("reveal")  # refused: the collection is not confirmed, and seats 1 and 5 have not decided
    assert t.m.phase is Phase.PLAY
    t.press("confirm")
    t.spot(1, "play", 500)
    t.press("reveal")
    assert t.m.phase is Phase.PLAY  # seat 5 has not decided
    t.press("seat_5", "fold")  # no 6 Card Bonus: the cards go at once, unexposed
    assert "unexposed" in t.m.display.prompts[-1] and "pair plus 5.00" in t.m.display.prompts[-1]
    t.press("confirm", "reveal")
    settle(t)
    seats = {s.seat: {w.spot: w.net for w in s.wagers} for s in t.m.rounds[-1].settlement.seats}
    assert seats[3] == {"ante": -1000, "pair_plus": -500, SIX_CARD: -500}  # Qc 8h 7c 4d 4h: one pair
    assert seats[5] == {"ante": -500, "pair_plus": -500}
    assert settle_record(t.m.rounds[-1].record, TABLE).to_json() == t.m.rounds[-1].settlement.to_json()


def test_a_folded_hands_six_card_bonus_is_paid_against_the_dealers_hand() -> None:
    t = Table()
    bets(t, {2: {"ante": 500, SIX_CARD: 500}})
    t.deal("Jh 7h 2c 9h 4h 3h")  # jack-seven-two: folded; with the dealer's hearts a flush
    t.press("seat_2", "fold", "confirm", "reveal")
    assert t.m.phase is Common.SETTLEMENT
    assert any("reveals 9h 4h 3h" in p for p in t.m.display.prompts)  # exposed for the 6 Card Bonus
    settle(t)
    seat = t.m.rounds[-1].settlement.seats[0]
    assert {w.spot: w.net for w in seat.wagers} == {"ante": -500, SIX_CARD: 7500}  # a flush: 15 to 1


def test_a_play_wager_must_equal_the_ante() -> None:
    t = Table()
    bets(t, {1: {"ante": 500}})
    t.deal("Ah Kh Qh Qc 8h 4h")
    t.spot(1, "play", 1000)
    assert "play" not in t.m.seats[1].wagers and "must equal the ante 5.00" in t.m.display.prompts[-1]
    t.spot(1, "play", 500)
    assert t.m.seats[1].wagers["play"] == 500


def test_a_dealer_not_qualifying_pays_the_ante_pushes_the_play_and_the_bonuses_still_pay() -> None:
    t = Table()
    bets(t, {2: {"ante": 500, "pair_plus": 100, SIX_CARD: 500}})
    t.deal("5s 5d 5c Jh 9c 2d")  # trips against jack high: the dealer does not qualify
    t.spot(2, "play", 500)
    t.press("reveal")
    settle(t)
    seat = t.m.rounds[-1].settlement.seats[0]
    got = {w.spot: (w.result.value, w.net) for w in seat.wagers}
    assert got["ante"] == ("win", 500) and got["play"] == ("push", 0)
    assert got["ante_bonus"] == ("win", 2000)  # 4 to 1 on three of a kind, whatever the dealer holds
    assert got["pair_plus"] == ("win", 3000)  # 30 to 1, whatever the dealer holds
    assert got[SIX_CARD] == ("win", 3500)  # three of a kind: 7 to 1, whatever the dealer holds
    assert t.m.rounds[-1].settlement.dealer["qualifies"] == "no"


def test_a_pair_plus_alone_plays_without_a_decision() -> None:
    t = Table()
    bets(t, {4: {"pair_plus": 500}})
    t.deal("Kd Kc 2h Qc 8h 4h")
    t.press("reveal")
    assert t.m.phase is Common.SETTLEMENT
    settle(t)
    assert {w.spot: w.net for w in t.m.rounds[-1].settlement.seats[0].wagers} == {"pair_plus": 500}


def test_a_six_card_bonus_needs_an_ante() -> None:
    t = Table()
    t.spot(1, "pair_plus", 500)
    t.spot(1, SIX_CARD, 500)
    t.press("no_more_bets")
    assert t.m.phase is Common.BETTING and "needs an ante" in " ".join(t.m.display.prompts[-3:])


@pytest.mark.parametrize(
    ("cards", "hand", "net"),
    [
        ("Ah Kh Qh Jh Th 2c", SixCardHand.ROYAL_FLUSH, 500_000),
        ("9s 8s 7s 6s 5s 5d", SixCardHand.STRAIGHT_FLUSH, 100_000),
        ("7c 7d 7h 7s 2d 3c", SixCardHand.FOUR_OF_A_KIND, 50_000),
        ("Kc Kd 2h 2s 2d 9c", SixCardHand.FULL_HOUSE, 10_000),
        ("Ad 9d 5d 3d 2d Kc", SixCardHand.FLUSH, 7_500),
        ("Ac 2d 3h 4s 5c 9d", SixCardHand.STRAIGHT, 5_000),  # A-2-3-4-5: a straight in five cards
        ("Qc Qd Qh 2s 7c 9d", SixCardHand.THREE_OF_A_KIND, 3_500),
        ("Ac Ad Kh Ks 7c 9d", SixCardHand.NOTHING, -500),  # two pair does not pay
    ],
)
def test_the_six_card_bonus_pays_the_tables_paytable(cards: str, hand: SixCardHand, net: int) -> None:
    six = parse_cards(cards)
    assert rank_six(six[:3], six[3:]) is hand  # the independent ranking agrees with the case
    t = Table()
    bets(t, {6: {"ante": 500, SIX_CARD: 500}})
    t.deal(cards)
    t.spot(6, "play", 500)
    t.press("reveal")
    settle(t)
    settled = t.m.rounds[-1].settlement.seats[0].wager(SIX_CARD)
    assert settled is not None and settled.net == net


def test_the_six_card_ranking_agrees_with_the_independent_one() -> None:
    rng = random.Random(43)
    cards = [c for c in ALL_CARDS if not c.is_joker]
    for _ in range(3000):
        six = rng.sample(cards, 6)
        value = six_card_hand(tuple(six[:3]), tuple(six[3:]))
        independent = rank_six(six[:3], six[3:])
        expected = "nothing" if independent is SixCardHand.NOTHING else independent.name.lower()
        got = value.category.value if value.category.value in {h.name.lower() for h in SixCardHand} else "nothing"
        assert got == expected, (six, got, expected)


def test_the_queen_six_four_rule_plays_from_queen_six_four() -> None:
    assert plays(list(parse_cards("Qs 6h 4d"))) and plays(list(parse_cards("2s 2h 3d")))
    assert not plays(list(parse_cards("Qs 6h 3d"))) and not plays(list(parse_cards("Js Th 8d")))


def _face_down(t: Table, snapshot: TableSnapshot, hidden: set[str]) -> None:
    payload = json.dumps(table_view(snapshot, TABLE, {}, []))
    for where, text in (("snapshot", repr(snapshot)), ("payload", payload), ("screen", " ".join(t.m.display.lines))):
        leaked = {c for c in _TOKEN.findall(text) if c in hidden}
        assert not leaked, f"{where} at {snapshot.step} names hidden cards {sorted(leaked)}"


@pytest.mark.parametrize("everyone_folds", [False, True])
def test_no_card_is_named_before_it_is_revealed(everyone_folds: bool) -> None:
    """Every event of a round: no seat's or dealer's card before the reveal; then the dealer's,
    and each hand in action from its own settlement step, never a folded hand's (and the dealer's
    stays down when all fold)."""
    t = Table()
    bets(t, {1: {"ante": 500}, 3: {"ante": 500}})
    dealt = "Ah Kh Qh 7c 4d 2s Qc 8h 4h".split()
    for i, c in enumerate(dealt):
        t.deal(c)
        _face_down(t, t.snapshot(), set(dealt[: i + 1]))
    if everyone_folds:
        t.press("seat_1", "fold", "confirm")
    else:
        t.spot(1, "play", 500)
    _face_down(t, t.snapshot(), set(dealt))
    t.press("seat_3", "fold")
    _face_down(t, t.snapshot(), set(dealt))
    t.press("confirm", "reveal")
    assert t.m.phase is Common.SETTLEMENT
    folded = {"7c", "4d", "2s"} | ({"Ah", "Kh", "Qh", "Qc", "8h", "4h"} if everyone_folds else set())
    while t.m.phase is Common.SETTLEMENT:
        s = t.snapshot()
        _face_down(t, s, folded)
        if not everyone_folds:
            assert "Qc" in s.face_up() and ("Ah" in s.face_up()) == s.asked.startswith("seat 1:")
        t.press("confirm")
    _face_down(t, t.snapshot(), folded)


def test_a_folded_hand_kept_for_its_six_card_bonus_is_never_on_a_view() -> None:
    t = Table()
    bets(t, {1: {"ante": 500, SIX_CARD: 500}, 3: {"ante": 500}})
    t.deal("7c 4d 2s Ah Kh Qh Qc 8h 4h")
    t.press("seat_1", "fold", "confirm")
    t.spot(3, "play", 500)
    t.press("reveal")
    turned = False  # seat 3's hand: turned at its step, face up from then on
    while t.m.phase is Common.SETTLEMENT:
        s = t.snapshot()
        payload = json.dumps(table_view(s, TABLE, {}, []))
        for text in (repr(s), payload):
            assert not {"7c", "4d", "2s"} & set(_TOKEN.findall(text)), s.step
        turned = turned or s.asked.startswith("seat 3:")
        assert "Qc" in s.face_up() and ("Ah" in s.face_up()) == turned
        t.press("confirm")
    assert turned


def test_every_three_card_hand_either_plays_or_folds_by_one_rule() -> None:
    """The bench player's rule over all 22,100 hands: 67.42% play (the par sheet's figure)."""
    hands = list(combinations([c for c in ALL_CARDS if not c.is_joker], 3))
    played = sum(plays(list(h)) for h in hands)
    assert played / len(hands) == pytest.approx(0.674208, abs=1e-6)


def test_the_bench_passes(tmp_path: Path) -> None:
    journal = str(tmp_path / "j.db")
    code, out, err = cli("bench", "--game", "three_card_poker", "--rounds", "20", "--journal", journal)
    assert code == 0, err
    assert "result      passed: 20 of 20 rounds" in out and "0 differ" in out


def test_the_par_sheet_shows_the_six_card_bonus() -> None:
    code, out, err = cli(
        "par", "--game", "three_card_poker", "--config", str(config_dir() / "bench" / "three_card_poker.yaml")
    )
    assert code == 0, err
    assert "six_card_bonus: house edge 8.5614% per unit wagered (exact)" in out
    assert "main game: house edge 3.3730% per ante, 2.0147% per unit of total action" in out


@pytest.mark.parametrize("held_at", [None, Phase.PLAY, Common.SETTLEMENT])
def test_a_fold_pressed_after_the_play_wager_is_not_taken_and_the_hand_stays_down_until_the_reveal(
    held_at: Phase | None,
) -> None:
    """Issue 43 (simulation seed 201 showed a seat with ante and play at the settlement, its cards
    face up): a played hand is in action; a fold pressed for it afterwards (a wrong press) is not
    taken, nothing is collected, and its cards stay off every view until the dealer's hand is
    exposed; then each is turned at its own step, the folded seat's never are; held (a journal
    outage) at either step or not."""
    t = Table()
    bets(t, {1: {"ante": 500}, 3: {"ante": 500}})
    t.deal("Ah Kh Qh 7c 4d 2s Qc 8h 4h")
    t.spot(1, "play", 500)
    t.press("seat_1", "fold")
    seat = t.m.seats[1]
    assert seat.folded_at is None and seat.wagers == {"ante": 500, "play": 500}
    assert not t.m.display.steps_pending()
    if held_at is Phase.PLAY:
        t.m.journal_failed("disk full: 0 bytes free on /")
        assert t.m.phase is Common.HOLD
        _face_down(t, t.snapshot(), set("Ah Kh Qh 7c 4d 2s Qc 8h 4h".split()))
        return
    _face_down(t, t.snapshot(), set("Ah Kh Qh 7c 4d 2s Qc 8h 4h".split()))
    t.press("seat_3", "fold", "confirm", "reveal")
    assert t.m.phase is Common.SETTLEMENT
    if held_at is Common.SETTLEMENT:
        t.m.journal_failed("disk full: 0 bytes free on /")
        assert t.m.phase is Common.HOLD
        _face_down(t, t.snapshot(), {"7c", "4d", "2s", "Ah", "Kh", "Qh"})  # held at the dealer's reveal
        assert {"Qc", "8h", "4h"} <= t.snapshot().face_up()
        return
    while t.m.phase is Common.SETTLEMENT:
        s = t.snapshot()
        turned = s.asked.startswith("seat 1:")
        _face_down(t, s, {"7c", "4d", "2s"} | (set() if turned else {"Ah", "Kh", "Qh"}))
        assert {"Qc", "8h", "4h"} | ({"Ah", "Kh", "Qh"} if turned else set()) <= s.face_up()
        t.press("confirm")
