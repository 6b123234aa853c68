"""Issue 40 item 1: a hold never changes what a wager is. In each game and each step that takes
wagers, a chip placed in that step counts whatever hold began in the step (a link down, a jam, the
shoe's door, a journal outage, a restart with a device missing), and one placed after the press
that closes the step is late whatever hold is on; a press journaled before a chip (not acted on
during a journal outage) closes betting for that chip, a chip journaled before it still counts.
The machine fed events directly (tests/table_helpers.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from table_helpers import FedTable, bench_table

from controller.game.boston5._machine import Boston5Table
from controller.game.mississippi_stud._machine import MississippiTable
from controller.game.pai_gow._machine import PaiGowTable
from controller.table.engine import JournalFault
from controller.table.events import DevicesExpected
from drivers.bet_spots import SpotReport
from drivers.link import DeviceFault, LinkDown, LinkUp
from drivers.panel import ButtonChanged
from drivers.shoe import DoorChanged, Jam
from drivers.state import PanelState, ShoeState, SpotsState


class Table(FedTable):
    """``game``'s machine at the bench configuration, fed events directly."""

    def __init__(self, game: str) -> None:
        cls = {"mississippi_stud": MississippiTable, "boston5": Boston5Table, "pai_gow": PaiGowTable}[game]
        super().__init__(cls, bench_table(game))

    @property
    def phase(self) -> str:
        return str(self.m.phase.value)

    def held_from(self) -> str | None:
        held = self.m.holds.held_from
        return None if self.phase != "hold" or held is None else str(held.value)

    def wager(self, seat: int, spot: str) -> int | None:
        s = self.m.seats.get(seat)
        return None if s is None else s.wagers.get(spot)


@dataclass(frozen=True)
class Step:
    """A step that takes wagers: how to reach it, the chip it asks for, the press that closes it."""

    game: str
    phase: str
    reach: Callable[[Table], None]
    chip: tuple[int, str, int]
    close: Callable[[Table], None]
    """Pressed (after the seats' own decisions) to close the step: the round moves on."""


def miss_betting(t: Table) -> None:
    t.spot(1, "ante", 500)
    t.spot(4, "ante", 1000)


def miss_street(n: int) -> Callable[[Table], None]:
    def reach(t: Table) -> None:
        miss_betting(t)
        t.press("no_more_bets")
        t.deal("As Ad Kc Qd 7h 8h 2c")
        for street in ("third", "fourth", "fifth")[:n]:
            t.spot(1, street, 500)
            t.spot(4, street, 1000)
            t.press("reveal")

    return reach


def miss_close(street: str) -> Callable[[Table], None]:
    def close(t: Table) -> None:
        t.spot(1, street, 500)
        t.spot(4, street, 1000)
        t.press("reveal")

    return close


def boston_betting(t: Table) -> None:
    for seat in (2, 5):
        t.spot(seat, "ante", 500)
        t.spot(seat, "first", 1000)


def boston_second(t: Table) -> None:
    boston_betting(t)
    t.press("no_more_bets")
    t.deal("As Ks Qs 2h 7d 9c 3c 4d 5h")
    t.press("next")  # no bonus wagers: the exposure ends, nothing to settle


def boston_close(t: Table) -> None:
    t.spot(2, "second", 1000)
    t.spot(5, "second", 1000)
    t.press("deal")


def pai_gow_betting(t: Table) -> None:
    t.spot(2, "pai_gow", 1000)
    t.spot(5, "pai_gow", 2500)


def press_no_more_bets(reach: Callable[[Table], None]) -> Callable[[Table], None]:
    def close(t: Table) -> None:
        reach(t)
        t.press("no_more_bets")

    return close


STEPS = [
    # a chip in betting: a new seat's main wager
    Step("mississippi_stud", "betting", miss_betting, (2, "ante", 700), press_no_more_bets(lambda t: None)),
    Step("mississippi_stud", "third_street", miss_street(0), (1, "third", 1000), miss_close("third")),
    Step("mississippi_stud", "fourth_street", miss_street(1), (1, "fourth", 1500), miss_close("fourth")),
    Step("mississippi_stud", "fifth_street", miss_street(2), (1, "fifth", 500), miss_close("fifth")),
    Step("boston5", "betting", boston_betting, (2, "bonus", 500), press_no_more_bets(lambda t: None)),
    Step("boston5", "second_wager", boston_second, (2, "second", 1000), boston_close),
    Step("pai_gow", "betting", pai_gow_betting, (3, "pai_gow", 1000), press_no_more_bets(lambda t: None)),
]
STEP_IDS = [f"{s.game}-{s.phase}" for s in STEPS]


def after_close(step: Step) -> tuple[int, str, int]:
    """A chip on the step's spot after its press: a change to a decided spot, or a new one."""
    seat, spot, cents = step.chip
    return (seat, spot, cents * 2) if step.phase != "betting" else step.chip


# --- the holds (each begins in the step, before the chip) -------------------------------------------


def journal_outage(t: Table) -> None:
    t.m.journal_failed("disk full: 0 bytes free on /")
    t.feed(JournalFault("disk full: 0 bytes free on /", 0, 3))


def restart_with_a_device_missing(t: Table) -> None:
    t.feed(DevicesExpected(("bet_spots", "panel", "shoe")))
    for device, state in (("bet_spots", spots_state(t)), ("panel", PanelState(device="panel", key_on=False, held=()))):
        t.feed(LinkUp(device=device, boot_id=2, rebooted=False))
        t.feed(state)
    t.feed(DeviceFault(device="shoe", kind="open_failed", error="cannot open port: No such file or directory"))


def spots_state(t: Table, *extra: tuple[int, str, int]) -> SpotsState:
    levels = {**t.m.board.levels, **{(seat, spot): cents for seat, spot, cents in extra}}
    return SpotsState(device="bet_spots", spots=tuple((s, spot, c) for (s, spot), c in sorted(levels.items())))


HOLDS: dict[str, Callable[[Table], None] | None] = {
    "no hold": None,
    "panel link down": lambda t: t.feed(LinkDown(device="panel", reason="no reply")),
    "shoe link down": lambda t: t.feed(LinkDown(device="shoe", reason="no reply")),
    "jam": lambda t: t.feed(Jam(device="shoe")),
    "door": lambda t: t.feed(DoorChanged(device="shoe", open=True)),
    "journal outage": journal_outage,
    "restart": restart_with_a_device_missing,
}


def place(t: Table, hold: str, chip: tuple[int, str, int]) -> None:
    """The chip reported: after a journal outage its report waits for the spots' state read
    (the other devices are still read again: the table still holds)."""
    seat, spot, cents = chip
    if hold == "journal outage":
        t.feed(SpotReport(device="bet_spots", seat=seat, spot=spot, cents=cents))
        t.feed(LinkUp(device="bet_spots", boot_id=1, rebooted=False))
        t.feed(spots_state(t, chip))
    else:
        t.feed(SpotReport(device="bet_spots", seat=seat, spot=spot, cents=cents))


def held(t: Table, hold: str, step: str) -> None:
    begin = HOLDS[hold]
    if begin is None:
        assert t.phase == step
        return
    begin(t)
    assert t.held_from() == step, (t.phase, t.m.holds.reason)


@pytest.mark.parametrize("hold", list(HOLDS))
@pytest.mark.parametrize("step", STEPS, ids=STEP_IDS)
def test_a_chip_placed_in_its_step_counts_whatever_hold_began_in_it(step: Step, hold: str) -> None:
    t = Table(step.game)
    step.reach(t)
    held(t, hold, step.phase)
    assert t.snapshot().wager_step == step.phase  # what every reader of the snapshot is told
    place(t, hold, step.chip)
    seat, spot, cents = step.chip
    assert t.wager(seat, spot) == cents, (t.m.late.noted, t.m.display.notes[-3:])
    assert t.m.late.noted == []
    assert t.held_from() == (None if HOLDS[hold] is None else step.phase)  # still held: nothing else changed


@pytest.mark.parametrize("hold", list(HOLDS))
@pytest.mark.parametrize("step", STEPS, ids=STEP_IDS)
def test_a_chip_placed_after_the_press_that_closes_its_step_is_late_whatever_hold_is_on(step: Step, hold: str) -> None:
    t = Table(step.game)
    step.reach(t)
    step.close(t)
    assert t.phase != step.phase
    after = t.phase
    begin = HOLDS[hold]
    if begin is not None:
        begin(t)
        assert t.held_from() == after
    seat, spot, cents = after_close(step)
    assert t.snapshot().wager_step != step.phase
    before = t.wager(seat, spot)
    place(t, hold, (seat, spot, cents))
    assert t.wager(seat, spot) == before
    assert t.m.late.noted == [f"late bet: seat {seat} {spot} {cents / 100:.2f} not accepted"]


# --- the journal's order: a press journaled but not acted on during a journal outage ------------------


BETTING = [s for s in STEPS if s.phase == "betting"]


@pytest.mark.parametrize("step", BETTING, ids=[s.game for s in BETTING])
@pytest.mark.parametrize("chip_first", [True, False], ids=["chip-then-press", "press-then-chip"])
def test_no_more_bets_journaled_before_a_chip_closes_betting_for_it_though_not_acted_on(
    step: Step, chip_first: bool
) -> None:
    """The journal fails in betting; a chip is placed and "no more bets" pressed meanwhile, and
    the devices send them again in either order. The press is not acted on (press again); a chip
    journaled before it counts, one journaled after it is late (it may have come after cards)."""
    t = Table(step.game)
    step.reach(t)
    journal_outage(t)
    seat, spot, cents = step.chip
    chip = SpotReport(device="bet_spots", seat=seat, spot=spot, cents=cents)
    press = ButtonChanged(device="panel", button="no_more_bets", pressed=True)
    for event in (chip, press) if chip_first else (press, chip):
        t.feed(event)
    for device in ("panel", "shoe", "bet_spots"):
        t.feed(LinkUp(device=device, boot_id=1, rebooted=False))
    t.feed(PanelState(device="panel", key_on=False, held=()))
    t.feed(ShoeState(device="shoe", status="ok", cards_out=0))
    t.feed(spots_state(t, step.chip))
    assert t.phase == "betting"  # the press asked again
    if chip_first:
        assert t.wager(seat, spot) == cents and t.m.late.noted == []
    else:
        assert t.wager(seat, spot) is None
        assert t.m.late.noted == [f"late bet: seat {seat} {spot} {cents / 100:.2f} not accepted"]
        assert not t.snapshot().can_bet(seat, spot)  # the snapshot's readers are told betting is closed
        t.spot(seat, spot, cents + 100)  # still closed until the dealer's press is acted on
        assert t.wager(seat, spot) is None and len(t.m.late.noted) == 2
    t.press("no_more_bets")
    assert t.phase == "no_more_bets"
    assert (t.wager(seat, spot) == cents) is chip_first


def test_a_refused_no_more_bets_opens_betting_again_for_corrections() -> None:
    """The press journaled during the outage closed betting; pressed again, it is refused (a
    wager to correct): betting is open again, as after any refused "no more bets"."""
    t = Table("boston5")
    t.spot(2, "ante", 500)
    t.spot(2, "first", 500)  # must be 2 x the ante
    journal_outage(t)
    t.feed(ButtonChanged(device="panel", button="no_more_bets", pressed=True))
    for device in ("panel", "shoe", "bet_spots"):
        t.feed(LinkUp(device=device, boot_id=1, rebooted=False))
    t.feed(PanelState(device="panel", key_on=False, held=()))
    t.feed(ShoeState(device="shoe", status="ok", cards_out=0))
    t.feed(spots_state(t))
    t.press("no_more_bets")
    assert t.phase == "betting" and t.m.wagers.problems
    t.spot(2, "first", 1000)
    assert t.wager(2, "first") == 1000 and t.m.late.noted == []
    t.press("no_more_bets")
    assert t.phase == "no_more_bets"


def test_a_boston5_second_wager_withdrawn_while_held_before_the_final_cards_is_a_fold() -> None:
    """24.10(c): withdrawn "at any time prior to the deal of the final two cards", held or not."""
    t = Table("boston5")
    boston_second(t)
    boston_close(t)
    assert t.phase == "final_deal"
    t.feed(LinkDown(device="panel", reason="no reply"))
    t.spot(5, "second", 0)
    seat = t.m.seats[5]
    assert seat.folded_at == "second" and "second" not in seat.wagers and t.m.late.noted == []


def boston_second_after_a_round_left_on_the_spots(t: Table) -> None:
    """Round 1 is played to its end with the chips left on the spots (the board still reads them);
    round 2 reaches the second-wager step with seat 2's last second chip still on its spot."""
    boston_second(t)
    boston_close(t)
    t.deal("Js Ts 6h 6c 8c 9s")
    while t.phase == "settlement":
        t.press("confirm")
    assert t.phase == "betting" and t.m.board.levels[(2, "second")] == 1000  # the chip left from round 1
    boston_second(t)
    assert t.phase == "second_wager" and "second" not in t.m.seats[2].wagers


@pytest.mark.parametrize("hold", list(HOLDS))
def test_a_second_wager_on_a_chip_left_from_the_last_round_counts_whatever_hold_began_in_its_step(hold: str) -> None:
    """Issue 40 item 1 (Boston 5, real processes): the chip on seat 2's second spot since round 1
    is placed again as round 2's second wager while held. With a journal outage its report waits
    for the spots' state read, which reads the same amount the board last had: the report still
    stands for a chip placed in the step, and counts (the deal was refused "waiting for seat 2")."""
    t = Table("boston5")
    boston_second_after_a_round_left_on_the_spots(t)
    held(t, hold, "second_wager")
    place(t, hold, (2, "second", 1000))
    assert t.wager(2, "second") == 1000, (t.m.late.noted, t.m.display.notes[-3:])
    assert t.m.late.noted == []
    assert t.held_from() == (None if HOLDS[hold] is None else "second_wager")


@pytest.mark.parametrize("hold", list(HOLDS))
def test_a_chip_left_from_the_last_round_placed_again_after_its_step_closed_is_late_whatever_hold_is_on(
    hold: str,
) -> None:
    """The same chip placed again by a seat that folded, after the deal was pressed: late, never
    dropped unnoted because the spots' state read finds the amount the board last had."""
    t = Table("boston5")
    boston_second_after_a_round_left_on_the_spots(t)
    t.spot(5, "second", 1000)
    t.press("seat_2", "fold", "deal", "confirm", "deal")  # the fold's collection confirmed, then the deal
    held(t, hold, "final_deal")
    place(t, hold, (2, "second", 1000))
    assert t.wager(2, "second") is None and t.m.seats[2].folded_at == "second"
    assert t.m.late.noted == ["late bet: seat 2 second 10.00 not accepted"]
