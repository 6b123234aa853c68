"""The simulated device's answer to a POLL (hil/device.py): what it deletes as acknowledged,
and the one time it answers at (its heartbeat's and its clock's)."""

from __future__ import annotations

import itertools
import struct

from drivers.framing import Decoder, Frame, MsgType
from hil.devices import PanelSim

_POLL = struct.Struct(">IIB").pack


def _poll(sim: PanelSim, seq: int, boot: int, number: int) -> Frame:
    """``sim``'s answer to a POLL (number ``seq``) acknowledging event ``number`` of ``boot``, running."""
    wire = sim.reply_to(Frame(sim.address, seq, 0, MsgType.POLL, _POLL(boot, number, 1)))
    assert wire is not None
    (answer,) = Decoder().feed(wire)
    return answer


def test_a_poll_deletes_every_event_of_its_boot_up_to_the_newest_it_names() -> None:
    sim = PanelSim(address=3)
    old, boot = 7, sim.boot_id
    sim.pending = [(old, 9, 1, b"", 0), (boot, 1, 1, b"", 0), (boot, 2, 1, b"", 0), (old, 10, 1, b"", 0)]
    sim.pending.append((boot, 3, 1, b"", 0))
    _poll(sim, 1, boot, 2)  # up to event 2 of this boot: what came before it goes too, event 3 stays
    assert [(b, n) for b, n, *_ in sim.pending] == [(old, 10), (boot, 3)]
    _poll(sim, 2, boot, 1)  # an older acknowledgement: nothing of what is left
    assert [(b, n) for b, n, *_ in sim.pending] == [(old, 10), (boot, 3)]
    _poll(sim, 3, old, 10)
    assert [(b, n) for b, n, *_ in sim.pending] == [(boot, 3)]


def test_a_poll_is_answered_at_one_time_its_heartbeat_s_and_its_clock_s() -> None:
    reads = itertools.count(100.0, 0.5)  # the device's clock moves on at each reading
    sim = PanelSim(address=3)
    sim.clock = lambda: next(reads)
    answer = _poll(sim, 1, sim.boot_id, 0)
    assert answer.type is MsgType.ACK
    assert sim.heartbeat_at is not None
    assert struct.unpack_from(">I", answer.payload, 4)[0] == int(sim.heartbeat_at * 1000)
