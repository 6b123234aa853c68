"""The link's requests at the ``link_down_s`` boundary (docs/protocol.md, 4.3 and 4.7), the pure
protocol driven by an injected clock: a device silent since its last good answer gets each request
with a response time still ahead of it, and the link goes down when ``link_down_s`` has passed,
never a burst of requests already late at that instant.

(Found by ``tablectl simulate``: at ``now - last_good == link_down_s`` exactly a request went out
with its deadline already past, timed out at once, was retried three times, and a new state
request went out, again and again, until the simulation's budget of 1,000 requests stopped it.)"""

from __future__ import annotations

import math
import random
import struct
from collections import Counter
from dataclasses import dataclass, field

import pytest

from drivers.framing import Decoder, Frame, MsgType, encode
from drivers.protocol import Close, LinkConfig, LinkProtocol, Send, Wait
from drivers.state import PanelState
from hil.devices import PanelSim
from hil.wire import Line, SimWire

BOOT = 5


def _exact(retries: int) -> LinkConfig:
    """Timings that binary floats hold exactly: the timeouts land on the boundary itself."""
    return LinkConfig(poll_interval_s=0.0625, response_timeout_s=0.125, link_down_s=1.0, retries=retries)


def _protocol(config: LinkConfig, state: bool) -> LinkProtocol:
    """A panel's link; ``state``: it reads the device's state (a state request first, and after a
    refusal again), else it only polls."""
    if not state:
        return LinkProtocol("panel", 3, config)

    def on_state(bodies: list[bytes], at: float) -> PanelState:
        return PanelState(device="panel", at=at, boot_id=BOOT, key_on=False, lines=4, columns=40)

    return LinkProtocol("panel", 3, config, on_state=on_state)


def _silent_from(protocol: LinkProtocol, last_good: float, up: bool) -> None:
    """The device answers well for the last time at ``last_good`` (``up``: it answers the first
    request there; else the port opens there and the device never answers)."""
    if not up:
        protocol.opened(last_good, 100)
        return
    protocol.opened(0.0, 100)
    sent, _ = protocol.step(0.0)
    assert isinstance(sent, Send)
    frame = Decoder().feed(sent.data)[0]
    kind = MsgType.ACK if frame.type is MsgType.POLL else MsgType.NAK  # a state request refused: asked again later
    protocol.receive(encode(Frame(3, 0, frame.seq, kind, struct.pack(">II", BOOT, 0))), last_good, last_good)
    assert protocol.up


@dataclass
class _Run:
    """What a silent device saw: each request (time, sequence number), and when the link closed."""

    sends: list[tuple[float, int]] = field(default_factory=list)
    tries_at_boundary: int | None = None
    """How often the request outstanding when the boundary came had been sent (None: none was)."""
    closed: float | None = None


def _run(protocol: LinkProtocol, start: float, boundary: float, late: float, extra: tuple[float, ...]) -> _Run:
    """Run ``protocol`` from ``start`` against a silent device until it closes the port: after each
    wait the runner steps ``late`` after the time it was told, and it also steps at the times in
    ``extra`` (woken by something else). Each request sent must leave the protocol waiting for its
    reply: one whose deadline has already passed is a request that cannot be answered."""
    run, t, pending = _Run(), start, sorted(extra)
    for _ in range(10_000):
        action, _ = protocol.step(t)
        if isinstance(action, Close):
            run.closed = t
            return run
        if isinstance(action, Send):
            seq = Decoder().feed(action.data)[0].seq
            run.sends.append((t, seq))
            after, _ = protocol.step(t)
            assert isinstance(after, Wait) and after.until > t, (
                f"request {seq} sent at {t!r} with its deadline already past ({after!r}); "
                f"{t - boundary:+g} s from the link_down_s boundary"
            )
            until = after.until
        else:
            assert isinstance(action, Wait)
            until = action.until
        if run.tries_at_boundary is None and until + late >= boundary and protocol.waiting_reply:
            last_seq = run.sends[-1][1]
            run.tries_at_boundary = sum(1 for _, s in run.sends if s == last_seq)
        wake = until + late
        while pending and pending[0] <= t:
            pending.pop(0)
        t = min(wake, pending[0]) if pending else wake
    raise AssertionError(f"the link never closed: {len(run.sends)} requests")


def _check(run: _Run, config: LinkConfig, start: float, boundary: float, late: float) -> None:
    assert run.closed is not None
    assert run.closed >= boundary, "down before link_down_s of silence"
    assert run.closed <= boundary + late, "the link stayed up past link_down_s of silence"
    per_instant = Counter(t for t, _ in run.sends)
    assert max(per_instant.values()) == 1, f"a burst of requests at one instant: {per_instant.most_common(1)}"
    # one request at the start, then at most one per response time that ran out, the last cut at the boundary
    most = math.ceil((boundary - start) / config.response_timeout_s) + 1
    assert len(run.sends) <= most, f"{len(run.sends)} requests in {boundary - start:g} s of silence (at most {most})"


# retries 3 or 1: the request outstanding at the boundary has used its retries; 2 or 4: it has some left
# (8 response times of 0.125 s fill link_down_s; each request is sent retries + 1 times)
@pytest.mark.parametrize("retries", [1, 2, 3, 4])
@pytest.mark.parametrize("state", [True, False], ids=["state", "polls"])
@pytest.mark.parametrize("extra", [(), (-1e-9,), (0.0,), (1e-9,)], ids=["", "woken_before", "woken_at", "woken_after"])
def test_a_timeout_exactly_at_the_boundary_closes_the_link_instead_of_sending_requests_already_late(
    retries: int, state: bool, extra: tuple[float, ...]
) -> None:
    config = _exact(retries)
    protocol = _protocol(config, state)
    last_good = 0.5
    _silent_from(protocol, last_good, up=False)
    boundary = last_good + config.link_down_s
    assert boundary - last_good == config.link_down_s  # the exact boundary the simulation met
    run = _run(protocol, last_good, boundary, 0.0, tuple(boundary + e for e in extra))
    _check(run, config, last_good, boundary, 0.0)
    left = config.link_down_s / config.response_timeout_s % (retries + 1) != 0
    assert run.tries_at_boundary is not None
    assert (run.tries_at_boundary <= retries) is left, "the case is not the one it names"


@pytest.mark.parametrize("late", [0.0, 1e-9, 0.003], ids=["on_time", "late_1ns", "late_3ms"])
@pytest.mark.parametrize("up", [False, True], ids=["opened", "up"])
@pytest.mark.parametrize("state", [True, False], ids=["state", "polls"])
# 0.848 and 63.373: (last_good + 1.0) - last_good < 1.0 in floats: the boundary, a deadline, is
# found silent only as that same sum (the time since the last answer comes out just short of it)
@pytest.mark.parametrize("last_good", [0.0, 0.1, 0.3, 1 / 3, 0.848, 7.4, 19.3, 63.373, 1234.567])
def test_a_silent_device_gets_each_request_with_time_to_answer_then_the_link_goes_down(
    last_good: float, state: bool, up: bool, late: float
) -> None:
    """The default timings (0.1 s does not add up exactly in binary: the boundary falls just before
    or just after a timeout), a device that was up or never answered, with the state being read or
    polls only, and a runner that steps on time or late."""
    config = LinkConfig()
    protocol = _protocol(config, state)
    _silent_from(protocol, last_good, up)
    boundary = last_good + config.link_down_s
    run = _run(protocol, last_good, boundary, late, (boundary - 1e-9, boundary, boundary + 1e-9))
    _check(run, config, last_good, boundary, late)


def test_a_pulled_line_in_the_simulation_costs_a_few_requests_a_second() -> None:
    """The simulation's wire (hil/wire.py) on a line pulled for a minute: the link goes down and
    is opened again with its backoff, a state request and its retries each time, never a spin."""
    sim = PanelSim(address=3)
    protocol = _protocol(LinkConfig(), state=True)
    line = Line(connected=False)
    wire = SimWire(protocol, sim, random.Random(1), line, deliver=lambda outputs: None)
    sent = 0
    for second in range(1, 61):
        wire.run(float(second) + 0.0001 * second)  # odd times: the boundaries fall anywhere
        assert wire.spun is None, f"the wire's budget ran out by {second} s"
        sent, before = line.lost, sent
        assert sent - before <= 11, f"{sent - before} requests in second {second}"
    assert protocol.stats.reconnects >= 10
