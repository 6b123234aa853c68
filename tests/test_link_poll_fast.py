"""A poll's fast paths give what the full paths give (issue 41 item 6): the frame's bytes stuffed
from the codes of their zeros' places (:func:`drivers.framing._cobs_fill`), and a step of a link
that has nothing due returning the wait before without looking again (``LinkProtocol.step``).
The references are written here plainly, byte by byte, or are the full path forced at every step."""

from __future__ import annotations

import random
import struct
from dataclasses import dataclass, field

import pytest

from drivers import framing
from drivers.framing import MsgType, encode_fields, in_process
from drivers.link_events import Action, DeviceFault, LinkConfig, Output, Received
from drivers.link_pace import LinkPace
from drivers.messages import DeviceEvent
from drivers.panel import ButtonChanged
from drivers.protocol import Close, LinkProtocol, Send
from hil.devices import PanelSim
from hil.wire import Line, SimWire


def _plain_cobs(data: bytes) -> bytes:
    """COBS as its paper states it, a byte at a time (data shorter than 254 bytes)."""
    out, block = bytearray(), bytearray()
    for byte in data:
        if byte == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
        else:
            block.append(byte)
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def _plain_frame(address: int, seq: int, ack: int, kind: int, payload: bytes) -> bytes:
    """A frame's wire bytes as docs/protocol.md states them."""
    body = struct.pack(">BBIIBB", 3, address, seq, ack, kind, len(payload)) + payload
    crc = 0xFFFF
    for byte in body:  # CRC-16/CCITT-FALSE, bit by bit
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021 if crc & 0x8000 else crc << 1) & 0xFFFF
    return _plain_cobs(body + struct.pack(">H", crc)) + b"\x00"


def test_the_plain_reference_is_right() -> None:
    assert _plain_cobs(b"\x11\x22\x00\x33") == b"\x03\x11\x22\x02\x33"
    assert _plain_cobs(b"\x00") == b"\x01\x01" and _plain_cobs(b"") == b"\x01"


def test_stuffing_from_the_zeros_places_is_the_plain_stuffing() -> None:
    """Data whose zeros are where earlier data had them (the codes looked up), where none had
    them (learned), and after the codes were forgotten (the table full)."""
    rng = random.Random(41)
    framing._CODES.clear()
    shapes = [bytes(rng.choice((0, 0, 1, 255, rng.randrange(1, 256))) for _ in range(n)) for n in range(0, 60, 3)]
    shapes.append(bytes(rng.randrange(256) for _ in range(253)))  # the longest that takes this path
    for i in range(20_000):
        base = shapes[i % len(shapes)]
        # the same zeros, other non-zero bytes; now and then a zero moved or added
        data = bytearray(b if b == 0 else rng.randrange(1, 256) for b in base)
        if data and i % 5 == 0:
            data[rng.randrange(len(data))] = 0
        assert framing._cobs_fill(bytes(data)) == _plain_cobs(bytes(data)), bytes(data).hex()
    assert 0 < len(framing._CODES) <= framing._CODES_SIZE


def test_a_table_of_codes_past_its_size_starts_again() -> None:
    framing._CODES.clear()
    for n in range(framing._CODES_SIZE + 5):
        data = n.to_bytes(2, "big") + b"\x07\x00" * (n % 7)
        assert framing._cobs_fill(data) == _plain_cobs(data)
    assert len(framing._CODES) <= framing._CODES_SIZE


@pytest.mark.parametrize("echo", [False, True])
def test_polls_and_their_answers_are_the_plain_frames_bytes(echo: bool) -> None:
    """A link's polls and a device's answers, sequence numbers running through zero bytes and a
    wrap, the clock through zero bytes: the bytes docs/protocol.md gives, with or without the
    in-process look-up."""
    with in_process() if echo else _Plain():
        for seq in [*range(0xFFFFFF00, 0xFFFFFFFF + 1), *range(0, 600), 0x01000000, 0x00FF00FF]:
            poll = struct.pack(">IIB", 0x5EED0001, seq % 7, seq % 2)
            assert encode_fields(3, seq, 0, MsgType.POLL, poll) == _plain_frame(3, seq, 0, 1, poll)
            ack = struct.pack(">II", 0x5EED0001, seq * 50 % (1 << 32))
            assert encode_fields(3, 0, seq, MsgType.ACK, ack) == _plain_frame(3, 0, seq, 3, ack)


class _Plain:
    """No in-process look-up (the whole codec), as a context."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


# --- a step with nothing due -----------------------------------------------------------------------------


@dataclass
class _Record:
    """Every step of one protocol: when, what it returned and what it produced; how many took the short way."""

    steps: list[tuple[float, Action, list[Output]]] = field(default_factory=list)
    short: int = 0


def _recorded(protocol: LinkProtocol, record: _Record, full: bool) -> None:
    """Record each of ``protocol``'s steps; ``full``: each takes the full path (nothing kept)."""
    step = protocol.step

    def recorded(now: float, at: float | None = None) -> tuple[Action, list[Output]]:
        if full:
            protocol._quiet = 0.0
        elif now < protocol._quiet:
            record.short += 1
        action, outputs = step(now, at)
        record.steps.append((now, action, list(outputs)))
        return action, outputs

    protocol.step = recorded  # type: ignore[method-assign]  # (the test's recording, this one protocol)


def _state(bodies: list[bytes], at: float) -> DeviceEvent:
    """The panel's state read, as a driver reads it: here only how many parts it had."""
    return DeviceFault(device="panel", at=at, kind="state_read", error=f"{len(bodies)} parts")


def _run(full: bool) -> tuple[_Record, list[Output], dict[str, int]]:
    """One panel link run 40 simulated s every 25 ms, paced (idle after a while, woken by
    presses), its events journaled a tick after they arrive, its state watched (read again every
    ``STATE_WATCH_S``), a command now and then, the line pulled twice, busy and idle (no answer: timeouts,
    retries, found silent at ``link_down_s``, down and up again), losses, and the device refusing
    or garbling: every step recorded."""
    record, delivered = _Record(), []
    clock = [0.0]
    config = LinkConfig(idle_after_s=1.0, idle_poll_interval_s=0.7, retries=1)  # the silence found between polls
    with in_process():
        sim = PanelSim(address=3)
        sim.boot_id = 0x5EED0002
        sim.clock = lambda: clock[0]
        protocol = LinkProtocol(
            "panel", 3, config, on_state=_state, watch=lambda e: "w" if e.kind == "state_read" else None, url="x"
        )
        protocol.ack_when_journaled = True
        _recorded(protocol, record, full)
        pace = LinkPace(protocol)
        pace.start(0.0)
        line = Line()
        wire = SimWire(protocol, sim, random.Random(3), line, deliver=delivered.extend, whole=True, pace=pace)
        journal: list[Output] = []
        for i in range(1, 1601):
            t = clock[0] = i * 0.025
            for item in journal:
                protocol.carry(item)
                protocol.journaled(item)
            journal = []
            if i % 97 == 0 and not 1100 <= i < 1450:  # (then idle: polls 0.7 s apart, the silence found between them)
                sim.emit(ButtonChanged, button=i % 5 + 1, pressed=bool(i % 2))
            if i % 131 == 0:
                protocol.send_command("lamp", 9, b"\x01")  # a code the panel does not know: failed
            if i % 211 == 0:
                sim.nak_commands = not sim.nak_commands
            line.connected = not (700 <= i < 780 or 1300 <= i < 1400)
            line.drop = 0.05 if 1000 <= i < 1100 else 0.0
            before = len(delivered)
            wire.run(t)
            journal = [o for o in delivered[before:] if isinstance(o, Received)]
            if any(isinstance(o, Received) for o in delivered[before:]):
                pace.stir(t)
    return record, delivered, protocol.stats.as_dict()


def test_a_step_with_nothing_due_gives_what_the_full_step_gives() -> None:
    fast, delivered, counted = _run(False)
    full, delivered_full, counted_full = _run(True)
    assert fast.steps == full.steps
    assert delivered == delivered_full and counted == counted_full
    assert fast.short > 1000 and full.short == 0  # the short way taken, and only where it is the same
    kinds = {getattr(o, "item", o).__class__.__name__ for o in delivered}
    assert {"Received", "Reported", "LinkDown", "LinkUp", "CommandResult", "DeviceFault"} <= kinds
    assert counted["timeouts"] and counted["retries"] and counted["link_downs"] and counted["events"]


def _polled(config: LinkConfig) -> tuple[LinkProtocol, int]:
    """A link opened at 0 s whose first poll is out: the poll's sequence number."""
    protocol = LinkProtocol("panel", 3, config, url="x")
    protocol.opened(0.0, 1, 0.0)
    action, _ = protocol.step(0.0, 0.0)
    assert type(action).__name__ == "Send"
    return protocol, 2


def _kind(protocol: LinkProtocol, now: float) -> str:
    return type(protocol.step(now, now)[0]).__name__


def test_a_step_after_a_command_is_queued_sends_it() -> None:
    protocol, seq = _polled(LinkConfig())
    protocol.receive(encode_fields(3, 0, seq, MsgType.ACK, struct.pack(">II", 7, 1)), 0.002, 0.002)
    waited, _ = protocol.step(0.003, 0.003)
    assert type(waited).__name__ == "Wait" and protocol.step(0.004, 0.004)[0] is waited
    protocol.send_command("lamp", 9, b"")
    assert _kind(protocol, 0.005) == "Send"


def test_a_step_after_the_event_in_flight_is_journaled_polls_at_once() -> None:
    protocol, seq = _polled(LinkConfig())
    protocol.ack_when_journaled = True
    event = struct.pack(">IIIIIB", 7, 1, 7, 1, 1, 1) + b"\x01\x01"
    outputs = protocol.receive(encode_fields(3, 0, seq, MsgType.EVENT, event), 0.002, 0.002)
    received = [o for o in outputs if isinstance(o, Received)]
    assert received
    protocol.carry(received[0])
    assert _kind(protocol, 0.003) == "Wait" and _kind(protocol, 0.004) == "Wait"  # not journaled yet
    assert protocol.journaled(received[0])
    assert _kind(protocol, 0.005) == "Send"


def test_a_device_silent_between_two_polls_is_found_so_at_the_boundary() -> None:
    """Polls far apart, a poll unanswered: the step after ``link_down_s`` since the last answer
    closes the link, though the wait it returned before was for the next poll, later."""
    protocol, seq = _polled(LinkConfig(retries=0, link_down_s=1.0))
    protocol.receive(encode_fields(3, 0, seq, MsgType.ACK, struct.pack(">II", 7, 1)), 0.002, 0.002)
    protocol.pace(5.0)
    assert _kind(protocol, 0.05) == "Send"  # the poll due then (the old interval), never answered
    assert _kind(protocol, 0.2) == "Wait" and _kind(protocol, 0.5) == "Wait"  # its deadline past: the next poll's
    assert _kind(protocol, 0.9) == "Wait"
    assert _kind(protocol, 1.01) == "Close"


# --- an answer with nothing new ------------------------------------------------------------------------------


def _replies() -> list[tuple[str, bytes | None]]:
    """What a device answers each poll (None: nothing): good ACKs, a reboot's, short, long, garbled,
    for another poll, from another device, an EVENT, a NAK, the link down and up again."""
    ack = struct.pack(">II", 0x5EED0003, 0)
    replies: list[tuple[str, bytes | None]] = []
    for n in range(40):
        clock = struct.pack(">I", 1000 + 50 * n)
        good = ack[:4] + clock
        kind = n % 10
        if 32 <= n < 39:
            replies.append(("silent", None))
        elif kind == 1:
            replies.append(("reboot", struct.pack(">I", 0x5EED0004 + n) + clock))
        elif kind == 2:
            replies.append(("short", good[:7]))
        elif kind == 3:
            replies.append(("long", good + b"\x09"))
        elif kind == 4:
            replies.append(("garbled", good))
        elif kind == 5:
            replies.append(("other poll", good))
        elif kind == 6:
            replies.append(("other device", good))
        elif kind == 7:
            replies.append(("event", good + struct.pack(">IIIB", 0x5EED0003, n, 1000, 1) + b"\x01\x01"))
        elif kind == 8:
            replies.append(("nak", good[:4]))
        else:
            replies.append(("ack", good))
    return replies


def _answer(name: str, payload: bytes, seq: int) -> bytes:
    """The wire bytes of the reply ``name`` with ``payload`` to the poll numbered ``seq``."""
    kind = {"event": MsgType.EVENT, "nak": MsgType.NAK}.get(name, MsgType.ACK)
    address = 4 if name == "other device" else 3
    wire = encode_fields(address, 0, seq + 1 if name == "other poll" else seq, kind, payload)
    if name == "garbled":
        wire = wire[:-2] + bytes((wire[-2] ^ 0x21 or 1,)) + wire[-1:]  # the CRC's last byte
    return wire


def _talk(full: bool) -> list[object]:
    """A link polled 40 times at 50 ms, each poll answered as :func:`_replies` says; ``full``: an
    ACK read by the full path of every reply. What it delivered, and its state after each."""
    protocol = LinkProtocol("panel", 3, LinkConfig(response_timeout_s=0.04, retries=0, link_down_s=0.3), url="x")
    if full:
        protocol._nothing_new = protocol._handle  # type: ignore[method-assign,assignment]  # (the path before)
    seen: list[object] = [protocol.opened(0.0, 0xFFFFFFF0, 0.0)]
    now = 0.0
    for name, payload in _replies():
        now += 0.05
        action, outputs = protocol.step(now, now)
        seen.append((type(action).__name__, outputs))
        if isinstance(action, Close):
            seen.append((protocol.reopen_pause(), protocol.opened(now, 0x10, now)))  # (the link down: opened again)
        if not isinstance(action, Send):
            continue
        request = framing.decode_frame(action.data[:-1])[0]
        assert request is not None
        if payload is not None:
            seen.append(protocol.receive(_answer(name, payload, request.seq), now + 0.002, now + 0.002))
        exchange = protocol._exchange
        seen.append(
            (
                protocol.up,
                protocol.boot_id,
                exchange.last_good,
                exchange.asked,
                exchange.out is None,
                exchange.next_poll,
            )
        )
        seen.append((protocol._reopen_s, protocol._poll_refused, protocol.stats.as_dict()))
    return seen


def test_an_answer_with_nothing_new_gives_what_the_full_path_gives() -> None:
    fast, full = _talk(False), _talk(True)
    assert fast == full
    counted = full[-1][-1]  # type: ignore[index]
    assert counted["crc_errors"] and counted["stale"] and counted["faults"] and counted["naks"]
    assert counted["link_downs"] and counted["events"] and counted["frames_ok"] > 25
    delivered = [type(o).__name__ for item in full if isinstance(item, list) for o in item]
    assert {"Reported", "Deliver", "Received"} <= set(delivered)


def test_a_polls_request_filled_anew_is_the_request_made_anew() -> None:
    """The last POLL's request object, its reply in (or given up after retries), is the next
    POLL's: every field as a request made new would have it, and a command's request is never it."""
    from drivers._exchange import Command, Exchange, Request

    config = LinkConfig()
    exchange = Exchange(3, config)
    exchange.opened(0.0, 0xFFFFFFFE)
    exchange.request(MsgType.POLL, b"\x00" * 9, 0.0)
    first = exchange.out
    assert first is not None
    first.attempt, first.deadline = 2, 9.0  # as after two retries
    exchange.out = None  # answered
    exchange.request(MsgType.POLL, b"\x01" * 9, 1.0)
    again = exchange.out
    wire = encode_fields(3, 0, 0, MsgType.POLL, b"\x01" * 9)
    assert again is first and again == Request(MsgType.POLL, 0, wire, exchange.deadline(1.0), None, 0, 1.0)
    exchange.out = None
    command = Command("lamp", 9, b"")
    exchange.request(MsgType.CMD, b"\x09", 2.0, command)
    assert exchange.out is not first and exchange.out is not None and exchange.out.command is command
    assert first.seq == 0 and first.kind is MsgType.POLL  # the POLL's request left as it was
