"""The hold log's lines (``hold: ...``, ``hold cleared ... (was: ...)``) name the hold's reason as
the screen shows it then (``shown_reason``): a void the table refuses then is not offered. Before,
they wrote the reason as journaled (every way), so a hold after the settlement had paid or
collected, or in the stub count after a settled round, logged "void declares a misdeal" where the
void was refused. Each state of ``test_holds16_clear_fault_record`` (and those where the void is
taken: named, as before)."""

from __future__ import annotations

import pytest
from test_attack14_void_settled import key, table
from test_holds16_clear_fault_record import CASES, GOES_ON, MISDEAL

from controller.table._hold_log import HoldLog
from drivers.shoe import CardUnreadable


@pytest.mark.parametrize("case", CASES)
def test_the_hold_log_names_the_ways_open_then(case: str, caplog: pytest.LogCaptureFixture) -> None:
    game, reach = CASES[case]
    t = table(game)
    why = reach(t)
    log = HoldLog()
    with caplog.at_level("INFO", logger="tablectl.table"):
        log.seen(t.snapshot())
        t.feed(CardUnreadable(device="shoe", index=t.shoe_index + 1))
        key(t)
        log.seen(t.snapshot())
        t.press("clear_fault")
        log.seen(t.snapshot())
    lines = [r.getMessage() for r in caplog.records if r.name == "tablectl.table"]
    assert len(lines) == 2, lines
    began, cleared = lines
    ways = GOES_ON if why is not None else GOES_ON + MISDEAL
    assert began.startswith("hold: ") and f"{ways} (clears: " in began, began
    assert cleared.startswith("hold cleared: ") and "(was: " in cleared and cleared.endswith(f"{ways})"), cleared
