"""An idle table costs nothing (issue 45, item 7): every wait of a device link and of a simulator
sleeps on a descriptor until the next real deadline, never on a short timeout.

These tests look at how the waits are made (what they wait on, for how long at most), never at
elapsed time; the cost itself is measured by benchmarks/bench_idle.py."""

from __future__ import annotations

import os
import queue
import select
import threading
import time
import tty
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from deadlines import STATE_TIMEOUT_S
from hil_helpers import of, wait_for

from controller.configuration import config_dir, load_table
from drivers import link as link_module
from drivers.link import LinkConfig, LinkUp
from drivers.panel import PanelDriver
from drivers.transport import Transport
from hil import serve
from hil.bench import MANUAL_POLL_S, manual_paced
from hil.devices import PanelSim
from hil.faults import Faults
from hil.serve import PtyServer, SocketServer


@contextmanager
def _pty() -> Iterator[tuple[int, str]]:
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        yield master, os.ttyname(slave)
    finally:
        os.close(master)
        os.close(slave)


class _RecordingSelector:
    """Wraps a transport's selector, noting each wait's timeout."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.timeouts = inner, []

    def select(self, timeout: float | None = None) -> Any:
        self.timeouts.append(timeout)
        return self.inner.select(timeout)

    def close(self) -> None:
        self.inner.close()


def test_the_transport_sleeps_on_its_descriptor_for_the_time_asked() -> None:
    with _pty() as (master, path):
        port = Transport(path)
        try:
            assert port.waits_on_descriptor
            recorder = _RecordingSelector(port._selector)
            setattr(port, "_selector", recorder)  # noqa: B010 (the recorder stands in for the selector)
            assert port.read(0.0) == b""  # nothing there: one wait of the time asked, no slices
            assert recorder.timeouts == [0.0]
            os.write(master, b"abc")
            got = b""
            while len(got) < 3:
                got += port.read(3600.0)  # bytes there: the wait ends with them, not with the timeout
            assert got == b"abc"
            assert all(t == 3600.0 for t in recorder.timeouts[1:])
        finally:
            port.close()


def test_a_link_waits_for_a_reply_until_its_deadline_not_in_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    """Waiting for a reply, the link thread sleeps on the port until the reply's deadline (the old
    runner read in 5 ms slices: a silent device woke it 200 times a second)."""
    timeouts: list[float | None] = []

    class Recording(Transport):
        def read(self, timeout_s: float | None = None) -> bytes:
            timeouts.append(timeout_s)
            return super().read(timeout_s)

    monkeypatch.setattr(link_module, "Transport", Recording)
    config = LinkConfig(poll_interval_s=0.05, response_timeout_s=5.0, link_down_s=60.0, reconnect_min_s=0.05)
    q: queue.Queue = queue.Queue()
    faults = Faults()
    with PtyServer(PanelSim(address=3), faults) as server:
        with PanelDriver("panel", server.path, q, address=3, config=config) as panel:
            wait_for(q, of(LinkUp))
            faults.drop_in = 1.0  # silent: the next request waits its whole response timeout
            seen = panel.link.stats.timeouts
            deadline = time.monotonic() + STATE_TIMEOUT_S
            while panel.link.stats.timeouts == seen and time.monotonic() < deadline:
                time.sleep(0.05)
            assert panel.link.stats.timeouts > seen, "the silent device's request never timed out"
            faults.drop_in = 0.0
    # the waits are the reply's deadline (5 s from the request), never a short slice
    assert timeouts and max(t for t in timeouts if t is not None) > 1.0


def test_the_manual_bench_polls_at_the_protocols_interval_at_least() -> None:
    """An idle --manual bench polls every 50 ms, not every 2 ms: the bench configs' 2 ms is for
    simulated players; a page played by hand gains nothing from it."""
    for game in ("mississippi_stud", "boston5", "pai_gow"):
        table = load_table(config_dir() / "bench" / f"{game}.yaml")
        assert min(d.poll_interval_s for d in table.devices.values()) < MANUAL_POLL_S  # the bench's own
        paced = manual_paced(table)
        assert MANUAL_POLL_S == LinkConfig().poll_interval_s
        assert all(d.poll_interval_s >= MANUAL_POLL_S for d in paced.devices.values())
        assert {r: (d.url, d.address, d.driver) for r, d in paced.devices.items()} == {
            r: (d.url, d.address, d.driver) for r, d in table.devices.items()
        }


@pytest.mark.parametrize("kind", ["pty", "socket"])
def test_a_simulator_sleeps_on_its_descriptors_without_a_timeout(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A simulator's thread waits on its port and its wake-up pipe with no timeout, and closing
    it still ends the thread (the old one woke every 20 ms to look for a stop)."""
    waits: list[tuple[Any, ...]] = []
    real = select.select

    def recording(*args: Any) -> Any:
        if threading.current_thread().name.startswith("sim-"):  # select is global: pyserial's too
            waits.append(args)
        return real(*args)

    monkeypatch.setattr(serve.select, "select", recording)
    q: queue.Queue = queue.Queue()
    server = PtyServer(PanelSim(address=3)) if kind == "pty" else SocketServer(PanelSim(address=3))
    url = server.start()
    config = LinkConfig(poll_interval_s=0.05, response_timeout_s=0.5, reconnect_min_s=0.05)
    with PanelDriver("panel", url, q, address=3, config=config):
        wait_for(q, of(LinkUp))
    thread = server._thread
    server.close()
    assert thread is not None and not thread.is_alive(), "closing did not wake the simulator's thread"
    assert waits and all(len(w) == 3 or w[3] is None for w in waits), waits[:3]
