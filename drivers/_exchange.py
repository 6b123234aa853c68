"""The requests of one link and their sequence numbers (private to :mod:`drivers.protocol`;
docs/protocol.md, section 4): the request outstanding with its retries, the commands queued
and the one held after ``busy``, and when to poll next."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

from drivers.framing import Frame, MsgType, encode_fields
from drivers.link_events import LinkConfig, Send

__all__ = ["Command", "Request", "Exchange", "ANSWERS", "AT_ONCE"]

ANSWERS = {
    MsgType.POLL: (MsgType.EVENT, MsgType.ACK, MsgType.NAK),
    MsgType.CMD: (MsgType.RESP, MsgType.NAK),
    MsgType.STATE_REQ: (MsgType.STATE, MsgType.NAK),
}
"""The reply types that answer each request type."""
AT_ONCE = -math.inf
""":attr:`Exchange.next_poll` when a poll is due at once: before every time of the runner's
clock, which may read below 0.0 (``time.monotonic``'s reference point is undefined, and a
bench's or simulation's clock is injected)."""
_POLL, _RESP = MsgType.POLL, MsgType.RESP  # (an enum's member read through its class is a slow look-up)


@dataclass(slots=True)
class Command:
    """A command for the device: its name, code and body, and its tries after ``busy``."""

    name: str
    code: int
    body: bytes
    busy_tries: int = 0
    due: float = 0.0


@dataclass(slots=True)
class Request:
    """The request outstanding: what it is, its wire bytes, tries so far and when its wait ends."""

    kind: MsgType
    seq: int
    wire: bytes
    deadline: float
    command: Command | None = None
    attempt: int = 0
    sent: float = 0.0
    """When it was first sent (its answer was made after that, whichever try it answers)."""

    def answered_by(self, frame: Frame) -> bool:
        """Whether ``frame`` answers this request: it echoes its number, is of a type that answers
        it, and (a RESP) names its command's code."""
        if frame.ack != self.seq or frame.type not in ANSWERS[self.kind]:
            return False
        return not (
            frame.type is _RESP and self.command is not None and frame.payload[5:6] != bytes((self.command.code,))
        )


class Exchange:
    """The controller's requests to the device at ``address``, one outstanding at a time."""

    __slots__ = (
        "config",
        "out",
        "last_good",
        "asked",
        "next_poll",
        "poll_now",
        "_address",
        "_seq",
        "_commands",
        "_held",
        "_poll",
    )

    def __init__(self, address: int, config: LinkConfig) -> None:
        self._address = address
        self.config = config
        self.out: Request | None = None
        """The request whose reply is awaited."""
        self.last_good = 0.0
        """When the device last answered well (the runner's clock)."""
        self.asked: float | None = None
        """When the first request after that answer was sent (None: none yet)."""
        self.next_poll = AT_ONCE
        """When to poll next (:data:`AT_ONCE`: at once)."""
        self.poll_now = False
        """The event in flight was journaled: ask for the next at once."""
        self._seq = 0
        self._commands: deque[Command] = deque()
        self._held: Command | None = None  # a command waiting to be sent again after `busy`
        self._poll: Request | None = None
        """The last POLL's request: the next POLL's, its fields filled anew (a POLL has no command)."""

    def opened(self, now: float, seq: int) -> None:
        """The port was (re)opened at ``now``; sequence numbers start after ``seq``."""
        self._seq = seq & 0xFFFFFFFF
        self.heard(now)
        self.out = None
        self.next_poll = AT_ONCE

    def queue(self, command: Command) -> None:
        """Send ``command`` after those queued before it."""
        self._commands.append(command)

    def hold(self, command: Command, due: float) -> None:
        """Send ``command`` again at ``due`` (it was answered busy); later commands wait behind it."""
        command.due = due
        self._held = command

    def heard(self, now: float) -> None:
        """The device answered well at ``now`` (or the port was opened then)."""
        self.last_good, self.asked = now, None

    def deadline(self, now: float) -> float:
        """When the reply to a request sent at ``now`` is late: its response time, cut at
        ``link_down_s`` after the device's last good answer, but never before the first request
        since then has had its response time (a controller that could not ask, stalled on a loaded
        machine, never finds the device silent for the time it was away)."""
        rt = self.config.response_timeout_s
        asked = now if self.asked is None else self.asked
        return min(now + rt, max(self.last_good + self.config.link_down_s, asked + rt))

    def silent(self, now: float) -> bool:
        """Whether the device is silent at ``now``: ``link_down_s`` has passed since its last good
        answer, and the first request since then has had its response time. A request sent now
        would be late already (its :meth:`deadline` is not after ``now``): the link is down
        instead, at the boundary itself (docs/protocol.md, 4.7). The same sums as
        :meth:`deadline`'s, so that a deadline cut at the boundary is found silent when it comes,
        whatever the floats round to."""
        if self.asked is None:
            return False  # nothing asked since the last answer (a controller that could not ask)
        rt = self.config.response_timeout_s
        return max(self.last_good + self.config.link_down_s, self.asked + rt) <= now

    def silent_at(self) -> float | None:
        """From when the device is :meth:`silent` (None: not before something is asked): the
        same sum, so that ``silent(now)`` is ``silent_at() <= now`` exactly."""
        if self.asked is None:
            return None
        return max(self.last_good + self.config.link_down_s, self.asked + self.config.response_timeout_s)

    def request(self, kind: MsgType, payload: bytes, now: float, command: Command | None = None) -> Send:
        """Send a request of ``kind`` now, under the next sequence number."""
        self._seq = (self._seq + 1) & 0xFFFFFFFF
        if self.asked is None:
            self.asked = now
        wire = encode_fields(self._address, self._seq, 0, kind, payload)
        poll = self._poll
        if kind is _POLL and poll is not None and poll is not self.out:
            # the last POLL's request, its reply in or given up: the same fields, filled anew
            poll.seq, poll.wire, poll.deadline, poll.attempt, poll.sent = self._seq, wire, self.deadline(now), 0, now
            self.out = poll
        else:
            self.out = Request(kind, self._seq, wire, self.deadline(now), command, sent=now)
            if kind is _POLL:
                self._poll = self.out
        return Send(wire)

    def retry(self, now: float) -> Send | None:
        """The outstanding request again (same number), when the device is not :meth:`silent`
        and tries are left; else None."""
        out = self.out
        assert out is not None
        if out.attempt < self.config.retries and not self.silent(now):
            out.attempt += 1
            out.deadline = self.deadline(now)
            return Send(out.wire)
        return None

    def next_command(self, now: float) -> Command | None:
        """The command to send now, if any (one held after ``busy`` first, when its pause is over)."""
        if self._held is not None:
            if now >= self._held.due:
                command, self._held = self._held, None
                return command
            return None  # later commands wait behind it, so their order is kept
        return self._commands.popleft() if self._commands else None

    def poll_due(self) -> float:
        """When to poll next (or to send the command held after ``busy``)."""
        if self._held is not None:
            return min(self.next_poll, self._held.due)
        return self.next_poll
