"""A late change pending while a misread card is to be entered: the screen's details still say
``supervisor: next accepts the first, previous refuses it``, though ``next`` and ``previous``
step through the deck for the card (the change stays pending).

Two things at once (a late change made after the first card, 24.8(b)4 / 35.9 / 31.10 / 20.6
inferred: refused whatever the supervisor does; then an unreadable card, the supervisor entering
it): the dealer guide's late-bet row says ``next`` / ``previous`` act "while one is pending (the
screen lists them)", and the card entry row that they choose the card. The screen names a way
that is not open (tonight's rule for holds: texts name only the ways open).
"""

from __future__ import annotations

import pytest
from test_b5hold15_cards_once_the_deal_began import BETS, DEALS, bets_closed, key

from drivers.shoe import CardUnreadable


@pytest.mark.parametrize("game", DEALS)
def test_the_screen_does_not_offer_next_for_the_late_change_while_next_enters_a_card(game: str) -> None:
    t = bets_closed(game)
    t.deal(" ".join(DEALS[game].split()[:3]))
    seat, spot, cents = BETS[game][0]
    t.spot(seat, spot, 2 * cents)  # a late change, after the first card
    t.feed(CardUnreadable(device="shoe", index=4))
    key(t, True)
    t.press("next")
    s = t.snapshot()
    assert "deck no. 1?" in (s.asked or "") and s.late_bets, (s.asked, s.late_bets)  # next chose a card
    details = t.m.screen_details()
    assert "supervisor: next accepts the first, previous refuses it" not in details, details
