"""A late change at the stub count after a misdeal: refused as a round already void (every wager
returned: Boston 5 24.8, 35.x, pai gow 31.14 "all hands are void"), never as a round dealt whose
wager the cards decide. The stub count held or not; a settled round still says "settled".
"""

from __future__ import annotations

import pytest
from test_b5hold15_cards_once_the_deal_began import BETS, key, stub_count_after_a_misdeal

from drivers.link import LinkDown


@pytest.mark.parametrize("held", [False, True], ids=["", "held"])
@pytest.mark.parametrize("game", BETS)
def test_a_late_change_after_a_void_is_refused_as_a_round_already_void(game: str, held: bool) -> None:
    t = stub_count_after_a_misdeal(game)()
    while t.snapshot().notices:  # the void's returns on the screen
        t.press("confirm")
    assert t.snapshot().step == "count_stub"
    if held:
        t.feed(LinkDown(device="shoe", reason="no reply"))
        assert (t.snapshot().step, t.snapshot().held_from) == ("hold", "count_stub")
    seat, spot, cents = BETS[game][0]
    t.spot(seat, spot, 2 * cents)
    key(t, True)
    t.press("next")
    line = t.snapshot().recent[-1]
    assert line == (
        f"supervisor: late bet refused: seat {seat} {spot} {2 * cents / 100:.2f} "
        "cannot enter a round already void: every wager returned"
    ), line
