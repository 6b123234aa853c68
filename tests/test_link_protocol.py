"""The link protocol without a port, a thread or a clock (drivers/protocol.py), against the
simulators' device side in process (hil/wire.py): hypothesis over reply scripts, whole, split and
a byte at a time, with requests and replies lost, the line pulled and the device restarted."""

from __future__ import annotations

import random
import struct
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.delivery import Delivery
from drivers.framing import Decoder, Frame, MsgType, encode
from drivers.link_events import STATUS_NAK
from drivers.messages import BUTTONS, BodyError, DeviceEvent
from drivers.panel import ButtonChanged, PanelDriver
from drivers.protocol import (
    Close,
    CommandResult,
    DeviceFault,
    LinkConfig,
    LinkDown,
    LinkProtocol,
    LinkUp,
    Send,
    Wait,
)
from drivers.state import PanelState
from hil.device import HEARTBEAT_S
from hil.devices import PanelSim
from hil.wire import CHUNKINGS, Line, SimWire

CONFIG = LinkConfig()


class _Raw(DeviceEvent):
    """A device event as the sink's reader leaves it (not emitted with the link's reports)."""


class Sink:
    """What the protocol delivers: device events by number, everything else in order."""

    def __init__(self) -> None:
        self.events: list[tuple[int, int, bytes]] = []
        self.items: list[DeviceEvent] = []
        self.emitted: list[DeviceEvent] = []
        self.protocol: LinkProtocol | None = None
        """Set when events are acknowledged only once journaled (:meth:`journal`)."""

    def read_event(self, event_no: int, code: int, body: bytes, at: float) -> DeviceEvent:
        self.events.append((event_no, code, body))
        self.items.append(_Raw(device="panel", at=at, event_no=event_no))
        return self.items[-1]

    def journal(self) -> None:
        """The table journaled the event received last (late: the device sent it again meanwhile)."""
        if self.protocol is not None and self.items:
            self.protocol.journaled(self.items[-1])

    def emit(self, event: DeviceEvent) -> None:
        if not isinstance(event, _Raw):
            self.emitted.append(event)

    def delivery(self, protocol: LinkProtocol) -> Delivery:
        """What delivers ``protocol``'s outputs here."""
        return Delivery(protocol, self.emit, self.read_event)


def panel_link(sink: Sink, rng: random.Random, line: Line) -> tuple[LinkProtocol, PanelSim, SimWire]:
    sim = PanelSim(address=3)
    reader = PanelDriver.__new__(PanelDriver)  # the driver's state reader only (no link, no port)
    reader.name = "panel"

    def on_state(bodies: list[bytes], at: float) -> DeviceEvent:
        return PanelState(device="panel", at=at, boot_id=0, key_on=bool(bodies[0][0]), lines=4, columns=40)

    protocol = LinkProtocol("panel", 3, CONFIG, on_state=on_state)
    return protocol, sim, SimWire(protocol, sim, rng, line, deliver=sink.delivery(protocol))


def press_body(i: int) -> bytes:
    return bytes((1 + i % (len(BUTTONS) - 1), 1))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    chunking=st.sampled_from(CHUNKINGS),
    drop=st.sampled_from([0.0, 0.1, 0.4]),
    journaled=st.booleans(),
    script=st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["none", "pull", "busy", "command"])), max_size=12),
)
def test_every_event_arrives_once_in_order_whatever_the_line_does(
    seed: int, chunking: str, drop: float, journaled: bool, script: list[tuple[int, str]]
) -> None:
    rng = random.Random(seed)
    sink = Sink()
    line = Line(drop=drop, chunking=chunking)
    protocol, sim, wire = panel_link(sink, rng, line)
    if journaled:
        protocol.ack_when_journaled, sink.protocol = True, protocol
    sent: list[bytes] = []
    commands = 0
    t = 0.0
    for burst, trouble in script:
        for _ in range(burst):
            body = press_body(len(sent))
            sim.emit_raw(ButtonChanged.spec.code, body)  # type: ignore[union-attr]
            sent.append(body)
        if trouble == "pull":
            line.connected = False
            t += 1.5  # past link_down_s: the link goes down
            wire.run(t)
            line.connected = True
        elif trouble in ("busy", "command"):
            sim.busy_next = 2 if trouble == "busy" else 0
            protocol.send_command("beep", PanelDriver.COMMANDS["beep"].code, b"")
            commands += 1
        for _ in range(5):
            t += 0.1
            wire.run(t)
            sink.journal()
    line.drop = 0.0
    for _ in range(30):
        t += 0.1
        wire.run(t)  # a clean line at the end: everything left drains
        sink.journal()
    assert [body for _, _, body in sink.events] == sent
    assert [no for no, _, _ in sink.events] == list(range(1, len(sent) + 1))
    results = [e for e in sink.emitted if isinstance(e, CommandResult)]
    assert len(results) == commands
    ran = [r for r in results if r.ok]
    assert sim.beeps == len(ran), "a command ran twice (or a failed one ran)"
    assert not [e for e in sink.emitted if isinstance(e, DeviceFault) and e.kind in ("events_gap", "events_reset")]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), chunking=st.sampled_from(CHUNKINGS), memory=st.booleans())
def test_a_restart_is_a_reset_and_the_events_made_after_it_arrive(seed: int, chunking: str, memory: bool) -> None:
    rng = random.Random(seed)
    sink = Sink()
    protocol, sim, wire = panel_link(sink, rng, Line(chunking=chunking))
    wire.run(1.0)
    sim.emit_raw(ButtonChanged.spec.code, press_body(0))  # type: ignore[union-attr]
    wire.run(2.0)
    sim.emit_raw(ButtonChanged.spec.code, press_body(1))  # type: ignore[union-attr]
    sim.reboot() if memory else sim.restart()
    sim.emit_raw(ButtonChanged.spec.code, press_body(2))  # type: ignore[union-attr]
    wire.run(5.0)
    bodies = [body for _, _, body in sink.events]
    assert bodies[0] == press_body(0) and bodies[-1] == press_body(2)
    assert (press_body(1) in bodies) is memory  # kept across a power cycle only with memory
    assert any(isinstance(e, LinkUp) and e.rebooted for e in sink.emitted)
    assert any(isinstance(e, DeviceFault) and e.kind == "events_reset" for e in sink.emitted)


def test_the_protocol_asks_for_the_state_first_then_polls_and_goes_down_after_the_silence() -> None:
    sink = Sink()
    protocol = LinkProtocol(
        "panel",
        3,
        CONFIG,
        on_state=lambda b, at: PanelState(device="panel", at=at, boot_id=0, key_on=False, lines=4, columns=40),
    )
    deliver = sink.delivery(protocol)
    deliver(protocol.opened(0.0, 41))
    first, outputs = protocol.step(0.0)
    assert isinstance(first, Send) and first.data == encode(Frame(3, 42, 0, MsgType.STATE_REQ, b"\x00"))
    assert not outputs
    assert protocol.step(0.05) == (Wait(CONFIG.response_timeout_s), [])
    sends = 1
    t = 0.0
    while True:  # nothing ever answers
        t += 0.01
        action, outputs = protocol.step(t)
        deliver(outputs)
        if isinstance(action, Close):
            break
        sends += isinstance(action, Send)
    assert t > CONFIG.link_down_s - 0.02 and sends == CONFIG.retries + 1 + (sends - CONFIG.retries - 1)
    assert not [e for e in sink.emitted if isinstance(e, LinkDown)]  # never up: not connected instead
    assert any(isinstance(e, DeviceFault) and e.kind == "no_answer" for e in sink.emitted)


def test_a_stale_reply_is_counted_and_dropped() -> None:
    protocol = LinkProtocol("panel", 3, CONFIG)
    protocol.opened(0.0, 100)
    sent, _ = protocol.step(0.0)
    assert isinstance(sent, Send)
    late = encode(Frame(3, 0, 77, MsgType.ACK, struct.pack(">II", 5, 0)))
    protocol.receive(late, 0.01, 0.01)
    assert protocol.stats.stale == 1 and protocol.waiting_reply
    good = encode(Frame(3, 0, 101, MsgType.ACK, struct.pack(">II", 5, 0)))
    for i in range(len(good)):
        protocol.receive(good[i : i + 1], 0.02, 0.02)
    assert not protocol.waiting_reply and protocol.up and protocol.boot_id == 5


@pytest.mark.parametrize("journaled", [False, True])
@pytest.mark.parametrize("window_no", [0, 5])
def test_events_kept_across_a_reboot_then_the_new_boots_all_arrive_after_a_controller_restart(
    journaled: bool, window_no: int
) -> None:
    """A controller started again from its journal gets the device's window as (the boot of its
    last link-up, the number of the last event after it): after a reboot with memory that boot is
    the one the device runs now, though the events journaled after it were the old boot's. The
    old boot's kept events come first; the new boot's must not be taken as left behind (boston5
    seed 150 of six rounds: the panel's presses of its new boot never taken, the table stuck in
    betting)."""
    sink = Sink()
    protocol, sim, wire = panel_link(sink, random.Random(150), Line())
    if journaled:
        protocol.ack_when_journaled, sink.protocol = True, protocol
    sent = [press_body(i) for i in range(5)]
    for body in sent[:3]:
        sim.emit_raw(ButtonChanged.spec.code, body)  # type: ignore[union-attr]
    sim.reboot()  # the three kept, under the boot that made them
    for body in sent[3:]:
        sim.emit_raw(ButtonChanged.spec.code, body)  # type: ignore[union-attr]
    protocol.set_window(sim.boot_id, window_no)  # what the journal says: the new boot's link-up
    t = 0.0
    for _ in range(40):
        t += 0.1
        wire.run(t)
        sink.journal()
    assert [body for _, _, body in sink.events] == sent
    assert [no for no, _, _ in sink.events] == [1, 2, 3, 1, 2]
    assert not sim.pending


def test_a_window_restored_between_kept_events_and_the_new_boots_acknowledges_only_what_was_journaled() -> None:
    """The journal names the boot of the events after a link-up by the ``LinkUp`` and, where the
    device sends events of another boot (kept across a reboot, then its new boot's), by an
    ``EventsOfBoot`` before them. A controller that stops after journaling some of the kept events
    restarts with the kept boot's window: with the link-up's boot and the kept event's number
    instead, its first POLL acknowledged the new boot's events up to that number (the new boot
    had made that many), and the device deleted them and the kept events left, never journaled."""
    sink = Sink()
    protocol, sim, wire = panel_link(sink, random.Random(7), Line())
    protocol.ack_when_journaled, sink.protocol = True, protocol
    wire.run(0.5)  # up under the first boot
    sent = [press_body(i) for i in range(8)]
    for body in sent[:3]:
        sim.emit_raw(ButtonChanged.spec.code, body)  # type: ignore[union-attr]
    sim.reboot()
    for body in sent[3:]:
        sim.emit_raw(ButtonChanged.spec.code, body)  # type: ignore[union-attr]
    old_boot, new_boot = sim.pending[0][0], sim.boot_id
    t, records = 0.5, []
    while len(sink.events) < 2:  # the controller journals two of the kept events, then stops
        t += 0.01
        wire.run(t)
        if sink.events and sink.events[-1] not in records:
            records.append(sink.events[-1])
            sink.journal()
    kinds = [(type(e).__name__, getattr(e, "boot_id", None)) for e in sink.emitted]
    assert ("LinkUp", new_boot) in kinds and kinds[-1] == ("EventsOfBoot", old_boot)
    # what the journal says: the boot of the last LinkUp or EventsOfBoot, the last event after it
    again = Sink()
    restarted, _, _ = panel_link(again, random.Random(8), Line())
    restarted.ack_when_journaled, again.protocol = True, restarted
    restarted.set_window(old_boot, 2)
    wire = SimWire(restarted, sim, random.Random(9), Line(), now=t, deliver=again.delivery(restarted))
    for _ in range(40):
        t += 0.1
        wire.run(t)
        again.journal()
    assert [body for _, _, body in sink.events[:2] + again.events] == sent
    assert not sim.pending


def _ack(seq: int) -> bytes:
    return encode(Frame(3, 0, seq, MsgType.ACK, struct.pack(">II", 5, 0)))


def _waits(protocol: LinkProtocol, now: float) -> float:
    """Until when ``protocol`` waits at ``now`` (it must wait)."""
    action, _ = protocol.step(now)
    assert isinstance(action, Wait)
    return action.until


def test_a_paced_link_polls_at_its_pace_and_a_shorter_pace_brings_the_next_poll_forward() -> None:
    protocol = LinkProtocol("panel", 3, CONFIG)
    protocol.opened(0.0, 100)
    assert isinstance(protocol.step(0.0)[0], Send)  # poll 101
    protocol.receive(_ack(101), 0.01, 0.01)
    assert _waits(protocol, 0.01) == pytest.approx(CONFIG.poll_interval_s)
    protocol.pace(CONFIG.idle_poll_s)  # longer: from the next poll on
    assert _waits(protocol, 0.01) == pytest.approx(CONFIG.poll_interval_s)
    assert isinstance(protocol.step(0.05)[0], Send)  # poll 102
    protocol.receive(_ack(102), 0.06, 0.06)
    assert _waits(protocol, 0.06) == pytest.approx(0.05 + CONFIG.idle_poll_s)
    protocol.pace(CONFIG.poll_interval_s)  # shorter: the next poll comes sooner
    assert protocol.poll_interval_s == CONFIG.poll_interval_s
    assert _waits(protocol, 0.06) == pytest.approx(0.05 + CONFIG.poll_interval_s)


@pytest.mark.parametrize("paced", [False, True])
def test_an_idle_link_polls_within_the_heartbeat_and_goes_down_after_link_down_s_as_a_busy_one(paced: bool) -> None:
    """The idle pace keeps the heartbeat (a POLL at least every half second, docs/protocol.md
    4.8) and the link-down time (``link_down_s`` after the last answer, section 4.7)."""
    assert CONFIG.idle_poll_s <= HEARTBEAT_S / 2
    protocol = LinkProtocol("panel", 3, CONFIG)
    protocol.running = True
    protocol.opened(0.0, 100)
    if paced:
        protocol.pace(CONFIG.idle_poll_s)
    polls: list[float] = []
    last_good, t, answering = 0.0, 0.0, True
    while t < 10.0:
        action, _ = protocol.step(t)
        if isinstance(action, Close):
            break
        if isinstance(action, Send):
            frame = Decoder().feed(action.data)[0]
            assert frame.type is MsgType.POLL and frame.payload[-1] == 1  # the heartbeat
            polls.append(t)
            if answering:
                protocol.receive(_ack(frame.seq), t, t)
                last_good = t
                answering = t < 3.0  # then the device goes silent
        t = round(t + 0.001, 3)
    gaps = [b - a for a, b in zip(polls, polls[1:], strict=False)]
    assert max(gaps) <= max(protocol.poll_interval_s, CONFIG.response_timeout_s) + 0.002 <= HEARTBEAT_S / 2
    assert last_good + CONFIG.link_down_s <= t <= last_good + CONFIG.link_down_s + 0.002


class _NotingPanel(PanelSim):
    """A panel that notes when (its link's time, ``wire.now``) each state request reached it."""

    wire: SimWire | None = None
    asked: list[float]

    def reply_to(self, frame: Frame) -> bytes | None:
        if frame.type is MsgType.STATE_REQ and self.wire is not None:
            self.asked.append(self.wire.now)
        return super().reply_to(frame)


@pytest.mark.parametrize("refusals", [1, 3, 8])
def test_a_refused_state_request_is_asked_again_with_the_links_backoff_until_answered(refusals: int) -> None:
    """A device that NAKs the state request (busy, confused) is asked again after the link's
    reconnect backoff, 0.1 s, then doubling up to its 5 s ceiling, for as long as the link is up;
    the snapshot is delivered once it answers, and the refusal reported once. (It was not asked
    again until the next link-up: a hold that clears by itself once every device is back and read
    never cleared: `tablectl simulate`, fault kind `state_nak`.)"""
    sink = Sink()
    sim = _NotingPanel(address=3)
    sim.asked, sim.nak_states = [], refusals
    protocol = LinkProtocol(
        "panel",
        3,
        CONFIG,
        on_state=lambda b, at: PanelState(device="panel", at=at, boot_id=0, key_on=False, lines=4, columns=40),
    )
    wire = sim.wire = SimWire(protocol, sim, random.Random(3), Line(), deliver=sink.delivery(protocol))
    t = 0.0
    while not [e for e in sink.emitted if isinstance(e, PanelState)]:
        t = round(t + 0.01, 2)
        assert t < 60.0, f"the state never read: asked at {sim.asked}"
        wire.run(t)
    asked = sim.asked
    assert protocol.up and len(asked) == refusals + 1 and protocol.stats.naks == refusals
    backoff, slack = CONFIG.reconnect, CONFIG.poll_interval_s + 0.01
    gaps = [after - before for before, after in zip(asked, asked[1:], strict=False)]
    for n, gap in enumerate(gaps):
        assert backoff.nth(n) <= gap <= backoff.nth(n) + slack
    assert max(gaps) <= CONFIG.reconnect_max_s + slack  # bounded: a device that keeps refusing is asked every 5 s
    faults = [e for e in sink.emitted if isinstance(e, DeviceFault) and e.kind == "state"]
    assert len(faults) == 1 and "asked again in 0.1 s" in faults[0].error
    assert not [e for e in sink.emitted if isinstance(e, LinkDown)]


@pytest.mark.parametrize(
    ("short", "bad", "unreadable"),
    [(1, 0, 0), (3, 0, 0), (0, 3, 0), (0, 6, 0), (1, 3, 0), (0, 0, 3)],
    ids=["one-short", "three-short", "three-bad", "six-bad", "short-then-bad", "three-unreadable"],
)
def test_a_state_answer_that_cannot_be_used_is_asked_again_with_the_links_backoff_once_its_tries_run_out(
    short: int, bad: int, unreadable: int
) -> None:
    """The table asks an up device's state again (as after a journal outage) and the answers come
    back unusable: cut too short to read, naming a part not asked for, or with bodies the driver
    cannot read. The first ``_STATE_TRIES`` (3) are asked again at once, later ones after the
    link's backoff (0.1 s doubling to its ceiling), for as long as the link is up, until the state
    is read; the first failure is reported, the later ones counted. (Three bad answers in a row,
    or one too short or unreadable, stopped the reading until the next link-up, so a hold that
    clears by itself once the device is read never cleared: `tablectl simulate`, fault kind
    `state_garbled`.)"""
    sink = Sink()
    sim = _NotingPanel(address=3)
    sim.asked = []
    spoilt = [unreadable]

    def read_state(bodies: list[bytes], at: float) -> PanelState:
        if spoilt[0] and sim.wire is not None and sim.asked:
            spoilt[0] -= 1
            raise BodyError("panel state: 3 bytes, 5 expected")
        return PanelState(device="panel", at=at, boot_id=0, key_on=False, lines=4, columns=40)

    protocol = LinkProtocol("panel", 3, CONFIG, on_state=read_state)
    wire = SimWire(protocol, sim, random.Random(3), Line(), deliver=sink.delivery(protocol))
    t = 0.0

    def read() -> None:
        nonlocal t
        while not [e for e in sink.emitted if isinstance(e, PanelState)]:
            t = round(t + 0.01, 2)
            assert t < 60.0, f"the state never read: asked at {sim.asked}"
            wire.run(t)

    read()  # the link up, its state read
    faults_before = protocol.stats.faults
    sink.emitted.clear()
    sim.wire, sim.short_states, sim.bad_states = wire, short, bad
    protocol.read_state_again()
    read()
    asked, failures = sim.asked, short + bad + unreadable
    assert protocol.up and len(asked) == failures + 1 and protocol.stats.faults - faults_before == failures
    backoff, slack = CONFIG.reconnect, CONFIG.poll_interval_s + 0.01
    for n, gap in enumerate(after - before for before, after in zip(asked, asked[1:], strict=False)):
        if n < 2:
            assert gap <= slack  # asked again at once
        else:
            assert backoff.nth(n - 2) <= gap <= backoff.nth(n - 2) + slack
    faults = [e for e in sink.emitted if isinstance(e, DeviceFault) and e.kind == "state"]
    assert len(faults) == 1 and "asked again at once up to 2 times, then with the link's backoff" in faults[0].error
    assert not [e for e in sink.emitted if isinstance(e, LinkDown)]


class _RefusingPanel(PanelSim):
    """A panel that NAKs every request, polls included (confused for good)."""

    def _answer(self, frame: Frame) -> tuple[MsgType, bytes]:
        return MsgType.NAK, b""


def _panel_wire(sim: PanelSim, sink: Sink) -> tuple[LinkProtocol, SimWire]:
    """A panel link's protocol and the simulated wire to ``sim``, delivering to ``sink``."""
    protocol = LinkProtocol(
        "panel",
        3,
        CONFIG,
        on_state=lambda b, at: PanelState(device="panel", at=at, boot_id=0, key_on=False, lines=4, columns=40),
    )
    return protocol, SimWire(protocol, sim, random.Random(3), Line(), deliver=sink.delivery(protocol))


def test_a_device_that_refuses_every_request_is_reported_once_then_counted() -> None:
    sink = Sink()
    sim = _RefusingPanel(address=3)
    protocol, wire = _panel_wire(sim, sink)
    t = 0.0
    while protocol.stats.naks < 200:
        t = round(t + 0.01, 2)
        assert t < 600.0, "the device was not asked 200 times"
        wire.run(t)
    faults = [e for e in sink.emitted if isinstance(e, DeviceFault)]
    assert len(faults) <= 2, f"{len(faults)} DeviceFaults for {protocol.stats.naks} refusals in {t:g} s"


class _AtTimesRefusingPanel(PanelSim):
    """A panel that NAKs every request while ``refusing``, and answers as a panel otherwise."""

    refusing = True
    answered = 0
    """Requests answered other than with a NAK."""

    def _answer(self, frame: Frame) -> tuple[MsgType, bytes]:
        if self.refusing:
            return MsgType.NAK, b""
        reply = super()._answer(frame)
        self.answered += reply[0] is not MsgType.NAK
        return reply


def test_refused_polls_are_reported_once_a_run_and_each_refused_command_still_fails() -> None:
    sink = Sink()
    sim = _AtTimesRefusingPanel(address=3)
    protocol, wire = _panel_wire(sim, sink)
    t = 0.0

    def until(done: Callable[[], bool]) -> None:
        nonlocal t
        while not done():
            t = round(t + 0.01, 2)
            assert t < 600.0, "never came"
            wire.run(t)

    def refused_polls() -> list[DeviceFault]:
        return [e for e in sink.emitted if isinstance(e, DeviceFault) and e.kind == "nak"]

    def results() -> list[CommandResult]:
        return [e for e in sink.emitted if isinstance(e, CommandResult)]

    until(lambda: protocol.stats.naks >= 20)
    protocol.send_command("beep", PanelDriver.COMMANDS["beep"].code, b"")  # each refused command fails, as
    until(lambda: len(results()) == 1)  # always: the table acts on it
    protocol.send_command("beep", PanelDriver.COMMANDS["beep"].code, b"")
    until(lambda: len(results()) == 2)
    assert [r.status for r in results()] == [STATUS_NAK, STATUS_NAK]
    assert len([e for e in sink.emitted if isinstance(e, DeviceFault) and e.kind == "command_failed"]) == 2
    naks = protocol.stats.naks
    until(lambda: protocol.stats.naks >= naks + 20)
    assert len(refused_polls()) == 1 and "only counted (naks)" in refused_polls()[0].error
    sim.refusing = False  # a good reply ends the run: the next refusal is reported again
    until(lambda: sim.answered >= 5)
    sim.refusing = True
    naks = protocol.stats.naks
    until(lambda: protocol.stats.naks >= naks + 20)
    assert len(refused_polls()) == 2
