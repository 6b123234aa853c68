"""Attacks on the idle pace (drivers/link_pace.py; docs/protocol.md, section 4.1): the pace and
the protocols of a table's three links stepped together on an injected clock, as the links' loop
steps them (turn each link, then wake every link when one was stirred), no sleeps.

What ``tests/test_link_pace.py`` (the decision alone) and ``tests/test_simulate_pace.py`` (the
simulation) do not check, and these do: the requests that go on the wire. An event on one link
while another is mid-exchange (the other's next POLL comes one fast interval after its last, not
an idle one); a command queued while every link is idle goes out at the next step, not at the next
idle poll; a link that went down while idle and came back is brought back with the others."""

from __future__ import annotations

import struct

from drivers.framing import Decoder, Frame, MsgType, encode
from drivers.link_events import LinkConfig
from drivers.link_pace import LinkPace, stirred
from drivers.protocol import Close, LinkProtocol, Send, Wait

BOOT = 9
CONFIG = LinkConfig(poll_interval_s=0.0625, idle_poll_interval_s=0.25, idle_after_s=4.0, response_timeout_s=0.125)
"""Binary-exact timings (the interval a quarter of the idle one, as 50 and 200 ms)."""
_EVENT_HEAD = struct.Struct(">IIIIIB")  # boot, clock, event boot, event number, stamp, code


class _Table:
    """Three links and their paces, devices that answer at once, on one clock."""

    def __init__(self) -> None:
        self.paces = [LinkPace(LinkProtocol(name, a, CONFIG)) for a, name in enumerate(("shoe", "spots", "panel"), 1)]
        self.t = 0.0
        self.polls: dict[str, list[float]] = {p.protocol.name: [] for p in self.paces}
        """When each link sent each new POLL (a retry, the same request again, not counted)."""
        self._seqs: set[tuple[str, int]] = set()
        self.sent: list[tuple[float, str, MsgType]] = []
        self.event_for: str | None = None
        self.mute: set[str] = set()
        self.event_no = 0
        for pace in self.paces:
            pace.protocol.opened(0.0, 1000)
            pace.start(0.0)

    def _answer(self, link: LinkProtocol, frame: Frame) -> None:
        if link.name in self.mute:
            return
        head = struct.pack(">II", BOOT, int(self.t * 1000))
        if frame.type is MsgType.CMD:
            reply = Frame(link.address, 0, frame.seq, MsgType.RESP, struct.pack(">IBB", BOOT, 0, frame.payload[0]))
        elif frame.type is MsgType.POLL and self.event_for == link.name:
            self.event_for, self.event_no = None, self.event_no + 1
            payload = _EVENT_HEAD.pack(BOOT, int(self.t * 1000), BOOT, self.event_no, int(self.t * 1000), 1) + b"\x00"
            reply = Frame(link.address, 0, frame.seq, MsgType.EVENT, payload)
        else:
            reply = Frame(link.address, 0, frame.seq, MsgType.ACK, head)
        link.receive(encode(reply), self.t, self.t)

    def serve(self, pace: LinkPace) -> float:
        """Serve one link at ``t`` as the loop and the simulation do: turn its pace (after what it
        read) and step it, until it waits; when it wants its next step."""
        link = pace.protocol
        for _ in range(50):
            pace.turn(self.t)
            action, _ = link.step(self.t)
            if isinstance(action, Close):
                link.opened(self.t, 5000)
                continue
            if isinstance(action, Wait):
                return action.until
            assert isinstance(action, Send)
            frame = Decoder().feed(action.data)[0]
            self.sent.append((self.t, link.name, frame.type))
            if frame.type is MsgType.POLL and (link.name, frame.seq) not in self._seqs:
                self._seqs.add((link.name, frame.seq))
                self.polls[link.name].append(self.t)
            self._answer(link, frame)
        raise AssertionError("the link never waited")

    def run_until(self, end: float) -> None:
        """Step every link at the times they ask for until ``end``."""
        while True:
            due = [self.serve(pace) for pace in self.paces]
            if stirred(self.paces):
                for pace in self.paces:
                    pace.wake(self.t)
                due = [self.serve(pace) for pace in self.paces]
            nxt = min(due)
            if nxt > end:
                self.t = end
                return
            self.t = nxt


def _idle(table: _Table) -> None:
    table.run_until(10.0)
    assert {p.protocol.poll_interval_s for p in table.paces} == {CONFIG.idle_poll_s}


def test_an_event_on_one_link_brings_back_a_link_mid_exchange_one_fast_interval_after_its_last_poll() -> None:
    table = _Table()
    _idle(table)
    event = table.polls["panel"][-1] + CONFIG.idle_poll_s  # the table's next idle poll
    table.run_until(event - 0.001)
    table.mute.add("panel")  # the panel's POLL at that instant goes unanswered: mid-exchange when the card comes
    table.event_for = "shoe"
    table.run_until(event)
    assert table.event_for is None and table.polls["shoe"][-1] == event
    panel = table.paces[2].protocol
    assert panel.waiting_reply and table.polls["panel"][-1] == event
    assert panel.poll_interval_s == CONFIG.poll_interval_s, "the link mid-exchange was not brought back"
    table.mute.clear()
    table.run_until(event + 1.0)
    after = [t for t in table.polls["panel"] if t > event]
    # its unanswered POLL is retried after the response time and answered; the next POLL goes at
    # once (one fast interval after the last is past), then one every fast interval
    assert after[0] == event + CONFIG.response_timeout_s
    gaps = {b - a for a, b in zip(after, after[1:])}
    assert gaps == {CONFIG.poll_interval_s}, f"the panel polled at {sorted(gaps)}"
    assert {p.protocol.poll_interval_s for p in table.paces} == {CONFIG.poll_interval_s}
    for name in ("shoe", "spots"):
        nxt = [t for t in table.polls[name] if t > event][0]
        assert nxt - event <= CONFIG.poll_interval_s, f"{name}: next poll {nxt - event} s after the event"


def test_a_command_queued_while_every_link_is_idle_goes_out_at_once() -> None:
    table = _Table()
    _idle(table)
    table.run_until(table.t + 0.01)
    queued = table.t
    table.paces[1].protocol.send_command("lamp", 0x20, b"\x01")
    table.paces[1].stir(queued)  # the runner's poke
    table.serve(table.paces[1])  # the poke serves the link at once
    cmds = [(t, name) for t, name, kind in table.sent if kind is MsgType.CMD]
    assert cmds == [(queued, "spots")], "the command waited for the link's next (idle) poll"
    table.run_until(queued + 0.5)
    for name, polls in table.polls.items():
        later = [t for t in polls if t > queued]
        assert later and later[0] - queued <= CONFIG.poll_interval_s, f"{name} not polled within one fast interval"


def test_a_link_down_while_idle_comes_back_and_an_event_on_it_wakes_the_table() -> None:
    table = _Table()
    _idle(table)
    table.mute.add("spots")
    table.run_until(table.t + 3 * CONFIG.link_down_s)
    spots = table.paces[1].protocol
    assert spots.stats.link_downs >= 1
    table.mute.clear()
    table.run_until(table.t + 1.0)
    assert spots.up
    table.event_for = "spots"
    table.run_until(table.t + 1.0)
    assert table.event_for is None, "the event was never polled"
    assert {p.protocol.poll_interval_s for p in table.paces} == {CONFIG.poll_interval_s}
