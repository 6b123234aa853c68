"""What a device link says and is told: its timing, its counters, the reports it delivers to the
table (up, down, faults, command results), what its protocol hands its runner (bytes to send,
when to wake, items to deliver) and the device's answer statuses (docs/protocol.md, sections 4-9).

The pure :class:`~drivers.protocol.LinkProtocol` returns these; its runners (the threaded
:class:`~drivers.link.Link`, the simulation's :class:`~hil.wire.SimWire`) act on them through
:class:`~drivers.delivery.Delivery`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Protocol

from drivers.backoff import Backoff
from drivers.framing import DecoderStats
from drivers.messages import DeviceEvent

__all__ = [
    "LinkConfig",
    "LinkCounters",
    "LinkStats",
    "COUNTERS",
    "PROBLEM_COUNTERS",
    "LinkUp",
    "LinkDown",
    "EventsOfBoot",
    "DeviceFault",
    "CommandResult",
    "OrderFeed",
    "Send",
    "Wait",
    "Close",
    "Action",
    "Deliver",
    "Received",
    "Reported",
    "Output",
    "StateReader",
    "EventReader",
    "Watch",
    "STATE_WATCH_S",
    "STATUS_OK",
    "STATUS_UNKNOWN",
    "STATUS_BAD_BODY",
    "STATUS_BUSY",
    "STATUS_NAK",
    "STATUS_NO_ANSWER",
    "STATUS_TEXT",
]

STATUS_OK, STATUS_UNKNOWN, STATUS_BAD_BODY, STATUS_BUSY = 0, 1, 2, 3
"""RESP statuses from the device (docs/protocol.md)."""
STATUS_NAK, STATUS_NO_ANSWER = 254, 255
"""Statuses the controller reports itself: the device NAKed the command; no answer at all."""
STATUS_TEXT = {
    STATUS_UNKNOWN: "unknown command",
    STATUS_BAD_BODY: "bad body",
    STATUS_BUSY: "busy",
    STATUS_NAK: "refused (NAK)",
    STATUS_NO_ANSWER: "no answer",
}
"""What each failing status means, in words."""

STATE_WATCH_S = 0.5
"""How often the state is read again while the driver watches it (docs/protocol.md, section 6)."""

Watch = Callable[[DeviceEvent], object]
"""What of an event or a state snapshot the link follows by reading the state again (None: nothing)."""

StateReader = Callable[[list[bytes], float], DeviceEvent]
"""Turns the bodies of a state answer's parts into the driver's state event (raises
:class:`~drivers.messages.BodyError` on a bad body)."""

EventReader = Callable[[int, int, bytes, float], DeviceEvent]
"""The driver's reading of a device event ``(event_no, code, body, at)``: the typed event, or a
``DeviceFault`` for an event it does not know (raises :class:`~drivers.messages.BodyError` on a
value out of range)."""


@dataclass(frozen=True, slots=True)
class LinkConfig:
    """Timing of one link (seconds)."""

    baudrate: int = 115200
    poll_interval_s: float = 0.05
    idle_poll_interval_s: float = 0.2
    """The poll interval of a link whose table is idle: nothing received from any of its devices
    and nothing sent them but polls for ``idle_after_s`` (never shorter than ``poll_interval_s``;
    at most half of the devices' one-second heartbeat, docs/protocol.md, section 4.8)."""
    idle_after_s: float = 5.0
    """How long a table's links hear and send nothing but polls and empty answers before they
    poll every ``idle_poll_interval_s`` (any event or command brings ``poll_interval_s`` back at once)."""
    response_timeout_s: float = 0.1
    retries: int = 3
    link_down_s: float = 1.0
    reconnect_min_s: float = 0.1
    reconnect_max_s: float = 5.0
    busy_retries: int = 5
    busy_backoff_s: float = 0.05
    busy_backoff_max_s: float = 0.8
    log_interval_s: float = 10.0
    write_timeout_s: float = 1.0
    """A write not done in this long fails (the link goes down). pyserial also fails a write that
    was done when its thread ran again only after this long (it looks at the time after the
    write), so a process starved for as long takes its links down."""

    @property
    def idle_poll_s(self) -> float:
        """The poll interval while the table is idle: ``idle_poll_interval_s``, or
        ``poll_interval_s`` when that is longer."""
        return max(self.poll_interval_s, self.idle_poll_interval_s)

    @property
    def reconnect(self) -> Backoff:
        """The pauses before the port is opened again after the link went down."""
        return Backoff(self.reconnect_min_s, self.reconnect_max_s)

    @property
    def busy_backoff(self) -> Backoff:
        """The pauses before a command the device answered busy is sent again."""
        return Backoff(self.busy_backoff_s, self.busy_backoff_max_s)


@dataclass(frozen=True, kw_only=True)
class LinkStats(DeviceEvent):
    """A snapshot of one link's state and counters (journaled at each round's end by the runtime;
    ``tablectl status`` shows the latest). Every ``int`` field after ``boot_id`` is a counter, the
    decoder's first (:class:`~drivers.framing.DecoderStats`), then the link's; their meanings:
    docs/protocol.md, section 9."""

    up: bool = False
    boot_id: int = 0
    frames_ok: int = 0
    crc_errors: int = 0
    malformed: int = 0
    unknown_types: int = 0
    oversize: int = 0
    resyncs: int = 0
    garbage_bytes: int = 0
    timeouts: int = 0
    retries: int = 0
    stale: int = 0
    reconnects: int = 0
    link_downs: int = 0
    duplicates: int = 0
    events: int = 0
    gaps: int = 0
    resets: int = 0
    busy: int = 0
    naks: int = 0
    commands_failed: int = 0
    faults: int = 0

    def counters(self) -> dict[str, int]:
        """The counters by name."""
        return {name: getattr(self, name) for name in COUNTERS}


_NOT_COUNTERS = frozenset(("device", "at", "event_no", "up", "boot_id"))

COUNTERS: tuple[str, ...] = tuple(f.name for f in fields(LinkStats) if f.name not in _NOT_COUNTERS)
"""The counter names, in order: the decoder's, then the link's."""

_DECODER_COUNTERS = frozenset(f.name for f in fields(DecoderStats))
_LINK_COUNTERS = frozenset(COUNTERS) - _DECODER_COUNTERS
_ZERO = dict.fromkeys(COUNTERS, 0)

PROBLEM_COUNTERS: tuple[str, ...] = tuple(c for c in COUNTERS if c not in ("frames_ok", "events"))
"""The counters whose change is logged (the rest count normal traffic)."""


class LinkCounters:
    """One link's live counters (kept by whoever feeds its protocol): the decoder's in its
    :class:`~drivers.framing.DecoderStats` (``decoder``), the link's own in a counter raised with
    :meth:`add`; each read by name as an attribute (``counters.timeouts``)."""

    __slots__ = ("decoder", "_own")

    def __init__(self) -> None:
        self.decoder = DecoderStats()
        """What the link's frame decoder counts (it is given this object)."""
        self._own: Counter[str] = Counter()

    def add(self, name: str, n: int = 1) -> None:
        """Count ``n`` more of the link's counter ``name`` (one of :data:`COUNTERS`, not the decoder's)."""
        if name not in _LINK_COUNTERS:
            raise KeyError(f"no link counter {name!r}")
        self._own[name] += n

    @property
    def events(self) -> int:
        """The device events received: read by the link's pace at every step, so read directly
        (a name found by :meth:`__getattr__` is looked up in the class first and fails there,
        which costs about a microsecond each time)."""
        return self._own["events"]

    def __getattr__(self, name: str) -> int:
        if name in _DECODER_COUNTERS:
            value: int = getattr(self.decoder, name)
            return value
        if name in _LINK_COUNTERS:
            return self._own[name]
        raise AttributeError(f"{type(self).__name__} has no counter {name!r}")

    def as_dict(self) -> dict[str, int]:
        """Every counter by name, in :data:`COUNTERS` order."""
        return {**_ZERO, **vars(self.decoder), **self._own}

    def problem_total(self) -> int:
        """The sum of the :data:`PROBLEM_COUNTERS` (every counter only grows, so it changes
        whenever one of them does): a cheap look before comparing them one by one."""
        decoder, own = self.decoder, self._own
        decoded: int = sum(vars(decoder).values())
        return decoded - decoder.frames_ok + sum(own.values()) - own["events"]


@dataclass(frozen=True, kw_only=True)
class LinkUp(DeviceEvent):
    """The device answered; ``rebooted`` when its boot id changed since it was last up."""

    boot_id: int
    rebooted: bool


@dataclass(frozen=True, kw_only=True)
class EventsOfBoot(DeviceEvent):
    """The device's events delivered next are of boot ``boot_id``, not of the boot its last
    ``LinkUp`` names: events it kept across a power cycle, then its new boot's after them. Journaled
    like every link report, so that a controller started again takes its event window's boot from
    the last of these or of the ``LinkUp`` s (docs/protocol.md, section 5)."""

    boot_id: int


@dataclass(frozen=True, kw_only=True)
class LinkDown(DeviceEvent):
    """No good reply for ``link_down_s``, or the port failed."""

    reason: str


@dataclass(frozen=True, kw_only=True)
class DeviceFault(DeviceEvent):
    """Something went wrong on the link or in a driver (the link keeps running).

    ``kind`` says what: ``events_gap`` (event numbers skipped), ``events_reset`` (the device's
    numbering started over: a restart), ``command_failed`` (``command`` names it; the device
    answered an error, stayed busy, refused it or never answered), ``nak`` (a poll or state
    request refused), ``bad_event`` (an event the driver cannot read), ``state`` (the state request
    failed), ``link`` (the link thread itself), ``open_failed`` (the port would not open: the OS
    reason, e.g. ``No such file or directory`` or ``port X is in use by another process``) and
    ``no_answer`` (the port opened but the device, not up, does not answer); the last two are
    reported on the first failure and whenever the reason changes, not on every retry."""

    error: str
    kind: str = ""
    command: str = ""


@dataclass(frozen=True, kw_only=True)
class CommandResult(DeviceEvent):
    """A device's answer to a command: status 0 is success (docs/protocol.md); 254 the device
    refused the frame (NAK), 255 no answer at all."""

    command: str
    status: int

    @property
    def ok(self) -> bool:
        return self.status == 0


class OrderFeed(Protocol):
    """Where a link puts what it delivers when events of several links are taken in the order
    they happened (:class:`drivers.order.EventOrder`): each item with the controller's time it
    happened at (None: unknown, taken at once), and how far the device has reported."""

    def put(self, item: DeviceEvent, when: float | None, now: float) -> None:
        """``item`` happened at ``when`` (the runner's clock; None: unknown, or the link's own
        report: as soon as what the link delivered before it); ``now``: the time it is now."""

    def reported(self, until: float, now: float) -> None:
        """The device has delivered every event it made before ``until`` (the runner's clock)."""


# --- what the protocol asks its runner to do next ---------------------------------------------


@dataclass(frozen=True, slots=True)
class Send:
    """Write ``data`` to the port now."""

    data: bytes


@dataclass(frozen=True, slots=True)
class Wait:
    """Nothing to send before ``until`` (the runner's clock), unless bytes arrive or a command is queued."""

    until: float


@dataclass(frozen=True, slots=True)
class Close:
    """The device was silent for ``link_down_s``: the link is down (already reported); close the port."""

    reason: str


Action = Send | Wait | Close
"""What :meth:`LinkProtocol.step` asks the runner to do."""


# --- what the protocol hands its runner to deliver, in order ----------------------------------


@dataclass(frozen=True, slots=True)
class Deliver:
    """Deliver ``item`` (a link report, a command result, a state snapshot) to the table: to the
    order when there is one (``when``: the time it happened, None for the link's own reports;
    ``now``: the runner's time), else straight to the table's queue."""

    item: DeviceEvent
    when: float | None
    now: float


@dataclass(frozen=True, slots=True)
class Received:
    """A new event from the device, for its driver to read (:data:`EventReader`): what it becomes
    is delivered as :class:`Deliver` would, then carried (acknowledged once journaled) and shown
    to the driver's watch. ``at``: the wall-clock time it happened; ``when``: the runner's time it
    happened (None: unknown); ``now``: the runner's time."""

    event_no: int
    code: int
    body: bytes
    at: float
    when: float | None
    now: float


@dataclass(frozen=True, slots=True)
class Reported:
    """The device has delivered every event it made before ``until`` (the runner's clock; for
    the order, when there is one)."""

    until: float
    now: float


Output = Deliver | Received | Reported
"""What the protocol's methods return for the runner to deliver, in order."""
