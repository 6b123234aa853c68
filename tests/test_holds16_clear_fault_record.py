"""The supervisor's ``clear fault`` record (journaled ``SupervisorAction``, and its line on the
dealer's screen) names the hold's reason as the screen and the page show it then
(``shown_reason``): the void among its ways only while the table takes it. Before branch holds16
it wrote the reason as journaled when the hold began (every way), so after the settlement had
paid or collected, or in the stub count after a settled round, the record said "void declares a
misdeal" where the void was refused. Tested in each such state (and before anything was paid:
the void named, as before), with a card out of the shoe unread that has no place (burned, the
hold's ways: clear fault goes on, void declares a misdeal).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from table_helpers import FedTable
from test_attack14_late_settled import boston5_bonus, pai_gow_turned
from test_attack14_void_settled import key, mississippi_round, table
from test_voidtext14_hold_ways import PAID

from drivers.shoe import CardUnreadable

GOES_ON = "burned unexposed; supervisor: clear fault goes on"
MISDEAL = ", void declares a misdeal"


def stub_count(t: FedTable) -> str:
    for r in range(5):
        mississippi_round(t, 9 * r)
        while t.snapshot().step == "settlement":
            t.press("confirm")
    return "round 5 is over: count the stub"


def settlement_paid(t: FedTable) -> str:
    mississippi_round(t, 0)
    t.press("confirm", "confirm")  # the community cards, then a seat paid or collected
    return PAID


def settlement_first_step(t: FedTable) -> None:
    mississippi_round(t, 0, fold=False)  # a fold's confirmed collection moved chips (void16): none here


def bonus_paid(t: FedTable) -> str:
    boston5_bonus(t, exposed=True)
    return PAID


def bonus_collected(t: FedTable) -> None:
    boston5_bonus(t, exposed=False)


def pai_gow_settled(t: FedTable) -> str:
    pai_gow_turned(t)
    return PAID


CASES: dict[str, tuple[str, Callable[[FedTable], str | None]]] = {
    "mississippi_stud stub count after a settled round": ("mississippi_stud", stub_count),
    "mississippi_stud settlement, a step paid": ("mississippi_stud", settlement_paid),
    "boston5 second wager, the bonus paid": ("boston5", bonus_paid),
    "pai_gow setting, a hand settled": ("pai_gow", pai_gow_settled),
    "mississippi_stud settlement, nothing paid": ("mississippi_stud", settlement_first_step),
    "boston5 second wager, the bonus collected": ("boston5", bonus_collected),
}
"""(game, the table brought to the state: why the void is refused there, None when it is taken)."""


@pytest.mark.parametrize("case", CASES)
def test_the_clear_fault_record_names_the_ways_open_then(case: str) -> None:
    game, reach = CASES[case]
    t = table(game)
    why = reach(t)
    step = t.snapshot().step
    audited: list[tuple[str, dict[str, object]]] = []
    audit = t.m.audit
    t.m.audit = lambda kind, data: (audited.append((kind, data)), audit(kind, data))[1]
    t.feed(CardUnreadable(device="shoe", index=t.shoe_index + 1))
    s = t.snapshot()
    assert s.step == "hold" and s.hold is not None and GOES_ON in s.hold.reason, (s.step, s.hold)
    key(t)
    s = t.snapshot()
    assert s.hold is not None and s.why_not_void() == why
    shown = s.hold.shown_reason
    t.press("clear_fault")
    assert t.snapshot().step == step
    ((kind, data),) = [(k, d) for k, d in audited if k.startswith("Supervisor")]
    assert kind == "SupervisorAction" and data["action"] == "fault cleared" and data["reason"] == shown, data
    assert str(data["reason"]).endswith(GOES_ON if why is not None else GOES_ON + MISDEAL), data
    assert f"supervisor: fault cleared: {shown}" in t.snapshot().recent
