"""The two older open findings of docs/simulate.md, checked again on 2026-12-07 (sweep13).

A link that goes down while the table already holds for something else, and the supervisor then
voids: the next round must open held for that link (never "no more bets: deal the cards" with the
shoe's line down). Found on 2026-12-04 by seeds 1261, 1382 and 2526 of `tablectl simulate --game
mississippi_stud --faults ci` (shrunk: a late bet, a screen command that fails, the shoe's and the
panel's lines pulled, a void); the seeds pass under today's schedule, and this fed table, which does
not depend on the simulation's draws, pins the rule: a round opening with a link down holds for it.
"""

from __future__ import annotations

import pytest
from test_table_outages import CARDS, Table

from controller.table.phases import Common
from drivers.link import DeviceFault
from drivers.state import PanelState, ShoeState


@pytest.mark.parametrize("late_bet", [False, True], ids=["no-late-bet", "late-bet"])
@pytest.mark.parametrize("where", ["betting", "dealing", "third-street"])
def test_a_link_lost_during_another_hold_still_holds_the_round_after_a_void(where: str, late_bet: bool) -> None:
    t = Table()
    t.spot(1, "ante", 500)
    t.spot(4, "ante", 1000)
    if where != "betting":
        t.press("no_more_bets")
    if where == "third-street":
        t.cards(CARDS)
    if late_bet:
        t.spot(1, "bonus", 100)
    t.feed(DeviceFault(device="panel", kind="command_failed", command="screen", error="command screen failed: busy"))
    assert t.m.phase is Common.HOLD and t.m.holds.reason == "panel: command screen failed: busy"
    t.down("shoe")
    t.down("panel")
    t.up("panel")
    t.feed(PanelState(device="panel", key_on=True, held=()))
    t.press("void")
    assert t.m.rounds[-1].settlement is None and t.m.round_no == 2
    assert t.m.phase is Common.HOLD and t.m.holds.reason == "link down: shoe"
    assert t.m.display.prompts[-1] == "HOLD: link down: shoe"
    t.up("shoe")
    t.feed(ShoeState(device="shoe", status="ok", cards_out=len(CARDS.split()) if where == "third-street" else 0))
    assert t.m.phase is Common.BETTING
