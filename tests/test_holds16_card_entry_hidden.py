"""Entering a misread card (an unreadable card, or one read as a card already dealt) tells no
hidden card. ``next`` / ``previous`` step through the whole deck in its order (the deck numbers of
docs/dealer-guide.md): before branch holds16 they stepped through the cards not yet out of the
shoe, so the numbers skipped, on the dealer's screen, in the snapshot and on the page, told which
cards were dealt, face down ones included. The choice is on the screen only while it is chosen,
never kept among the texts shown (the snapshot's and the page's ``recent``), nor in a log line or
the supervisor's record; a card already out of the shoe is not entered, with a note that names no
card. Tested in each game, for an unreadable card and for a duplicate read.
"""

from __future__ import annotations

import json
import logging
import re

import pytest
from table_helpers import FedTable, bench_table
from test_b5hold15_cards_once_the_deal_began import BETS, DEALS, bets_closed, key

from controller.vocab import card, deck
from controller.web.view import table_view
from drivers.shoe import CardDealt, CardUnreadable

DECK_NO = re.compile(r"deck no\. (\d+)\?")


def misread(game: str, how: str) -> tuple[FedTable, list[str]]:
    """``game`` with three cards of its deal placed, then a fourth read ``how`` (unreadable, or as
    the first card again); the key on. Returns the table and the cards dealt."""
    t = bets_closed(game)
    dealt = DEALS[game].split()[:3]
    t.deal(" ".join(dealt))
    if how == "unreadable":
        t.feed(CardUnreadable(device="shoe", index=4))
    else:
        t.feed(CardDealt(device="shoe", card=dealt[0], index=4, quality=100))
    s = t.snapshot()
    assert s.step == "hold" and s.hold is not None and s.hold.card_to_enter, (s.step, s.hold)
    key(t, True)
    return t, dealt


def outward(t: FedTable, game: str) -> str:
    """Every text the table shows outside: the snapshot as JSON and the table's page."""
    s = t.snapshot()
    return json.dumps(s.to_json()) + json.dumps(table_view(s, bench_table(game), {}, ()), default=str)


HOW = ["unreadable", "duplicate"]


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("game", BETS)
def test_the_choices_are_the_whole_deck_in_its_order(game: str, how: str) -> None:
    t, _ = misread(game, how)
    size = 53 if game == "pai_gow" else 52
    shown = []
    for _ in range(size + 1):
        t.press("next")
        (number,) = DECK_NO.findall(t.snapshot().asked)
        shown.append(int(number))
    assert shown == [*range(1, size + 1), 1]  # round to the first again: none left out
    t.press("previous")
    assert DECK_NO.findall(t.snapshot().asked) == [str(size)]


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("game", BETS)
def test_no_deck_number_is_kept_once_the_card_is_entered(game: str, how: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    t, dealt = misread(game, how)
    chosen = next(c for c in deck(joker=game == "pai_gow") if str(c) not in DEALTS[game])
    t.press(*["next"] * (chosen.index + 1))
    assert DECK_NO.findall(t.snapshot().asked) == [str(chosen.index + 1)]
    assert not any("deck no." in text for text in t.snapshot().recent)  # on the screen only while chosen
    t.press("confirm")
    s = t.snapshot()
    assert s.hold is None and t.m.ledger.entries[-1].card == str(chosen), (s.step, s.hold)
    assert "deck no." not in outward(t, game) and "deck no." not in caplog.text


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("game", BETS)
def test_a_card_already_out_is_not_entered_and_not_named(game: str, how: str) -> None:
    t, dealt = misread(game, how)
    out = card(dealt[1])
    t.press(*["next"] * (out.index + 1))
    t.press("confirm")
    s = t.snapshot()
    assert s.step == "hold" and s.hold is not None and s.hold.card_to_enter, (s.step, s.hold)
    note = "not entered: the card chosen is out of the shoe already: check it, or void"
    assert s.recent[-1] == note and [e.card for e in t.m.ledger.entries].count(str(out)) == 1
    assert not any(text.startswith("supervisor: card corrected") for text in s.recent)


DEALTS = {game: set(cards.split()) for game, cards in DEALS.items()}
"""Each game's cards dealt in any of these tests (the card entered is none of them)."""
