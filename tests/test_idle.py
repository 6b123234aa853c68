"""An idle table costs nothing (issue 45, item 7): every wait of a device link and of a simulator
sleeps on a descriptor until the next real deadline, never on a short timeout.

These tests look at how the waits are made (what they wait on, for how long at most), never at
elapsed time; the cost itself is measured by benchmarks/bench_idle.py."""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import select
import signal
import threading
import time
import tty
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

import pytest
from deadlines import STATE_TIMEOUT_S
from hil_helpers import of, wait_for

from controller.configuration import config_dir, load_table
from controller.host import Wakeup
from drivers import link as link_module
from drivers.link import LinkConfig, LinkUp
from drivers.link_events import PROBLEM_COUNTERS, LinkCounters
from drivers.panel import PanelDriver
from drivers.protocol import LinkProtocol
from drivers.transport import Transport, TransportError
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
    """Waiting for a reply, the link's loop sleeps on the port until the reply's deadline (the old
    runner read in 5 ms slices: a silent device woke it 200 times a second)."""
    timeouts: list[float | None] = []
    serve_pass = link_module.LinkLoop._pass

    def recording(*args: Any) -> float | None:
        timeouts.append(serve_pass(*args))
        return timeouts[-1]

    monkeypatch.setattr(link_module.LinkLoop, "_pass", staticmethod(recording))
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


def test_a_write_the_port_never_takes_fails_after_the_write_timeout_naming_what_is_left() -> None:
    """The transport writes the descriptor itself; a port whose output nobody reads (a full
    buffer) fails the write once the write timeout has passed, naming the port."""
    with _pty() as (_master, path):
        port = Transport(path, write_timeout_s=0.2)
        try:
            with pytest.raises(TransportError, match=r"write failed: Write timeout \(\d+ bytes not taken\)") as caught:
                port.write(b"\x01" * 4_000_000)  # more than any pty buffer holds
            assert path in str(caught.value)
        finally:
            port.close()


def test_the_problem_total_moves_with_each_problem_counter_and_not_with_traffic() -> None:
    """The counters' log looks at one sum at each step and compares the counters one by one only
    when it moved: it must move with every counter whose change is logged, and not with good
    frames or events (which change at every exchange)."""
    counters = LinkCounters()
    before = counters.problem_total()
    counters.decoder.frames_ok += 5
    counters.add("events", 3)
    assert counters.problem_total() == before
    for name in PROBLEM_COUNTERS:
        total = counters.problem_total()
        if hasattr(counters.decoder, name):
            setattr(counters.decoder, name, getattr(counters.decoder, name) + 1)
        else:
            counters.add(name)
        assert counters.problem_total() == total + 1, name


def test_the_link_logs_a_problem_counter_once_it_changes(caplog: pytest.LogCaptureFixture) -> None:
    """At every step the link looks for changed problem counters; a change is logged (at most
    once per log interval), nothing when nothing changed."""
    protocol = LinkProtocol("panel", 3, LinkConfig(log_interval_s=10.0), url="loop://")
    with caplog.at_level(logging.WARNING, logger="tablectl.link"):
        protocol.log_counters(100.0)
        assert not caplog.records
        protocol.stats.add("timeouts")
        protocol.log_counters(101.0)
        assert [r.getMessage() for r in caplog.records] == ["link panel (loop://): timeouts 1 (+1)"]
        protocol.stats.decoder.crc_errors += 2
        protocol.log_counters(105.0)  # within the interval: later
        assert len(caplog.records) == 1
        protocol.log_counters(112.0)
        assert caplog.records[-1].getMessage() == "link panel (loop://): crc_errors 2 (+2)"
        protocol.log_counters(200.0)
        assert len(caplog.records) == 2


def test_the_web_servers_loop_ticks_once_a_second_and_wakes_at_once_to_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    """uvicorn's own main loop wakes ten times a second; the view's wakes every TICK_S (1 s)
    with uvicorn's once-a-second work done each time, and a stop from another thread ends it
    at once, not at the next tick."""
    import uvicorn

    from controller.web import server as server_module

    ticks: list[int] = []

    class Counting(server_module._TickingServer):
        async def on_tick(self, counter: int) -> bool:
            ticks.append(counter)
            return self.should_exit

    assert server_module.TICK_S == 1.0
    server = Counting(uvicorn.Config(app=None))
    waits: list[float] = []
    real_wait_for = asyncio.wait_for

    async def recording_wait_for(what: Any, timeout: float) -> Any:
        waits.append(timeout)
        if len(waits) == 3:  # from another thread, while the loop sleeps out a tick of an hour
            threading.Thread(target=server.stop_now).start()
            return await real_wait_for(what, 3600)
        what.close()  # a tick passed
        raise TimeoutError

    async def main() -> None:
        await real_wait_for(server.main_loop(), STATE_TIMEOUT_S)

    monkeypatch.setattr(server_module.asyncio, "wait_for", recording_wait_for)
    asyncio.run(main())
    assert waits == [1.0, 1.0, 1.0]
    assert ticks == [0, 10, 20, 30]  # each tick a multiple of 10: uvicorn refreshes its Date header
    assert server.should_exit


def test_a_wakeup_set_by_a_signal_handler_ends_a_wait_with_no_timeout() -> None:
    """``tablectl web serve`` and a --manual bench sleep on a Wakeup with no timeout; a stop
    signal's handler sets it (a threading.Event set in a handler can deadlock)."""
    wake = Wakeup()
    old = signal.signal(signal.SIGUSR1, lambda *_: wake.set())
    try:
        assert not wake.wait(0) and not wake.is_set()
        sender = threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGUSR1))
        sender.start()
        assert wake.wait(STATE_TIMEOUT_S), "the handler's set did not end the wait"
        sender.join()
        wake.clear()
        assert not wake.is_set() and not wake.wait(0)
        threading.Thread(target=wake.set).start()
        assert wake.wait(STATE_TIMEOUT_S)  # from another thread too
    finally:
        signal.signal(signal.SIGUSR1, old)
        wake.close()
    wake.set()  # closed: only the flag, no error


def test_a_manual_bench_waits_for_a_round_or_a_signal_with_no_timeout() -> None:
    """The --manual bench's main thread sleeps until a round finishes or a stop signal comes,
    never waking to look (it woke twice a second)."""
    from hil.bench import StopSignals, _play

    class Recording:
        def __init__(self) -> None:
            self.waits: list[float | None] = []

        def wait(self, timeout: float | None = None) -> bool:
            self.waits.append(timeout)
            stop.received = "SIGINT" if len(self.waits) == 2 else None
            return True

        def clear(self) -> None:
            pass

    class View:
        def wait(self, *args: object) -> None:
            pass

    done = Recording()
    with StopSignals() as stop:
        _play(cast(Any, View()), cast(Any, None), lambda: 0, 5, None, True, stop, cast(Any, done), 0)
    assert done.waits == [None, None]
