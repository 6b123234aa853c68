"""The winners' lamps tell each unturned hand's result at the dealer's reveal.

Tonight's rule (CHANGELOG, turn16): "each player's cards are face up from the step that settles
that seat, counterclockwise from the dealer's right (24.10(e), (f); 35.10(i); Three Card Poker
inferred)". But the settlement lights a ``winner`` lamp on every winning wager at its first step
(``_settlement_walk.settle``), the dealer's: on the layout and in the snapshot's ``spot_lamps``
(the status file, the floor, the table page), every seat whose hand is still face down is marked
as a winner or not. In Mississippi Stud (no dealer hand) or Boston 5 (the player's hand against
the dealer's) that is what the hidden cards make.
"""

from __future__ import annotations

import json

import pytest
from test_turn16_turned_in_order import GAMES, ROUNDS, face_up_seats

from controller.table.snapshot import TableSnapshot


def winners(s: TableSnapshot) -> set[int]:
    """The seats with a winner lamp lit, as the snapshot (its JSON) says."""
    text = json.dumps(s.to_json())
    assert "spot_lamps" in text
    return {seat for (seat, _spot), how in s.spot_lamps if how == "winner"}


@pytest.mark.parametrize("game", GAMES)
def test_no_winner_lamp_on_a_hand_not_turned(game: str) -> None:
    t = ROUNDS[game](None)
    steps = 0
    while t.snapshot().step == "settlement" and steps < 20:
        s = t.snapshot()
        lit = winners(s)
        assert lit <= face_up_seats(s), (s.asked, sorted(lit), sorted(face_up_seats(s)))
        t.press("confirm")
        steps += 1
