"""The stub counted is the deck less every card that left the shoe in the round (24.8(e), 35.9(e):
"that the correct number of cards is still in the deck"; pai gow's check after the deal, 31.8,
31.10: the deck less the 49 dealt, four). A card that leaves the shoe while the table is at the
count (held or not) waits for the supervisor and is burned: it is out of the stub, so the count
asked for, the shoe's answer and the dealer's confirm all take it out. Before branch holds16 the
count expected was the deck less the cards placed in the deal: the shoe's true count held the
table as a mismatch (pai gow: as a misdeal check), and the dealer was asked for a count one too
many.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from table_helpers import FedTable
from test_b5hold15_cards_once_the_deal_began import DEALS, OUT, bets_closed, key, stub_count_after_a_misdeal
from test_beyond_the_deal import Table, boston5, mississippi, pai_gow

from controller.table._stub_count import STUB_EVERY
from controller.table.card_ledger import BURNED
from drivers.link import LinkDown
from drivers.shoe import CardDealt, CardUnreadable, ShoeStatus

DECK = {"boston5": 52, "mississippi_stud": 52, "three_card_poker": 52, "pai_gow": 53}


def completed(game: str, reach: Callable[[Table], Callable[[], None]]) -> Callable[[], FedTable]:
    """``game``'s stub count due after a round played to its end."""

    def at() -> FedTable:
        t = Table(game)
        t.m.stub.restore(STUB_EVERY - 1)
        reach(t)()
        return t

    return at


AT_THE_COUNT: dict[str, tuple[str, Callable[[], FedTable]]] = {
    **{f"{game} after a misdeal": (game, stub_count_after_a_misdeal(game)) for game in DECK},
    "mississippi_stud after a round": ("mississippi_stud", completed("mississippi_stud", mississippi(0))),
    "boston5 after a round": ("boston5", completed("boston5", boston5)),
}
"""(game, the table at the stub count) for each game, after a void and after a completed round."""


def hold_at(t: FedTable, held: bool) -> None:
    """One card leaves the shoe (``held``: while the table holds for a panel link down, then the
    panel is back); the supervisor accepts it: no place in the deal, burned."""
    out = OUT[type(t.m).__module__.split(".")[2]].split()[0]
    if held:
        t.feed(LinkDown(device="panel", reason="no reply"))
    t.feed(CardDealt(device="shoe", card=out, index=t.shoe_index + 1, quality=100))
    if held:
        t.devices_back(("panel",), tuple((s, spot, c) for (s, spot), c in t.m.board.levels.items()))
    s = t.snapshot()
    assert s.step == "hold" and s.hold is not None and s.hold.cards_waiting == 1, (s.step, s.hold)
    key(t, True)
    for _ in range(20):  # a notice on the screen (a void's returns) takes confirm first
        if not t.m.display.notices:
            break
        t.press("confirm")
    t.press("confirm")
    key(t, False)
    assert t.m.ledger.entries[-1].card == out and t.m.ledger.entries[-1].to.startswith(BURNED)


@pytest.mark.parametrize("held", [False, True], ids=["not held", "held"])
@pytest.mark.parametrize("case", AT_THE_COUNT)
def test_a_card_burned_at_the_stub_count_is_out_of_the_stub(case: str, held: bool) -> None:
    game, at = AT_THE_COUNT[case]
    t = at()
    assert t.snapshot().step == "count_stub", t.snapshot().step
    out = t.shoe_index + 1  # every card reported so far, and the one burned now
    hold_at(t, held)
    s = t.snapshot()
    left = DECK[game] - out
    assert s.step == "count_stub" and s.asked == f"count the stub: {left} cards expected, then confirm", s.asked
    t.feed(ShoeStatus(device="shoe", stub_count=left, deck_size=DECK[game]))
    s = t.snapshot()
    assert s.step == "betting" and s.hold is None, (s.step, s.hold)


@pytest.mark.parametrize("case", AT_THE_COUNT)
def test_the_shoe_counting_one_more_than_left_still_holds(case: str) -> None:
    """The count is not made to match: a stub one card over what the round took out holds."""
    game, at = AT_THE_COUNT[case]
    t = at()
    hold_at(t, False)
    t.feed(ShoeStatus(device="shoe", stub_count=DECK[game] - t.shoe_index + 1, deck_size=DECK[game]))
    s = t.snapshot()
    assert s.step == "hold" and s.hold is not None and s.hold.reason.startswith("stub count"), (s.step, s.hold)


def test_a_misread_card_read_again_is_one_card_out() -> None:
    """A card the shoe could not read, read again at its own number, is the same card: the stub
    counted after the round is the deck less the seven dealt."""
    t = bets_closed("mississippi_stud", stub_due=True)
    cards = DEALS["mississippi_stud"].split()
    t.deal(" ".join(cards[:2]))
    t.feed(CardUnreadable(device="shoe", index=3))
    key(t, True)
    t.feed(CardDealt(device="shoe", card=cards[2], index=3, quality=100))  # read again: the supervisor's
    key(t, False)
    assert t.m.ledger.out == 3 and t.snapshot().hold is None, (t.m.ledger.out, t.snapshot().hold)
    t.deal(" ".join(cards[3:]))
    assert t.m.ledger.out == len(cards) == t.shoe_index


def at_the_check(held: bool) -> Table:
    """Pai gow dealt (49 cards), at the check of the cards left; a card beyond the deal leaves the
    shoe (``held``: while the panel's link is down) and is burned by the supervisor."""
    t = Table("pai_gow")
    pai_gow(0)(t)
    assert t.phase == "check_deal"
    hold_at(t, held)
    assert t.phase == "check_deal"
    return t


@pytest.mark.parametrize("held", [False, True], ids=["not held", "held"])
def test_pai_gow_check_after_a_card_burned_expects_three_left(held: bool) -> None:
    t = at_the_check(held)
    assert t.snapshot().asked == "count the cards left: 3 expected, then confirm", t.snapshot().asked
    t.feed(ShoeStatus(device="shoe", stub_count=3, deck_size=53))
    s = t.snapshot()
    assert s.step == "set_hands" and s.hold is None, (s.step, s.hold)


@pytest.mark.parametrize("held", [False, True], ids=["not held", "held"])
def test_pai_gow_check_after_a_card_burned_holds_for_four_left(held: bool) -> None:
    """Four left after a card burned is a card too many: the misdeal check (31.14)."""
    t = at_the_check(held)
    t.feed(ShoeStatus(device="shoe", stub_count=4, deck_size=53))
    s = t.snapshot()
    assert s.step == "hold" and s.hold is not None, (s.step, s.hold)
    assert s.hold.reason.startswith("misdeal check: 4 cards remain, not 3"), s.hold.reason


def test_pai_gow_dealer_count_after_a_card_burned_records_three_left() -> None:
    t = at_the_check(False)
    t.press("confirm")  # the dealer counted the three left by hand
    assert t.phase == "set_hands" and t.m.remaining == 3
