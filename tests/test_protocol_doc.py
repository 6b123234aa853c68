"""docs/protocol.md against the code: the state exchange's known-answer frames are what the
controller's framing code sends and the reference devices answer (so the page cannot go stale),
and the page's statements on limits, NAKs and acknowledgements are what the code does."""

from __future__ import annotations

import queue
import re
import struct
from pathlib import Path

import pytest

from drivers.base import Driver
from drivers.bet_spots import BetSpotDriver
from drivers.framing import MAX_PAYLOAD, VERSION, Decoder, Frame, MsgType, cobs_encode, crc16, encode
from drivers.link import LinkConfig
from drivers.messages import BodyError, DeviceEvent, encode_body
from drivers.panel import PanelDriver
from drivers.shoe import ShoeDriver
from drivers.state import ShoeState, SpotsState
from hil.device import STATUS_BAD_BODY, STATUS_OK, SimDevice
from hil.devices import BetSpotSim, PanelSim, ShoeSim

DOC = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()
STATE_HEADER = 10
"""boot_id u32, event_no u32, part u8, parts u8 (section 6)."""


def vector(label: str) -> bytes:
    """The hex on the page's line ``label: ...`` (section 11.1)."""
    found = re.findall(rf"^{re.escape(label)}:\s+((?:[0-9a-f]{{2}} ?)+)$", DOC, re.MULTILINE)
    assert len(found) == 1, f"{label}: {len(found)} lines on the page"
    return bytes.fromhex(found[0])


def request(address: int, seq: int, part: int) -> bytes:
    """A STATE_REQ as the link sends it (``Link._read_state``: ``_exchange(STATE_REQ, bytes((part,)))``)."""
    return encode(Frame(address, seq, 0, MsgType.STATE_REQ, bytes((part,))))


def one_frame(wire: bytes) -> Frame:
    (frame,) = Decoder().feed(wire)
    return frame


def state_frame(device: str, sim: SimDevice, address: int, seq: int) -> Frame:
    """The page's STATE frame of ``device`` (``shoe``, ``spots``), checked: its STATE_REQ is what the
    link sends (``address``, ``seq``), its STATE what ``sim`` answers to it."""
    asked = request(address, seq, 0)
    assert vector(f"STATE_REQ {device}") == asked
    answer = sim.reply_to(one_frame(asked))
    assert answer is not None and vector(f"STATE {device}") == answer
    return one_frame(vector(f"STATE {device}"))


def read_by(driver: Driver, frame: Frame) -> DeviceEvent:
    """The state event ``driver`` reads from the one-part state answer ``frame`` (the driver closed after)."""
    try:
        return driver._read_state([frame.payload[STATE_HEADER:]], 0.0)
    finally:
        driver.close()


def shoe_sim() -> ShoeSim:
    shoe = ShoeSim(["As"] * 52)
    shoe.boot_id = 1
    return shoe


def spots_sim() -> BetSpotSim:
    spots = BetSpotSim()
    spots.boot_id = 2
    spots.place(1, "ante", 500)
    spots.place(4, "ante", 1000)
    return spots


def test_the_shoe_state_exchange_vectors_are_the_code_s() -> None:
    frame = state_frame("shoe", shoe_sim(), 1, 4)
    assert (frame.type, frame.ack) == (MsgType.STATE, 4)
    boot, newest, part, parts = struct.unpack_from(">IIBB", frame.payload)
    assert (boot, newest, part, parts) == (1, 0, 0, 1)
    state = read_by(ShoeDriver("shoe", "loop://", queue.Queue()), frame)
    assert isinstance(state, ShoeState)
    assert (state.status, state.cards_out, state.stub_count, state.deck_size) == ("ok", 0, 52, 52)


def test_the_bet_spots_state_exchange_vectors_are_the_code_s() -> None:
    frame = state_frame("spots", spots_sim(), 2, 9)
    assert struct.unpack_from(">IIBB", frame.payload) == (2, 2, 0, 1)
    state = read_by(BetSpotDriver("bet_spots", "loop://", queue.Queue()), frame)
    assert isinstance(state, SpotsState)
    assert state.locked is False
    assert list(state.spots) == [(1, "ante", 500), (4, "ante", 1000)]


def test_the_page_s_state_body_limit_is_the_code_s() -> None:
    room = MAX_PAYLOAD - STATE_HEADER
    assert room == 230 and f"**{room} bytes of body**" in DOC
    spots = BetSpotSim()
    for seat in range(1, 8):
        for n in range(8):
            spots.put(seat, f"spot_{n:02d}_with_a_long_name", 1_000_000)
    parts = spots._split(spots.state_body())
    assert len(parts) > 1 and max(len(p) for p in parts) <= room
    assert max(len(p) for p in parts) > room - 40  # filled, not split early


def test_a_state_body_without_a_list_has_no_count_byte() -> None:
    fixed, entries = shoe_sim().state_body()
    assert entries is None and len(fixed) == 5
    driver = ShoeDriver("shoe", "loop://", queue.Queue())
    try:
        with pytest.raises(BodyError, match="1 bytes left over"):
            driver._read_state([fixed + b"\x00"], 0.0)
    finally:
        driver.close()


def test_an_unknown_type_is_never_answered_and_a_non_request_is_naked() -> None:
    body = struct.pack(">BBIIBB", VERSION, 1, 7, 0, 9, 0)  # type 9: not in section 3
    wire = cobs_encode(body + crc16(body).to_bytes(2, "big")) + b"\x00"
    decoder = Decoder()
    assert decoder.feed(wire) == [] and decoder.stats.unknown_types == 1  # the device never sees it
    shoe = shoe_sim()
    reply = shoe.reply_to(Frame(1, 8, 0, MsgType.ACK, b""))  # a known type that is not a request
    assert reply is not None and one_frame(reply).type is MsgType.NAK


def test_an_acknowledgement_of_an_event_no_longer_held_deletes_nothing() -> None:
    shoe = shoe_sim()
    shoe.deal(3)

    def poll(seq: int, boot: int, last: int) -> Frame:
        reply = shoe.reply_to(Frame(1, seq, 0, MsgType.POLL, struct.pack(">IIB", boot, last, 1)))
        assert reply is not None
        return one_frame(reply)

    def event_no(frame: Frame) -> int:
        assert frame.type is MsgType.EVENT
        return int(struct.unpack_from(">I", frame.payload, 12)[0])  # after boot_id, clock, event_boot

    assert event_no(poll(1, 1, 2)) == 3  # events 1 and 2 deleted
    assert event_no(poll(2, 1, 2)) == 3  # 2 again (its reply lost): nothing to delete, the same answer
    assert event_no(poll(3, 99, 7)) == 3  # a boot the device never had: nothing deleted
    assert poll(4, 1, 3).type is MsgType.ACK


def _command(sim: PanelSim, name: str, seq: int, **values: object) -> int:
    """Send ``sim`` the panel command ``name`` as a CMD frame; the RESP's status."""
    spec = PanelDriver.COMMANDS[name]
    frame = Frame(3, seq, 0, MsgType.CMD, bytes((spec.code,)) + encode_body(spec, values))
    reply = sim.reply_to(frame)
    assert reply is not None
    answer = one_frame(reply)
    assert answer.type is MsgType.RESP
    return answer.payload[4]


def test_the_display_limits_count_characters_and_a_line_too_long_changes_nothing() -> None:
    """Section 9: `display` and `screen` take at most `lines` lines of `columns` characters (code
    points, not bytes); anything else is status 2 and leaves the display as it was."""
    assert "**Line length counts characters**" in DOC
    sim = PanelSim(lines=4, columns=40)
    wide = "é" * 40  # 40 characters, 80 bytes
    assert _command(sim, "display", 1, line=1, text=wide) == STATUS_OK
    assert _command(sim, "display", 2, line=2, text="é" * 41) == STATUS_BAD_BODY
    assert _command(sim, "display", 3, line=0, text="x") == STATUS_BAD_BODY
    assert _command(sim, "display", 4, line=5, text="x") == STATUS_BAD_BODY
    assert _command(sim, "screen", 5, lines=("a", "b", "c", "d", "e")) == STATUS_BAD_BODY
    assert _command(sim, "screen", 6, lines=("x" * 41,)) == STATUS_BAD_BODY
    assert sim.screen == (wide, "", "", "")
    assert _command(sim, "screen", 7, lines=("a", wide)) == STATUS_OK and sim.screen == ("a", wide, "", "")


def test_the_page_s_timing_is_the_controller_s() -> None:
    """Sections 4.1, 4.3, 4.7, 4.8: the poll interval and the idle table's, the retry, the silence
    that is a link-down."""
    config = LinkConfig()
    assert (config.response_timeout_s, config.retries, config.link_down_s) == (0.1, 3, 1.0)
    assert "within **100 ms** (`response_timeout_s`)" in DOC and "up to **3** more times (`retries`)" in DOC
    assert "After **1.0 s** (`link_down_s`)" in DOC and "**1.0 s** (the controller's own `link_down_s`" in DOC
    assert config.poll_interval_s == 0.05 and "every **50 ms** (`poll_interval_s`" in DOC
    assert (config.idle_poll_s, config.idle_after_s) == (0.2, 5.0)
    assert "**An idle table polls every 200 ms**" in DOC and "for **5 s** (no event" in DOC
    assert "(50 ms by default; 200 ms while the table is\n   idle, 4.1)" in DOC


def test_a_stub_of_more_than_255_cards_is_reported_as_255() -> None:
    """Section 6: `stub_count` 255 in the state answer means 255 or more."""
    assert "255 means 255 or more" in DOC
    shoe = ShoeSim(["As"] * 300)
    fixed, _ = shoe.state_body()
    assert fixed[3] == 255
    shoe.dealt = 100
    assert shoe.state_body()[0][3] == 200
