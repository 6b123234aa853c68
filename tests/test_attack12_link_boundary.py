"""Attacks on the link going down at ``link_down_s`` exactly (docs/protocol.md, 4.3 and 4.7; the
CHANGELOG's "2026-12-07 (afternoon)"): the pure protocol on an injected clock, no sleeps.

What ``tests/test_link_boundary.py`` does not check, and these do: commands queued at the
boundary instant (kept, sent once the device is back, each once, in order, none failed "no
answer"); a reply that comes in the same instant as the boundary (before the step: the link
stays up; after it: it is stale, the link is down, nothing delivered twice); a device that
rebooted during the outage (its link-up says so, the queued commands still go); a device whose
clock jumps by seconds either way in its answer at the boundary; and each with a second link of
the same table going down at the same instant."""

from __future__ import annotations

import struct

import pytest

from drivers.framing import Decoder, Frame, MsgType, encode
from drivers.link_events import CommandResult, Deliver, LinkDown, LinkUp, Output, Received
from drivers.protocol import Close, LinkConfig, LinkProtocol, Send, Wait

BOOT = 5
CONFIG = LinkConfig(poll_interval_s=0.0625, response_timeout_s=0.125, link_down_s=1.0, retries=3)
"""Timings binary floats hold exactly: the last request's deadline is the boundary itself."""
LAST_GOOD = 0.5
BOUNDARY = LAST_GOOD + CONFIG.link_down_s


def _reply(link: LinkProtocol, kind: MsgType, seq: int, boot: int, clock: int = 0, extra: bytes = b"") -> bytes:
    return encode(Frame(link.address, 0, seq, kind, struct.pack(">II", boot, clock) + extra))


def _resp(link: LinkProtocol, seq: int, code: int, boot: int = BOOT) -> bytes:
    return encode(Frame(link.address, 0, seq, MsgType.RESP, struct.pack(">IBB", boot, 0, code)))


def _sent(action: object) -> Frame:
    assert isinstance(action, Send), action
    return Decoder().feed(action.data)[0]


def _link(name: str, address: int) -> LinkProtocol:
    """A polls-only link, up, whose device answers well for the last time at ``LAST_GOOD``."""
    link = LinkProtocol(name, address, CONFIG)
    link.opened(0.0, 100)
    frame = _sent(link.step(0.0)[0])
    assert frame.type is MsgType.POLL
    link.receive(_reply(link, MsgType.ACK, frame.seq, BOOT), LAST_GOOD, LAST_GOOD)
    assert link.up
    return link


def _silent_until_boundary(links: list[LinkProtocol], last: dict[str, int] | None = None) -> list[Output]:
    """Step every link against silent devices up to (not at) the boundary, each at the times it
    asks for; what they delivered (``last``: each link's last request number, filled in)."""
    outputs: list[Output] = []
    last = {} if last is None else last
    t = LAST_GOOD
    while t < BOUNDARY:
        waits = []
        for link in links:
            while True:
                action, out = link.step(t)
                outputs += out
                if isinstance(action, Wait):
                    waits.append(action.until)
                    break
                last[link.name] = _sent(action).seq  # (asserts a Send: not closed before the boundary)
        t = min(waits)
    assert t == BOUNDARY
    return outputs


def _items(outputs: list[Output]) -> list[object]:
    """What the outputs deliver to the table (the link's reports, the command results)."""
    return [o.item for o in outputs if isinstance(o, Deliver)]


def _commands(link: LinkProtocol) -> list[tuple[str, int]]:
    names = [("display", 0x10), ("lamp", 0x11), ("lock", 0x12)]
    for name, code in names:
        link.send_command(name, code, b"x")
    return names


def _back_up(link: LinkProtocol, at: float, boot: int, clock: int = 0) -> list[Output]:
    """The port opens again at ``at`` and the device (running ``boot``) answers its first request
    (a polls-only link sends a command queued first, else a POLL)."""
    outputs: list[Output] = list(link.opened(at, 7000))
    action, out = link.step(at)
    outputs += out
    frame = _sent(action)
    if frame.type is MsgType.CMD:
        outputs += link.receive(_resp(link, frame.seq, frame.payload[0], boot), at, at)
    else:
        outputs += link.receive(_reply(link, MsgType.ACK, frame.seq, boot, clock), at, at)
    assert link.up
    return outputs


def _drain_commands(link: LinkProtocol, at: float) -> tuple[list[str], list[Output]]:
    """Step at ``at`` answering every command at once, until the link only waits: the commands
    sent, in order (a command sent twice shows twice)."""
    names: list[str] = []
    outputs: list[Output] = []
    for _ in range(20):
        action, out = link.step(at)
        outputs += out
        if isinstance(action, Wait):
            return names, outputs
        frame = _sent(action)
        if frame.type is MsgType.POLL:
            outputs += link.receive(_reply(link, MsgType.ACK, frame.seq, BOOT), at, at)
            continue
        assert frame.type is MsgType.CMD
        code = frame.payload[0]
        names.append({0x10: "display", 0x11: "lamp", 0x12: "lock"}[code])
        outputs += link.receive(_resp(link, frame.seq, code), at, at)
    raise AssertionError("the link never waited")


@pytest.mark.parametrize("second", [False, True], ids=["alone", "second_link_down"])
@pytest.mark.parametrize("rebooted", [False, True], ids=["same_boot", "rebooted"])
@pytest.mark.parametrize("when", [-1e-9, 0.0], ids=["queued_just_before", "queued_at"])
def test_commands_queued_at_the_boundary_are_sent_once_in_order_after_the_link_is_up_again(
    when: float, rebooted: bool, second: bool
) -> None:
    panel = _link("panel", 3)
    others = [_link("shoe", 1)] if second else []
    outputs = _silent_until_boundary([panel, *others])
    queued_at = BOUNDARY + when
    if when:
        action, out = panel.step(queued_at)  # a step just before: waiting for the last request
        outputs += out
        assert isinstance(action, Wait)
    names = _commands(panel)
    action, out = panel.step(BOUNDARY)
    outputs += out
    assert isinstance(action, Close), f"not down at the boundary: {action!r}"
    for other in others:
        action, out = other.step(BOUNDARY)
        outputs += out
        assert isinstance(action, Close)
    assert not [o for o in _items(outputs) if isinstance(o, CommandResult)], (
        "a queued command failed before it was sent"
    )
    assert [o.device for o in _items(outputs) if isinstance(o, LinkDown)] == ["panel", *(o.name for o in others)]

    boot = BOOT + 1 if rebooted else BOOT
    again = BOUNDARY + 0.1
    first = _back_up(panel, again, boot)
    ups = [o for o in _items(first) if isinstance(o, LinkUp)]
    assert [(u.device, u.rebooted) for u in ups] == [("panel", rebooted)]
    sent, out = _drain_commands(panel, again)
    sent = [r.command for r in _items(first) if isinstance(r, CommandResult)] + sent
    assert sent == [name for name, _ in names], "each queued command once, in the order queued"
    results = [(o.command, o.status) for o in _items(first + out) if isinstance(o, CommandResult)]
    assert results == [(name, 0) for name, _ in names]


@pytest.mark.parametrize("second", [False, True], ids=["alone", "second_link_down"])
@pytest.mark.parametrize("kind", [MsgType.ACK, MsgType.NAK], ids=["ack", "nak"])
def test_a_reply_read_in_the_instant_of_the_boundary_before_the_step_keeps_the_link_up(
    kind: MsgType, second: bool
) -> None:
    panel = _link("panel", 3)
    others = [_link("shoe", 1)] if second else []
    last: dict[str, int] = {}
    outputs = _silent_until_boundary([panel, *others], last)
    assert panel.waiting_reply  # the last request sent, its deadline the boundary
    outputs += panel.receive(_reply(panel, kind, last["panel"], BOOT), BOUNDARY, BOUNDARY)
    action, out = panel.step(BOUNDARY)
    outputs += out
    assert not isinstance(action, Close), "a device that answered in the instant was declared down"
    assert panel.up
    for other in others:
        action, out = other.step(BOUNDARY)
        outputs += out
        assert isinstance(action, Close), "the other link's silence is its own"
    assert [o.device for o in _items(outputs) if isinstance(o, LinkDown)] == [o.name for o in others]
    # and the answered link goes on: its next silence is counted from this answer
    action, _ = panel.step(BOUNDARY + CONFIG.link_down_s - 1e-6)
    assert not isinstance(action, Close)


def test_a_reply_read_just_after_the_link_went_down_is_stale_and_delivers_nothing() -> None:
    panel = _link("panel", 3)
    last: dict[str, int] = {}
    _silent_until_boundary([panel], last)
    seq = last["panel"]
    assert isinstance(panel.step(BOUNDARY)[0], Close)
    stale = panel.stats.stale
    out = panel.receive(_reply(panel, MsgType.ACK, seq, BOOT), BOUNDARY, BOUNDARY)
    assert out == [] and not panel.up and panel.stats.stale == stale + 1
    ups = [o for o in _items(_back_up(panel, BOUNDARY + 0.1, BOOT)) if isinstance(o, LinkUp)]
    assert len(ups) == 1 and not ups[0].rebooted


@pytest.mark.parametrize("jump_s", [-30.0, -1.0, 1.0, 30.0], ids=["back_30s", "back_1s", "fwd_1s", "fwd_30s"])
def test_a_device_clock_jump_in_the_answer_at_the_boundary_neither_downs_nor_spins_the_link(jump_s: float) -> None:
    """The device's own clock (each reply's ``clock`` field, ms) goes back or forward by seconds in
    the reply read at the boundary: the link's silence is the controller's clock alone."""
    panel = _link("panel", 3)
    last: dict[str, int] = {}
    _silent_until_boundary([panel], last)
    seq = last["panel"]
    clock = int((BOUNDARY + jump_s) * 1000) % 2**32
    panel.receive(_reply(panel, MsgType.ACK, seq, BOOT, clock), BOUNDARY, BOUNDARY)
    sends = 0
    t = BOUNDARY
    for _ in range(200):
        action, _ = panel.step(t)
        if isinstance(action, Close):
            break
        if isinstance(action, Send):
            sends += 1
            continue
        assert isinstance(action, Wait) and action.until > t
        t = action.until
    assert t >= BOUNDARY + CONFIG.link_down_s, f"down {t - BOUNDARY:g} s after the answer"
    assert sends <= CONFIG.link_down_s / CONFIG.response_timeout_s + 1


_EVENT = struct.Struct(">IIIIIB")  # boot, clock, event boot, event number, stamp, code
_POLL = struct.Struct(">IIB")  # what a POLL acknowledges (boot, event number), the heartbeat


def _event(link: LinkProtocol, seq: int, number: int) -> bytes:
    payload = _EVENT.pack(BOOT, 1500, BOOT, number, 1490, 0x01) + b"\x00"
    return encode(Frame(link.address, 0, seq, MsgType.EVENT, payload))


@pytest.mark.parametrize("resent", [False, True], ids=["acked", "sent_again"])
def test_an_event_read_in_the_boundarys_instant_is_acknowledged_only_once_journaled_and_taken_once(
    resent: bool,
) -> None:
    """An EVENT read in the instant of the boundary, the device silent after it until its link
    goes down, the event journaled while the link is down: the first POLL after the link is back
    acknowledges it (not before it was journaled), and the same event sent again (the device
    never got that POLL) is not taken twice."""
    panel = _link("panel", 3)
    panel.ack_when_journaled = True
    last: dict[str, int] = {}
    _silent_until_boundary([panel], last)
    out = panel.receive(_event(panel, last["panel"], 1), BOUNDARY, BOUNDARY)
    received = [o for o in out if isinstance(o, Received)]
    assert [r.event_no for r in received] == [1]
    item = object()
    panel.carry(item)
    acks: list[tuple[int, int]] = []
    t, closed = BOUNDARY, None
    for _ in range(200):  # silent from now on
        action, _ = panel.step(t)
        if isinstance(action, Close):
            closed = t
            break
        if isinstance(action, Send):
            frame = _sent(action)
            if frame.type is MsgType.POLL:
                acks.append(_POLL.unpack(frame.payload)[:2])
            continue
        assert isinstance(action, Wait)
        t = action.until
    assert closed is not None and closed >= BOUNDARY + CONFIG.link_down_s
    assert all(no == 0 for _, no in acks), f"acknowledged before it was journaled: {acks}"
    assert panel.journaled(item)  # the table journals it while the link is down
    again = closed + 0.1
    panel.opened(again, 9000)
    frame = _sent(panel.step(again)[0])
    assert frame.type is MsgType.POLL and _POLL.unpack(frame.payload)[:2] == (BOOT, 1)
    reply = _event(panel, frame.seq, 1) if resent else _reply(panel, MsgType.ACK, frame.seq, BOOT)
    out = panel.receive(reply, again, again)
    assert not [o for o in out if isinstance(o, Received)], "the event taken twice"
    assert panel.up
