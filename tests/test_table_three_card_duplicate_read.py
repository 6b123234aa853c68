"""Three Card Poker: a waiting card read as one already dealt is entered in its own place (issue 41
item 2, as tests/test_table_shoe_faults.py checks it for the other games).

Found at Three Card Poker swarm seed 81 (`model_hidden`, round 9, settlement, before item 2's
fix); under the world's streams that seed no longer reaches it, so the case is fed to the table
directly. Checked to fail with the fix taken out (the duplicate's ledger entry counted as the
ledger's last)."""

from __future__ import annotations

import pytest
from table_helpers import FedTable
from test_table_three_card_poker import TABLE

from controller.game.three_card_poker._machine import ThreeCardTable
from drivers.panel import ButtonChanged
from drivers.shoe import Jam
from drivers.state import ShoeState

CARDS = "Ah Kh Qh 7c 4d 2s 9d 9s 3c Qc 8h 4h".split()
"""Seat 1, seat 3, seat 5 (three each, clockwise), then the dealer's three."""


@pytest.mark.parametrize("before", [0, 4], ids=["first-card", "mid-deal"])
def test_a_waiting_card_read_as_one_already_dealt_is_entered_in_its_own_place(before: int) -> None:
    """``before`` cards dealt, then the shoe jams; three cards leave it meanwhile, the second
    read as the first again. Accepted, the first is placed, the second is to be entered, and the
    third waits until it is: each takes the place it came out of the shoe in."""
    plain = _betting_closed()
    plain.deal(" ".join(CARDS[: before + 3]))  # as many cards, no fault: each shoe number's place
    t = _betting_closed()
    t.deal(" ".join(CARDS[:before]))
    first, later = CARDS[before], CARDS[before + 1]
    dealt = t.m.dealt
    t.feed(Jam(device="shoe"))
    t.deal(f"{first} {first} {later}")  # the second read as the first again (a card already dealt)
    t.feed(ShoeState(device="shoe", status="ok", cards_out=t.m.ledger.shoe_count))
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("confirm")  # the waiting cards accepted: the first placed, the second to read again or enter
    assert t.m.dealt == dealt + 1 and t.m.intake.misread_index == t.shoe_index - 1
    t.press("confirm")  # nothing before it waits: the card after it is not placed before it
    assert t.m.dealt == dealt + 1 and [i for i, _ in t.m.ledger.waiting] == [t.shoe_index]
    t.press("next", "confirm")  # the supervisor enters the misread card: in its own place
    assert t.m.dealt == dealt + 2
    t.press("confirm")  # then the card after it
    assert t.m.dealt == dealt + 3 and t.m.machine_error is None
    log = [e for e in t.m.card_log if int(e["index"]) > t.shoe_index - 3]  # in the order reported
    assert [e["index"] for e in log] == [t.shoe_index - 2, t.shoe_index - 1, t.shoe_index, t.shoe_index - 1]
    assert str(log[1]["to"]).startswith("read as a card already dealt") and log[2]["card"] == later
    places = {e["index"]: e["to"] for e in t.m.card_log if not str(e["to"]).startswith("read as")}
    assert places == {e["index"]: e["to"] for e in plain.m.card_log}  # each in the place it came out in


def _betting_closed() -> FedTable:
    t = FedTable(ThreeCardTable, TABLE)
    for seat in (1, 3, 5):
        t.spot(seat, "ante", 500)
    t.press("no_more_bets")
    return t
