"""Attack on the spot report's fast path (CHANGELOG 2026-12-07 morning: "a spot report for a spot the
table has is taken at one look"): reports for spots the table has, but on a seat that folded, that
never bet, or on a street or wager not open now, in each step, held or not, and with a second fault
at the same time (a jam). Nothing found: each is a late bet (not accepted, the lamp flashing, noted),
never a wager of the round; the supervisor's ``previous`` refuses it."""

from __future__ import annotations

import pytest
from table_helpers import FedTable, bench_table
from test_attack11_presses import boston5_at_second_wager

from controller.table.game_tables import GAME_TABLES
from drivers.panel import ButtonChanged
from drivers.shoe import Jam
from drivers.state import ShoeState

STREETS = ("third", "fourth", "fifth")


def mississippi_on(street: str) -> FedTable:
    """Seats 1 and 4 on ``street``, seat 4 folded on the third street."""
    t = FedTable(GAME_TABLES["mississippi_stud"], bench_table("mississippi_stud"))
    for seat in (1, 4):
        t.spot(seat, "ante", 500)
    t.press("no_more_bets")
    t.deal("As Ad Kc Qd 7h 8h 2c")
    t.press("seat_4", "fold", "confirm")
    for before in STREETS[: STREETS.index(street)]:
        t.spot(1, before, 500)
        t.press("reveal")
    assert t.snapshot().step == f"{street}_street"
    return t


def wagers(t: FedTable) -> dict[int, dict[str, int]]:
    return {n: dict(s.wagers) for n, s in t.m.seats.items()}


_NOT_OPEN = {
    "folded seat's street": (4, "street"),
    "folded seat's ante": (4, "ante"),
    "seat never in": (6, "street"),
    "ante of a seat never in": (6, "ante"),
    "bonus": (1, "bonus"),
    "a later street": (1, "later street"),
}
"""The spots not open on a street, by what they are (a later street only where one follows)."""


@pytest.mark.parametrize("held", [False, True], ids=["free", "jammed"])
@pytest.mark.parametrize(
    ("street", "seat", "spot"),
    [
        pytest.param(street, seat, spot, id=f"{street}-{name}")
        for street in STREETS
        for name, (seat, spot) in _NOT_OPEN.items()
        if not (spot == "later street" and street == STREETS[-1])
    ],
)
def test_a_report_on_a_spot_not_open_is_a_late_bet_on_each_street(
    street: str, held: bool, seat: int, spot: str
) -> None:
    t = mississippi_on(street)
    if spot == "later street":
        spot = STREETS[STREETS.index(street) + 1]
    elif spot == "street":
        spot = street
    if held:
        t.feed(Jam(device="shoe"))
        assert t.snapshot().step == "hold"
    before = wagers(t)
    t.spot(seat, spot, 1000)
    note = f"late bet: seat {seat} {spot} 10.00 not accepted"
    assert wagers(t) == before and t.m.late.noted[-1] == note
    assert ("lamp", (seat, spot, "flash_late")) in t.devices.commands
    if held:
        t.feed(ShoeState(device="shoe", status="ok", cards_out=7))
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("previous")  # refused by the supervisor: nothing of it in the round
    assert wagers(t) == before and not t.m.late.pending
    assert t.snapshot().step == f"{street}_street"


@pytest.mark.parametrize("held", [False, True], ids=["free", "jammed"])
def test_boston5_a_folded_seats_second_wager_is_never_taken(held: bool) -> None:
    """A seat that folded in the second-wager step (its second wager withdrawn) places it again:
    late, never its wager (24.10(c): a withdrawal is a fold)."""
    t = boston5_at_second_wager()
    assert t.snapshot().step == "second_wager"
    t.spot(5, "second", 1000)
    t.spot(5, "second", 0)  # withdrawn: a fold
    assert t.m.seats[5].folded_at is not None
    if held:
        t.feed(Jam(device="shoe"))
    t.spot(5, "second", 1000)
    assert "second" not in t.m.seats[5].wagers and t.m.seats[5].folded_at is not None
