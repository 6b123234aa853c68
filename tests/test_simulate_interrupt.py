"""``tablectl simulate --hours H`` with a pool of workers stops cleanly on Ctrl-C: a terminal sends
SIGINT to its whole foreground process group, so each worker died with a KeyboardInterrupt
traceback and the parent's ``pool.join()`` waited for ever for the seeds those workers held. Now the
workers ignore SIGINT, the parent ends them, and says what finished (exit 0: Ctrl-C is how an
``--hours`` run ends early, docs/simulate.md); no worker or re-settler outlives it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from deadlines import STATE_TIMEOUT_S

WORKERS = 2


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:  # a thread that just ended
            pass
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except OSError:
        return ""


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_simulate_hours_stops_on_ctrl_c_with_its_summary_and_no_worker_left() -> None:
    command = [sys.executable, "-m", "controller", "simulate", "--hours", "1", "--workers", str(WORKERS)]
    command += ["--rounds", "1", "--faults", "none", "--quiet"]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + STATE_TIMEOUT_S
        children: list[int] = []
        # the pool's workers and the re-settler (once it runs tablectl settle) all started
        while len(children) < WORKERS + 1 or not any("settle" in _cmdline(c) for c in children):
            assert run.poll() is None and time.monotonic() < deadline, "the workers never started"
            time.sleep(0.01)  # polling for a state, not timing one
            children = _children(run.pid)
        os.killpg(run.pid, signal.SIGINT)  # Ctrl-C: the terminal's whole foreground group
        # the tests' one deadline (was 30 s: a loaded machine took longer once; slow, or a hang?)
        out, err = run.communicate(timeout=STATE_TIMEOUT_S)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.communicate()
    assert run.returncode == 0, out + err
    assert "stopped     by Ctrl-C:" in out and "seeds from 1 finished" in out, out + err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert [c for c in children if _running(c)] == [], "a worker or the re-settler outlived the run"
