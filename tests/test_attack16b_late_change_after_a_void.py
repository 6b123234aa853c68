"""A late change at the stub count after a void is refused in untrue words.

CHANGELOG (late16): a refusal names the rule broken, "what the cards decide of" the wager; after a
settled round it says ``cannot enter a round already settled``. After a misdeal the round is over,
every wager returned (Boston 5 24.8, 35.x, 31.14: "all hands are void"; the screen's ``round 1 void:
return all``), yet a change at the stub count that follows is refused as ``cannot enter a round
already dealt: the second wager ... is decided on the first three cards`` (or the game's like
text): as if the round, and the wager, were still in play.
"""

from __future__ import annotations

import pytest
from test_b5hold15_cards_once_the_deal_began import BETS, key, stub_count_after_a_misdeal


@pytest.mark.parametrize("game", BETS)
def test_a_late_change_after_a_void_is_not_refused_as_dealt(game: str) -> None:
    t = stub_count_after_a_misdeal(game)()
    for _ in range(20):  # the void's returns on the screen
        if not t.m.display.notices:
            break
        t.press("confirm")
    assert t.snapshot().step == "count_stub"
    seat, spot, cents = BETS[game][0]
    t.spot(seat, spot, 2 * cents)
    key(t, True)
    t.press("next")
    line = t.snapshot().recent[-1]
    assert line.startswith(f"supervisor: late bet refused: seat {seat} {spot}"), line
    assert "already dealt" not in line, line  # the round is over, voided: no wager of it is decided on cards
