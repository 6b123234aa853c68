"""The events of several device links in the order they happened, pure: no port, no clock of
its own (docs/protocol.md, section 5.1).

Each link puts what it delivers (:meth:`LinkFeed.put`) with the time it happened on the
controller's clock (the links' runner's monotonic seconds, the same for every link), and says
how far its device has reported (:meth:`LinkFeed.reported`: every event the device made before
that time has been delivered). :class:`EventOrder` passes an item on once **every other link that
is up has reported past its time**, the earliest first: so a press on the panel and a card out
of the shoe are taken in the order they happened, whichever link polling reached first.

A link holds the others only while it is up (from its ``LinkUp`` to its ``LinkDown``) and has
reported within its ``hold_s`` (its ``link_down_s``: the time after which it is declared down
anyway), so a silent link never holds the others for ever. An item whose time is unknown, or
earlier than what was passed on already (a link that was down or silent, an event sent again
after a journal outage), is passed on as soon as the items before it: it cannot be put back in
the past. The link's own reports (link up and down, command results, state answers) carry no
time of their own: each goes as soon as what its link delivered before it. Each link's items
keep their own order; items of the same time go in the order they were put.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from drivers.messages import DeviceEvent
from drivers.protocol import LinkDown, LinkUp

__all__ = ["EventOrder", "LinkFeed"]


@dataclass(slots=True)
class _Link:
    """One link as the order sees it."""

    hold_s: float
    up: bool = False
    mark: float | None = None
    """The time the device has reported up to (None: nothing yet since it came up). Its event in
    flight (delivered, not journaled yet) is sent again until journaled: its report stays at that
    event's time meanwhile, but the link's newest item (``last``) has passed it."""
    heard: float = 0.0
    """When it last reported (or came up): it holds the others until ``hold_s`` after that."""
    last: float = float("-inf")
    """The time of its newest item (its items keep their order): nothing it delivers later goes
    before it."""
    items: deque[tuple[float, int, DeviceEvent]] = field(default_factory=deque)


class EventOrder:
    """Items of every link, passed on to ``out`` in the order they happened (thread-safe: each
    link's thread feeds its own :class:`LinkFeed`)."""

    def __init__(self, out: Callable[[DeviceEvent], None]) -> None:
        self._out = out
        self._links: dict[str, _Link] = {}
        self._lock = threading.Lock()
        self._seq = 0
        self._now = float("-inf")
        """The newest time any link gave."""
        self.frontier = float("-inf")
        """The time of the last item passed on."""

    def feed(self, link: str, hold_s: float) -> LinkFeed:
        """The feed of the link named ``link``, which holds the others at most ``hold_s`` after it
        last reported."""
        self._links[link] = _Link(hold_s)
        return LinkFeed(self, link)

    @property
    def held(self) -> int:
        """Items waiting for another link to report past them."""
        with self._lock:
            return sum(len(state.items) for state in self._links.values())

    def put(self, link: str, item: DeviceEvent, when: float | None, now: float) -> None:
        """``link`` delivers ``item``, which happened at ``when`` (None: unknown); ``now`` is the time now."""
        with self._lock:
            state = self._links[link]
            self._now = max(self._now, now)
            if isinstance(item, LinkUp):
                state.up, state.mark, state.heard = True, None, now
            elif isinstance(item, LinkDown):
                state.up = False
            at = max(self.frontier if when is None else when, self.frontier, state.last)
            state.last = at
            self._seq += 1
            state.items.append((at, self._seq, item))
            self._release()

    def reported(self, link: str, until: float, now: float) -> None:
        """``link``'s device has delivered every event it made before ``until``."""
        with self._lock:
            state = self._links[link]
            self._now = max(self._now, now)
            state.up, state.heard = True, now
            state.mark = until if state.mark is None else max(state.mark, until)
            self._release()

    def _holds(self, state: _Link, at: float) -> bool:
        """``state``'s link may still deliver something that happened before ``at``: it is up,
        has reported within ``hold_s``, and neither its device's report nor its own newest item
        (nothing it delivers later goes before that) has passed ``at``."""
        if not state.up or self._now - state.heard > state.hold_s:
            return False
        return max(state.last, float("-inf") if state.mark is None else state.mark) < at

    def _release(self) -> None:
        links = self._links.values()
        while True:
            # the link whose oldest item is the earliest (time, then the order put: no two alike)
            first: _Link | None = None
            earliest = (0.0, 0)
            for state in links:
                if state.items:
                    head = state.items[0]
                    if first is None or (head[0], head[1]) < earliest:
                        first, earliest = state, (head[0], head[1])
            if first is None:
                return
            at = earliest[0]
            if any(self._holds(s, at) for s in links if s is not first):
                return
            self.frontier = max(self.frontier, at)
            self._out(first.items.popleft()[2])


@dataclass(frozen=True, slots=True)
class LinkFeed:
    """What one link gives the order (a :class:`drivers.protocol.OrderFeed`)."""

    order: EventOrder
    link: str

    def put(self, item: DeviceEvent, when: float | None, now: float) -> None:
        """``item`` happened at ``when`` (None: unknown; the link's own reports: now)."""
        self.order.put(self.link, item, when, now)

    def reported(self, until: float, now: float) -> None:
        """The device has delivered every event it made before ``until``."""
        self.order.reported(self.link, until, now)
