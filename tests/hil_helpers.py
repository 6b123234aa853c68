"""Helpers for the HIL tests: waiting for events on a driver queue; a simulated shoe that deals the
second shoe it is loaded with its own way; a link's timing; a script run in a process of its own
(a table on simulated devices served on ptys, a stop signal taken by a thread other than the main one)."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from deadlines import STATE_TIMEOUT_S

from drivers.link_events import LinkConfig

ROOT = Path(__file__).resolve().parent.parent


def wait_for(q: queue.Queue, match: Callable[[object], bool], timeout: float = STATE_TIMEOUT_S) -> list:
    """Events taken from ``q`` until one matches (returned last); fails after ``timeout``."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            event = q.get(timeout=0.05)
        except queue.Empty:
            continue
        seen.append(event)
        if match(event):
            return seen
    pytest.fail(f"timed out; saw {seen}")


def of(kind: type) -> Callable[[object], bool]:
    return lambda e: isinstance(e, kind)


def collect_event_numbers(q: queue.Queue, kind: type, count: int, timeout: float = STATE_TIMEOUT_S) -> list[int]:
    """The event numbers of the first ``count`` events of ``kind`` taken from ``q``."""
    return [event.event_no for event in collect_events(q, kind, count, timeout)]


def collect_events(
    q: queue.Queue,
    kind: type,
    count: int,
    timeout: float = STATE_TIMEOUT_S,
    also: list | None = None,
    other: type | None = None,
) -> list:
    """The first ``count`` events of ``kind`` taken from ``q``; events of ``other`` go to ``also``."""
    got: list = []
    deadline = time.monotonic() + timeout
    while len(got) < count and time.monotonic() < deadline:
        try:
            event = q.get(timeout=0.1)
        except queue.Empty:
            continue
        if isinstance(event, kind):
            got.append(event)
        elif other is not None and also is not None and isinstance(event, other):
            also.append(event)
    return got


def second_shoe_dealt(m: pytest.MonkeyPatch, deal: Callable[[Any, int, Callable[[Any, int], None]], None]) -> None:
    """Patch (with ``m``) ``hil.devices.ShoeSim`` to deal its second shoe (the bench's second round)
    by ``deal(shoe, n, dealt)``, where ``dealt(shoe, n)`` is the simulator's own deal; every other
    shoe as the simulator deals it."""
    from hil.devices import ShoeSim

    loads = [0]
    load, dealt = ShoeSim.load, ShoeSim.deal

    def counted_load(self: ShoeSim, cards: Any) -> None:
        loads[0] += 1
        load(self, cards)

    def second_deal(self: ShoeSim, n: int = 1) -> None:
        if loads[0] == 2:
            deal(self, n, dealt)
        else:
            dealt(self, n)

    m.setattr(ShoeSim, "load", counted_load)
    m.setattr(ShoeSim, "deal", second_deal)


_DEFAULT_LINK = LinkConfig()


def link_timing(
    *,
    poll_s: float,
    reply_s: float,
    retries: int,
    down_s: float,
    reconnect_s: tuple[float, float],
    idle_s: tuple[float, float] = (_DEFAULT_LINK.idle_poll_interval_s, _DEFAULT_LINK.idle_after_s),
    write_timeout_s: float = _DEFAULT_LINK.write_timeout_s,
) -> LinkConfig:
    """A link's timing for a test: polled every ``poll_s``, a reply awaited ``reply_s`` and asked
    again ``retries`` times, down after ``down_s`` without one, its port opened again after pauses
    from ``reconnect_s[0]`` up to ``reconnect_s[1]``; idle, polled every ``idle_s[0]`` once nothing
    but polls went for ``idle_s[1]``; a write failed after ``write_timeout_s``."""
    return LinkConfig(
        poll_interval_s=poll_s,
        idle_poll_interval_s=idle_s[0],
        idle_after_s=idle_s[1],
        response_timeout_s=reply_s,
        retries=retries,
        link_down_s=down_s,
        reconnect_min_s=reconnect_s[0],
        reconnect_max_s=reconnect_s[1],
        write_timeout_s=write_timeout_s,
    )


SCRIPT_PRELUDE = """import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])  # these helpers
folder = Path(sys.argv[2])
"""
"""What :func:`run_script` puts before a script: the tests' folder on its path, ``folder`` the
test's temporary folder."""


def run_script(script: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """``script`` (after :data:`SCRIPT_PRELUDE`) run by this Python in a process of its own, in
    ``folder``; its output as text. A process still running after twice the state deadline is
    killed and the test fails saying so."""
    timeout = STATE_TIMEOUT_S * 2
    try:
        return subprocess.run(
            [sys.executable, "-c", SCRIPT_PRELUDE + script, str(ROOT / "tests"), str(folder)],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else exc.stderr or ""
        pytest.fail(f"the script's process had not ended after {timeout:.0f} s (killed): {err[-3000:]}")


@contextmanager
def served_table(folder: Path) -> Iterator[Path]:
    """The three simulated devices of a Mississippi Stud table (shoe 1, bet spots 2, panel 3),
    each served on a pty linked in ``folder``, and the table's config naming them (polled every
    20 ms): yields the config's path; the servers closed on leaving."""
    from hil.devices import BetSpotSim, PanelSim, ShoeSim
    from hil.serve import PtyServer, served_table_config

    sims = {"shoe": ShoeSim(address=1), "bet_spots": BetSpotSim(address=2), "panel": PanelSim(address=3)}
    servers = {role: PtyServer(sim, link=folder / role) for role, sim in sims.items()}
    try:
        urls = {role: server.start() for role, server in servers.items()}
        yield served_table_config(ROOT, folder, urls, 0.02)
    finally:
        for server in servers.values():
            server.close()


def sigterm_from_another_thread(ready: Callable[[], bool]) -> None:
    """Call from a script's main thread before it starts any other: a thread started here sends
    the process SIGTERM once ``ready()`` (or once the state deadline passed), and the main thread
    then blocks SIGTERM, as does every thread it starts, so the kernel delivers it on that one."""

    def send() -> None:
        deadline = time.monotonic() + STATE_TIMEOUT_S
        while not ready() and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=send, name="sigterm", daemon=True).start()  # before the block: open to it
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})


SLEEPS = ("Event.wait", "Wakeup.wait")
"""The waits with no timeout a command's main thread sleeps on until a stop signal."""


def main_thread_sleeps_in(caller: str) -> bool:
    """Whether the main thread sleeps in one of :data:`SLEEPS` called by a function named ``caller``
    (a command's wait for its stop signal: a signal taken elsewhere must end it)."""
    frame = sys._current_frames().get(threading.main_thread().ident or 0)
    while frame is not None and frame.f_back is not None:
        if frame.f_back.f_code.co_name == caller:
            return frame.f_code.co_qualname in SLEEPS
        frame = frame.f_back
    return False
