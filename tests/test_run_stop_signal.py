"""``tablectl run`` stops on SIGTERM whichever of its threads the signal is delivered on.

A signal sent to a process may be taken by any thread that does not block it; Python runs the
handler only when the main thread next runs Python code. ``tablectl run``'s main thread slept on a
``threading.Event`` with no timeout, which a signal taken on another thread never wakes: the table
kept running after ``systemctl stop`` until systemd's SIGKILL (seen once in a full test run). Here
the main thread blocks SIGTERM, so the kernel must deliver it on the one thread started before
(which sends it); the controller's own threads inherit the block. Fails on the Event: the process
never stops and the test's deadline ends it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from deadlines import STATE_TIMEOUT_S

ROOT = Path(__file__).resolve().parent.parent

RUN_AND_STOP_ON_ANOTHER_THREAD = """
import gc, os, signal, sys, threading, time
from pathlib import Path
from controller.cli import main
from hil.devices import BetSpotSim, PanelSim, ShoeSim
from hil.serve import PtyServer, served_table_config

root, tmp, timeout = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])
go = threading.Event()

def stopper():
    go.wait()
    deadline = time.monotonic() + timeout
    while gc.get_freeze_count() == 0 and time.monotonic() < deadline:  # the start done: asleep until stopped
        time.sleep(0.02)
    os.kill(os.getpid(), signal.SIGTERM)  # only this thread does not block it: delivered here

threading.Thread(target=stopper, daemon=True).start()  # before the block: SIGTERM stays open to it
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # this thread, and every thread it starts
sims = {"shoe": ShoeSim(address=1), "bet_spots": BetSpotSim(address=2), "panel": PanelSim(address=3)}
servers = {role: PtyServer(sim, link=tmp / role) for role, sim in sims.items()}
urls = {role: server.start() for role, server in servers.items()}
config = served_table_config(root, tmp, urls, 0.02)
go.set()
code = main(["run", "--config", str(config), "--allow-unapproved", "--journal", str(tmp / "j.db")])
for server in servers.values():
    server.close()
print("exit", code)
"""


def test_tablectl_run_stops_on_a_sigterm_taken_by_another_thread(tmp_path: Path) -> None:
    """SIGTERM delivered on a thread other than the main one stops ``tablectl run`` (exit 0)."""
    out = subprocess.run(
        [sys.executable, "-c", RUN_AND_STOP_ON_ANOTHER_THREAD, str(ROOT), str(tmp_path), str(STATE_TIMEOUT_S)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=STATE_TIMEOUT_S * 2,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split()[:2] == ["exit", "0"], out.stdout + out.stderr[-3000:]
