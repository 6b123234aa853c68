"""Attack on a controller started again in a round that opened held for a device whose link was
down (docs/dealer-guide.md, "Holds and what clears them": "a device down when a round ends: the
next round opens held for it"; docs/journal.md: a restart resumes the same round at the same step).

Found by `tablectl simulate --game boston5 --seeds 60 --first 7100 --swarm --faults all` (seed
7111): the bet spots' link went down in round 8, the supervisor voided it, round 9 opened held for
the link; the dealer pressed "no more bets" during that hold (refused: the table held), the link
came back, the players changed their bets and betting closed. The controller then crashed; started
again, it replayed round 9 from the snapshot journaled as the round opened, which did not say the
bet spots were down: the replayed round opened free, took the refused "no more bets", and every
later change of the bets became a late bet: the round resumed with other wagers than it had.
"""

from __future__ import annotations

from hil.simulate.faults import Fault
from hil.simulate.run import run_seed


def test_boston5_a_crash_in_a_round_opened_held_for_a_link_down_resumes_its_wagers() -> None:
    """The shrunk case of seed 7111 (its crash is in round 9, opened held for the bet spots)."""
    faults = [
        Fault(0.124, "state_nak", "shoe", 0.0, 2, step="bonus_settlement", edge="enter", round_no=4),
        Fault(0.162, "link_down", "shoe", 1.38, 3, step="no_more_bets", edge="leave", round_no=4),
        Fault(0.152, "reboot", "panel", 0.35, 1, step="second_wager", edge="leave", round_no=5),
        Fault(0.094, "link_down", "panel", 1.57, 3, step="no_more_bets", edge="enter", round_no=6),
        Fault(0.191, "jam", "panel", 0.48, 1, step="settlement", edge="leave", round_no=6),
        Fault(0.199, "link_down", "bet_spots", 1.63, 1, step="final_deal", edge="leave", round_no=7),
        Fault(0.015, "state_nak", "bet_spots", 0.0, 2, step="no_more_bets", edge="enter", round_no=7),
        Fault(0.189, "crash", "panel", 1.4, 3, step="first_deal", edge="leave", round_no=9),
        Fault(0.064, "state_nak", "shoe", 0.0, 1, step="settlement", edge="enter", round_no=10),
        Fault(0.0, "state_nak", "panel", 0.0, 3, step="settlement", edge="leave", round_no=10),
        Fault(0.149, "state_nak", "shoe", 0.0, 2, step="settlement", edge="leave", round_no=10),
        Fault(0.199, "state_nak", "bet_spots", 0.0, 1, step="settlement", edge="leave", round_no=10),
    ]
    result = run_seed("boston5", 7111, (), rounds=10, faults=faults, resettle=True, swarm=True)
    assert result.ok, f"{result.broken}: {result.detail}"
