"""Attack on late bets (docs/dealer-guide.md, "Accept / refuse a late or removed bet"): a late
change to a wager the dealer already collected or paid during the round (a fold's collection, a
Boston 5 bonus settled before the second wager, a pai gow hand settled as it is turned).

Found: the supervisor's ``next`` accepted it, so the round's record said the new amount while
the chips the dealer had moved were the old one: the fold's (or the hand's) step was shown again
at the settlement with the new amount (collected or paid twice), or the bonus already collected
was recorded at the new amount with nobody asked to collect it. Now such a change is refused
(``cannot enter a hand already collected or paid``, journaled as ``late bet refused``) and the
record keeps what was moved; a late change to a seat nothing was settled for is refused too, as a
wager placed before the deal once a card is out (late16)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from table_helpers import FedTable, bench_table

from controller.table.game_tables import GAME_TABLES
from controller.vocab import deck
from drivers.panel import ButtonChanged

PAI_GOW_SHOE = " ".join(str(c) for c in deck(joker=True)[:49])


def table(game: str) -> FedTable:
    return FedTable(GAME_TABLES[game], bench_table(game))


def supervisor_next(t: FedTable) -> None:
    """The supervisor turns the key, presses ``next`` (accept the oldest late change), turns it off."""
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("next")
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=False))


def folds(cards: str) -> Callable[[FedTable], None]:
    """Seats 1 and 2 with an ante 5.00 each, ``cards`` dealt; seat 1 folds, its ante collected
    and confirmed (Mississippi Stud at third street; Three Card Poker)."""

    def fold(t: FedTable) -> None:
        t.spot(1, "ante", 500)
        t.spot(2, "ante", 500)
        t.press("no_more_bets")
        t.deal(cards)
        t.press("seat_1", "fold", "confirm")

    return fold


mississippi_fold = folds("As Ad Kc Qd 7h 8h 2c")


def boston5_bonus(t: FedTable, exposed: bool = False) -> None:
    """Seat 1's bonus 5.00 settled at the bonus settlement (24.10(a)): not exposed, collected;
    ``exposed``, its straight flush paid."""
    for seat in (1, 2):
        t.spot(seat, "ante", 500)
        t.spot(seat, "first", 1000)
    t.spot(1, "bonus", 500)
    t.press("no_more_bets")
    t.deal("As Ks Qs 2h 7d 9c 3c 4d 5h")
    if exposed:
        t.press("seat_1")
    t.press("next", "confirm")
    assert t.snapshot().step == "second_wager"


def pai_gow_turned(t: FedTable) -> None:
    """Seat 5's hand turned and settled (collect pai gow 25.00) before seat 2's is turned (11.9)."""
    t.spot(2, "pai_gow", 1000)
    t.spot(5, "pai_gow", 2500)
    t.press("no_more_bets", "confirm")
    t.deal(PAI_GOW_SHOE)
    t.press("confirm", "confirm", "confirm")  # the stub, the hands set, the dealer's hand
    t.press("confirm", "confirm")  # seat 5's house way, then its step: turned and settled
    s = t.snapshot()
    assert s.step == "setting" and any(line.startswith("confirmed: seat 5: high") for line in s.recent)


CASES: dict[str, tuple[str, Callable[[FedTable], None], int, str, int]] = {
    # game, how the wager was settled during the round, the seat, its spot, what the dealer moved
    "mississippi_stud fold": ("mississippi_stud", mississippi_fold, 1, "ante", 500),
    "boston5 bonus": ("boston5", boston5_bonus, 1, "bonus", 500),
    "pai_gow hand turned": ("pai_gow", pai_gow_turned, 5, "pai_gow", 2500),
    "three_card_poker fold": ("three_card_poker", folds("2c 7d 9h Ks Kd 4c Qh Jh 3s"), 1, "ante", 500),
}


@pytest.mark.parametrize("case", CASES)
def test_a_late_change_to_a_wager_already_collected_or_paid_is_refused(case: str) -> None:
    game, settled_early, seat, spot, moved = CASES[case]
    t = table(game)
    settled_early(t)
    t.spot(seat, spot, 2 * moved)  # the player puts more on the spot afterwards
    supervisor_next(t)
    seat_now = t.snapshot().seat(seat)
    assert seat_now is not None and seat_now.wager_map()[spot] == moved  # the record says what the dealer moved
    refused = (
        f"late bet refused: seat {seat} {spot} {2 * moved / 100:.2f} cannot enter a hand already collected or paid"
    )
    assert any(refused in line for line in t.snapshot().recent), t.snapshot().recent


def test_a_late_change_to_a_seat_nothing_was_settled_for_is_refused_as_a_wager_on_cards_out() -> None:
    """Once accepted (late16 changed it): the ante is placed before the deal and sets every street
    bet (35.10(a)); with the player's cards out a change to it is refused in those words, not as a
    hand collected or paid (tests/test_late_pre_deal_wagers.py)."""
    t = table("mississippi_stud")
    mississippi_fold(t)
    t.spot(2, "ante", 1000)
    supervisor_next(t)
    seat_now = t.snapshot().seat(2)
    assert seat_now is not None and seat_now.wager_map()["ante"] == 500
    refused = "late bet refused: seat 2 ante 10.00 cannot enter a round already dealt: the ante sets every street bet"
    assert any(refused in line for line in t.snapshot().recent), t.snapshot().recent
