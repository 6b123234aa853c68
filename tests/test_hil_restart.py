"""A controller started again recovers as after a journal outage (issue 40 item 3): the real
``tablectl run`` in its own process, the simulated devices on ptys in this one, which keep running
while the controller is down. The panel misses the controller's heartbeat and shows ``table
stopped``; what the dealer did meanwhile is taken as after a journal outage once the controller is
back: every device's state read again, a press not acted on (pressed again), a card dealt waiting
for the supervisor (docs/protocol.md, section 4.8)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from deadlines import STATE_TIMEOUT_S
from hil_table import shoe
from test_hil_devices_visibility import table_config

from controller.journal import SqliteJournal
from controller.table._snapshot_file import snapshot_path
from hil.devices import TABLE_STOPPED, BetSpotSim, PanelSim, ShoeSim
from hil.serve import PtyServer


def wait(cond: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + STATE_TIMEOUT_S
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


class Table:
    """The devices on ptys, the config naming them; the controller started and stopped at will."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.shoe, self.spots, self.panel = ShoeSim(address=1), BetSpotSim(address=2), PanelSim(address=3)
        sims = {"shoe": self.shoe, "bet_spots": self.spots, "panel": self.panel}
        self.servers = {role: PtyServer(sim, link=tmp_path / f"tty-{role}") for role, sim in sims.items()}
        self.config = table_config(tmp_path, {role: s.start() for role, s in self.servers.items()})
        self.journal = tmp_path / "table.db"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = (self.tmp_path / "run.log").open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller", "run", "--config", str(self.config), "--allow-unapproved"],
            stdout=subprocess.DEVNULL,
            stderr=log,
            cwd=self.tmp_path,
        )
        log.close()

    def kill(self) -> None:
        """The controller dies (SIGKILL: nothing it could do on the way out)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=STATE_TIMEOUT_S)
        self.proc = None

    def close(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=STATE_TIMEOUT_S)
        for server in self.servers.values():
            server.close()

    def snap(self) -> dict[str, Any]:
        """The running controller's latest snapshot (the file ``tablectl status`` reads)."""
        try:
            return dict(json.loads(snapshot_path(self.journal).read_text())["snapshot"])
        except (OSError, ValueError, KeyError):
            return {}

    def kinds(self) -> list[tuple[str, dict[str, Any]]]:
        """Every record journaled so far: its kind and data."""
        if not self.journal.exists():
            return []
        journal = SqliteJournal.open_readonly(self.journal)
        try:
            return [(r.kind, dict(r.data)) for r in journal.records()]
        finally:
            journal.close()

    def count(self, kind: str, **data: Any) -> int:
        return sum(1 for k, d in self.kinds() if k == kind and all(d.get(n) == v for n, v in data.items()))

    def shown(self) -> str:
        return " ".join(self.panel.screen)


@contextmanager
def table(tmp_path: Path) -> Iterator[Table]:
    t = Table(tmp_path)
    try:
        yield t
    finally:
        t.close()


@pytest.mark.parametrize("card_first", [True, False], ids=["card_then_press", "press_then_card"])
def test_a_card_dealt_while_the_controller_was_down_waits_for_the_supervisor(tmp_path: Path, card_first: bool) -> None:
    """The dealer went on while ``tablectl run`` was down: a card out of the shoe and "no more
    bets", in either order. Neither is acted on as if the table had seen it: the press is asked
    for again, and the card waits for the supervisor, who accepts it in dealing order."""
    with table(tmp_path) as t:
        t.start()
        wait(lambda: "place bets" in t.shown(), "the table to open on the panel")
        t.spots.place(1, "ante", 500)
        t.spots.place(4, "ante", 1000)
        wait(lambda: t.count("SpotReport") == 2 and t.snap().get("step") == "betting", "the antes journaled")
        t.kill()
        wait(lambda: t.shown().startswith(TABLE_STOPPED), "the panel to show that the table has stopped")
        # the dealer goes on anyway
        t.shoe.load(shoe("As Ad Kc Qd 7h 8h 2c"))
        acts = [lambda: t.shoe.deal(1), lambda: t.panel.press("no_more_bets")]
        first, second = acts if card_first else acts[::-1]
        first()
        time.sleep(0.005)  # the second a later millisecond by the devices' clocks
        second()
        t.start()
        wait(
            lambda: t.count("CardDealt") == 1 and t.count("ButtonChanged", button="no_more_bets") == 2,
            "the card and the press journaled after the restart",
        )
        wait(lambda: TABLE_STOPPED not in t.shown(), "the panel to show the table's screen again")
        wait(lambda: t.snap().get("step") == "betting" and t.snap().get("hold") is None, "every device read again")
        snap = t.snap()
        assert snap["dealt"] == 0  # the card was not taken as the first of the deal ...
        assert any("pressed while the controller was stopped: not acted on, press again" in n for n in snap["recent"])
        t.panel.press("no_more_bets")  # ... the dealer presses again: the card waits for the supervisor
        wait(lambda: (t.snap().get("hold") or {}).get("reason", "").startswith("1 card dealt while held"), "the hold")
        assert t.snap()["dealt"] == 0
        t.panel.key(True)  # the supervisor accepts it: the first card of the deal
        wait(lambda: bool(t.snap().get("key_on")), "the key on")
        t.panel.press("confirm")
        wait(lambda: t.snap().get("hold") is None and t.snap().get("dealt") == 1, "the card accepted in dealing order")
