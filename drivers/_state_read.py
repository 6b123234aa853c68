"""The device's whole state, read after every link-up and while a watch follows it (private to
:mod:`drivers.protocol`; docs/protocol.md, section 6): which part to ask next, the parts read,
and the snapshot held until every event older than it has arrived."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from drivers._exchange import AT_ONCE
from drivers._outbox import Outbox
from drivers._window import EventWindow
from drivers.backoff import Backoff
from drivers.framing import Frame, MsgType
from drivers.link_events import STATE_WATCH_S, StateReader, Watch
from drivers.messages import BodyError, DeviceEvent

__all__ = ["StateReading"]

_STATE_TRIES = 3
"""Bad state answers in a row asked again at once; after as many, each waits the link's backoff."""


@dataclass(slots=True)
class _Parts:
    """The state answer being read: the next part asked, the parts, the snapshot's boot and newest event."""

    part: int = 0
    parts: int = 1
    boot: int | None = None
    newest: int = 0
    bodies: list[bytes] = field(default_factory=list)


@dataclass(slots=True)
class _Watching:
    """The driver's watch: when to read the state again, and what it saw last."""

    due: float | None = None
    """When to read the state again for the watch (None: not watching)."""
    seen: object = None
    """What the watch saw in the last state put on the queue."""
    reading: bool = False
    """The state being read is the watch's (not put on the queue if what is watched is the same)."""


class StateReading:
    """The state request of one link: ``on_state`` reads the answer's bodies (None: the device
    has no state), ``watch`` says what of an event or a state to follow."""

    __slots__ = (
        "wanted",
        "_on_state",
        "_watch",
        "_watching",
        "_parts",
        "_tries",
        "_refused",
        "_not_before",
        "_held",
        "_out",
        "_window",
    )

    def __init__(self, out: Outbox, window: EventWindow, on_state: StateReader | None, watch: Watch | None) -> None:
        self._out, self._window = out, window
        self._on_state, self._watch = on_state, watch
        self.wanted = False
        """The state is to be asked next."""
        self._watching = _Watching()
        self._parts = _Parts()
        self._tries = 0
        """State answers in a row that could not be used (bad, too short, unreadable bodies)."""
        self._refused = 0
        """State requests the device refused (NAK) in a row: the next waits the backoff's pause after as many."""
        self._not_before = AT_ONCE
        """The state is asked again no sooner (after a NAK, or once the quick tries ran out;
        :data:`AT_ONCE`: not deferred)."""
        self._held: tuple[int, int, DeviceEvent] | None = None
        """(boot, newest event no, snapshot) to deliver once every event before it has arrived."""

    def opened(self) -> None:
        """The port was (re)opened: the state goes first."""
        self._parts = _Parts()
        self.wanted = self._on_state is not None
        self._afresh()

    def link_up(self) -> None:
        """The link came up (or the device rebooted): read the state again, at once."""
        self.wanted, self._held, self._watching.reading = True, None, False
        self._afresh()

    def link_down(self) -> None:
        """The link went down: nothing is read until it is up (and the state is read then anyway)."""
        self._held, self.wanted = None, False
        self._watching.due, self._watching.reading = None, False
        self._afresh()

    def _afresh(self) -> None:
        """No failed or refused answer counts any more: the next request is sent at once."""
        self._tries, self._refused, self._not_before = 0, 0, AT_ONCE

    def again(self) -> None:
        """Read the whole state again (its snapshot is delivered as after a link-up)."""
        if self._on_state is not None:
            self.wanted, self._held = True, None

    def unanswered(self) -> None:
        """The request went unanswered: asked again from the first part."""
        self._parts = _Parts()

    @property
    def deferred_to(self) -> float | None:
        """When the state, wanted but deferred (refused, or its quick tries used up), is asked
        (None: not deferred)."""
        return self._not_before if self.wanted and self._not_before > AT_ONCE else None

    @property
    def watch_due(self) -> float | None:
        """When the state is read again for the driver's watch (None: not watching)."""
        return self._watching.due

    def watch_event(self, event: DeviceEvent) -> None:
        """``event`` may start a watch: the state is read again in :data:`STATE_WATCH_S`."""
        if self._watch is None or self._on_state is None or self._watch(event) is None:
            return
        self._watching.seen = None  # the next state read tells the table, whatever it says
        if self._watching.due is None:
            self._watching.due = self._out.now + STATE_WATCH_S

    def request(self, now: float) -> bytes | None:
        """The payload of the state request to send now (the part wanted), or None."""
        watching = self._watching
        if watching.due is not None and not self.wanted and now >= watching.due:
            watching.due, self.wanted, watching.reading = None, True, True
        if not self.wanted or self._on_state is None or now < self._not_before:
            return None
        return bytes((self._parts.part,))

    def reply(self, reply: Frame, boot: int, backoff: Backoff) -> None:
        """One part of the state answer, from the device running ``boot``: the next part is asked
        at the next step; the last one makes the snapshot. A bad answer is asked again from the
        first part, at once up to ``_STATE_TRIES`` in a row, then after ``backoff``'s pause (the
        link's reconnect backoff: doubling, at most its ceiling); a refused one (NAK) after that
        pause from the first refusal; both for as long as the link is up: what waits for the
        device's state (a hold that clears by itself once every device is back and read) must
        not wait for the next link-up."""
        out, p, part = self._out, reply.payload, self._parts.part
        if reply.type is MsgType.NAK:
            out.count("naks")
            pause = backoff.nth(self._refused)
            self._refused += 1
            if self._refused == 1:  # once a run of refusals: a device that keeps refusing is asked, not reported, again
                out.fault(
                    "state",
                    f"the device refused the state request (NAK): asked again in {pause:g} s, then with the "
                    f"link's backoff up to {backoff.max_s:g} s until it answers",
                )
            self._parts, self._not_before = _Parts(), out.now + pause
            return
        if len(p) < 10 or p[8] != part or p[9] == 0 or (self._parts.boot is not None and boot != self._parts.boot):
            self._unusable(f"state part {part}: bad answer (part {p[8:9].hex()}, boot {boot:08x})", backoff)
            return  # asked again from the first part
        if part == 0:
            read = self._parts
            read.boot, read.newest, read.parts = boot, struct.unpack_from(">I", p, 4)[0], p[9]
            self._window.newest_is(boot, read.newest)
        self._parts.bodies.append(bytes(p[10:]))
        self._parts.part += 1
        if self._parts.part >= self._parts.parts:
            self._read(backoff)

    def failed(self, error: str, backoff: Backoff) -> None:
        """The answer cannot be read at all (too short): asked again as after a bad answer."""
        self._unusable(error, backoff)

    def _unusable(self, error: str, backoff: Backoff) -> None:
        """A state answer that cannot be used (``error`` says why): asked again from the first
        part, at once up to ``_STATE_TRIES`` in a row, then after ``backoff``'s pause, doubling up
        to its ceiling, for as long as the link is up (it stopped until the next link-up, leaving
        a hold that clears by itself once the device is read on for good). The first of a run is a
        :class:`DeviceFault`, the later ones only counted."""
        out = self._out
        out.count("faults")
        self._tries += 1
        if self._tries == 1:
            out.fault(
                "state",
                f"{error}: asked again at once up to {_STATE_TRIES - 1} times, then with the link's backoff "
                f"({backoff.first_s:g} s doubling up to {backoff.max_s:g} s) until it is read",
            )
        late = self._tries - _STATE_TRIES
        if late >= 0:
            self._not_before = out.now + backoff.nth(late)
        self._parts = _Parts()

    def _read(self, backoff: Backoff) -> None:
        """Every part is in: the driver makes the snapshot, held until the events before it arrive."""
        assert self._on_state is not None
        read, self._parts = self._parts, _Parts()
        try:
            state = self._on_state(read.bodies, self._out.at)
        except BodyError as exc:
            self._unusable(f"state answer: {exc}", backoff)
            return
        self.wanted = False
        self._afresh()
        assert read.boot is not None
        watching = self._watching
        watched = self._watch(state) if self._watch is not None else None
        watching.due = self._out.now + STATE_WATCH_S if watched is not None else None
        same = watching.reading and watched is not None and watched == watching.seen
        watching.seen, watching.reading = watched, False
        if same:
            return  # read for the watch, and nothing it follows changed: nothing new to tell
        self._held = (read.boot, read.newest, state)
        self.due(False)

    def due(self, drained: bool) -> None:
        """Deliver the snapshot once every event the device made before it has arrived (or the
        device has nothing left to send)."""
        if self._held is None:
            return
        boot, newest, state = self._held
        if drained or newest == 0 or self._window.holds(boot, newest):
            self._held = None
            self._out.put(state)
