"""An idle link's exchange made cheaper (a POLL answered by an ACK: most of a simulated round's
exchanges) gives what the plain path gives: the frames made without a frozen dataclass's
``__init__`` (:func:`drivers.framing._frame`), the clock's reading without a sample made when it
does not win, the events counter read directly, the ACK read and the simulated device's answer
with one call less each. One link run through the in-process look-up and through the whole
codec, with a reply that changes, a garbled reply and a timeout, delivers the same outputs and
counts the same."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

import pytest

from drivers.clock import MAX_DRIFT, WRAP, DeviceClock
from drivers.framing import Frame, MsgType, decode_frame, encode, encode_fields, in_process
from drivers.link_events import LinkCounters, Output
from drivers.panel import ButtonChanged
from drivers.protocol import LinkProtocol, Send
from hil.devices import PanelSim
from hil.wire import Line, SimWire

FRAMES = [
    Frame(3, 1, 0, MsgType.POLL, bytes(9)),
    Frame(127, 0xFFFFFFFF, 7, MsgType.ACK, b"\x01\x02\x03\x04\x00\x00\x00\x05"),
    Frame(1, 0, 0xFFFFFFFF, MsgType.EVENT, bytes(range(1, 40))),
    Frame(2, 5, 5, MsgType.NAK, b""),
]


@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("echo", [False, True])
def test_a_decoded_frame_is_the_frame_encoded_equal_hashed_and_frozen_alike(frame: Frame, echo: bool) -> None:
    with in_process() if echo else _plain():
        wire = encode_fields(frame.address, frame.seq, frame.ack, frame.type, frame.payload)
        assert wire == encode(frame)
        decoded, why = decode_frame(wire[:-1])
    assert why == "ok" and decoded == frame and hash(decoded) == hash(frame) and repr(decoded) == repr(frame)
    assert dataclasses.astuple(decoded) == dataclasses.astuple(frame)
    assert decoded is not None and type(decoded.type) is MsgType and decoded.version == frame.version
    with pytest.raises(dataclasses.FrozenInstanceError):
        decoded.seq = 9  # type: ignore[misc]  # (the point: it is refused)


def test_the_events_counter_read_directly_is_the_count_added() -> None:
    counters = LinkCounters()
    assert counters.events == 0
    counters.add("events", 2)
    counters.add("timeouts")
    assert counters.events == 2 == counters.as_dict()["events"]
    assert counters.timeouts == 1  # the others as before


def _plain_clock_readings(readings: list[tuple[int, float, float]]) -> list[float]:
    """The reading rule written out plainly (docs/protocol.md 5.1): the reading unwrapped against
    the one before; the best sample the one of least error, aged by MAX_DRIFT; the reading in the
    controller's time against the best sample's offset."""
    out, ms, raw_before, best = [], 0, None, None
    for raw, sent, received in readings:
        if raw_before is None:
            ms = raw
        else:
            delta = (raw - raw_before) % WRAP
            ms += delta - WRAP if delta >= WRAP // 2 else delta
        raw_before = raw
        middle, error = (sent + received) / 2, max(0.0, (received - sent) / 2)
        if best is None or error <= best[2] + (middle - best[0]) * MAX_DRIFT:
            best = (middle, ms / 1000 - middle, error)
        out.append(ms / 1000 - best[1])
    return out


def test_a_clock_reading_is_the_plain_rules_whether_its_sample_wins_or_not() -> None:
    rng = random.Random(7)
    readings, t, raw = [], 10.0, WRAP - 3_000  # it wraps within the first seconds
    for _ in range(400):
        span = rng.choice((0.0, 0.002, 0.004, 0.2, 1.5))  # the wide ones do not win
        t += rng.uniform(0.01, 0.3)
        raw = (raw + int(rng.uniform(5, 400))) % WRAP
        readings.append((raw, t, t + span))
    clock = DeviceClock()
    got = []
    for raw, sent, received in readings:
        got.append(clock.reading(raw, sent, received))
        assert got[-1] == clock.to_controller(raw)
    assert got == _plain_clock_readings(readings)


@dataclasses.dataclass
class _Garbling:
    """Flips a byte of every ``every``-th reply of ``sim`` (from the ``first``)."""

    sim: PanelSim
    every: int = 7
    first: int = 3
    n: int = 0

    def __post_init__(self) -> None:
        real: Callable[[Frame], bytes | None] = self.sim.reply_to

        def reply_to(frame: Frame) -> bytes | None:
            wire = real(frame)
            self.n += 1
            if wire is None or self.n < self.first or (self.n - self.first) % self.every:
                return wire
            changed = bytearray(wire)
            changed[len(wire) // 2] ^= 0x5A
            return bytes(changed)

        self.sim.reply_to = reply_to  # type: ignore[method-assign]  # (the test's garbling, this one device)


def _run_link(echo: bool, chunking: str) -> tuple[list[Output], dict[str, int], int]:
    """One panel link run 30 simulated s every 25 ms: presses that change the reply (EVENTs among
    the ACKs), a garbled reply every seventh, the line pulled for 2 s (timeouts, retries, a link
    down and up again) and dropping now and then. What it delivered, its counters, its frames."""
    delivered: list[Output] = []
    clock = [0.0]
    rng = random.Random(11)
    with in_process() if echo else _plain():
        sim = PanelSim(address=3)
        sim.boot_id = 0x5EED0001  # (drawn at random when made)
        sim.clock = lambda: clock[0]
        _Garbling(sim)
        protocol = LinkProtocol("panel", 3, url="loop://")
        line = Line(chunking=chunking)
        wire = SimWire(protocol, sim, rng, line, deliver=delivered.extend, whole=echo)
        for i in range(1, 1201):
            t = clock[0] = i * 0.025
            if i % 37 == 0:
                sim.emit(ButtonChanged, button=i % 5 + 1, pressed=bool(i % 2))
            line.connected = not 400 <= i < 480
            line.drop = 0.05 if 600 <= i < 700 else 0.0
            wire.run(t)
    return delivered, protocol.stats.as_dict(), protocol.stats.frames_ok


class _plain:
    """No in-process look-up (the whole codec), as a context."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


@pytest.mark.parametrize("chunking", ["whole", "split"])
def test_an_idle_link_through_the_look_up_delivers_what_the_whole_codec_delivers(chunking: str) -> None:
    looked_up, counted, frames = _run_link(True, chunking)
    coded, counted_coded, _ = _run_link(False, chunking)
    assert looked_up == coded
    assert counted == counted_coded
    kinds = {type(o).__name__ for o in coded}
    assert {"Received", "Reported", "Deliver"} <= kinds  # events, idle answers, link reports
    assert counted["timeouts"] > 0 and counted["crc_errors"] + counted["malformed"] > 0 and counted["link_downs"] > 0
    assert counted["events"] > 0 and frames > 400


@pytest.mark.parametrize("size", [7, 8, 9])
def test_an_ack_of_eight_bytes_or_more_is_read_and_a_shorter_one_is_a_fault(size: int) -> None:
    protocol = LinkProtocol("panel", 3, url="loop://")
    protocol.opened(0.0, 1, 0.0)
    action, _ = protocol.step(0.0, 0.0)
    assert isinstance(action, Send)
    request, _ = decode_frame(action.data[:-1])
    assert request is not None and request.type is MsgType.POLL
    payload = (b"\x00\x00\x00\x07\x00\x00\x03\xe8" + b"\x01")[:size]
    outputs = protocol.receive(encode_fields(3, 0, request.seq, MsgType.ACK, payload), 0.002, 0.002)
    faults = [o for o in outputs if "too short" in repr(o)]
    if size < 8:
        assert faults and "ACK too short (7 bytes): no clock" in repr(faults[0]) and protocol.stats.faults == 1
        assert not any(type(o).__name__ == "Reported" for o in outputs)
    else:
        assert not faults and protocol.stats.faults == 0
        assert [type(o).__name__ for o in outputs][-1] == "Reported" and protocol.up
