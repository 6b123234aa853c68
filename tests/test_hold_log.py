"""Issue 32: a log line for every hold and its clearing, the shoe's jam and open door included,
two faults at once; the runtime's own path (``publish`` after each event), its drivers on
loopback URLs that are never started."""

from __future__ import annotations

import pytest

from controller.configuration import config_dir, load_table
from controller.table.events import OpenTable
from controller.table.runtime import TableRuntime
from drivers.bet_spots import SpotReport
from drivers.link import LinkDown, LinkUp
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, DoorChanged, Jam
from drivers.state import ShoeState

TABLE = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
JAMMED = "shoe jammed: clear the jam"


def dealing(runtime: TableRuntime) -> None:
    runtime._handle(OpenTable())
    for seat in (1, 4):
        runtime._handle(SpotReport(device="bet_spots", seat=seat, spot="ante", cents=500))
    runtime._handle(ButtonChanged(device="panel", button="no_more_bets", pressed=True))
    runtime._handle(CardDealt(device="shoe", card="As", index=1, quality=100))


def hold_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "tablectl.table" and r.getMessage().startswith("hold")]


def test_a_jam_and_an_open_door_at_once_each_logged_and_the_clearing_too(caplog: pytest.LogCaptureFixture) -> None:
    runtime = TableRuntime(TABLE, {role: "loop://" for role in TABLE.devices})
    with caplog.at_level("INFO", logger="tablectl.table"):
        dealing(runtime)
        assert hold_lines(caplog) == []
        runtime._handle(Jam(device="shoe"))
        runtime._handle(DoorChanged(device="shoe", open=True))  # a second fault at the same time
        runtime._handle(DoorChanged(device="shoe", open=False))
        runtime._handle(ShoeState(device="shoe", status="ok", cards_out=1))  # the jam cleared
    lines = hold_lines(caplog)
    assert lines[0] == (
        f"hold: round 1 held in dealing: {JAMMED} (clears: by itself when the shoe reports ok (jam cleared,"
        " door closed); or supervisor key on: void)"
    )
    assert lines[1].startswith(f"hold: round 1 now held for: {JAMMED}; shoe door open (clears: by itself")
    assert lines[2].startswith(f"hold: round 1 now held for: {JAMMED} (clears: by itself")
    assert lines[3] == f"hold ended by itself: round 1 resumes in dealing (was: {JAMMED})"
    assert len(lines) == 4 and runtime.snapshot.hold is None
    assert not any("As" in line for line in lines)


def test_a_link_hold_and_a_card_hold_at_once_and_a_void_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    runtime = TableRuntime(TABLE, {role: "loop://" for role in TABLE.devices})
    with caplog.at_level("INFO", logger="tablectl.table"):
        dealing(runtime)
        runtime._handle(LinkDown(device="bet_spots", reason="no reply"))
        runtime._handle(CardDealt(device="shoe", card="Kd", index=3, quality=100))  # a jump, meanwhile
        runtime._handle(LinkUp(device="bet_spots", boot_id=1, rebooted=False))
        runtime._handle(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
        runtime._handle(ButtonChanged(device="panel", button="void", pressed=True))
    lines = hold_lines(caplog)
    assert lines[0].startswith("hold: round 1 held in dealing: link down: bet_spots (clears: by itself when")
    assert lines[1].startswith("hold: round 1 now held for: shoe card numbers jump from 1 to 3")
    assert lines[2].startswith("hold cleared: round 1 ended (now round 2, ")
    assert "(was: shoe card numbers jump from 1 to 3" in lines[2] and len(lines) == 3
    assert not any("Kd" in line or "As" in line for line in lines)
