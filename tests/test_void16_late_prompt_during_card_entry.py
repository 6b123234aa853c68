"""A late change pending while the supervisor enters a misread card: ``next`` / ``previous`` step
through the deck for the card, so the screen says the change waits until the card is entered, and
names ``next`` / ``previous`` for the change again once it is (texts name only the ways open).
"""

from __future__ import annotations

import pytest
from test_b5hold15_cards_once_the_deal_began import BETS, DEALS, bets_closed, key

from drivers.shoe import CardUnreadable

WAITS = "supervisor: the late change waits until the card is entered"
OFFER = "supervisor: next accepts the first, previous refuses it"


@pytest.mark.parametrize("game", DEALS)
def test_the_late_change_waits_while_a_card_is_entered_and_is_offered_after(game: str) -> None:
    t = bets_closed(game)
    t.deal(" ".join(DEALS[game].split()[:3]))
    seat, spot, cents = BETS[game][0]
    t.spot(seat, spot, 2 * cents)  # a late change, after the first card
    t.feed(CardUnreadable(device="shoe", index=4))
    key(t, True)
    details = t.m.screen_details()
    assert WAITS in details and OFFER not in details, details
    t.press("next")  # a card chosen
    s = t.snapshot()
    assert "deck no. 1?" in (s.asked or "") and s.late_bets, (s.asked, s.late_bets)  # next chose a card
    details = t.m.screen_details()
    assert WAITS in details and OFFER not in details, details
    t.press("confirm")  # the card entered
    s = t.snapshot()
    assert s.step != "hold" and s.late_bets, (s.step, s.asked, s.late_bets)
    details = t.m.screen_details()
    assert OFFER in details and WAITS not in details, details
    t.press("next")  # the late change now: refused (a card is out)
    assert t.snapshot().recent[-1].startswith(f"supervisor: late bet refused: seat {seat} {spot}"), t.snapshot().recent
