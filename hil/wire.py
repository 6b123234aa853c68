"""A device link in process: the controller's :class:`~drivers.protocol.LinkProtocol` and a
simulator (:class:`~hil.device.SimDevice`) joined without a port, a thread or a clock of their own.

The caller owns time: :meth:`SimWire.run` drives the exchange up to a time on the caller's
clock, each reply arriving as the caller's ``chunking`` cuts it (whole, split at random points,
a byte at a time), and a ``Line`` may lose a request or a reply, or the whole line (the link
down), as a seeded random source decides. Used by the protocol's property tests and by
``tablectl simulate``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from drivers.framing import Decoder
from drivers.link_pace import LinkPace
from drivers.protocol import LinkProtocol, Output, Send, Wait
from hil.device import SimDevice

__all__ = ["Line", "SimWire", "CHUNKINGS"]

CHUNKINGS = ("whole", "split", "bytes")
"""How a reply's bytes reach the protocol: in one piece, cut at random points, one byte at a time."""

REPLY_S = 0.002
"""How long after a request its reply arrives (simulated seconds)."""


@dataclass
class Line:
    """What the line between the controller and the device does: ``connected`` False is a cable
    pulled (nothing passes); ``drop`` the chance that a request or a reply is lost; ``chunking``
    how replies arrive (one of :data:`CHUNKINGS`)."""

    connected: bool = True
    drop: float = 0.0
    chunking: str = "whole"
    lost: int = 0
    cut: Callable[[], None] | None = field(default=None, compare=False)
    """Called as a request is lost to the line pulled (``connected`` False): a simulation notes
    when a line pulled acted (a pull too short to lose a request did nothing)."""


@dataclass
class SimWire:
    """``protocol`` talking to ``device`` over ``line``; ``rng`` decides losses and cuts; what the
    protocol returns goes to ``deliver`` (a :class:`~drivers.delivery.Delivery`, or the link's
    :meth:`~drivers.link.Link.dispatch`) as soon as it returns it (an empty list is not passed on)."""

    protocol: LinkProtocol
    device: SimDevice
    rng: random.Random
    line: Line = field(default_factory=Line)
    now: float = 0.0
    """The time this link has been run to."""
    opened: bool = False
    reopen_at: float = 0.0
    whole: bool = False
    """Each reply handed to the protocol in one piece, cut or not: its cuts are drawn all the same
    (the same random draws), and the protocol ends in the same state (a reply's frame completes at
    its last byte, and the pieces before it deliver nothing); cheaper. False: piece by piece."""
    idle_to: float = 0.0
    """Until when (exclusive) the link has nothing to do unless something outside changes it: the
    time it was last left waiting for (0.0: unknown). A caller may skip running it before then."""
    spun: float | None = None
    """The time a run last used up its budget of requests at (None: never): the protocol sent
    them without its clock moving on, a spin, which the caller reports (a correct link sends at
    most one request per reply or response time)."""
    _decoder: Decoder = field(default_factory=Decoder)
    deliver: Callable[[list[Output]], None] = field(kw_only=True)
    pace: LinkPace | None = field(default=None, kw_only=True)
    """The link's idle pace (the runner's, :attr:`drivers.link.Link.pace`), turned before each
    step as the runner turns it each time it serves the link; None: the protocol polls at its
    config's interval throughout. Whoever runs the table's links wakes them together
    (:func:`drivers.link_pace.stirred`)."""

    def run(self, until: float, wall: float = 0.0, *, budget: int = 1000) -> None:
        """Run the exchange up to ``until`` (``wall``: added to the time to stamp events with); at
        most ``budget`` requests, so a bug cannot spin forever: one that uses them up is noted in
        :attr:`spun` and the run ends at ``until``."""
        protocol, deliver, pace = self.protocol, self.deliver, self.pace
        step = protocol.step
        while budget > 0:
            budget -= 1
            if not self.opened:
                if self.reopen_at > until:
                    self.now, self.idle_to = until, self.reopen_at
                    return
                self.now = max(self.now, self.reopen_at)
                deliver(protocol.opened(self.now, self.rng.getrandbits(32), wall + self.now))
                self._decoder = Decoder()
                self.opened = True
            now = self.now
            if pace is not None:
                pace.turn(now)
            action, outputs = step(now, wall + now)
            if outputs:  # (nothing to deliver: most steps, a wait)
                deliver(outputs)
            if isinstance(action, Wait):  # (the most frequent)
                if action.until > until:
                    self.now, self.idle_to = until, min(action.until, self._state_due())
                    return
                if action.until > now:
                    self.now = action.until
                continue
            if isinstance(action, Send):
                self._exchange(action.data, wall)
                continue
            self.opened = False  # closed: the link went down
            self.reopen_at = now + protocol.reopen_pause()
            protocol.stats.add("reconnects")
        self.spun = self.now
        self.now, self.idle_to = max(self.now, until), 0.0

    def _state_due(self) -> float:
        """When the protocol reads the device's state again by itself (its watch), which its wait
        does not include: the link is idle only until then."""
        due = self.protocol._state._watching.due  # read only (the protocol has no accessor for it)
        return float("inf") if due is None else due

    def _exchange(self, request: bytes, wall: float) -> None:
        line = self.line
        if not line.connected:
            line.lost += 1
            if line.cut is not None:
                line.cut()
            return
        if line.drop and self.rng.random() < line.drop:
            line.lost += 1
            return
        reply_to = self.device.reply_to
        replies = [r for f in self._decoder.feed(request) if (r := reply_to(f)) is not None]
        if not replies or (line.drop and self.rng.random() < line.drop):
            line.lost += 1
            return
        self.now = now = self.now + REPLY_S
        at = wall + now
        receive, deliver = self.protocol.receive, self.deliver
        for wire in replies:
            if self.whole:
                if line.chunking == "split" and len(wire) > 1:
                    self._split_at(len(wire))  # its random draws, as if cut
                outputs = receive(wire, now, at)
                if outputs:  # (an idle poll's answer: only how far the device has reported)
                    deliver(outputs)
                continue
            for chunk in self._cut(wire):
                outputs = receive(chunk, now, at)
                if outputs:  # (a piece before a frame's last byte delivers nothing)
                    deliver(outputs)

    def _cut(self, wire: bytes) -> list[bytes]:
        how = self.line.chunking
        if how == "bytes":
            return [wire[i : i + 1] for i in range(len(wire))]
        if how == "split" and len(wire) > 1:
            cuts = self._split_at(len(wire))
            return [wire[a:b] for a, b in zip([0, *cuts], [*cuts, len(wire)], strict=True)]
        return [wire]

    def _split_at(self, size: int) -> list[int]:
        """Where a split line cuts a reply of ``size`` bytes (``size`` > 1): up to three points
        drawn from :attr:`rng`, in order."""
        return sorted(self.rng.sample(range(1, size), min(3, size - 1)))
