"""Hardware-in-the-loop: the real drivers against simulated devices over real ptys and sockets."""

from __future__ import annotations

import os
import queue
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest
from deadlines import STATE_TIMEOUT_S
from hil_helpers import collect_event_numbers, collect_events, of, wait_for

from drivers import registry
from drivers.bet_spots import BetSpotDriver, SpotFault, SpotReport
from drivers.framing import Decoder, Frame, MsgType, encode
from drivers.link import CommandResult, DeviceFault, LinkConfig, LinkDown, LinkUp
from drivers.messages import BUTTONS
from drivers.panel import ButtonChanged, PanelDriver
from drivers.registry import DriverNotAvailable, driver_class
from drivers.shoe import (
    CardDealt,
    CardUnreadable,
    DeckCheck,
    DoorChanged,
    Jam,
    SelfTest,
    ShoeStatus,
    ShuffleComplete,
    ShuffleStarted,
)
from drivers.transport import Transport, TransportError
from hil.devices import BetSpotSim, PanelSim, ShoeSim
from hil.faults import Faults
from hil.serve import PtyServer, SocketServer

FAST = LinkConfig(
    poll_interval_s=0.01, response_timeout_s=0.05, retries=3, link_down_s=1.0, reconnect_min_s=0.05, reconnect_max_s=0.2
)


@contextmanager
def served(sim, transport: str, faults: Faults | None = None, link: Path | None = None) -> Iterator:
    server = PtyServer(sim, faults, link) if transport == "pty" else SocketServer(sim, faults)
    url = server.start()
    try:
        yield server, url
    finally:
        server.close()


@contextmanager
def spots_served(
    sim: BetSpotSim, q: queue.Queue, transport: str = "pty", link: Path | None = None
) -> Iterator[tuple[PtyServer | SocketServer, BetSpotDriver]]:
    """The bet spots ``sim`` (address 2) served over ``transport``, their driver's events into ``q``."""
    with (
        served(sim, transport, link=link) as (server, url),
        BetSpotDriver("spots", url, q, address=2, config=FAST) as spots,
    ):
        yield server, spots


@contextmanager
def panel_served(
    sim: PanelSim,
    q: queue.Queue,
    transport: str = "pty",
    faults: Faults | None = None,
    link: Path | None = None,
    config: LinkConfig = FAST,
) -> Iterator[tuple[PtyServer | SocketServer, PanelDriver]]:
    """The panel ``sim`` (address 3) served over ``transport``, its driver's events into ``q``."""
    with (
        served(sim, transport, faults, link) as (server, url),
        PanelDriver("panel", url, q, address=3, config=config) as panel,
    ):
        yield server, panel


TRANSPORTS = ["pty", "socket"]


# --- conformance, per device class and transport --------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_shoe_events_and_commands(transport: str) -> None:
    q: queue.Queue = queue.Queue()
    sim = ShoeSim(["As", "Kd", "JK"])
    with served(sim, transport) as (_, url), driver_class("shoe")("shoe", url, q, config=FAST) as shoe:
        wait_for(q, of(LinkUp))
        sim.deal(2)
        sim.unreadable()
        sim.duplicate()
        sim.jam()
        sim.door(True)
        sim.self_test()
        events = wait_for(q, of(SelfTest))
        dealt = [e for e in events if isinstance(e, CardDealt)]
        assert [(e.card, e.index) for e in dealt] == [("As", 1), ("Kd", 2), ("Kd", 4)]
        assert any(isinstance(e, CardUnreadable) and e.index == 3 for e in events)
        assert any(isinstance(e, Jam) for e in events) and any(isinstance(e, DoorChanged) and e.open for e in events)
        assert events[-1].firmware == "sim-shoe 1.0" and events[-1].ok
        assert [e.event_no for e in events if e.event_no] == list(range(1, 8))
        shoe.configure_deck(53)
        shoe.start_shuffle()
        events = wait_for(q, of(DeckCheck))
        assert [type(e) for e in events if not isinstance(e, CommandResult)][-3:] == [
            ShuffleStarted,
            ShuffleComplete,
            DeckCheck,
        ]
        assert events[-1].count == 53 and events[-1].ok
        assert [e.command for e in events if isinstance(e, CommandResult) and e.ok] == [
            "configure_deck",
            "start_shuffle",
        ]
        shoe.request_status()
        status = wait_for(q, of(ShoeStatus))[-1]
        assert (status.stub_count, status.deck_size) == (3, 53)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_bet_spot_events_and_commands(transport: str) -> None:
    q: queue.Queue = queue.Queue()
    sim = BetSpotSim(address=2)
    with spots_served(sim, q, transport) as (_, spots):
        sim.place(3, "ante", 500)
        sim.place(3, "bonus", 0)
        sim.fault(4, "ante", 2)
        events = wait_for(q, of(SpotFault))
        assert [(e.seat, e.spot, e.cents) for e in events if isinstance(e, SpotReport)] == [
            (3, "ante", 500),
            (3, "bonus", 0),
        ]
        assert (events[-1].seat, events[-1].spot, events[-1].code) == (4, "ante", 2)
        spots.set_lamp(3, "ante", "accepted")
        spots.lock()
        wait_for(q, lambda e: isinstance(e, CommandResult) and e.command == "lock")
        assert sim.lamps == {(3, "ante"): "accepted"} and sim.locked


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_panel_events_and_commands(transport: str) -> None:
    q: queue.Queue = queue.Queue()
    sim = PanelSim(address=3)
    with panel_served(sim, q, transport) as (_, panel):
        sim.press("no_more_bets")
        sim.press("supervisor_key")
        events = [
            e
            for e in wait_for(
                q, lambda e: isinstance(e, ButtonChanged) and e.button == "supervisor_key" and not e.pressed
            )
            if isinstance(e, ButtonChanged)
        ]
        assert [(e.button, e.pressed) for e in events] == [
            ("no_more_bets", True),
            ("no_more_bets", False),
            ("supervisor_key", True),
            ("supervisor_key", False),
        ]
        panel.display(1, "Place your bets")
        panel.lamp("deal", True)
        panel.beep(50)
        wait_for(q, lambda e: isinstance(e, CommandResult) and e.command == "beep")
        assert sim.display == {1: "Place your bets"} and sim.lamps == {2: True} and sim.beeps == 1


@pytest.mark.parametrize("url_kind", ["loop", "pty", "socket"])
def test_frames_cross_every_transport(url_kind: str, tmp_path: Path) -> None:
    """Transport conformance: frames written come back whole through an echoing peer."""
    frames = [Frame(1, n, n, MsgType.EVENT, bytes(range(n, n + 30))) for n in range(20)]
    closers: list[Callable[[], None]] = []
    if url_kind == "loop":
        url = "loop://"
    elif url_kind == "pty":
        master, slave = os.openpty()
        import threading
        import tty

        tty.setraw(slave)
        url = os.ttyname(slave)
        stop = threading.Event()

        def echo() -> None:
            import select

            while not stop.is_set():
                if select.select([master], [], [], 0.02)[0]:
                    os.write(master, os.read(master, 4096))

        t = threading.Thread(target=echo)
        t.start()
        closers += [lambda: (stop.set(), t.join()), lambda: os.close(master), lambda: os.close(slave)]
    else:
        import socket
        import threading

        listener = socket.create_server(("127.0.0.1", 0))
        url = f"socket://127.0.0.1:{listener.getsockname()[1]}"

        def serve() -> None:
            conn, _ = listener.accept()
            with conn:
                while data := conn.recv(4096):
                    conn.sendall(data)

        t = threading.Thread(target=serve)
        t.start()
        closers += [lambda: t.join(timeout=5), listener.close]
    port = Transport(url)
    try:
        port.write(b"".join(encode(f) for f in frames))
        decoder, got = Decoder(), []
        deadline = time.monotonic() + STATE_TIMEOUT_S
        while len(got) < len(frames) and time.monotonic() < deadline:
            got += decoder.feed(port.read())
        assert got == frames
    finally:
        port.close()
        for close in closers:
            close()


def test_bad_port_is_a_transport_error_naming_it() -> None:
    with pytest.raises(TransportError, match="cannot open port /nonexistent/tty: No such file or directory"):
        Transport("/nonexistent/tty")


def test_unknown_driver_name() -> None:
    with pytest.raises(DriverNotAvailable, match="no driver 'acme'"):
        driver_class("acme")


def test_a_driver_name_for_something_not_a_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.DRIVERS, "acme", "drivers.link:LinkConfig")
    with pytest.raises(DriverNotAvailable, match=r"driver 'acme' \(drivers.link:LinkConfig\) is not a driver class"):
        driver_class("acme")


# --- exactly once ---------------------------------------------------------------------------------


def test_every_event_exactly_once_through_faults_and_reboots(tmp_path: Path) -> None:
    total, batch = 10_000, 200
    q: queue.Queue = queue.Queue()
    sim = PanelSim(address=3, state_file=tmp_path / "panel.json")
    faults = Faults(flip=0.02, drop=0.02, duplicate=0.01, seed=7)
    config = replace(FAST, poll_interval_s=0.005, response_timeout_s=0.02, retries=5, link_down_s=3.0)
    received: list[ButtonChanged] = []
    sent: list[tuple[str, bool]] = []
    resets: list[DeviceFault] = []
    reboots = {total // 3, 2 * total // 3}
    with panel_served(sim, q, faults=faults, config=config) as (_, panel):
        emitted = 0
        while emitted < total:
            for _n in range(batch):
                sim.emit(ButtonChanged, button=1 + emitted % 18, pressed=emitted % 2 == 0)
                sent.append((BUTTONS[emitted % 18], emitted % 2 == 0))
                emitted += 1
                if emitted in reboots:
                    sim.reboot()
            got = collect_events(q, ButtonChanged, emitted - len(received), also=resets, other=DeviceFault)
            received += got
        assert panel.stats.resets == 2
    # Event numbers start over at each boot; the events themselves arrive once each, in order.
    assert [(e.button, e.pressed) for e in received] == sent
    numbers = [e.event_no for e in received]
    assert numbers == [*range(1, total // 3 + 1), *range(1, total // 3 + 1), *range(1, total - 2 * (total // 3) + 1)]
    assert [f.kind for f in resets if f.kind.startswith("events")] == ["events_reset", "events_reset"]
    assert faults.injected["flip"] > 50 and faults.injected["drop"] > 50 and faults.injected["duplicate"] > 20


def test_reboot_is_reported_and_unacknowledged_events_survive_it(tmp_path: Path) -> None:
    q: queue.Queue = queue.Queue()
    sim = ShoeSim(["As", "Kd", "Qh"], state_file=tmp_path / "shoe.json")
    with served(sim, "pty", link=tmp_path / "ttySHOE") as (server, url), fast_shoe("shoe", url, q) as _driver:
        wait_for(q, of(LinkUp))
        first_boot = sim.boot_id
        sim.deal(1)
        wait_for(q, of(CardDealt))
        server.disconnect()  # the second card is made, then the power goes before it is sent
        sim.deal(1)
        sim.reboot()
        server.reconnect()
        assert sim.boot_id != first_boot
        events = wait_for(q, lambda e: isinstance(e, CardDealt) and e.card == "Kd")
        ups = [e for e in events if isinstance(e, LinkUp)]
        assert ups and ups[-1].rebooted and ups[-1].boot_id == sim.boot_id
        assert events[-1].event_no == 2  # numbered by the boot that made it
        sim.deal(1)  # the new boot numbers from 1: a reset the journal sees, and no event lost
        events = wait_for(q, of(CardDealt))
        assert (events[-1].card, events[-1].event_no) == ("Qh", 1)
        assert any(isinstance(e, DeviceFault) and e.kind == "events_reset" for e in events)


def fast_shoe(*args, **kwargs):  # type: ignore[no-untyped-def]
    """The shoe driver with the fast test timing."""
    return driver_class("shoe")(*args, config=FAST, **kwargs)


# --- link supervision -------------------------------------------------------------------------------


class JumpClock:
    """``time.monotonic`` moved on by ``moved`` seconds: the link's silence is measured on it, so a
    test makes the device silent for as long as it likes without waiting for it."""

    def __init__(self) -> None:
        self.moved = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.moved


def test_link_down_when_the_silence_reaches_link_down_s_and_not_before() -> None:
    q: queue.Queue = queue.Queue()
    sim = PanelSim(address=3)
    faults = Faults()
    config = LinkConfig(
        poll_interval_s=0.05,
        response_timeout_s=0.05,
        retries=10,
        link_down_s=1000.0,  # never reached by real time during the test: only the clock's jumps reach it
        reconnect_min_s=0.05,
        reconnect_max_s=0.1,
    )
    clock = JumpClock()
    with served(sim, "pty", faults) as (_, url):
        panel = PanelDriver("panel", url, q, address=3, config=config)
        panel.link.clock = clock
        with panel:
            wait_for(q, of(LinkUp))
            faults.drop_in = 1.0  # the device goes silent
            # Wait for the silence to have begun before the clock jumps: a reply still in flight
            # would otherwise be stamped with the jumped clock and restart the silence there.
            started = panel.link.stats.timeouts + 2
            deadline = time.monotonic() + STATE_TIMEOUT_S
            while panel.link.stats.timeouts < started and time.monotonic() < deadline:
                time.sleep(0.01)
            assert panel.link.stats.timeouts >= started, "the device did not go silent"
            clock.moved = config.link_down_s - 100  # silent for 900 s of the 1000
            unanswered = panel.link.stats.timeouts + 5
            deadline = time.monotonic() + STATE_TIMEOUT_S
            while panel.link.stats.timeouts < unanswered and time.monotonic() < deadline:
                time.sleep(0.01)
            assert panel.link.stats.timeouts >= unanswered, "the silent device was not asked again"
            seen = []
            while not q.empty():
                seen.append(q.get())
            assert not [e for e in seen if isinstance(e, LinkDown)], "link down before link_down_s of silence"
            clock.moved = config.link_down_s + 1  # now silent for longer than link_down_s
            at_jump = panel.link.stats.timeouts
            wait_for(q, of(LinkDown))
            # Declared at the first request left unanswered after the silence passed link_down_s.
            assert panel.link.stats.timeouts <= at_jump + 2
            faults.drop_in = 0.0
            wait_for(q, of(LinkUp))
            assert panel.stats.link_downs == 1 and panel.stats.timeouts > 0


def test_reconnect_after_the_pty_closes_and_a_new_one_opens(tmp_path: Path) -> None:
    q: queue.Queue = queue.Queue()
    sim = PanelSim(address=3)
    link = tmp_path / "ttyPANEL"  # the name the driver opens, a symlink to the pty of the day
    with panel_served(sim, q, link=link) as (server, panel):
        wait_for(q, of(LinkUp))
        server.disconnect()
        wait_for(q, of(LinkDown))
        server.reconnect()
        assert Path(os.readlink(link)) == Path(server.path)  # the symlink follows the new pty
        wait_for(q, of(LinkUp))
        sim.press("deal")
        assert wait_for(q, of(ButtonChanged))[-1].button == "deal"
        assert panel.stats.reconnects >= 1


def test_a_bad_event_is_a_fault_and_the_link_keeps_going() -> None:
    q: queue.Queue = queue.Queue()
    sim = PanelSim(address=3)
    with panel_served(sim, q, "socket"):
        sim.emit_raw(0x40, b"\x63\x01")  # button id 99
        sim.emit_raw(0x77, b"")  # unknown code
        sim.emit_raw(0x40, b"\x01")  # body cut short
        sim.press("fold")
        events = wait_for(q, lambda e: isinstance(e, ButtonChanged))
        faults = [e.error for e in events if isinstance(e, DeviceFault)]
        assert any("event 1" in f and "unknown button id 99" in f for f in faults)
        assert any("event 2: unknown event code 119" in f for f in faults)
        assert any("event 3" in f and "too short" in f for f in faults)
        assert events[-1].button == "fold"


def test_a_failing_link_thread_reports_a_fault_and_is_restarted(monkeypatch) -> None:
    q: queue.Queue = queue.Queue()
    sim = PanelSim(address=3)
    with panel_served(sim, q) as (_, panel):
        wait_for(q, of(LinkUp))
        real = panel.link.protocol._handle
        calls = {"n": 0}

        def explode(reply, command):  # type: ignore[no-untyped-def]
            calls["n"] += 1
            if calls["n"] == 1:
                raise RuntimeError("readiness to read but returned no data")
            return real(reply, command)

        monkeypatch.setattr(panel.link.protocol, "_handle", explode)
        events = wait_for(q, lambda e: isinstance(e, LinkUp))
        fault = next(e for e in events if isinstance(e, DeviceFault))
        assert "link thread: RuntimeError: readiness to read but returned no data" in fault.error
        sim.press("next")
        assert wait_for(q, of(ButtonChanged))[-1].button == "next"


def test_split_frames_leading_garbage_and_delayed_replies(tmp_path: Path) -> None:
    q: queue.Queue = queue.Queue()
    sim = PanelSim(address=3)
    faults = Faults(split=0.3, garbage=0.3, delay_s=0.002, seed=3)
    with panel_served(sim, q, faults=faults) as (_, panel):
        for i in range(200):
            sim.emit(ButtonChanged, button=1 + i % 18, pressed=True)
        assert collect_event_numbers(q, ButtonChanged, 200) == list(range(1, 201))
        assert faults.injected["split"] > 20 and faults.injected["garbage"] > 20
        assert panel.stats.resyncs > 0  # garbage before a frame is dropped at the next delimiter
