"""A link does the same at every origin of its runner's clock: ``time.monotonic``'s reference
point is undefined and a bench's or the simulation's clock is injected, so a time below 0.0 is a
time as any other. "Due at once" and "never" are never written as 0.0 (or a time far back) on
that clock: a link whose clock read -128 s would wait for it to reach 0.0 before asking.

(Found by review: after the port opened, after an event came and after an event was journaled,
the link's next request was "due at 0.0", and the state request's pause "over at 0.0"; a link
woken from its idle pace kept its idle poll; the problem counters were never logged below -1e9 s.)"""

from __future__ import annotations

import logging

import pytest
from hil_helpers import link_timing

from drivers.framing import Decoder, MsgType, in_process
from drivers.link_events import Close, DeviceFault, Received, Send, Wait
from drivers.link_pace import LinkPace
from drivers.messages import DeviceEvent
from drivers.panel import ButtonChanged
from drivers.protocol import LinkProtocol
from hil.devices import PanelSim

REPLY_S = 2.0**-10
"""How long after a request its reply comes (a power of two: every time of the run is exact at
either origin, so the two runs are compared exactly)."""
CONFIG = link_timing(poll_s=0.0625, reply_s=0.125, retries=1, down_s=0.5, reconnect_s=(0.125, 1.0), idle_s=(0.5, 1.0))


def _state(bodies: list[bytes], at: float) -> DeviceEvent:
    """The panel's state read, as a driver reads it: here only how many parts it had."""
    return DeviceFault(device="panel", at=at, kind="state_read", error=f"{len(bodies)} parts")


def _run(origin: float, ack_when_journaled: bool) -> list[tuple[float, str, object]]:
    """A panel's link run for 6 s of its clock from ``origin``, jumping to each time it waits
    for or something happens: opened, its state read, presses at 0.5 s (two: the second drained
    at once) and 3.5 s (after the idle pace), each journaled as it comes when
    ``ack_when_journaled`` (else acknowledged as received), another link's event waking it from
    its idle pace at 2.75 s, the line pulled from 4 s to 5 s (found silent, closed, opened again
    after its pause). Each step's time from ``origin`` and what it did (the request's type, or
    the time it waits for from ``origin``)."""
    clock = [origin]
    seen: list[tuple[float, str, object]] = []
    with in_process():
        sim = PanelSim(address=3)
        sim.boot_id = 0x5EED0007
        sim.clock = lambda: clock[0]
        protocol = LinkProtocol("panel", 3, CONFIG, on_state=_state, url="x")
        protocol.ack_when_journaled = ack_when_journaled
        pace = LinkPace(protocol)
        pace.start(origin)
        protocol.opened(origin, 1, 1000.0)
        script = [0.5, 0.5, 2.75, 3.5, 6.0]  # presses, the wake, a press, the end
        reopen_at = None
        for _ in range(2000):
            now = clock[0]
            t = now - origin
            while t >= script[0]:
                if script[0] == 6.0:
                    return seen
                if script.pop(0) == 2.75:
                    seen.append((t, "woken", pace.wake(now)))
                else:
                    sim.emit(ButtonChanged, button=len(script), pressed=True)
            if reopen_at is not None:
                if now < reopen_at:
                    clock[0] = min(reopen_at, origin + script[0])
                    continue
                protocol.opened(now, 1, 1000.0)
                reopen_at = None
                seen.append((t, "opened", None))
            pace.turn(now)
            action, _ = protocol.step(now, 1000.0)
            if isinstance(action, Wait):
                seen.append((t, "Wait", action.until - origin))
                clock[0] = min(action.until, origin + script[0])
                continue
            if isinstance(action, Close):
                seen.append((t, "Close", None))
                reopen_at = now + protocol.reopen_pause()
                continue
            assert isinstance(action, Send)
            request = Decoder().feed(action.data)[0]
            seen.append((t, "Send", request.type))
            clock[0] = now + REPLY_S
            reply = None if 4.0 <= t < 5.0 else sim.reply_to(request)
            if reply is None:
                continue
            outputs = protocol.receive(reply, clock[0], 1000.0)
            for item in (o for o in outputs if isinstance(o, Received) and ack_when_journaled):
                protocol.carry(item)
                protocol.journaled(item)
    raise AssertionError("the run did not reach its end")


@pytest.mark.parametrize("ack_when_journaled", [True, False])
def test_a_link_on_a_clock_below_zero_does_what_it_does_from_zero(ack_when_journaled: bool) -> None:
    from_zero = _run(0.0, ack_when_journaled)
    assert _run(-128.0, ack_when_journaled) == from_zero
    done = [(what, kind) for _, what, kind in from_zero]
    assert done[:2] == [("Send", MsgType.STATE_REQ), ("Send", MsgType.POLL)]  # asked at once, both
    assert ("woken", True) in done and ("Close", None) in done and ("opened", None) in done
    assert sum(1 for what, kind in done if kind is MsgType.POLL) > 40


@pytest.mark.parametrize("origin", [0.0, -128.0])
def test_after_the_port_opens_the_state_and_a_poll_go_at_once(origin: float) -> None:
    """The link opened (again) at ``origin``, the state answered: the first step asks for the
    state and the next step polls, both at that time."""
    with in_process():
        sim = PanelSim(address=3)
        sim.clock = lambda: origin
        protocol = LinkProtocol("panel", 3, CONFIG, on_state=_state, url="x")
        protocol.opened(origin, 1, 1000.0)
        for kind in (MsgType.STATE_REQ, MsgType.POLL):
            action, _ = protocol.step(origin, 1000.0)
            assert isinstance(action, Send), action
            request = Decoder().feed(action.data)[0]
            assert request.type is kind
            reply = sim.reply_to(request)
            assert reply is not None
            protocol.receive(reply, origin, 1000.0)


def test_the_problem_counters_are_logged_whatever_the_clock_reads(caplog: pytest.LogCaptureFixture) -> None:
    protocol = LinkProtocol("panel", 3, CONFIG, url="x")
    protocol.stats.add("timeouts")
    with caplog.at_level(logging.WARNING, logger="tablectl.link"):
        protocol.log_counters(-1e10)
    assert "timeouts 1 (+1)" in caplog.text
