"""The pai gow table machine: dice entry, seven hands of seven from the starting position, four
cards left or a misdeal, hand setting on the panel, settlement (31.8, 31.11, 11.15)."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence

import pytest
from table_helpers import FedTable

from controller.configuration import config_dir, load_table
from controller.game.pai_gow._deal import DEALER, deal
from controller.game.pai_gow._house_way import Decision
from controller.game.pai_gow._machine import PaiGowTable, Phase
from controller.game.pai_gow._rules import settle
from controller.game.record import RecordError, record_json, settle_record
from controller.table.engine import JournalFault
from controller.table.phases import Common
from controller.vocab import Card, deck, format_cards
from drivers.bet_spots import SpotReport
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, ShoeStatus
from drivers.state import PanelState, ShoeState, SpotsState

TABLE = load_table(config_dir() / "bench" / "pai_gow.yaml")
SHOE = list(deck(joker=True))
random.Random(3).shuffle(SHOE)


class Table(FedTable):
    """The pai gow machine fed events directly."""

    def __init__(self) -> None:
        super().__init__(PaiGowTable, TABLE)

    def to_setting(self, dice: int = 8, stub: int = 4, set_hands: bool = True) -> None:
        """To "setting" (with ``set_hands``: the players' hands set, the dealer confirms), or to
        "set_hands"."""
        for seat, spots in ((2, {"pai_gow": 1000, "bonus": 500}), (5, {"pai_gow": 2500})):
            for spot, cents in spots.items():
                self.feed(SpotReport(device="spots", seat=seat, spot=spot, cents=cents))
        self.feed(SpotReport(device="spots", seat=2, spot="envy_marker", cents=1))  # 11.15(c): a $5 bonus
        self.press("no_more_bets")
        self.press(*["next"] * (dice - 3), "confirm")
        for i, c in enumerate(SHOE[:49], start=1):
            self.feed(CardDealt(device="shoe", card=str(c), index=i, quality=100))
        self.feed(ShoeStatus(device="shoe", stub_count=stub, deck_size=53))
        if set_hands and stub == 4:
            assert self.m.phase is Phase.SET_HANDS
            self.press("confirm")  # every player's hands set and face down


def test_dice_total_gives_the_starting_position_and_the_deal_order() -> None:
    for dice in (8, 14, 11):
        t = Table()
        t.to_setting(dice)
        first = {8: DEALER, 14: 1, 11: 4}[dice]  # counted counterclockwise, the dealer as 1
        expected = deal(SHOE, first).hands
        assert {p: [str(c) for c in h] for p, h in t.m.hands.items()} == {
            p: [str(c) for c in h] for p, h in expected.items()
        }
        assert (
            f"dice {dice}: first hand to {'the dealer' if first == DEALER else f'seat {first}'}; deal the cards"
            in t.m.display.prompts
        )
        assert t.m.phase is Phase.SETTING


def test_four_cards_must_remain_or_the_table_holds_for_a_misdeal() -> None:
    t = Table()
    t.to_setting(stub=5)
    assert t.m.phase is Common.HOLD and "misdeal check: 5 cards remain, not 4" in t.m.holds.reason
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("void")
    assert t.m.phase is Common.BETTING and t.m.rounds[-1].settlement is None


def test_a_stub_of_other_than_four_with_every_hand_of_seven_is_not_a_misdeal() -> None:
    """Digest 3.4 item 5 (31.14): a stub of other than four makes the dealer check the hands; only a
    hand of more or fewer than seven voids them. Each has seven: the supervisor's clear fault says
    so and the round goes on to the players' setting, and it settles as `tablectl settle` does."""
    t = Table()
    t.to_setting(stub=3)
    assert t.m.phase is Common.HOLD and t.m.holds.reason.startswith("misdeal check: 3 cards remain, not 4")
    assert "clear fault when each has seven cards" in t.m.holds.clears().words()
    t.press("clear_fault")  # the key off: refused
    assert t.m.phase is Common.HOLD
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("clear_fault")
    assert t.m.phase is Phase.SET_HANDS
    assert any("3 cards remain, not 4; every hand has seven" in text for text in t.m.display.prompts)
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=False))
    t.press("confirm")  # every player's hands set and face down
    assert t.m.phase is Phase.SETTING
    _confirm_through(t)
    result = t.m.rounds[-1]
    assert result.record["remaining"] == 3 and result.settlement is not None
    assert result.settlement.seat(5).wager("pai_gow").result.value != "returned"  # settled, not void
    assert result.settlement.to_json() == settle_record(result.record, TABLE).to_json()


def test_the_hands_check_stays_across_a_journal_outage() -> None:
    """A journal outage during the hands check (the stub not four): each device is read again,
    and the check stays the supervisor's hold (it never ends by itself, nor is it forgotten)."""
    t = Table()
    t.to_setting(stub=3)
    t.m.journal_failed("disk full: 0 bytes free on /")
    t.feed(JournalFault("disk full: 0 bytes free on /", 0, 1))
    assert t.m.holds.reason.startswith("misdeal check: 3 cards remain, not 4")
    t.feed(PanelState(device="panel", key_on=False, held=()))
    t.feed(ShoeState(device="shoe", status="ok", cards_out=49))
    spots = ((2, "pai_gow", 1000), (2, "bonus", 500), (2, "envy_marker", 1), (5, "pai_gow", 2500))
    t.feed(SpotsState(device="bet_spots", spots=spots))
    assert t.m.phase is Common.HOLD and t.m.holds.reason.startswith("misdeal check: 3 cards remain, not 4")


def test_sets_shown_house_way_first_cycled_confirmed_or_fouled_then_settled() -> None:
    t = Table()
    t.to_setting()
    assert t.m.display.notices[0].title.startswith("dealer: house way") and not t.m.turned
    t.press("confirm")  # the dealer's hand, exposed and set first (11.9)
    assert t.m.display.prompts[-1].startswith("seat 5: high") and t.m.display.prompts[-1].endswith(
        "(house way)"
    )  # from the dealer's right
    t.press("next")
    assert t.m.display.prompts[-1].endswith(f"(set 2 of {len(t.m.options)})")
    t.press("previous", "confirm")  # back to the house way, recorded
    t.press("confirm")  # seat 5's pai gow wager settled as it is turned
    t.press("fold")  # seat 2's set is a foul
    assert t.m.phase is Common.SETTLEMENT
    while t.m.phase is Common.SETTLEMENT:
        t.press("confirm")
    result = t.m.rounds[-1]
    assert result.record["seats"]["2"]["foul"] is True and "high" in result.record["seats"]["5"]
    assert set(result.record["empty"]) == {"1", "3", "4", "6"}
    assert result.settlement.seat(2).wager("pai_gow").result.value == "lose"
    assert result.settlement.to_json() == settle_record(result.record, TABLE).to_json()


def _confirm_through(t: Table) -> list[str]:
    """Confirm everything asked until the round ends (sets as the house way shows them); the texts
    shown meanwhile, in order."""
    before = len(t.m.display.prompts)
    for _ in range(100):
        if t.m.phase not in (Phase.SETTING, Common.SETTLEMENT):
            break
        t.press("confirm")
    return t.m.display.prompts[before:]


@pytest.mark.parametrize("insurance", [False, True])
def test_the_dealer_sets_first_then_each_hand_is_turned_and_settled_counterclockwise(insurance: bool) -> None:
    """Issue 32, 11.9 (which 11.15(d) follows): the dealer's hand is exposed and set by the house
    way first; then each player's hand, counterclockwise from the dealer's right, is turned, its
    set recorded and its pai gow wager settled, before the next hand is turned; the optional
    wagers after (11.15(d)2, 3). With three seats, a foul among them and (a second thing at once)
    an insurance wager keeping every hand on the layout; the settlement is `tablectl settle`'s."""
    t = Table()
    wagers = {1: {"pai_gow": 1500}, 3: {"pai_gow": 1000}, 6: {"pai_gow": 2000}}
    if insurance:
        wagers[3]["insurance"] = 500
    for seat, spots in wagers.items():
        for spot, cents in spots.items():
            t.feed(SpotReport(device="spots", seat=seat, spot=spot, cents=cents))
    t.press("no_more_bets", "confirm")  # dice 3: the first hand to seat 6... counted from the dealer
    for i, c in enumerate(SHOE[:49], start=1):
        t.feed(CardDealt(device="shoe", card=str(c), index=i, quality=100))
    before = len(t.m.display.prompts)
    t.feed(ShoeStatus(device="shoe", stub_count=4, deck_size=53))
    assert t.m.phase is Phase.SET_HANDS, t.m.holds.reason
    t.press("confirm")  # the players' hands are set and face down
    assert t.m.phase is Phase.SETTING, t.m.holds.reason
    shown = t.snapshot()
    assert shown.notices and shown.notices[0].title.startswith("dealer: house way")  # first, before any seat
    t.press("confirm")  # the dealer's hand
    t.press("confirm")  # seat 6's set
    t.press("confirm")  # seat 6 settled
    t.press("fold")  # seat 3: a foul
    _confirm_through(t)
    texts = t.m.display.prompts[before:]
    kinds = []
    for line in texts:
        if line.startswith("dealer: house way"):
            kinds.append("dealer")
        elif m := re.fullmatch(r"seat (\d) house way: confirm, next / previous, or fold \(foul\)", line):
            kinds.append(f"set {m[1]}")
        elif m := re.match(r"seat (\d): high [^:]* / low [^:]*: ", line):
            kinds.append(f"paid {m[1]}")
    assert kinds == ["dealer", "set 6", "paid 6", "set 3", "paid 3", "set 1", "paid 1"], texts
    result = t.m.rounds[-1]
    assert result.record["seats"]["3"]["foul"] is True
    assert result.settlement.to_json() == settle_record(result.record, TABLE).to_json()
    pai_gow_steps = [s.text for s in result.settlement.procedure if s.phase in ("dealer", "pai_gow")]
    assert all(texts.count(step) == 1 for step in pai_gow_steps), "each shown once, never again at the settlement"


def test_optional_wagers_need_a_pai_gow_wager_and_the_bonus_minimum() -> None:
    t = Table()
    t.feed(SpotReport(device="spots", seat=1, spot="bonus", cents=50))
    t.corrections_asked(
        "correct: seat 1: the optional wagers need a pai gow wager",
        "correct: seat 1 bonus: at least 1.00 (11.15(b))",
    )


def test_a_random_starting_number_arrives_as_an_event_and_is_recorded() -> None:
    from dataclasses import replace

    from controller.table.engine import StartDrawn

    t = Table()
    t.m.table = replace(TABLE, options={**TABLE.options, "start_method": "rng"})
    t.feed(SpotReport(device="spots", seat=2, spot="pai_gow", cents=1000))
    t.press("no_more_bets")
    assert ("draw_start", ()) in t.devices.commands and t.m.phase is Common.NO_MORE_BETS
    t.feed(StartDrawn(3))  # counted counterclockwise: dealer 1, seat 6 is 2, seat 5 is 3
    assert t.m.phase is Phase.DEALING and t.m.order[0] == 5
    assert t.m.round_record()["start"] == {"method": "rng", "value": 3}


def test_bench_with_a_random_start_over_ptys(tmp_path) -> None:
    from hil.bench import run_bench

    text = (config_dir() / "bench" / "pai_gow.yaml").read_text().replace("start_method: dice", "start_method: rng")
    text = text.replace("paytables_dir: ../paytables", f"paytables_dir: {config_dir() / 'paytables'}")
    path = tmp_path / "pai_gow.yaml"
    path.write_text(text)
    summary = run_bench(load_table(path), seats=3, rounds=2, seed=2, progress=False)
    assert summary.rounds == 2 and summary.mismatches == 0


def test_an_envy_marker_in_front_of_a_bonus_under_five_dollars_must_be_taken_away() -> None:
    # 11.15(c): a marker only in front of a bonus wager of $5.00 or more
    t = Table()
    t.spot(1, "pai_gow", 1000)
    t.spot(1, "bonus", 100)
    t.spot(1, "envy_marker", 1)
    t.spot(3, "pai_gow", 1000)
    t.spot(3, "bonus", 500)
    t.spot(3, "envy_marker", 1)
    t.spot(4, "envy_marker", 1)  # a marker where nobody bet
    t.spot(6, "pai_gow", 1000)
    t.spot(6, "pai_gow", 0)  # a wager placed and taken back: not a problem
    t.press("no_more_bets")
    assert t.m.phase is Common.BETTING
    assert t.m.wagers.problems == [
        "seat 1 envy marker: only for a bonus wager of 5.00 or more (11.15(c))",
        "seat 4 envy marker: only for a bonus wager of 5.00 or more (11.15(c))",
    ]
    assert "correct: seat 1 envy marker: only for a bonus wager of 5.00 or more (11.15(c))" in t.m.display.prompts
    t.spot(1, "envy_marker", 0)
    t.spot(4, "envy_marker", 0)
    t.press("no_more_bets")
    assert t.m.phase is Common.NO_MORE_BETS and sorted(t.m.seats) == [1, 3]
    assert all("envy_marker" not in s.wagers for s in t.m.seats.values())


def test_no_more_bets_is_a_state_and_a_card_before_the_dice_total_holds() -> None:
    t = Table()
    t.spot(2, "pai_gow", 1000)
    t.press("no_more_bets")
    assert t.m.phase is Common.NO_MORE_BETS and t.m.seats[2].wagers == {"pai_gow": 1000}
    t.deal("As")  # the dice total has not been entered
    assert t.m.phase is Common.HOLD and t.m.holds.reason == "card 1 from the shoe dealt when none was expected"
    assert t.m.holds.held_from is Common.NO_MORE_BETS


def _to_dice(t: Table) -> None:
    t.feed(SpotReport(device="spots", seat=2, spot="pai_gow", cents=1000))
    t.press("no_more_bets")
    assert t.m.phase is Common.NO_MORE_BETS


@pytest.mark.parametrize("dice", range(3, 19))
def test_any_dice_total_is_entered_in_at_most_four_presses(dice: int) -> None:
    """Each die's face on a seat button (1-6), then confirm: 18 took 15 presses of next."""
    t = Table()
    _to_dice(t)
    faces = [min(6, dice - 2), 0, 0]
    faces[1] = min(6, dice - faces[0] - 1)
    faces[2] = dice - faces[0] - faces[1]
    assert all(1 <= f <= 6 for f in faces) and sum(faces) == dice
    presses = [*(f"seat_{f}" for f in faces), "confirm"]
    before = len(t.events)
    t.press(*presses)
    assert len(t.events) - before == len(presses) <= 5
    assert t.m.phase is Phase.DEALING and t.m.dice == dice
    assert f"dice {' + '.join(map(str, faces))} = {dice}: confirm (or seat 1-6 again)" in t.m.display.prompts


def test_a_die_entered_again_and_confirm_before_the_third_die() -> None:
    t = Table()
    _to_dice(t)
    t.press("seat_6", "seat_6", "confirm")  # two dice only: not yet
    assert t.m.phase is Common.NO_MORE_BETS and "enter die 3 first (seat 1-6)" in t.m.display.prompts
    t.press("seat_1", "seat_4", "seat_4", "seat_4", "confirm")  # a fourth face starts again: 4 + 4 + 4
    assert t.m.phase is Phase.DEALING and t.m.dice == 12
    assert t.m.round_record()["start"] == {"method": "dice", "value": 12}


def _views(t: Table, caplog: pytest.LogCaptureFixture) -> str:
    """Everything outside the table reads now: the snapshot (panel screen, recent texts, game
    view, seats, dealer), its JSON (the snapshot file, /state), the page's payload, and the log."""
    import json

    from controller.web.view import table_view

    s = t.snapshot()
    return "\n".join(
        (repr(s), json.dumps(s.to_json()), json.dumps(table_view(s, TABLE, {}, [])), caplog.text, *s.screen)
    )


def _named(text: str, cards: list[str]) -> set[str]:
    return {c for c in cards if re.search(rf"(?<![A-Za-z0-9]){re.escape(c)}(?![A-Za-z0-9])", text)}


def test_views_at_each_step_show_no_hand_before_it_is_turned(caplog: pytest.LogCaptureFixture) -> None:
    """Issue 40 item 6 (11.9, which 11.15(d) follows; 31.8): after the stub count the players set
    their hands face down and the dealer confirms all are set; only then is the dealer's hand
    exposed; each player's hand is face up only once turned, one by one, counterclockwise from the
    dealer's right, each turned after the step before it is confirmed. At every step no view
    (snapshot, its JSON, the page's payload, the log, the screen) names a card not yet face up."""
    caplog.set_level("DEBUG")
    t = Table()
    t.to_setting(set_hands=False)
    hands = {p: [str(c) for c in h] for p, h in t.m.hands.items()}
    dealer, seat5, seat2 = hands[DEALER], hands[5], hands[2]
    every = [c for h in hands.values() for c in h]

    def face_up() -> set[str]:
        return set(t.snapshot().face_up())

    assert t.m.phase is Phase.SET_HANDS and t.snapshot().step == "set_hands"
    assert "players: set your hands and place them face down" in " ".join(t.snapshot().screen)
    assert face_up() == set() and not _named(_views(t, caplog), every)
    t.press("next", "fold", "seat_3")  # nothing but confirm moves on while the players set
    assert t.m.phase is Phase.SET_HANDS and not _named(_views(t, caplog), every)

    t.press("confirm")  # all set: the dealer exposes his hand and sets it the house way
    s = t.snapshot()
    assert s.step == "setting" and s.notices[0].title.startswith("dealer: house way")
    assert face_up() == set(dealer) and not s.game_view.turned
    assert not _named(_views(t, caplog), seat5 + seat2)  # no player's hand before the dealer's set is confirmed

    t.press("confirm")  # the dealer's set confirmed: seat 5 (the dealer's right) is turned
    assert t.snapshot().game_view.turned == (5,) and face_up() == set(dealer + seat5)
    assert not _named(_views(t, caplog), seat2)

    t.press("confirm")  # seat 5's set recorded: its pai gow wager is settled before seat 2 is turned
    s = t.snapshot()
    assert s.notices and s.notices[0].title.startswith("seat 5: high") and s.game_view.turned == (5,)
    assert not _named(_views(t, caplog), seat2)

    t.press("confirm")  # seat 5 settled: seat 2 turned
    assert t.snapshot().game_view.turned == (5, 2) and face_up() == set(dealer + seat5 + seat2)
    empty = [c for p, h in hands.items() if p not in (DEALER, 2, 5) for c in h]
    assert not _named(_views(t, caplog), empty)  # hands at positions without a wager: never (31.8)


def test_a_hold_while_the_players_set_their_hands_shows_nothing_and_resumes_there(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The same with a hold entered while the players set their hands (a panel fault): nothing is
    face up while held, and the round resumes in "set_hands"."""
    from drivers.link import DeviceFault

    t = Table()
    t.to_setting(set_hands=False)
    every = [str(c) for h in t.m.hands.values() for c in h]
    t.feed(DeviceFault(device="panel", error="display failed", kind="command_failed", command="display"))
    assert t.m.phase is Common.HOLD and t.snapshot().held_from == "set_hands"
    assert not t.snapshot().face_up() and not _named(_views(t, caplog), every)
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("clear_fault")
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=False))
    assert t.m.phase is Phase.SET_HANDS and not _named(_views(t, caplog), every)
    t.press("confirm")
    assert t.m.phase is Phase.SETTING


def test_the_shared_settlement_is_computed_once_a_round_for_the_steps_shown_as_hands_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 42 item 5: the steps shown as each hand is turned (the dealer's set, each seat's pai
    gow wager) are read from one settlement a round, not the whole settlement computed again at
    each (it was once for the dealer and once a seat); the round's own settlement at the end reads
    the same shared part again (it was computed a second time there)."""
    from controller.game.pai_gow import _rules as rules

    made = []
    real = rules._round
    monkeypatch.setattr(rules, "_round", lambda *a: made.append(1) or real(*a))
    monkeypatch.setattr(rules, "_LAST_ROUND", (None, None))  # nothing kept from another test's round
    t = Table()
    for seat in (1, 3, 4, 6):
        t.spot(seat, "pai_gow", 1000)
    t.press("no_more_bets", "confirm")
    for i, c in enumerate(SHOE[:49], start=1):
        t.feed(CardDealt(device="shoe", card=str(c), index=i, quality=100))
    t.feed(ShoeStatus(device="shoe", stub_count=4, deck_size=53))
    t.press("confirm")  # the players' hands set
    t.press("confirm", "next", "confirm", "confirm", "fold", "confirm")  # dealer; seat 6 another set; seat 4 a foul
    assert len(made) == 1 and t.m.phase is Phase.SETTING
    _confirm_through(t)
    result = t.m.rounds[-1]
    assert len(made) == 1 and result.settlement is not None
    assert result.settlement.to_json() == settle_record(result.record, TABLE).to_json()


def test_each_seat_is_set_by_the_house_way_once_a_round_and_never_from_another_round(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 42 item 5: a seat's house-way set is made once a round (not again on ``next`` /
    ``previous``), the next round's hands set anew; and the round settler reads the record as it
    stands, without its JSON round trip: so the record, in every state it is read (the dealer's
    hand set, each seat set or fouled), must be what its JSON reads back as."""
    from controller.game.pai_gow import _machine

    made: list[int] = []
    real = _machine.house_way

    class Counting:
        def __init__(self, name: str) -> None:
            self.way = real(name)

        def set(self, cards: Sequence[Card], options: dict[str, object]) -> Decision:
            made.append(len(cards))
            return self.way.set(cards, options)

    monkeypatch.setattr(_machine, "house_way", Counting)
    t = Table()
    second = list(SHOE)
    random.Random(4).shuffle(second)
    for shoe in (SHOE, second):
        made.clear()
        for seat in (1, 4):
            t.spot(seat, "pai_gow", 1000)
        t.press("no_more_bets", "confirm")
        for i, c in enumerate(shoe[:49], start=1):
            t.feed(CardDealt(device="shoe", card=str(c), index=i, quality=100))
        t.feed(ShoeStatus(device="shoe", stub_count=4, deck_size=53))
        t.press("confirm", "confirm")  # the players' hands set; the dealer's set
        assert json.loads(record_json(t.m.round_record())) == t.m.round_record()
        t.press("next", "previous")  # seat 4: another set, then the house way again
        t.press("fold" if shoe is SHOE else "confirm")  # seat 4: a foul in one round
        assert json.loads(record_json(t.m.round_record())) == t.m.round_record()
        expected = {n: real("foxwoods").set(t.m.hands[n], dict(TABLE.options)).set for n in (1, 4)}
        shown = _confirm_through(t)
        assert t.m.rounds[-1].record["seats"]["4"].get("high", "foul") == (
            "foul" if shoe is SHOE else format_cards(expected[4].high.cards)
        )
        assert t.m.rounds[-1].settlement.to_json() == settle_record(t.m.rounds[-1].record, TABLE).to_json()
        assert t.m.rounds[-1].record["seats"]["1"]["low"] == format_cards(expected[1].low.cards)
        assert (
            f"seat 1: high {format_cards(expected[1].high.best)} / low {format_cards(expected[1].low.best)} (house way)"
            in shown
        )
        assert made == [7, 7], "each seat set by the house way once this round"
        while t.m.phase is Common.COUNT_STUB:
            t.feed(ShoeStatus(device="shoe", stub_count=t.m.stub.expected, deck_size=53))
        assert t.m.phase is Common.BETTING, t.m.holds.reason


def test_each_round_deals_by_its_own_dice_total_and_notes_its_own_seats() -> None:
    """Issue 42 item 5: where each card goes and the name the card ledger notes it under are made
    once a round (when the dice total is entered); the next round's, at the same table, follow its
    own dice total and its own wagered seats, not a plan kept from the round before."""
    t = Table()
    for dice, wagered in ((8, (2, 5)), (14, (1, 3, 6)), (11, (4,))):
        shoe = list(SHOE)
        random.Random(dice).shuffle(shoe)
        for seat in wagered:
            t.spot(seat, "pai_gow", 1000)
        t.press("no_more_bets", *["next"] * (dice - 3), "confirm")
        for i, c in enumerate(shoe[:49], start=1):
            t.feed(CardDealt(device="shoe", card=str(c), index=i, quality=100))
        first = {8: DEALER, 14: 1, 11: 4}[dice]  # counted counterclockwise, the dealer as 1
        expected = deal(shoe, first).hands
        assert {p: tuple(h) for p, h in t.m.hands.items()} == {p: tuple(h) for p, h in expected.items()}
        names = {e.card: e.to for e in t.m.ledger.entries}
        for position, cards in expected.items():
            name = (
                "dealer"
                if position == DEALER
                else f"seat {position}"
                if position in wagered
                else f"position {position} (no wager)"
            )
            assert {names[str(c)] for c in cards} == {name}
        t.feed(ShoeStatus(device="shoe", stub_count=4, deck_size=53))
        t.press("confirm")  # the players' hands set
        _confirm_through(t)
        while t.m.phase is Common.COUNT_STUB:
            t.feed(ShoeStatus(device="shoe", stub_count=t.m.stub.expected, deck_size=53))
        assert t.m.phase is Common.BETTING, t.m.holds.reason
        assert t.m.rounds[-1].settlement is not None


def _play_round(t: Table, shoe: Sequence[Card], seats: Sequence[int]) -> None:
    """One round at ``seats`` dealt from ``shoe``: seat ``seats[-1]`` (turned first) confirms
    another set than the house way's, the next a foul, the rest the house way's."""
    for seat in seats:
        t.spot(seat, "pai_gow", 1000)
    t.press("no_more_bets", "confirm")
    for i, c in enumerate(shoe[:49], start=1):
        t.feed(CardDealt(device="shoe", card=str(c), index=i, quality=100))
    t.feed(ShoeStatus(device="shoe", stub_count=4, deck_size=53))
    t.press("confirm", "confirm")  # the players' hands set; the dealer's set confirmed
    t.press("next", "confirm", "confirm")  # the first seat turned: another set, its step confirmed
    t.press("fold", "confirm")  # the next: a foul
    _confirm_through(t)
    while t.m.phase is Common.COUNT_STUB:
        t.feed(ShoeStatus(device="shoe", stub_count=t.m.stub.expected, deck_size=53))
    assert t.m.phase is Common.BETTING, t.m.holds.reason


def test_each_round_is_read_ranked_and_settled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 42 item 5: a round's record is read in full once (when the dealer's hand is set; the
    settlement's reading reads only the seats' sets again), each hand is set by the house way
    once, the dealer's and each wagered seat's (the settlement plays the seat's house-way set the table showed: also for a foul), a set
    the dealer recorded is not ranked again, and each seat's steps are made once (for the step
    shown as it is turned, read again by the settlement); each set is put into words once, the
    dealer's step made once (shown when his hand is set, the first of the settlement's
    procedure); each round anew, and what is paid is what the record, read in full, pays."""
    from controller.game.pai_gow import _house_way, _machine, _rules
    from controller.hands import paigow

    for name, empty in (("_KEPT_READING", None), ("_LAST_ROUND", (None, None)), ("_LAST_SEATS", (None, {}))):
        monkeypatch.setattr(_rules, name, empty)  # nothing kept from another test's round
    calls: dict[str, int] = {"read": 0, "house": 0, "ranked": 0, "steps": 0, "words": 0, "dealer step": 0}

    def counted(key: str, real: Callable[..., object]) -> Callable[..., object]:
        def call(*args: object, **kwargs: object) -> object:
            calls[key] += 1
            return real(*args, **kwargs)

        return call

    real_read = _rules._read_in_full
    monkeypatch.setattr(_rules, "_read_in_full", counted("read", real_read))
    monkeypatch.setattr(_house_way.HouseWay, "set", counted("house", _house_way.HouseWay.set))
    monkeypatch.setattr(_rules, "set_dealt", counted("ranked", _rules.set_dealt))
    monkeypatch.setattr(_rules._Steps, "add_seat", counted("steps", _rules._Steps.add_seat))
    # the cards put into words by the table (its records, the set shown) and by a set's own words
    monkeypatch.setattr(_machine, "format_cards", counted("words", _machine.format_cards))
    monkeypatch.setattr(paigow, "format_cards", counted("words", paigow.format_cards))
    monkeypatch.setattr(_rules, "_dealer_step", counted("dealer step", _rules._dealer_step))
    t = Table()
    second = list(SHOE)
    random.Random(5).shuffle(second)
    for shoe, seats in ((SHOE, (1, 3, 4, 6)), (second, (2, 5, 6))):
        for key in calls:
            calls[key] = 0
        _play_round(t, shoe, seats)
        result = t.m.rounds[-1]
        # words: each position's cards in the round's two records (when the dealer's hand is set,
        # at the settlement), the sets recorded (all but the foul) in the second, and each set
        # shown once (the dealer's, each seat's house way, the other set one seat confirms)
        words = 2 * 7 + 2 * (len(seats) - 1) + 2 * (1 + len(seats) + 1)
        expected = {"read": 1, "house": 1 + len(seats), "ranked": 0, "steps": len(seats)}
        assert calls == {**expected, "words": words, "dealer step": 1}, calls
        assert _rules._KEPT_READING is None, "the round's reading is dropped once the settlement read it"
        assert result.settlement is not None
        assert result.settlement.to_json() == settle(real_read(result.record, TABLE), TABLE).to_json()


def test_the_settlements_reading_reads_as_a_reading_in_full(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 42 item 5: the record read again from the table's kept reading (only the seats' sets
    read) gives what a reading in full gives, its problems included, for every way a seat's set
    is written, and is read in full when anything else of the record differs."""
    from controller.game.pai_gow import _rules

    t = Table()
    t.to_setting()  # seats 2 and 5, the dealer's hand set: the record read and kept
    kept = _rules._KEPT_READING
    assert kept is not None and kept.table is TABLE
    base = t.m.round_record()
    hands = {n: t.m.hands[n] for n in (2, 5)}
    way = {n: _rules.house_way("foxwoods").set(hands[n], dict(TABLE.options)).set for n in (2, 5)}
    two = format_cards(way[2].high.cards), format_cards(way[2].low.cards)

    def with_seat(n: int, **fields: object) -> dict[str, object]:
        record = json.loads(json.dumps(base))
        seat = record["seats"][str(n)]
        if fields.keys() & {"high", "low", "foul", "set"}:
            seat.pop("set", None)
        seat.update(fields)
        return record

    variants = [  # each with whether it is read again from the kept reading, without a problem
        (base, True),
        (with_seat(2, high=two[0], low=two[1]), True),
        (with_seat(2, high=two[1] + " " + two[0].split()[0], low=" ".join(two[0].split()[1:3])), False),  # not 5 and 2
        (with_seat(5, foul=True), True),
        (with_seat(5, foul="yes"), False),
        (with_seat(2, high=two[0]), False),
        (with_seat(2, set="by hand"), False),
        (with_seat(2, high=two[0], low="2c 3c"), False),
        (with_seat(2, high=two[0], low=two[1], set="house_way"), True),
        (with_seat(2, high=two[0], low=two[1], colour="red"), False),  # no seat's key: read in full
        (with_seat(5, wagers={"pai_gow": 1200}), False),  # another wager: read in full
        (with_seat(5, cards=format_cards(hands[2])), False),  # other cards: read in full (a card dealt twice)
        ({**base, "seats": {int(k): v for k, v in base["seats"].items()}}, False),  # seats keyed by numbers
        ({**base, "remaining": True}, False),
    ]
    for record, read_again in variants:
        monkeypatch.setattr(_rules, "_KEPT_READING", kept)
        try:
            expected: object = _rules._read_in_full(record, TABLE)
        except RecordError as exc:
            expected = exc.problems
        try:
            got: object = _rules.read_round(record, TABLE)
        except RecordError as exc:
            got = exc.problems
        assert got == expected, record
        # read again once: then dropped (a later reading of the round, a re-settlement, is in full)
        assert (_rules._KEPT_READING is None) is read_again, record
