"""A table's device links run in one thread (issue 45, item 7): :class:`drivers.link.LinkLoop`
waits in one ``select`` on the ports waiting for replies and the earliest deadline, so an idle
table wakes once a poll interval for all its devices, not once a device. What one device does
still harms only its own link: a gone device, a flooding one and one whose port takes nothing
leave the others' events and commands flowing. Real drivers, simulators on real ptys; no test
waits for a time, only for states (the cost itself: benchmarks/bench_idle.py)."""

from __future__ import annotations

import os
import queue
import random
import select
import selectors
import termios
import threading
import time
import tty
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from deadlines import STATE_TIMEOUT_S
from deadlines import wait_until as _until
from hil_helpers import link_timing, wait_for

from controller.configuration import config_dir, load_table
from controller.table.table_drivers import open_drivers
from drivers.bet_spots import BetSpotDriver
from drivers.framing import Frame, MsgType, encode
from drivers.link import COALESCE_S, CommandResult, Link, LinkConfig, LinkDown, LinkLoop, LinkUp, wake_after
from drivers.panel import ButtonChanged, PanelDriver
from drivers.shoe import ShoeDriver
from hil.devices import BetSpotSim, PanelSim, ShoeSim
from hil.serve import PtyServer

CONFIG = link_timing(
    poll_s=0.02,
    reply_s=0.2,
    retries=2,
    down_s=3.0,
    reconnect_s=(0.05, 0.2),
    write_timeout_s=3600.0,  # a port that takes nothing fails after an hour: never during the test
)


def _link_threads() -> list[str]:
    return sorted(t.name for t in threading.enumerate() if t.name == "links" or t.name.startswith("link-"))


def _up(q: queue.Queue, *devices: str) -> None:
    """Wait for each of ``devices``' links to come up (their ``LinkUp`` taken from ``q``)."""
    waiting = set(devices)

    def seen(event: object) -> bool:
        if isinstance(event, LinkUp):
            waiting.discard(event.device)
        return not waiting

    wait_for(q, seen)


def _panel_still_works(q: queue.Queue, sim: PanelSim, panel: PanelDriver) -> None:
    """The panel's events and commands go through (it shares the loop with the faulty links)."""
    sim.press("no_more_bets")
    wait_for(q, lambda e: isinstance(e, ButtonChanged) and e.button == "no_more_bets" and e.pressed)
    panel.beep(50)
    result = wait_for(q, lambda e: isinstance(e, CommandResult) and e.device == "panel" and e.command == "beep")
    assert result[-1].ok


def test_wake_after_serves_deadlines_that_can_share_a_wake_up_together() -> None:
    # three polls within 5 ms: one wake-up at the last of them, none served over its slack
    assert wake_after([(0.0, COALESCE_S), (0.003, COALESCE_S), (0.05, COALESCE_S)]) == 0.003
    assert wake_after([(0.001, COALESCE_S), (0.0, COALESCE_S), (0.004, COALESCE_S)]) == 0.004
    # a link with a small slack (2 ms polls: 0.5 ms) bounds the wait for the others
    assert wake_after([(0.01, 0.0005), (0.0104, COALESCE_S), (0.012, COALESCE_S)]) == 0.0104
    assert wake_after([(-1.0, COALESCE_S), (0.05, COALESCE_S)]) == 0.0  # overdue: at once
    assert wake_after([]) is None  # nothing due: the ports and a poke only


def test_each_links_counter_log_interval_is_its_devices_config(tmp_path: Path) -> None:
    """``log_interval_s`` of a device (how often its link's problem counters are logged) is that
    link's, whatever timing the links are given; a device that names none keeps 10 s."""
    table = load_table(config_dir() / "mississippi_stud.yaml")
    devices = {**table.devices, "panel": replace(table.devices["panel"], log_interval_s=0.5)}
    urls = {role: str(tmp_path / f"no-{role}") for role in devices}
    drivers = open_drivers(replace(table, devices=devices), queue.Queue(), urls, CONFIG)
    try:
        assert {role: d.link.protocol.config.log_interval_s for role, d in drivers.items()} == {
            "shoe": 10.0,
            "bet_spots": 10.0,
            "panel": 0.5,
        }
    finally:
        for driver in drivers.values():
            driver.close()


def test_a_tables_links_share_one_thread(tmp_path: Path) -> None:
    """The drivers a table opens run in one loop: one thread for the three devices, not three;
    the thread ends with the last link closed."""
    table = load_table(config_dir() / "mississippi_stud.yaml")
    q: queue.Queue = queue.Queue()
    sims = {"shoe": ShoeSim(), "bet_spots": BetSpotSim(), "panel": PanelSim(address=3)}
    with contextmanager_servers(sims, tmp_path) as urls:
        drivers = open_drivers(table, q, urls, CONFIG)
        before = _link_threads()
        try:
            for driver in drivers.values():
                driver.start()
            _up(q, *drivers)
            assert all(d.link.is_alive() for d in drivers.values())
            assert len({id(d.link.loop) for d in drivers.values()}) == 1
            assert _link_threads() == sorted([*before, "links"])
        finally:
            for driver in drivers.values():
                driver.close()
        assert _link_threads() == before
        assert not any(d.link.is_alive() for d in drivers.values())


@contextmanager
def contextmanager_servers(sims: dict, tmp_path: Path) -> Iterator[dict[str, str]]:
    servers = {role: PtyServer(sim, link=tmp_path / role) for role, sim in sims.items()}
    try:
        yield {role: server.start() for role, server in servers.items()}
    finally:
        for server in servers.values():
            server.close()


@contextmanager
def _flooding_device(address: int) -> Iterator[str]:
    """A pty whose device sends without pause and answers nothing: replies to no request (stale,
    well formed) between bursts of noise, as fast as the port takes them."""
    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    stop = threading.Event()
    rng = random.Random(45)
    burst = b"".join(
        encode(Frame(address, rng.randrange(1 << 32), 0, MsgType.ACK, bytes(8))) + rng.randbytes(40) for _ in range(50)
    )
    sent = [0]

    def flood() -> None:
        while not stop.is_set():
            if select.select([], [master], [], 0.05)[1]:
                try:
                    sent[0] += os.write(master, burst)
                except BlockingIOError:
                    continue
                except OSError:
                    return

    thread = threading.Thread(target=flood, name="test-flood", daemon=True)
    thread.start()
    try:
        yield os.ttyname(slave)
    finally:
        stop.set()
        thread.join(timeout=5)
        os.close(master)
        os.close(slave)


def test_a_gone_device_and_a_flooding_one_harm_only_their_own_links(tmp_path: Path) -> None:
    """Two faults at once on one loop: the shoe's device goes away (its port closed under the
    link, then missing: the link goes down and fails to open again) while the bet spots' floods
    its port; the panel's events and commands still go through, and each faulty link counts its
    own trouble."""
    q: queue.Queue = queue.Queue()
    loop = LinkLoop("links")
    panel_sim = PanelSim(address=3)
    with (
        PtyServer(panel_sim, link=tmp_path / "panel") as panel_server,
        PtyServer(ShoeSim(), link=tmp_path / "shoe") as shoe_server,
        _flooding_device(address=2) as flood_path,
    ):
        panel = PanelDriver("panel", str(panel_server.link), q, address=3, config=CONFIG)
        shoe = ShoeDriver("shoe", str(shoe_server.link), q, address=1, config=CONFIG)
        spots = BetSpotDriver("bet_spots", flood_path, q, address=2, config=CONFIG)
        drivers = (panel, shoe, spots)
        for driver in drivers:
            driver.link.loop = loop
        try:
            for driver in drivers:
                driver.start()
            _up(q, "panel", "shoe")
            assert _link_threads() == ["links"]
            downs = shoe.link.stats.link_downs
            shoe_server.close()  # the shoe's device is gone, and its port with it
            _until(lambda: shoe.link.stats.link_downs > downs and not shoe.link.up, "the shoe's link down")
            opened = shoe.link.stats.reconnects
            noise = spots.link.stats.decoder.garbage_bytes
            _panel_still_works(q, panel_sim, panel)
            _until(lambda: spots.link.stats.decoder.garbage_bytes > noise + 10_000, "the flood read and counted")
            _panel_still_works(q, panel_sim, panel)
            assert not spots.link.up and not shoe.link.up and panel.link.up
            _until(lambda: shoe.link.stats.reconnects > opened, "the shoe's link trying again")  # on its backoff
            assert not shoe.link.up
        finally:
            for driver in drivers:
                driver.close()
    assert not loop.is_alive()


def test_a_port_that_takes_nothing_never_blocks_the_loop(tmp_path: Path) -> None:
    """A device that takes nothing (its port's output suspended, ``tcflow(TCOOFF)``; a write
    timeout of an hour): the link's first request waits for room on the port, not in a blocking
    write, and the panel on the same loop goes on; closing the stuck link ends it at once."""
    q: queue.Queue = queue.Queue()
    loop = LinkLoop("links")
    panel_sim = PanelSim(address=3)
    master, slave = os.openpty()
    tty.setraw(slave)
    termios.tcflow(slave, termios.TCOOFF)  # the port takes nothing from whoever opens it
    try:
        with PtyServer(panel_sim, link=tmp_path / "panel") as panel_server:
            panel = PanelDriver("panel", str(panel_server.link), q, address=3, config=CONFIG)
            stuck = ShoeDriver("shoe", os.ttyname(slave), q, address=1, config=CONFIG)
            for driver in (panel, stuck):
                driver.link.loop = loop
            try:
                stuck.start()
                _until(lambda: stuck.link._pending is not None, "the first request waiting for room")
                panel.start()
                _up(q, "panel")
                _panel_still_works(q, panel_sim, panel)
                assert stuck.link._pending is not None and not stuck.link.up  # still waiting for room
            finally:
                panel.close()
                stuck.close()
        assert not loop.is_alive()
    finally:
        os.close(master)
        os.close(slave)


class _JumpClock:
    """``time.monotonic`` moved on by ``moved`` seconds: the links' idleness is measured on it, so
    a test makes a table idle for as long as it likes without waiting for it."""

    def __init__(self) -> None:
        self.moved = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.moved


IDLE_CONFIG = replace(
    CONFIG,
    idle_poll_interval_s=0.5,
    idle_after_s=1000.0,  # never reached by real time during the test: only the clock's jumps reach it
    link_down_s=1e6,  # the jumps never make a link silent for this long
    write_timeout_s=LinkConfig().write_timeout_s,
)


def test_an_idle_tables_links_poll_slower_and_any_event_or_command_brings_every_link_back(tmp_path: Path) -> None:
    """A table whose links have passed nothing but polls and empty answers for ``idle_after_s``
    polls every ``idle_poll_interval_s`` (docs/protocol.md, section 4.1); a press on the panel
    brings all three links back to their poll interval, not the panel's alone (the event order
    waits for every device's report), and so does a command."""
    table = load_table(config_dir() / "mississippi_stud.yaml")
    q: queue.Queue = queue.Queue()
    panel_sim = PanelSim(address=3)
    sims = {"shoe": ShoeSim(), "bet_spots": BetSpotSim(), "panel": panel_sim}
    clock = _JumpClock()
    fast, idle = table.devices["panel"].poll_interval_s, IDLE_CONFIG.idle_poll_interval_s
    assert fast < idle

    def paced(seconds: float) -> bool:
        return all(d.link.protocol.poll_interval_s == seconds for d in drivers.values())

    def idle_now() -> None:
        clock.moved += IDLE_CONFIG.idle_after_s + 1
        _until(lambda: paced(idle), "every link polling at the idle pace")

    with contextmanager_servers(sims, tmp_path) as urls:
        drivers = open_drivers(table, q, urls, IDLE_CONFIG)
        for driver in drivers.values():
            driver.link.clock = clock
        panel = drivers["panel"]
        assert isinstance(panel, PanelDriver)
        try:
            for driver in drivers.values():
                driver.start()
            _up(q, *drivers)
            assert paced(fast)  # a table just opened is not idle
            idle_now()
            panel_sim.press("no_more_bets")
            wait_for(q, lambda e: isinstance(e, ButtonChanged) and e.button == "no_more_bets" and e.pressed)
            _until(lambda: paced(fast), "every link back at its poll interval after the press")
            idle_now()
            panel.beep(50)
            wait_for(q, lambda e: isinstance(e, CommandResult) and e.command == "beep")
            _until(lambda: paced(fast), "every link back at its poll interval after the command")
            assert all(d.link.up for d in drivers.values())
        finally:
            for driver in drivers.values():
                driver.close()


def test_a_poke_to_a_link_that_cannot_send_now_lets_the_loop_sleep(tmp_path: Path) -> None:
    """A command queued (or every link brought back from the idle pace) for a link whose port is
    closed until its backoff ends, or that waits for room on its port: the loop serves the poke
    once and sleeps again until the reopening or the room, rather than serving it at every pass
    (a loop spinning a core for as long)."""
    q: queue.Queue = queue.Queue()
    loop = LinkLoop("links")
    closed = LinkConfig(reconnect_min_s=1e6, reconnect_max_s=1e6)  # down: reopened in 11 days
    master, slave = os.openpty()
    tty.setraw(slave)
    termios.tcflow(slave, termios.TCOOFF)  # the port takes nothing from whoever opens it
    try:
        gone = ShoeDriver("shoe", str(tmp_path / "no-such-port"), q, address=1, config=closed)
        stuck = ShoeDriver("bet_spots", os.ttyname(slave), q, address=2, config=CONFIG)
        for driver in (gone, stuck):
            driver.link.loop = loop
        try:
            gone.start()
            stuck.start()
            _until(lambda: gone.link._reopen_at is not None, "the gone port closed until its backoff ends")
            _until(lambda: stuck.link._pending is not None, "the first request waiting for room")
            for link in (gone.link, stuck.link):
                link.send_command("shuffle", 0x01)
                _until(lambda link=link: not link._poked, f"the loop done with the poke of {link.name}")
            assert gone.link._reopen_at is not None and stuck.link._pending is not None
        finally:
            gone.close()
            stuck.close()
    finally:
        os.close(master)
        os.close(slave)


def _drain(q: queue.Queue) -> list[object]:
    """Everything delivered so far."""
    out = []
    while True:
        try:
            out.append(q.get_nowait())
        except queue.Empty:
            return out


def _serve_by_hand(link: Link, state: Callable[[], bool], what: str) -> None:
    """Serve ``link`` from this thread, as its loop would, until ``state`` (no loop runs it)."""
    deadline = time.monotonic() + STATE_TIMEOUT_S
    while not state():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        interest = link._interest()
        wait = min(max(0.0, link._due - link.clock()), 0.05)
        ready = 0
        if interest is None:
            select.select([], [], [], wait)
        else:
            _, fd, events = interest
            reads, writes, _ = select.select(
                [fd] if events & selectors.EVENT_READ else [], [fd] if events & selectors.EVENT_WRITE else [], [], wait
            )
            ready = (selectors.EVENT_READ if reads else 0) | (selectors.EVENT_WRITE if writes else 0)
        link._turn(ready)


@dataclass(frozen=True)
class _HandServed:
    """A shoe's link served by hand (no loop runs it) on a clock the test moves on: ``events``
    is what the driver delivered."""

    driver: ShoeDriver
    clock: _JumpClock
    events: queue.Queue

    @property
    def link(self) -> Link:
        return self.driver.link

    def went_down(self) -> bool:
        """Whether the link is down, or went down and came back."""
        return not self.link.up or any(isinstance(e, LinkDown) for e in _drain(self.events))


@contextmanager
def _shoe_between_requests(tmp_path: Path) -> Iterator[_HandServed]:
    """A shoe's link on a :class:`_JumpClock`, served by hand until it is up and between
    requests (nothing out, no reply being gathered): where a controller stalls."""
    q: queue.Queue = queue.Queue()
    with contextmanager_servers({"shoe": ShoeSim()}, tmp_path) as urls:
        served = _HandServed(ShoeDriver("shoe", urls["shoe"], q, address=1, config=CONFIG), _JumpClock(), q)
        link = served.link
        link.clock = served.clock
        try:
            _serve_by_hand(link, lambda: link.up, "the link up")
            exchange = link.protocol._exchange
            _serve_by_hand(link, lambda: exchange.out is None and not link._gathering, "the link between requests")
            yield served
        finally:
            link._close_port()


def reply_waiting_on_port(served: _HandServed) -> None:
    """A command sent by ``served``'s driver, its reply then waited for on the port, and the
    device's answer there (not yet read by the link)."""
    link, exchange = served.link, served.link.protocol._exchange
    served.driver.request_status()  # a command: sent at once, its reply then waited for on the port
    _serve_by_hand(
        link,
        lambda: exchange.out is not None and exchange.out.command is not None and link._reading,
        "the command out, its reply waited for on the port",
    )
    transport = link._transport
    assert transport is not None and transport.descriptor is not None
    readable, _, _ = select.select([transport.descriptor], [], [], STATE_TIMEOUT_S)
    assert readable, "the device never answered"


def test_a_reply_that_came_while_the_controller_stalled_is_read_before_its_request_counts_unanswered(
    tmp_path: Path,
) -> None:
    """The controller itself stalls (a loaded machine) with a request out; the device answers
    meanwhile. Served again for the request's deadline, long after it and after ``link_down_s``
    since the last answer, the link reads the reply waiting on its port first: it stays up (it
    went down, "no reply", though the device had answered and the only silence was the
    controller's: found from outside, every link of an idle table down after a 0.85 s stall)."""
    with _shoe_between_requests(tmp_path) as served:
        link = served.link
        reply_waiting_on_port(served)
        served.clock.moved += CONFIG.link_down_s + 1  # the controller was away past every deadline
        link._turn(0)  # served for its deadline alone, as the loop serves it after the stall
        assert not served.went_down()


def test_a_request_sent_after_the_controller_stalled_has_its_response_time(tmp_path: Path) -> None:
    """The controller itself stalls (a loaded machine) with nothing out, for longer than
    ``link_down_s`` since the device's last answer. The first request it sends then has its whole
    response time: the device answers and the link stays up (it went down at once, "no reply",
    with a deadline already past when the request was sent: found from outside, an idle table's
    links polled every 0.2 s all went down after a 0.85 s stall)."""
    with _shoe_between_requests(tmp_path) as served:
        link, exchange = served.link, served.link.protocol._exchange
        before = exchange.last_good
        served.clock.moved += CONFIG.link_down_s + 1  # the controller was away, nothing out
        _serve_by_hand(
            link, lambda: not link.up or exchange.last_good > before, "an answer after the stall, or a link down"
        )
        assert not served.went_down()


def _pause_after_port_error(link: Link, clock: _JumpClock) -> float:
    """Serve ``link`` (its device gone) until its port is closed for a backoff: the pause."""
    _serve_by_hand(link, lambda: link._reopen_at is not None, "the port closed until the backoff ends")
    assert link._reopen_at is not None
    return round(link._reopen_at - clock(), 3)


def _pulled_until_the_ceiling(server: PtyServer, link: Link, clock: _JumpClock, port: Path) -> list[float]:
    """Pull the cable of ``link``'s device (its port fails, then will not open) and serve the link
    by hand, moving ``clock`` past each pause, until its backoff reaches the ceiling: the pauses."""
    server.disconnect()
    port.unlink()  # (never a pty of another process given the old number meanwhile)
    pauses = [_pause_after_port_error(link, clock)]
    while pauses[-1] < link.config.reconnect_max_s:
        clock.moved += link._due - clock()  # the pause is over: the port is tried again
        link._turn(0)
        pauses.append(_pause_after_port_error(link, clock))
    return pauses


def test_the_reconnect_backoff_starts_again_from_its_first_pause_once_the_link_is_healthy(tmp_path: Path) -> None:
    """A long cable pull takes the reconnect backoff to its ceiling; the link comes back and
    exchanges again. A later short pull is tried again after the first pause, not the ceiling's
    (found from outside: the pause was reset only when the link went down by silence, never after
    a port error recovered, so every outage after one long pull waited the full 5 s). The clock
    is the link's own, moved on by the test: no sleep, no elapsed time."""
    q: queue.Queue = queue.Queue()
    clock = _JumpClock()
    first, ceiling = CONFIG.reconnect_min_s, CONFIG.reconnect_max_s
    server = PtyServer(ShoeSim(), link=tmp_path / "shoe")
    try:
        driver = ShoeDriver("shoe", server.start(), q, address=1, config=CONFIG)
        link = driver.link
        link.clock = clock
        try:
            _serve_by_hand(link, lambda: link.up, "the link up")
            pauses = _pulled_until_the_ceiling(server, link, clock, tmp_path / "shoe")
            assert pauses[0] == first and pauses[-1] == ceiling
            server.reconnect()  # the cable back
            clock.moved += link._due - clock()
            before = link.protocol._exchange.last_good
            _serve_by_hand(
                link, lambda: link.up and link.protocol._exchange.last_good > before, "the link up and exchanging"
            )
            server.disconnect()  # the short pull
            (tmp_path / "shoe").unlink()
            assert _pause_after_port_error(link, clock) == first
        finally:
            link.close()
    finally:
        server.close()


def test_a_link_started_again_backs_off_from_its_first_pause(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A link whose device is gone has backed off to the ceiling; it is closed (the table stopped)
    and started again in a loop, its device still gone. Its first pause is the first again, not the
    ceiling it had (``LinkLoop.add`` started a link's backoff afresh until the backoff moved into
    the protocol; since, a link closed and started again kept its last pause until its first good
    reply). The pauses are the protocol's, noted as they are taken: no sleep, no elapsed time."""
    q: queue.Queue = queue.Queue()
    clock = _JumpClock()
    server = PtyServer(ShoeSim(), link=tmp_path / "shoe")
    try:
        link = ShoeDriver("shoe", server.start(), q, address=1, config=CONFIG).link
        link.clock = clock
        try:
            _serve_by_hand(link, lambda: link.up, "the link up")
            assert _pulled_until_the_ceiling(server, link, clock, tmp_path / "shoe")[-1] == CONFIG.reconnect_max_s
            link.close()  # the table stopped
            taken: list[float] = []
            pause = link.protocol.reopen_pause

            def noted() -> float:
                taken.append(pause())
                return taken[-1]

            monkeypatch.setattr(link.protocol, "reopen_pause", noted)
            link.loop = LinkLoop("restarted")
            link.start()  # the table started again: the port is tried at once, and fails
            _until(lambda: bool(taken), "the port tried again and closed for a pause")
            link.close()
            assert taken[0] == CONFIG.reconnect_min_s
        finally:
            link.close()
    finally:
        server.close()
