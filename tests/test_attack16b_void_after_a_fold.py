"""A void after a folded hand's collection was confirmed returns the ante the dealer already took.

Tonight's rule (CHANGELOG, holds16: "A void (a misdeal) is refused once a settlement step moved
chips"; ``why_not_void``: "Voided then, every wager would be returned on top of what was paid or
collected"). A fold's collection is a step of the settlement procedure done during the round
(24.10(b), 35.10(a), 20 inferred: collected when the hand folds, the dealer confirming it;
``collect_at_fold``), and pai gow refuses the void once a foul's step is confirmed. In Boston 5,
Mississippi Stud and Three Card Poker the void is still taken after a fold's collection was
confirmed, and it returns the folded ante that is in the rack already: "void: seat 1: return ante".
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from table_helpers import FedTable, closed_table
from test_turn16_turned_in_order import DEAL

from drivers.panel import ButtonChanged


def mississippi_stud() -> FedTable:
    t = closed_table("mississippi_stud", ((1, "ante", 500), (2, "ante", 500)))
    t.deal(" ".join(DEAL[:7]))
    return t


def three_card_poker() -> FedTable:
    t = closed_table("three_card_poker", ((1, "ante", 500), (2, "ante", 500)))
    t.deal(" ".join(DEAL[:9]))
    return t


def boston5() -> FedTable:
    t = closed_table("boston5", ((1, "ante", 500), (1, "first", 1000), (2, "ante", 500), (2, "first", 1000)))
    t.deal(" ".join(DEAL[:9]))
    t.press("next")  # no bonus to expose
    return t


@pytest.mark.parametrize("dealt", [mississippi_stud, three_card_poker, boston5], ids=lambda f: f.__name__)
def test_a_void_never_returns_a_folded_ante_already_collected(dealt: Callable[[], FedTable]) -> None:
    t = dealt()
    t.press("seat_1", "fold", "confirm")  # seat 1's ante collected, the collection confirmed
    assert any(line.startswith("confirmed: seat 1: folds") for line in t.snapshot().recent), t.snapshot().recent
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("void")
    returned = [line for line in t.snapshot().recent if line.startswith("void: seat 1: return")]
    assert not returned, returned  # the ante is in the rack: returning it pays it back on top
