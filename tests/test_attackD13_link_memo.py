"""A step with nothing due returns the wait before (``LinkProtocol.step``'s memo, issue 41 item
6) and gives what the full step gives at every value of the runner's clock: ``time.monotonic``'s
reference point is undefined and a runner's clock is injected, so a time below 0.0 is a time as
any other. The memo's "nothing kept" must never be read as "nothing due before then".

(Found by attacking the memo from outside: with the clock below 0.0 the first step failed on an
assertion, which a runner reports as its link thread failing, and a step after a command was
queued returned the wait before instead of sending it.)"""

from __future__ import annotations

import struct

from drivers.framing import Decoder, MsgType, encode_fields
from drivers.link_events import LinkConfig
from drivers.protocol import LinkProtocol, Send

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
    assert [s for s in fast if s[1] == "Send" and s[2] is MsgType.POLL]  # polled once the clock reached 0.0
