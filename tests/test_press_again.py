"""Issue 40 item 8: a press not acted on during a journal outage says "press again" on the panel
until the dealer presses it (not only until the next event), and the hold while every device is
read again is logged and shown with the same way on: it ends by itself (the log says so at its
end), it is not cleared by the supervisor."""

from __future__ import annotations

import pytest
from table_helpers import FedTable

from controller.configuration import config_dir, load_table
from controller.game.mississippi_stud._machine import MississippiTable
from controller.table.engine import JournalFault
from controller.table.events import OpenTable
from controller.table.runtime import TableRuntime
from drivers.bet_spots import SpotReport
from drivers.link import LinkUp
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt
from drivers.state import PanelState, ShoeState, SpotsState

TABLE = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
AGAIN = "reveal pressed while the journal could not be written: not acted on, press again"
REREAD = "journal written again: each device's state is read again"


def at_third_street(t: FedTable) -> None:
    t.spot(1, "ante", 500)
    t.spot(4, "ante", 1000)
    t.press("no_more_bets")
    t.deal("As Ad Kc Kd 7h 8h 2c")


def read_again(t: FedTable) -> None:
    for device in ("panel", "shoe", "bet_spots"):
        t.feed(LinkUp(device=device, boot_id=1, rebooted=False))
    t.feed(PanelState(device="panel", key_on=False, held=()))
    t.feed(ShoeState(device="shoe", status="ok", cards_out=7))
    t.feed(SpotsState(device="bet_spots", spots=((1, "ante", 500), (4, "ante", 1000))))


def reveal_pressed_while_the_disk_is_full() -> FedTable:
    """Mississippi Stud at third street, the journal failing (disk full), and reveal pressed."""
    t = FedTable(MississippiTable, TABLE)
    at_third_street(t)
    t.m.journal_failed("disk full: 0 bytes free on /")
    t.feed(JournalFault("disk full: 0 bytes free on /", 0, 1))
    t.press("reveal")
    return t


def test_the_press_again_note_stays_on_the_screen_until_the_press() -> None:
    t = reveal_pressed_while_the_disk_is_full()
    assert AGAIN in t.m.display.state().notes
    read_again(t)  # more events: the note stays
    t.spot(1, "third", 500)
    t.spot(4, "third", 1000)
    assert t.m.phase.value == "third_street"
    assert AGAIN in t.m.display.state().notes
    assert "reveal pressed while the journal could" in t.m.display.lines  # on the panel
    t.press("reveal")  # pressed again: acted on, the note goes
    assert t.m.phase.value == "fourth_street"
    assert AGAIN not in t.m.display.state().notes
    t.spot(1, "fourth", 500)
    assert AGAIN not in t.m.display.state().notes


def test_the_press_again_note_goes_with_its_round() -> None:
    t = reveal_pressed_while_the_disk_is_full()
    read_again(t)
    t.press("supervisor_key", "void")
    assert t.m.phase.value == "betting" and AGAIN not in t.m.display.state().notes


def hold_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "tablectl.table" and r.getMessage().startswith("hold")]


def test_the_reread_hold_is_logged_and_shown_as_ending_by_itself(caplog: pytest.LogCaptureFixture) -> None:
    runtime = TableRuntime(TABLE, {role: "loop://" for role in TABLE.devices})
    with caplog.at_level("INFO", logger="tablectl.table"):
        runtime._handle(OpenTable())
        for seat in (1, 4):
            runtime._handle(SpotReport(device="bet_spots", seat=seat, spot="ante", cents=500))
        runtime._handle(ButtonChanged(device="panel", button="no_more_bets", pressed=True))
        runtime._handle(CardDealt(device="shoe", card="As", index=1, quality=100))
        runtime.table.journal_failed("disk full: 0 bytes free on /")
        runtime.publish()
        runtime._handle(JournalFault("disk full: 0 bytes free on /", 0, 0))
        hold = runtime.snapshot.hold
        assert hold is not None and hold.reason == REREAD
        clears = "by itself when every device's state is read again; or supervisor key on: void"
        assert hold.clears == clears and hold.by_itself
        assert runtime.table.hold_prompt() == "wait for the device; or key: void"  # the screen: no clear fault
        for device in ("panel", "shoe", "bet_spots"):
            runtime._handle(LinkUp(device=device, boot_id=1, rebooted=False))
        runtime._handle(PanelState(device="panel", key_on=False, held=()))
        runtime._handle(ShoeState(device="shoe", status="ok", cards_out=1))
        runtime._handle(SpotsState(device="bet_spots", spots=((1, "ante", 500), (4, "ante", 500))))
        assert runtime.snapshot.hold is None and runtime.snapshot.step == "dealing"
    lines = hold_lines(caplog)
    assert lines[-2] == f"hold: round 1 now held for: {REREAD} (clears: {clears})"
    assert lines[-1] == f"hold ended by itself: round 1 resumes in dealing (was: {REREAD})"
    assert not any("clear fault" in line for line in lines[-2:])
