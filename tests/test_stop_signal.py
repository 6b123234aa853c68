"""The long-running commands stop on SIGTERM whichever of their threads the signal is delivered on.

A signal sent to a process may be taken by any thread that does not block it; Python runs the
handler only when the main thread next runs Python code. A main thread asleep with no timeout (on a
``threading.Event``, or on a Wakeup's pipe the signal does not write to) never does: the command
kept running after ``systemctl stop`` until systemd's SIGKILL (``tablectl run``: seen once in a full
test run). Here the main thread blocks SIGTERM, so the kernel must deliver it on the one thread
started before (which sends it, once the main thread sleeps for its stop); the command's own threads
inherit the block. Each test failed on the old wait: the process never stopped, and the test's
deadline ended it."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from deadlines import STATE_TIMEOUT_S
from hil_helpers import run_script

from controller.host import Wakeup

RUN = """
from controller.cli import main
from hil_helpers import main_thread_sleeps_in, served_table, sigterm_from_another_thread

sigterm_from_another_thread(lambda: main_thread_sleeps_in("run"))
with served_table(folder) as config:
    code = main(["run", "--config", str(config), "--allow-unapproved", "--journal", str(folder / "j.db")])
import signal  # its stop's wake-up pipe closed: the handlers and the wake-up fd put back
print("restored", signal.getsignal(signal.SIGTERM) == signal.SIG_DFL and signal.set_wakeup_fd(-1) == -1)
print("exit", code)
"""

SIMULATOR = """
from hil.sim import main
from hil_helpers import main_thread_sleeps_in, sigterm_from_another_thread

sigterm_from_another_thread(lambda: main_thread_sleeps_in("main"))
code = main(["shoe", "--pty", "--link", str(folder / "shoe")])
print("exit", code)
"""

MANUAL_BENCH = """
from controller.cli import main
from hil_helpers import main_thread_sleeps_in, sigterm_from_another_thread

sigterm_from_another_thread(lambda: main_thread_sleeps_in("_play"))  # asleep until a round or a stop
code = main(
    ["bench", "--game", "mississippi_stud", "--quiet", "--manual", "--web", "127.0.0.1:0"]
    + ["--journal", str(folder / "j.db"), "--rounds", "5"]
)
print("exit", code)
"""

WEB_SERVE = """
import signal
from controller.cli import main
from hil_helpers import sigterm_from_another_thread

sigterm_from_another_thread(lambda: callable(signal.getsignal(signal.SIGTERM)))  # once the command's handler is set
code = main(["web", "serve", "--socket", str(folder / "no-table.sock"), "--web", "127.0.0.1:0"])
print("restored", signal.getsignal(signal.SIGTERM) == signal.SIG_DFL and signal.set_wakeup_fd(-1) == -1)
print("exit", code)
"""


def _exit_status(script: str, folder: Path) -> tuple[int, str]:
    """The command's exit status as the script printed it, and all it wrote (for a failure's text)."""
    out = run_script(script, folder)
    said = out.stdout + out.stderr[-3000:]
    assert out.returncode == 0, said
    words = out.stdout.split()
    assert words[-2:-1] == ["exit"], said
    return int(words[-1]), said


def test_tablectl_run_stops_on_a_sigterm_taken_by_another_thread(tmp_path: Path) -> None:
    """SIGTERM delivered on a thread other than the main one stops ``tablectl run`` (exit 0)."""
    code, said = _exit_status(RUN, tmp_path)
    assert code == 0, said
    assert "restored True" in said, said  # the Wakeup closed: handlers and wake-up fd put back


def test_a_simulator_stops_on_a_sigterm_taken_by_another_thread(tmp_path: Path) -> None:
    """``python -m hil.sim`` (a bench engineer's simulated device) stops on a SIGTERM its serving
    thread takes (exit 0): it slept on a threading.Event."""
    code, said = _exit_status(SIMULATOR, tmp_path)
    assert code == 0, said


def test_a_manual_bench_stops_on_a_sigterm_taken_by_another_thread(tmp_path: Path) -> None:
    """``tablectl bench --manual`` sleeps until a round finishes or a stop signal comes; a SIGTERM
    taken by another thread (the web server's, a link's) ends the session with its summary (exit 0:
    the page decides how many rounds a manual session plays). The signal's handler woke a pipe the
    signal did not write to, so the bench slept on until the page played a round."""
    code, said = _exit_status(MANUAL_BENCH, tmp_path)
    assert code == 0, said
    assert "manual session: 0 rounds played" in said and "Traceback" not in said, said


def test_a_wakeup_on_signals_notes_each_and_closing_puts_back_what_it_replaced() -> None:
    """A Wakeup set by signals notes which came (the bench's summary names it), and its close puts
    back the handlers and the wake-up fd it replaced: a closed pipe left as the wake-up fd would
    have the next signal's byte written into whatever file takes its number next."""
    handler, fd = signal.getsignal(signal.SIGUSR1), signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(fd)
    seen: list[signal.Signals] = []
    with Wakeup() as woken:
        woken.on_signals(signal.SIGUSR1, note=seen.append)
        os.kill(os.getpid(), signal.SIGUSR1)
        assert woken.wait(STATE_TIMEOUT_S) and seen == [signal.SIGUSR1]
    assert signal.getsignal(signal.SIGUSR1) == handler
    assert signal.set_wakeup_fd(fd) == fd


def test_web_serve_stops_on_a_sigterm_and_puts_back_its_handlers(tmp_path: Path) -> None:
    """``tablectl web serve`` waiting for its table stops on SIGTERM (exit 0) and closes its stop's
    Wakeup: the handlers and the wake-up fd it replaced are put back (they were left set)."""
    code, said = _exit_status(WEB_SERVE, tmp_path)
    assert code == 0 and "restored True" in said, said
