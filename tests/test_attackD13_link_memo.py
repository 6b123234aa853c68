"""A step with nothing due returns the wait before (``LinkProtocol.step``'s memo, issue 41 item
6) and gives what the full step gives at every value of the runner's clock: ``time.monotonic``'s
reference point is undefined and a runner's clock is injected, so a time below 0.0 is a time as
any other. The memo's "nothing kept" must never be read as "nothing due before then".

(Found by attacking the memo from outside: with the clock below 0.0 the first step failed on an
assertion, which a runner reports as its link thread failing, and a step after a command was
queued returned the wait before instead of sending it.)"""

from __future__ import annotations

import math
import queue
import random
import struct
from pathlib import Path

import pytest
from deadlines import wait_until
from hil_helpers import wait_for

from drivers.framing import Decoder, MsgType, encode_fields, in_process
from drivers.link import CommandResult
from drivers.link_events import Close, Deliver, DeviceFault, LinkConfig, Output, Received
from drivers.link_pace import LinkPace
from drivers.messages import DeviceEvent
from drivers.panel import ButtonChanged, PanelDriver
from drivers.protocol import LinkProtocol, Send
from drivers.state import PanelState
from hil.devices import PanelSim
from hil.serve import PtyServer

BOOT = 7
START = -0.5


def _run(full: bool) -> list[tuple[float, str, object]]:
    """A panel's link opened at :data:`START` and stepped every 10 ms for a second, each request
    answered 1 ms after it went out, a command queued at -0.3 s; ``full``: each step takes the
    full path (the memo cleared before it). Each step's time, action and what it sent."""
    config = LinkConfig(poll_interval_s=0.0625, response_timeout_s=0.125, link_down_s=1.0)
    protocol = LinkProtocol("panel", 3, config, url="x")
    protocol.opened(START, 100, 1000.0)
    seen: list[tuple[float, str, object]] = []
    for i in range(100):
        now = START + i * 0.01
        if i == 20:
            protocol.send_command("lamp", 9, b"\x01")
        if full:
            protocol._quiet = START - 1.0  # (before every time of the run: the full step)
        action, _ = protocol.step(now, 1000.0)
        if not isinstance(action, Send):
            seen.append((now, type(action).__name__, getattr(action, "until", None)))
            continue
        request = Decoder().feed(action.data)[0]
        seen.append((now, "Send", request.type))
        if request.type is MsgType.CMD:
            reply = encode_fields(3, 0, request.seq, MsgType.RESP, struct.pack(">IBBB", BOOT, 0, 9, 0))
        else:
            reply = encode_fields(3, 0, request.seq, MsgType.ACK, struct.pack(">II", BOOT, 100))
        protocol.receive(reply, now + 0.001, 1000.0)
    return seen


def test_a_step_below_a_clock_of_zero_gives_what_the_full_step_gives() -> None:
    fast = _run(False)  # (before: an AssertionError at the first step)
    assert fast == _run(True)
    assert (START + 20 * 0.01, "Send", MsgType.CMD) in fast  # the command out at the step after it was queued
    assert [s for s in fast if s[1] == "Send" and s[2] is MsgType.POLL]  # polled from the start


# --- the real loop: what the link is told from another thread while its step is remembered ---------------


def test_a_link_remembering_a_long_wait_serves_what_another_thread_asks_at_once(tmp_path: Path) -> None:
    """A panel's link on a real pty, in its loop's thread, its next poll an hour away (its step
    remembers that wait): a command queued and a state read asked from the test's thread go out
    at once, each answered long before the poll's time, and the link remembers its wait again
    between them (the memo is cleared and the loop woken, never left to the hour's end)."""
    q: queue.Queue = queue.Queue()
    hour = LinkConfig(poll_interval_s=3600.0, idle_poll_interval_s=3600.0, response_timeout_s=0.2, link_down_s=7200.0)
    with PtyServer(PanelSim(), link=tmp_path / "panel") as server:
        panel = PanelDriver("panel", str(server.link), q, address=3, config=hour)
        link = panel.link

        def remembering() -> bool:
            return link.protocol._quiet > link.clock() + 60.0  # the hour's wait kept

        try:
            panel.start()
            wait_for(q, lambda e: isinstance(e, PanelState))  # up, its state read: then nothing due for an hour
            wait_until(remembering, "the link remembering its wait for the next poll")
            panel.beep(50)
            result = wait_for(q, lambda e: isinstance(e, CommandResult) and e.command == "beep")
            assert result[-1].ok
            wait_until(remembering, "the link remembering its wait again")
            link.read_state_again()
            wait_for(q, lambda e: isinstance(e, PanelState))
            assert link.protocol.stats.as_dict()["frames_ok"] >= 3  # (the first poll, the command's, the states')
        finally:
            panel.close()


# --- the runner's clock going back, or on by a lot (a machine suspended and resumed) -----------------


def _watched(event: DeviceEvent) -> str | None:
    """The driver's watch: every state read is followed (read again after ``STATE_WATCH_S``)."""
    return "w" if isinstance(event, DeviceFault) and event.kind == "state_read" else None


def _state(bodies: list[bytes], at: float) -> DeviceEvent:
    return DeviceFault(device="panel", at=at, kind="state_read", error=f"{len(bodies)} parts")


def _moved(rng: random.Random, t: float) -> float:
    """The runner's clock after ``t``: mostly a few ms on, now and then back up to half a second
    or on by up to 20 s (a machine suspended and resumed)."""
    r = rng.random()
    if r < 0.02:
        return t - rng.random() * 0.5
    if r < 0.03:
        return t + rng.random() * 20.0
    return t + rng.choice((0.001, 0.01, 0.025, 0.0625)) if r < 0.5 else t


def _meddled(rng: random.Random, protocol: LinkProtocol, sim: PanelSim, connected: bool) -> bool:
    """Something happens at the device or is asked of the link, now and then: whether the line
    is connected after it."""
    r = rng.random()
    if r < 0.03:
        sim.emit(ButtonChanged, button=rng.randrange(1, 6), pressed=rng.random() < 0.5)
    elif r < 0.04:
        protocol.send_command("beep", 0x10, b"\x00\x32")
    elif r < 0.05:
        protocol.read_state_again()
    elif r < 0.06:
        return not connected
    elif r < 0.063:
        sim.boot_id += 1
    elif r < 0.066:
        sim.nak_states = rng.choice((1, 3))
    return connected


def _erratic(seed: int, full: bool) -> list[object]:
    """A panel's link stepped on a runner's clock that goes back and jumps on (:func:`_moved`);
    meanwhile presses, commands, state reads asked, the device's refusals and reboots, the line
    cut (:func:`_meddled`), replies that come late (after the steps of their wait) or not at all,
    events journaled or refused; ``full``: each step takes the full path. Everything it returned
    and produced, and its counters."""
    rng = random.Random(seed)
    seen: list[object] = []
    clock = [1000.0]
    config = LinkConfig(idle_after_s=0.3, idle_poll_interval_s=0.2, retries=1, link_down_s=0.5)
    with in_process():
        sim = PanelSim(address=3)
        sim.boot_id, sim.clock = 0x5EED0002, lambda: clock[0]
        protocol = LinkProtocol("panel", 3, config, on_state=_state, watch=_watched, url="x")
        protocol.ack_when_journaled = True
        pace = LinkPace(protocol)
        pace.start(clock[0])
        decoder, late, journal, connected = Decoder(), list[tuple[float, bytes]](), list[Received](), True

        def took(outputs: list[Output]) -> list[Output]:
            """``outputs`` as the driver takes them: events to journal, watches started."""
            for output in outputs:
                if isinstance(output, Received):
                    journal.append(output)
                elif isinstance(output, Deliver) and rng.random() < 0.5:
                    protocol.watch_event(output.item)
            return outputs

        seen.append(protocol.opened(clock[0], 5, clock[0]))
        for _ in range(1500):
            t = clock[0] = _moved(rng, clock[0])
            for item in journal:
                protocol.carry(item)
                seen.append(protocol.refused(item) if rng.random() < 0.1 else protocol.journaled(item))
            journal.clear()
            connected = _meddled(rng, protocol, sim, connected)
            seen.extend(took(protocol.receive(wire, t, t)) for due, wire in late if due <= t)
            late = [(due, wire) for due, wire in late if due > t]
            pace.turn(t)
            if full:
                protocol._quiet = -math.inf
            action, outputs = protocol.step(t, t)
            seen.append((t, action, took(outputs)))
            if isinstance(action, Close):
                seen.append((protocol.reopen_pause(), protocol.opened(t, rng.getrandbits(32), t)))
                decoder = Decoder()
            elif isinstance(action, Send) and connected and rng.random() < 0.9:
                for wire in filter(None, map(sim.reply_to, decoder.feed(action.data))):
                    if rng.random() < 0.3:
                        late.append((t + rng.random() * 0.3, wire))
                    else:
                        seen.append(took(protocol.receive(wire, t + 0.002, t + 0.002)))
        seen.append(protocol.stats.as_dict())
    return seen


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_runners_clock_going_back_or_jumping_on_steps_as_the_full_step_does(seed: int) -> None:
    fast = _erratic(seed, False)
    assert fast == _erratic(seed, True)
    counted = fast[-1]
    assert isinstance(counted, dict)
    assert counted["events"] and counted["link_downs"] and counted["timeouts"] and counted["naks"]
