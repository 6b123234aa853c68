"""Physical facts are never dropped (docs/journal.md, "The shoe's card numbers"): in every game, held or not.

- Chips reported on a spot the table does not have (a seat beyond its seats, a spot name its game
  does not have) are journaled as a ``DeviceFault`` naming the device, seat, spot and amount, and
  shown, never a wager: in betting, and while the table is held in the deal.
- A misread card read again at its own number, after a clear fault or while held: one card out of
  the shoe, placed once. A second report under the last number (a new event) counts as a card out
  and waits for the supervisor (held or not).
- The shoe's state read after a link-up says 0 cards out (it restarted without its count) in the
  middle of the deal: its next card numbered 1 is no break, and the cards out before it stay counted
  out of the shoe for the stub count.
- A folded Three Card Poker hand's 6 Card Bonus is recorded with the three cards it was settled on.

Each was a review's note (branch facts16), reproduced here and found not to be a bug: no change.
"""

from __future__ import annotations

import pytest
from table_helpers import FedTable, closed_table

from controller.table.card_ledger import DUPLICATE, UNREADABLE
from drivers.link import LinkDown, LinkUp
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, CardUnreadable, Jam
from drivers.state import ShoeState

BETS: dict[str, tuple[tuple[int, str, int], ...]] = {
    "mississippi_stud": ((1, "ante", 500), (4, "ante", 500)),
    "three_card_poker": ((1, "ante", 500), (2, "ante", 500)),
    "boston5": ((1, "ante", 500), (1, "first", 1000), (2, "ante", 500), (2, "first", 1000)),
    "pai_gow": ((1, "pai_gow", 1000), (3, "pai_gow", 1000)),
}
DICE = {"pai_gow": ("seat_1", "seat_1", "seat_1", "confirm")}
"""The dice total (3) entered before the deal, where the game draws one."""
FIRST = "2c 3c 5c"
"""The first cards of each game's deal (none completes it)."""


def dealt(game: str, cards: str = FIRST) -> FedTable:
    """``game``'s table with its bets, betting closed and ``cards`` dealt (the deal not complete)."""
    t = closed_table(game, BETS[game])
    t.press(*DICE.get(game, ()))
    t.deal(cards)
    assert t.snapshot().step not in ("hold", "betting"), t.snapshot().step
    return t


def key(t: FedTable, on: bool) -> None:
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=on))


def ledger(t: FedTable) -> list[tuple[int, str, str]]:
    return [(c["index"], c["card"], c["to"]) for c in t.m.card_log]


@pytest.mark.parametrize("game", BETS)
@pytest.mark.parametrize("held", [False, True])
def test_chips_on_a_spot_the_table_does_not_have_are_journaled_and_shown(game: str, held: bool) -> None:
    if held:
        t = dealt(game)
        t.feed(LinkDown(device="shoe", reason="no reply"))
        assert t.snapshot().step == "hold"
    else:
        t = closed_table(game, ())
        t.press("no_more_bets")  # nothing on the spots: betting stays open
    journal: list[tuple[str, dict[str, object]]] = []
    t.m.audit = lambda kind, data: journal.append((kind, data))
    t.spot(7, t.m.shape.bet_spots[0], 500)
    t.spot(1, "side_pot", 700)
    faults = [d for k, d in journal if k == "DeviceFault"]
    assert [(d["device"], d["seat"], d["spot"], d["cents"]) for d in faults] == [
        ("spots", 7, t.m.shape.bet_spots[0], 500),
        ("spots", 1, "side_pot", 700),
    ]
    shown = t.snapshot().recent
    assert any("no seat 7 at this table" in s for s in shown) and any("no spot 'side_pot'" in s for s in shown)
    assert 7 not in t.m.seats and all("side_pot" not in s.wagers for s in t.m.seats.values())


def clear_fault(t: FedTable) -> None:
    key(t, True)
    t.press("clear_fault")
    key(t, False)
    assert t.snapshot().step != "hold", t.snapshot().hold


@pytest.mark.parametrize("game", BETS)
@pytest.mark.parametrize("cleared", [False, True])
def test_a_misread_card_read_again_at_its_number_is_counted_once(game: str, cleared: bool) -> None:
    """An unreadable card, then (after the supervisor's clear fault, or while still held) the shoe
    reads it again at its own number: one card out of the shoe, placed once, the deal goes on."""
    t = dealt(game)
    t.feed(CardUnreadable(device="shoe", index=4))
    assert t.snapshot().step == "hold" and t.m.ledger.out == 4
    if cleared:
        clear_fault(t)
    else:
        key(t, True)
    t.feed(CardDealt(device="shoe", card="6c", index=4, quality=100))
    if not cleared:
        t.press("confirm")  # the supervisor accepts the card read again
    assert t.m.ledger.out == 4 and [e[:2] for e in ledger(t)] == [(1, "2c"), (2, "3c"), (3, "5c"), (4, "??"), (4, "6c")]
    assert ledger(t)[-1][2] not in (UNREADABLE, DUPLICATE) and "waiting" not in ledger(t)[-1][2]
    t.deal("7c")
    assert t.m.ledger.out == 5 and ledger(t)[-1][:2] == (5, "7c")


@pytest.mark.parametrize("game", BETS)
@pytest.mark.parametrize("cleared", [False, True])
def test_a_second_report_under_the_last_number_is_held_as_a_card_out(game: str, cleared: bool) -> None:
    """A card placed, a jam (cleared or still held), then a second report (a new event: a report
    sent again is dropped by its event number before the table) under the same number, of the same
    card: the table cannot tell a copy from a card misread as the last one under a repeated number
    (a simulated seed does both), so the card counts as out and waits for the supervisor."""
    t = dealt(game)
    t.feed(Jam(device="shoe"))
    if cleared:
        t.feed(ShoeState(device="shoe", status="ok", cards_out=t.shoe_index))
        clear_fault(t)
    t.feed(CardDealt(device="shoe", card="5c", index=3, quality=100))
    snap = t.snapshot()
    assert snap.step == "hold" and snap.hold is not None and snap.hold.cards_waiting == 1
    assert t.m.ledger.out == 4 and [e[:2] for e in ledger(t)] == [(1, "2c"), (2, "3c"), (3, "5c"), (3, "5c")]


@pytest.mark.parametrize("game", BETS)
def test_a_shoe_whose_count_starts_over_in_the_deal_loses_no_card_out(game: str) -> None:
    """The shoe restarted without its count (0 out) in the deal: no break (docs/journal.md, "The
    shoe's card numbers"), and the cards out before it stay out for the stub count."""
    t = dealt(game)
    t.feed(LinkDown(device="shoe", reason="no reply"))
    t.feed(LinkUp(device="shoe", boot_id=2, rebooted=True))
    t.feed(ShoeState(device="shoe", status="ok", cards_out=0))
    t.feed(CardDealt(device="shoe", card="6c", index=1, quality=100))
    assert t.snapshot().step != "hold"
    assert t.m.ledger.out == 4 and [e[:2] for e in ledger(t)] == [(1, "2c"), (2, "3c"), (3, "5c"), (1, "6c")]
    assert t.m.stub.expected == t.m.shape.deck - 4


@pytest.mark.parametrize("played", [(), (1,)])
def test_a_folded_hands_six_card_bonus_is_recorded_with_its_cards(played: tuple[int, ...]) -> None:
    """A folded Three Card Poker hand's 6 Card Bonus is settled on its three cards and the dealer's
    (20, inferred; controller/game/three_card_poker/_six_card.py): the round record keeps them
    (checked, no change: the review's note was not a bug), whether another hand played or not."""
    bets = ((1, "ante", 500), (2, "ante", 500), (2, "six_card_bonus", 500))
    t = closed_table("three_card_poker", bets)
    t.deal("Ah Kh Qh Jh 7h 2c 9h 4h 3h")  # seat 1, seat 2 (jack-seven-two), the dealer
    for seat in played:
        t.spot(seat, "play", 500)
    for seat in (n for n in (1, 2) if n not in played):
        t.press(f"seat_{seat}", "fold", "confirm")  # confirm: the fold's notice read
    t.press("reveal")
    while t.snapshot().step == "settlement":
        t.press("confirm")
    result = t.m.rounds[-1]
    assert result.record["seats"]["2"]["cards"] == "Jh 7h 2c"
    seat = next(s for s in result.settlement.seats if s.seat == 2)
    assert seat.hands["six_card_bonus"] == {"category": "flush", "best": "Jh 9h 7h 4h 3h"}
