"""Attack on late bets (docs/dealer-guide.md, "Accept / refuse a late or removed bet") once a
dealer's or community card is face up.

In Mississippi Stud, Boston 5 and Three Card Poker no late change is ever accepted once a dealer's
or community card is face up: by then every seat has a street bet, a second wager or a play wager
(a change to its wagers is refused: "cannot enter a round already dealt") or has folded ("cannot
enter a hand already collected or paid"), or the record is settled. Found: in pai gow the dealer's
hand is exposed and set first (11.9, step ``setting``), then each hand is turned; a late change to
a hand not yet turned was accepted by the supervisor's ``next`` with the dealer's seven cards face
up on the layout (the player raising a wager whose result the exposed hand already tells).

Now refused (``cannot enter a round already dealt: the dealer's hand is exposed (11.9)``) in every
part of ``setting``, held or not, each seat turned or not. Before the dealer's hand is exposed (the
dice, the deal, the stub count, the players setting their hands) the player knows only his own
cards, as a Mississippi Stud or Three Card Poker player before he acts: a supervisor may still
accept the change to the pai gow wager there, as before. The bonus and insurance wagers are made
with the pai gow wager (11.15(b)) and settled on the player's own seven cards (11.15(d)2): a late
one is refused once a card of the round is dealt, as a Boston 5 bonus is (24.10(a)).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from late_bet_helpers import assert_late_accepted, late_change
from table_helpers import FedTable, at_step, closed_table

from controller.vocab import deck
from drivers.link import LinkDown
from drivers.panel import ButtonChanged

CARDS = [str(c) for c in deck(joker=True)[:49]]
PAI_GOW_SHOE = " ".join(CARDS)


def table() -> FedTable:
    """Seats 2 and 5 (pai gow 10.00, 25.00), betting closed, the dice total entered."""
    return closed_table("pai_gow", ((2, "pai_gow", 1000), (5, "pai_gow", 2500)))


def no_more_bets() -> FedTable:
    return at_step(table(), "no_more_bets")


def dealing() -> FedTable:
    t = table()
    t.press("confirm")
    t.deal(" ".join(CARDS[:10]))
    assert t.snapshot().step == "dealing"
    return t


def check_deal() -> FedTable:
    t = table()
    t.press("confirm")
    t.deal(PAI_GOW_SHOE)
    assert t.snapshot().step == "check_deal"
    return t


def set_hands() -> FedTable:
    t = check_deal()
    t.press("confirm")  # the stub: four
    assert t.snapshot().step == "set_hands"
    return t


def dealer_shown() -> FedTable:
    """The dealer's hand exposed and set (11.9), its step not confirmed yet: no hand turned."""
    t = set_hands()
    t.press("confirm")  # every hand set
    s = t.snapshot()
    assert s.step == "setting" and all(c is not None for c in s.dealer) and len(s.dealer) == 7, s.dealer
    return t


def dealer_exposed() -> FedTable:
    """The dealer's step confirmed: seat 5's hand (counterclockwise from the dealer's right) turned."""
    t = dealer_shown()
    t.press("confirm")
    return t


def seat_5_settled() -> FedTable:
    """Seat 5's set confirmed and settled (its step shown), seat 2 not turned yet."""
    t = dealer_exposed()
    t.press("confirm")
    return t


def seat_2_turned() -> FedTable:
    """Seat 5 settled, seat 2's hand turned, its set not confirmed yet."""
    t = seat_5_settled()
    t.press("confirm")
    assert t.snapshot().step == "setting"
    return t


BEFORE: dict[str, Callable[[], FedTable]] = {
    "no_more_bets": no_more_bets,
    "dealing": dealing,
    "check_deal": check_deal,
    "set_hands": set_hands,
}
"""The steps before the dealer's hand is exposed."""

AFTER: dict[str, Callable[[], FedTable]] = {
    "dealer shown": dealer_shown,
    "dealer confirmed": dealer_exposed,
    "seat 5 settled": seat_5_settled,
    "seat 2 turned": seat_2_turned,
}
"""The parts of ``setting``: the dealer's hand face up."""


CHANGES = [(2, 5000), (2, 2000), (5, 1000), (5, 5000)]
IDS = ["seat 2 raised", "seat 2 doubled", "seat 5 lowered", "seat 5 raised"]


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize("seat, cents", CHANGES, ids=IDS)
@pytest.mark.parametrize("step", AFTER)
def test_no_late_change_is_accepted_once_the_dealers_hand_is_exposed(
    step: str, seat: int, cents: int, held: bool
) -> None:
    t = AFTER[step]()
    before = t.snapshot().seat(seat)
    assert before is not None
    late_change(t, seat, "pai_gow", cents, held)
    s = t.snapshot()
    if s.late_bets:  # ``next`` waits while a step shown is to be confirmed (and the hold lasts): then it refuses
        assert step in ("dealer shown", "seat 5 settled") and not any(
            "late bet accepted" in line for line in s.recent
        ), s.recent
        if held:  # still pending: not accepted, the wager as it was
            seat_now = s.seat(seat)
            assert seat_now is not None and seat_now.wager_map() == before.wager_map()
            return
        t.press("confirm", "next")
        s = t.snapshot()
    after = s.seat(seat)
    assert after is not None and after.wager_map() == before.wager_map(), after.wager_map()
    refused = [line for line in s.recent if line.startswith(f"supervisor: late bet refused: seat {seat} pai_gow")]
    assert refused, s.recent
    assert not s.late_bets


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize("seat, cents", CHANGES, ids=IDS)
@pytest.mark.parametrize("step", BEFORE)
def test_before_the_dealers_hand_is_exposed_a_supervisor_may_accept_a_late_change(
    step: str, seat: int, cents: int, held: bool
) -> None:
    t = BEFORE[step]()
    late_change(t, seat, "pai_gow", cents, held)
    assert_late_accepted(t, seat, "pai_gow", cents)
    seat_now = t.snapshot().seat(seat)
    assert seat_now is not None and seat_now.wager_map() == {"pai_gow": cents}, seat_now.wager_map()


DEALT: dict[str, Callable[[], FedTable]] = {**{k: v for k, v in BEFORE.items() if k != "no_more_bets"}, **AFTER}
"""Every step once a card of the round is dealt."""


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize("spot, cents", [("bonus", 100), ("insurance", 100)])
@pytest.mark.parametrize("step", DEALT)
def test_no_late_bonus_or_insurance_once_a_card_is_dealt(step: str, spot: str, cents: int, held: bool) -> None:
    """11.15(b): the bonus and insurance wagers are made with the pai gow wager; 11.15(d)2: they are
    settled on the player's own seven cards. Once a card is dealt a late one is refused."""
    t = DEALT[step]()
    if held:
        t.feed(LinkDown(device="shoe", reason="cable"))
    t.spot(2, spot, cents)
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("next")
    s = t.snapshot()
    after = s.seat(2)
    assert after is not None and spot not in after.wager_map(), after.wager_map()
    assert not any(line.startswith("supervisor: late bet accepted") for line in s.recent), s.recent


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize("spot", ["bonus", "insurance"])
def test_before_the_deal_a_supervisor_may_accept_a_late_bonus_or_insurance(spot: str, held: bool) -> None:
    t = no_more_bets()
    if held:
        t.feed(LinkDown(device="shoe", reason="cable"))
    t.spot(2, spot, 100)
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("next")
    after = t.snapshot().seat(2)
    assert after is not None and after.wager_map() == {"pai_gow": 1000, spot: 100}, after.wager_map()
