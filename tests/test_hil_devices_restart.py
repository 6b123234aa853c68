"""HIL, issue 11 item 1 from the controller's side: a controller started again on its journal
keeps each device's event window, so an event it journaled just before the stop, which the
device never saw acknowledged, is not taken twice; a device that restarted meanwhile is a reset
in the journal. The real runtime and drivers, simulators on real ptys that keep running."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from deadlines import STATE_TIMEOUT_S

from controller.configuration import load_table
from controller.journal import SqliteJournal
from controller.table.journal_files import journaled_event_windows
from controller.table.runtime import TableRuntime
from drivers.framing import MsgType, decode_frame
from hil.devices import BetSpotSim, PanelSim, ShoeSim
from hil.faults import Faults
from hil.serve import PtyServer

ROOT = Path(__file__).resolve().parent.parent


class DeafAfterAnEvent(Faults):
    """Once armed: after the next EVENT reply, the device hears no more requests (so the POLL that
    would acknowledge that event never reaches it)."""

    armed = False

    def send(self, write: Callable[[bytes], None], wire: bytes) -> None:
        super().send(write, wire)
        frame, _ = decode_frame(wire[:-1])
        if self.armed and frame is not None and frame.type is MsgType.EVENT:
            self.armed, self.drop_in = False, 1.0


def wait(cond: Callable[[], bool], what: str, timeout: float = STATE_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def button_records(path: Path) -> list[tuple[int, bool]]:
    journal = SqliteJournal(path, create=False)
    try:
        return [(r.data["event_no"], r.data["pressed"]) for r in journal.records() if r.kind == "ButtonChanged"]
    finally:
        journal.close()


def test_a_controller_started_again_takes_no_event_twice_and_sees_a_device_restart(tmp_path: Path) -> None:
    table = load_table(ROOT / "config" / "mississippi_stud.yaml")
    sims = {"shoe": ShoeSim(address=1), "bet_spots": BetSpotSim(address=2), "panel": PanelSim(address=3)}
    faults = DeafAfterAnEvent()
    servers = {
        role: PtyServer(sim, faults if role == "panel" else None, link=tmp_path / role) for role, sim in sims.items()
    }
    urls = {role: server.start() for role, server in servers.items()}
    path = tmp_path / "table.db"
    try:
        first = TableRuntime(table, urls, SqliteJournal(path))
        first.start()
        wait(lambda: all(d.link.up for d in first.drivers.values()), "the links")
        faults.armed = True
        sims["panel"].press("next")  # event 1 (down) is journaled, its acknowledgement never arrives
        wait(lambda: first.journal.last_seq and button_records(path) == [(1, True)], "the button down journaled")
        first.stop()
        assert sims["panel"].pending[0][1] == 1  # the device still holds it
        faults.drop_in = 0.0
        windows = journaled_event_windows(path, {"shoe", "bet_spots", "panel"})
        assert windows["panel"] == (sims["panel"].boot_id, 1)
        sims["bet_spots"].restart()  # and the bet spots lose their memory while the controller is down

        second = TableRuntime(table, urls, SqliteJournal(path))
        second.start()
        try:
            wait(lambda: len(button_records(path)) >= 2, "the button up journaled")
            sims["bet_spots"].place(2, "ante", 500)
            wait(
                lambda: any(r.kind == "SpotReport" for r in second.journal.records()),  # type: ignore[attr-defined]
                "the bet",
            )
            # The device sends its oldest event first, so a repeat of event 1 would be journaled before event 2.
            assert button_records(path) == [(1, True), (2, False)]  # event 1 once
            resets = [
                r.data
                for r in second.journal.records()  # type: ignore[attr-defined]
                if r.kind == "DeviceFault" and r.data["kind"] == "events_reset"
            ]
            assert [r["device"] for r in resets] == ["bet_spots"]
        finally:
            second.stop()
    finally:
        for server in servers.values():
            server.close()
