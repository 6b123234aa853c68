"""What the pure link protocol returns instead of calling back (issue 42 item 3): a new device
event once, for its driver to read, the link's reports in order; the runner's delivery of an
event its driver cannot read; one reconnect backoff for both runners; the counters as data."""

from __future__ import annotations

import random
import struct

import pytest

from drivers.backoff import Backoff
from drivers.delivery import Delivery
from drivers.framing import Frame, MsgType, decode_frame, encode
from drivers.link_events import COUNTERS, LinkStats
from drivers.messages import BodyError, DeviceEvent
from drivers.protocol import (
    Deliver,
    DeviceFault,
    LinkConfig,
    LinkCounters,
    LinkProtocol,
    LinkUp,
    Received,
    Reported,
    Send,
)
from hil.devices import PanelSim
from hil.wire import Line, SimWire

BOOT = 0x0BAD_CAFE


def _event_reply(seq: int, event_no: int, code: int = 0x40, body: bytes = b"\x01\x01") -> bytes:
    payload = struct.pack(">IIIIIB", BOOT, 1000, BOOT, event_no, 990, code) + body
    return encode(Frame(3, 0, seq, MsgType.EVENT, payload))


def _polled(protocol: LinkProtocol, now: float) -> int:
    """Step until a POLL goes out; its sequence number."""
    action, outputs = protocol.step(now, now)
    assert isinstance(action, Send) and not outputs
    frame, _ = decode_frame(action.data[:-1])
    assert frame is not None and frame.type is MsgType.POLL
    return frame.seq


def test_a_new_event_is_returned_once_for_the_driver_and_nothing_is_called() -> None:
    protocol = LinkProtocol("panel", 3, LinkConfig())  # nothing to call: it only returns
    assert protocol.opened(0.0, 10, 0.0) == []
    seq = _polled(protocol, 0.0)
    outputs = protocol.receive(_event_reply(seq, 1), 0.01, 100.0)
    kinds = [type(o) for o in outputs]
    assert kinds == [Deliver, Reported, Received]
    first = outputs[0]
    assert isinstance(first, Deliver) and isinstance(first.item, LinkUp) and first.item.boot_id == BOOT
    event = outputs[-1]
    assert isinstance(event, Received) and (event.event_no, event.code, event.body) == (1, 0x40, b"\x01\x01")
    assert protocol.last_event_no == 1 and protocol.stats.events == 1
    # the same event again (the acknowledgement lost): counted, not returned
    seq = _polled(protocol, 0.1)
    again = protocol.receive(_event_reply(seq, 1), 0.11, 100.1)
    assert not [o for o in again if isinstance(o, Received)]
    assert protocol.stats.duplicates == 1


def test_an_event_its_driver_cannot_read_is_a_counted_fault_carried_in_its_place() -> None:
    protocol = LinkProtocol("panel", 3, LinkConfig())
    protocol.ack_when_journaled = True
    taken: list[DeviceEvent] = []

    def read(event_no: int, code: int, body: bytes, at: float) -> DeviceEvent:
        raise BodyError("unknown button id 99")

    deliver = Delivery(protocol, taken.append, read)
    deliver(protocol.opened(0.0, 10, 0.0))
    seq = _polled(protocol, 0.0)
    deliver(protocol.receive(_event_reply(seq, 1), 0.01, 100.0))
    fault = taken[-1]
    assert isinstance(fault, DeviceFault) and fault.kind == "bad_event"
    assert fault.error == "event 1 (code 64): unknown button id 99"
    assert protocol.stats.faults == 1
    assert protocol.journaled(fault)  # carried: acknowledged once the table journaled the fault
    assert protocol.ack_no == 1


def test_the_reconnect_backoff_doubles_to_its_ceiling_the_same_way_counted_or_chained() -> None:
    backoff = LinkConfig(reconnect_min_s=0.1, reconnect_max_s=1.0).reconnect
    assert backoff == Backoff(0.1, 1.0)
    chained, pause = [], 0.0
    for _ in range(6):
        pause = backoff.after(pause)
        chained.append(pause)
    assert chained == [0.1, 0.2, 0.4, 0.8, 1.0, 1.0]
    assert [backoff.nth(n) for n in range(6)] == chained
    assert LinkConfig().busy_backoff == Backoff(0.05, 0.8)


def test_the_simulations_runner_reopens_after_the_links_backoff() -> None:
    config = LinkConfig(reconnect_min_s=0.1, reconnect_max_s=0.4)
    protocol = LinkProtocol("panel", 3, config)
    wire = SimWire(protocol, PanelSim(address=3), random.Random(1), Line(connected=False), deliver=lambda _: None)
    pauses, t, seen = [], 0.0, 0
    while len(pauses) < 5:  # the device never answers: closed after each silence, reopened later
        t += 0.001
        wire.run(t)
        if protocol.stats.reconnects > seen:  # closed within the last millisecond
            seen = protocol.stats.reconnects
            pauses.append(round(wire.reopen_at - t, 2))
    assert pauses == [0.1, 0.2, 0.4, 0.4, 0.4]
    assert protocol.stats.reconnects == 5


def test_the_reconnect_pause_starts_again_from_the_first_after_a_good_exchange() -> None:
    """The protocol keeps the reconnect backoff for every runner: each closing without a good
    reply since the one before doubles the pause; a good reply makes the next the first again (a
    long outage must not make every later one wait the ceiling)."""
    protocol = LinkProtocol("panel", 3, LinkConfig(reconnect_min_s=0.1, reconnect_max_s=0.4))
    assert [protocol.reopen_pause() for _ in range(4)] == [0.1, 0.2, 0.4, 0.4]
    protocol.opened(10.0, 10, 10.0)
    seq = _polled(protocol, 10.0)
    protocol.receive(_event_reply(seq, 1), 10.01, 110.0)
    assert protocol.up
    assert protocol.reopen_pause() == 0.1


def test_the_counters_are_the_stats_fields_counted_by_name() -> None:
    counters = LinkCounters()
    counters.add("timeouts")
    counters.add("timeouts", 2)
    counters.decoder.crc_errors += 1
    assert counters.timeouts == 3 and counters.crc_errors == 1
    with pytest.raises(KeyError, match="no link counter 'timeout'"):
        counters.add("timeout")  # a misspelt counter is refused, never a new one
    with pytest.raises(KeyError):
        counters.add("crc_errors")  # the decoder's: counted by the decoder only
    with pytest.raises(AttributeError):
        counters.timeout  # noqa: B018
    stats = LinkStats(device="panel", **counters.as_dict())
    assert list(counters.as_dict()) == list(COUNTERS) == list(stats.counters())
    assert stats.timeouts == 3 and stats.crc_errors == 1 and len(COUNTERS) == 20
