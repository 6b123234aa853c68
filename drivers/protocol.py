"""The device link's protocol, pure: no thread, no port, no clock (docs/protocol.md, sections 4-6).

:class:`LinkProtocol` is the controller side of one device link as a state machine. Its runner
(the threaded :class:`~drivers.link.Link` over a port, or a simulation in process) asks it what
to do now with :meth:`LinkProtocol.step` (``now`` is the runner's monotonic time): a
:class:`Send` of bytes to write, a :class:`Wait` until a time (or until bytes arrive or a command
is queued), or a :class:`Close` (the device was silent for ``link_down_s``: the link is down,
close the port and open it again later). Bytes read from the port go to
:meth:`LinkProtocol.receive` as they arrive (whole frames, split, a byte at a time); what the
protocol delivers goes to the sinks it was built with: ``on_event(event_no, code, body, at)`` for
each new device event (exactly once, in order) and ``emit`` for link events (up, down, faults),
command results and state snapshots.

The protocol keeps the event window and the acknowledgement (a POLL names the last event
journaled when ``ack_when_journaled``, else the last received), drops duplicates, reports
resets and gaps, retries a request left unanswered (same sequence number), backs off a command
answered busy, reads the device's whole state after every link-up and while a watch follows it,
and declares the link down after ``link_down_s`` of silence.
"""

from __future__ import annotations

import logging
import struct
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Protocol

from drivers.clock import DeviceClock
from drivers.framing import Decoder, DecoderStats, Frame, MsgType, encode
from drivers.messages import DeviceEvent

__all__ = [
    "LinkConfig",
    "LinkCounters",
    "LinkStats",
    "LinkUp",
    "LinkDown",
    "EventsOfBoot",
    "DeviceFault",
    "CommandResult",
    "LinkProtocol",
    "Send",
    "Wait",
    "Close",
    "Action",
    "StateReader",
    "Watch",
    "OrderFeed",
    "STATE_WATCH_S",
    "STATUS_OK",
    "STATUS_UNKNOWN",
    "STATUS_BAD_BODY",
    "STATUS_BUSY",
    "STATUS_NAK",
    "STATUS_NO_ANSWER",
]

log = logging.getLogger("tablectl.link")

STATUS_OK, STATUS_UNKNOWN, STATUS_BAD_BODY, STATUS_BUSY = 0, 1, 2, 3
"""RESP statuses from the device (docs/protocol.md)."""
STATUS_NAK, STATUS_NO_ANSWER = 254, 255
"""Statuses the controller reports itself: the device NAKed the command; no answer at all."""
_STATUS_TEXT = {
    STATUS_UNKNOWN: "unknown command",
    STATUS_BAD_BODY: "bad body",
    STATUS_BUSY: "busy",
    STATUS_NAK: "refused (NAK)",
    STATUS_NO_ANSWER: "no answer",
}

_EVENT_HEAD = 21
"""An EVENT's payload before the body: boot id, clock, event boot, event number, stamp, code."""

_STATE_TRIES = 3
"""Bad state answers in a row before the link stops asking until the next link-up."""

STATE_WATCH_S = 0.5
"""How often the state is read again while the driver watches it (docs/protocol.md, section 6)."""

Watch = Callable[[DeviceEvent], object]
"""What of an event or a state snapshot the link follows by reading the state again (None: nothing)."""

_ANSWERS = {
    MsgType.POLL: (MsgType.EVENT, MsgType.ACK, MsgType.NAK),
    MsgType.CMD: (MsgType.RESP, MsgType.NAK),
    MsgType.STATE_REQ: (MsgType.STATE, MsgType.NAK),
}
"""The reply types that answer each request type."""


@dataclass(frozen=True, slots=True)
class LinkConfig:
    """Timing of one link (seconds)."""

    baudrate: int = 115200
    poll_interval_s: float = 0.05
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


@dataclass
class LinkCounters(DecoderStats):
    """Per-link counters, kept by the link thread: the decoder's (frames ok, CRC errors, unknown
    frame types, other malformed frames, oversize, resyncs, garbage bytes) and the link's."""

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


COUNTERS: tuple[str, ...] = tuple(f.name for f in fields(LinkCounters))
"""The counter names, in order."""

PROBLEM_COUNTERS: tuple[str, ...] = tuple(c for c in COUNTERS if c not in ("frames_ok", "events"))
"""The counters whose change is logged (the rest count normal traffic)."""


@dataclass(frozen=True, kw_only=True)
class LinkStats(DeviceEvent):
    """A snapshot of one link's state and counters (journaled at each round's end by the runtime;
    ``tablectl status`` shows the latest). Counter meanings: docs/protocol.md, section 9."""

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


@dataclass(slots=True)
class _Command:
    name: str
    code: int
    body: bytes
    busy_tries: int = 0
    due: float = 0.0


StateReader = Callable[[list[bytes], float], DeviceEvent]
"""Turns the bodies of a state answer's parts into the driver's state event (raises on a bad body)."""


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


@dataclass(slots=True)
class _Request:
    """The request outstanding: what it is, its wire bytes, tries so far and when its wait ends."""

    kind: MsgType
    seq: int
    wire: bytes
    deadline: float
    command: _Command | None = None
    attempt: int = 0
    sent: float = 0.0
    """When it was first sent (its answer was made after that, whichever try it answers)."""


@dataclass(slots=True)
class _StateRead:
    """The state answer being read: the next part asked, the parts, the snapshot's boot and newest event."""

    part: int = 0
    parts: int = 1
    boot: int | None = None
    newest: int = 0
    bodies: list[bytes] = field(default_factory=list)


class LinkProtocol:
    """The controller side of the link to the device at ``address``, fed bytes and times.

    ``emit`` takes link events, command results and state snapshots (made by ``on_state``);
    ``on_event(event_no, code, body, at)`` each new device event. ``boot_id`` and
    ``last_event_no`` give the last event already received, if known; ``url`` only names the
    port in messages.
    """

    def __init__(
        self,
        name: str,
        address: int,
        emit: Callable[[DeviceEvent], None],
        on_event: Callable[[int, int, bytes, float], None],
        config: LinkConfig = LinkConfig(),
        last_event_no: int = 0,
        *,
        boot_id: int | None = None,
        on_state: StateReader | None = None,
        watch: Watch | None = None,
        url: str = "",
    ) -> None:
        self.name, self.url, self.address, self.config = name, url, address, config
        self._emit, self._on_event, self._on_state = emit, on_event, on_state
        self._watch = watch
        self._watch_due: float | None = None
        """When to read the state again for the watch (None: not watching)."""
        self._watched: object = None
        """What the watch saw in the last state put on the queue."""
        self._watch_read = False
        """The state being read is the watch's (not put on the queue if what is watched is the same)."""
        self.last_event_no = last_event_no
        self.window_boot: int | None = boot_id
        """The boot whose event numbering ``last_event_no`` counts (None: not known yet)."""
        self._left_boots: deque[int] = deque(maxlen=16)
        self._named_boot: int | None = boot_id
        """The boot the journal takes the events delivered next to be of: the last ``LinkUp``'s, or
        the last :class:`EventsOfBoot`'s (the window's when given from the journal)."""
        self.stats = LinkCounters()
        self.up = False
        self._boot_id: int | None = None
        self._commands: deque[_Command] = deque()
        self._held: _Command | None = None  # a command waiting to be sent again after `busy`
        self._decoder = Decoder(stats=self.stats)
        self._seq = 0
        self._now = 0.0
        """The runner's time at the call being handled."""
        self._at = 0.0
        """The wall-clock time given with the bytes being handled (events are stamped with it)."""
        self._last_good = 0.0
        self._next_poll = 0.0
        self._out: _Request | None = None
        self._read = _StateRead()
        self._state_wanted = False
        self._state_tries = 0
        self._state: tuple[int, int, DeviceEvent] | None = None  # (boot, newest event no, snapshot) to emit
        self._not_connected_reason: tuple[str, str] | None = None
        """The last reason reported for the link not coming up (reported again only when it changes)."""
        self._logged = LinkCounters()
        self._logged_at = -1e9
        self.ack_when_journaled = False
        """Acknowledge an event only once the table has journaled it (:meth:`journaled`): the
        table's runtime sets it; a link read by anything else acknowledges what it received."""
        self.ack_boot: int | None = boot_id
        self.ack_no = last_event_no
        """The last event journaled (its boot and number): what each POLL acknowledges."""
        self._inflight: tuple[object, int, int] | None = None
        """The queue item carrying the event received last, not yet journaled (its boot and number)."""
        self._poll_now = False
        self._polled = (0, 0)
        """What the last POLL acknowledged."""
        self.running = False
        """The heartbeat each POLL carries: the table is running (its controller takes and
        journals events). The runtime sets it while its engine runs; a device that hears none for
        ``link_down_s`` knows the table has stopped (docs/protocol.md, section 4.8)."""
        self.order: OrderFeed | None = None
        """Where everything delivered goes with the time it happened, when the links' events are
        taken in that order (None: straight to ``emit`` and ``on_event``'s driver)."""
        self._clock: tuple[int, DeviceClock] | None = None
        """The device's clock (the boot it belongs to, and what was learned of it)."""
        self._when: float | None = None
        """The time (the runner's clock) the event being delivered happened (None: unknown)."""

    # --- what the table and the driver call -------------------------------------------------------

    def send_command(self, name: str, code: int, body: bytes = b"") -> None:
        """Queue a command for the device; its result is emitted as a :class:`CommandResult`."""
        self._commands.append(_Command(name, code, body))

    def watch_event(self, event: DeviceEvent) -> None:
        """``event`` (just received) may start a watch: when the driver's ``watch`` follows
        something in it, the state is read again in :data:`STATE_WATCH_S`."""
        if self._watch is None or self._on_state is None or self._watch(event) is None:
            return
        self._watched = None  # the next state read tells the table, whatever it says
        if self._watch_due is None:
            self._watch_due = self._now + STATE_WATCH_S

    def read_state_again(self) -> None:
        """Read the device's whole state again: its snapshot is delivered once every event older
        than it has arrived, as after a link-up (the controller after a journal outage: what the
        device sent meanwhile was neither acknowledged nor acted on)."""
        if self._on_state is not None:
            self._state_wanted, self._state = True, None

    def deliver(self, item: DeviceEvent) -> None:
        """Deliver what the event received last became (the driver, from ``on_event``): to the
        order, stamped with the time the event happened, or to ``emit``. It is acknowledged once
        journaled (:meth:`carry`)."""
        self.carry(item)
        self._put(item, self._when)

    def _put(self, item: DeviceEvent, when: float | None = None) -> None:
        """Deliver ``item``: to the order when there is one (``when``: the time it happened; None
        for the link's own reports, which go as soon as what the link delivered before them), else
        to ``emit``."""
        if self.order is None:
            self._emit(item)
        else:
            self.order.put(item, when, self._now)

    def set_window(self, boot_id: int | None, last_event_no: int) -> None:
        """Start from event ``last_event_no`` of boot ``boot_id``, received and journaled (a
        controller started again, from its journal)."""
        self.window_boot, self.last_event_no = boot_id, last_event_no
        self.ack_boot, self.ack_no = boot_id, last_event_no
        self._named_boot = boot_id

    def carry(self, item: object) -> None:
        """``item``, about to be queued, carries the event received last."""
        if self.window_boot is not None:
            self._inflight = (item, self.window_boot, self.last_event_no)

    def journaled(self, item: object) -> bool:
        """The table journaled ``item``: when it carries the event received last, that event is
        acknowledged by the next POLL, which goes out at once (True: the runner should wake)."""
        if self._inflight is None or self._inflight[0] is not item:
            return False
        _, self.ack_boot, self.ack_no = self._inflight
        self._inflight = None
        self._poll_now = True
        return True

    def refused(self, item: object) -> bool:
        """The table could not journal ``item``: when it carries the event received last, the
        window goes back to the last event journaled, so the device, which still holds the event
        (it was never acknowledged), sends it again and it is taken as new. True when the device
        will send it again."""
        if self._inflight is None or self._inflight[0] is not item:
            return False
        _, boot, _ = self._inflight
        self._inflight = None
        if boot == self.ack_boot:
            self.last_event_no = self.ack_no
        else:  # the first event taken of a new boot: that boot's numbering from the start
            self.window_boot, self.last_event_no = boot, 0
        return True

    @property
    def boot_id(self) -> int | None:
        """The device's boot id as last seen (None before its first answer)."""
        return self._boot_id

    @property
    def waiting_reply(self) -> bool:
        """A request is out and its reply not yet in."""
        return self._out is not None

    def snapshot(self, at: float | None = None) -> LinkStats:
        """The link's state and a copy of its counters (stamped ``at``, or the time last given)."""
        s = self.stats
        return LinkStats(
            device=self.name,
            at=self._at if at is None else at,
            up=self.up,
            boot_id=self._boot_id or 0,
            **{name: getattr(s, name) for name in COUNTERS},
        )

    # --- what the runner calls --------------------------------------------------------------------

    def opened(self, now: float, seq: int, at: float | None = None) -> None:
        """The port was (re)opened at ``now``; sequence numbers start after ``seq`` (random, u32).
        The state request goes first: it tells the device's boot and newest event before any POLL
        acknowledges anything, so a device that numbers from 1 again is caught before it deletes.
        ``at``: the wall-clock time the link's own events are stamped with (as for :meth:`step`)."""
        self._now = now
        if at is not None:
            self._at = at
        self._decoder = Decoder(stats=self.stats)
        self._seq = seq & 0xFFFFFFFF
        self._last_good = now
        self._out = None
        self._read = _StateRead()
        self._state_wanted = self._on_state is not None
        self._next_poll = 0.0

    def step(self, now: float, at: float | None = None) -> Action:
        """What to do at ``now``: send bytes, wait, or close the port (the link went down).
        ``at``: the wall-clock time now, which the link's own events (up, down, faults, results)
        are stamped with (None: the time last given)."""
        self._now = now
        if at is not None:
            self._at = at
        out = self._out
        if out is not None:
            if now < out.deadline:
                return Wait(out.deadline)
            self.stats.timeouts += 1
            if now - self._last_good <= self.config.link_down_s and out.attempt < self.config.retries:
                out.attempt += 1
                self.stats.retries += 1
                out.deadline = self._deadline(now)
                return Send(out.wire)
            self._out = None
            if out.command is not None:
                self._command_failed(out.command, STATUS_NO_ANSWER)
            if out.kind is MsgType.STATE_REQ:
                self._read = _StateRead()  # asked again from the first part
            if now - self._last_good > self.config.link_down_s:
                return self._silent()
        return self._next(now)

    def receive(self, data: bytes, now: float, at: float) -> None:
        """Bytes read from the port at ``now`` (``at``: the wall-clock time events are stamped with)."""
        self._now, self._at = now, at
        for frame in self._decoder.feed(data):
            if frame.address != self.address:
                continue
            out = self._out
            if out is None or frame.ack != out.seq or frame.type not in _ANSWERS[out.kind]:
                self.stats.stale += 1
                continue
            if (
                frame.type is MsgType.RESP
                and out.command is not None
                and frame.payload[5:6] != bytes((out.command.code,))
            ):
                self.stats.stale += 1  # the answer to another command
                continue
            self._out = None
            if out.kind is MsgType.STATE_REQ:
                self._state_reply(frame)
            elif self._handle(frame, out) and not self._awaiting():
                self._next_poll = 0.0  # the device may hold more events: drain them without waiting

    def port_failed(self, reason: str, at: float | None = None) -> None:
        """The port failed or would not open: the link is down (when it was up)."""
        if at is not None:
            self._at = at
        self._out = None
        self._link_down(reason)

    def not_connected(self, kind: str, reason: str, at: float | None = None) -> None:
        """Report why the link is not up (the port would not open, or opened and the device never
        answered) as a :class:`DeviceFault`: on the first failure and whenever the reason changes,
        never on every retry (the reconnect counter says how often it was tried)."""
        if at is not None:
            self._at = at
        if (kind, reason) == self._not_connected_reason:
            return
        self._not_connected_reason = (kind, reason)
        self.stats.faults += 1
        if kind == "open_failed":
            error = reason if reason.startswith(f"port {self.url} ") else f"cannot open port {self.url}: {reason}"
        else:
            error = f"port {self.url} opened but {reason}"
        self._fault(kind, error + " (tried again with backoff; reported again only if the reason changes)")

    def thread_failed(self, exc: BaseException, at: float | None = None) -> None:
        """The runner failed while driving the protocol: a fault, and the link is down."""
        if at is not None:
            self._at = at
        self.stats.faults += 1
        self._put(
            DeviceFault(device=self.name, at=self._at, kind="link", error=f"link thread: {type(exc).__name__}: {exc}")
        )
        self.port_failed(f"link thread failed: {exc}")

    def log_counters(self, now: float) -> None:
        """Log the problem counters when they changed, at most once per ``log_interval_s``."""
        if now - self._logged_at < self.config.log_interval_s:
            return
        changed = {
            name: (getattr(self.stats, name), getattr(self.stats, name) - getattr(self._logged, name))
            for name in PROBLEM_COUNTERS
            if getattr(self.stats, name) != getattr(self._logged, name)
        }
        if not changed:
            return
        self._logged_at = now
        for name in COUNTERS:
            setattr(self._logged, name, getattr(self.stats, name))
        text = ", ".join(f"{name} {total} (+{delta})" for name, (total, delta) in changed.items())
        log.warning(
            "link %s (%s): %s",
            self.name,
            self.url,
            text,
            extra={"device": self.name, "counters": {name: total for name, (total, _) in changed.items()}},
        )

    # --- choosing the next request ----------------------------------------------------------------

    def _deadline(self, now: float) -> float:
        return min(now + self.config.response_timeout_s, self._last_good + self.config.link_down_s)

    def _request(self, kind: MsgType, payload: bytes, now: float, command: _Command | None = None) -> Send:
        self._seq = (self._seq + 1) & 0xFFFFFFFF
        wire = encode(Frame(self.address, self._seq, 0, kind, payload))
        self._out = _Request(kind, self._seq, wire, self._deadline(now), command, sent=now)
        return Send(wire)

    def _next(self, now: float) -> Action:
        if self._watch_due is not None and not self._state_wanted and now >= self._watch_due:
            self._watch_due, self._state_wanted, self._watch_read = None, True, True
        if self._state_wanted and self._on_state is not None:
            if self._read.part == 0 and not self.up:
                self._state_tries = 0
            return self._request(MsgType.STATE_REQ, bytes((self._read.part,)), now)
        if self._poll_now:  # the event in flight was journaled: ask for the next at once
            self._poll_now, self._next_poll = False, 0.0
        command = self._next_command(now)
        if command is not None:
            return self._request(MsgType.CMD, bytes((command.code,)) + command.body, now, command)
        until = self._next_poll
        if self._held is not None:
            until = min(until, self._held.due)
        if now < until:
            return Wait(until)
        self._next_poll = now + self.config.poll_interval_s
        self._polled = self._ack_window()
        return self._request(MsgType.POLL, struct.pack(">IIB", *self._polled, self.running), now)

    def _next_command(self, now: float) -> _Command | None:
        if self._held is not None:
            if now >= self._held.due:
                command, self._held = self._held, None
                return command
            return None  # later commands wait behind it, so their order is kept
        return self._commands.popleft() if self._commands else None

    def _awaiting(self) -> bool:
        """An event received is not journaled yet: the device is not asked for the next one."""
        return self.ack_when_journaled and self._inflight is not None

    def _ack_window(self) -> tuple[int, int]:
        """What a POLL acknowledges: the last event journaled (or, not waiting for the journal,
        received)."""
        if self.ack_when_journaled:
            return self.ack_boot or 0, self.ack_no
        return self.window_boot or 0, self.last_event_no

    def _window_restarts(self, boot: int) -> None:
        """The device numbers from 1 again under boot ``boot``: nothing of it is acknowledged any more."""
        self.last_event_no = 0
        if self.ack_boot == boot:
            self.ack_no = 0

    # --- replies ----------------------------------------------------------------------------------

    def _silent(self) -> Close:
        """No good reply for ``link_down_s``: the link is down (or, never up on this opening, the
        device does not answer)."""
        if not self.up:
            self.not_connected("no_answer", f"the device does not answer (no reply for {self.config.link_down_s} s)")
        reason = f"no reply for {self.config.link_down_s} s"
        self._link_down(reason)
        return Close(reason)

    def _link_down(self, reason: str) -> None:
        if self.up:
            self.up = False
            self.stats.link_downs += 1
            self._state, self._state_wanted = None, False
            self._watch_due, self._watch_read = None, False  # the state is read at the link-up anyway
            self._put(LinkDown(device=self.name, at=self._at, reason=reason))

    def _seen_boot(self, boot_id: int) -> None:
        """A good reply from the device running as ``boot_id``: link up, or a reboot seen."""
        self._last_good = self._now
        if not self.up:
            self.up = True
            self._not_connected_reason = None  # a later failure is a new outage: reported again
            self._state_wanted, self._state, self._watch_read = True, None, False
            rebooted = self._boot_id is not None and boot_id != self._boot_id
            self._put(LinkUp(device=self.name, at=self._at, boot_id=boot_id, rebooted=rebooted))
            self._named_boot = boot_id
        elif boot_id != self._boot_id:
            self._state_wanted, self._state, self._watch_read = True, None, False
            self._put(LinkUp(device=self.name, at=self._at, boot_id=boot_id, rebooted=True))
            self._named_boot = boot_id
        self._boot_id = boot_id

    def _fault(self, kind: str, error: str, event_no: int = 0, command: str = "") -> None:
        self._put(
            DeviceFault(device=self.name, at=self._at, event_no=event_no, kind=kind, error=error, command=command)
        )

    def _handle(self, reply: Frame, out: _Request) -> bool:
        """Act on a reply to ``out``; True when it carried an event."""
        command = out.command
        p = reply.payload
        if len(p) < 4:
            self.stats.faults += 1
            self._fault("link", f"reply seq {reply.ack}: {reply.type.name} too short ({len(p)} bytes)")
            return False
        boot = struct.unpack_from(">I", p)[0]
        self._seen_boot(boot)
        if reply.type is MsgType.EVENT:
            if len(p) < _EVENT_HEAD:
                self.stats.faults += 1
                self._fault("bad_event", f"reply seq {reply.ack}: EVENT too short ({len(p)} bytes)")
                return False
            clock, event_boot, event_no, stamp, code = struct.unpack_from(">IIIIB", p, 4)
            reported = self._read_clock(boot, clock, out)
            # an event of an earlier boot (kept across a power cycle) is older than anything now
            self._when = min(reported.to_controller(stamp), self._now) if event_boot == boot else None
            if self._when is not None and self.order is not None:
                self.order.reported(self._when, self._now)  # its oldest event not yet journaled
            if not self._accept(event_boot, event_no):
                return True
            if event_boot != self._named_boot:  # journaled before the event: its window's boot
                self._named_boot = event_boot
                self._put(EventsOfBoot(device=self.name, at=self._at, boot_id=event_boot))
            self.stats.events += 1
            at = self._at if self._when is None else self._at - (self._now - self._when)
            try:
                self._on_event(event_no, code, bytes(p[_EVENT_HEAD:]), at)
            except Exception as exc:
                self.stats.faults += 1
                fault = DeviceFault(
                    device=self.name,
                    at=self._at,
                    event_no=event_no,
                    kind="bad_event",
                    error=f"event {event_no} (code {code}): {exc}",
                )
                self.carry(fault)
                self._put(fault, self._when)
            self._state_due(False)
            return True
        if reply.type is MsgType.ACK:
            if len(p) < 8:
                self.stats.faults += 1
                self._fault("link", f"reply seq {reply.ack}: ACK too short ({len(p)} bytes): no clock")
                return False
            raw = struct.unpack_from(">I", p, 4)[0]
            until = min(self._read_clock(boot, raw, out).to_controller(raw), self._now)
            if self.order is not None:
                self.order.reported(until, self._now)  # nothing left to send: everything before now
            self._state_due(True)
        elif reply.type is MsgType.RESP and len(p) >= 6:
            assert command is not None
            status = p[4]
            if status == STATUS_BUSY:
                self.stats.busy += 1
                if command.busy_tries < self.config.busy_retries:
                    pause = min(self.config.busy_backoff_s * 2**command.busy_tries, self.config.busy_backoff_max_s)
                    command.busy_tries += 1
                    command.due = self._now + pause
                    self._held = command
                    return False
            if status == STATUS_OK:
                self._put(CommandResult(device=self.name, at=self._at, command=command.name, status=status))
            else:
                self._command_failed(command, status)
        elif reply.type is MsgType.NAK:
            self.stats.naks += 1
            if command is not None:
                self._command_failed(command, STATUS_NAK)
            else:
                self._fault("nak", f"device refused the poll (seq {reply.ack})")
        return False

    def _read_clock(self, boot: int, raw: int, out: _Request) -> DeviceClock:
        """The device (boot ``boot``) read its clock as ``raw`` answering ``out``: learn from it
        (a new boot's clock starts anew)."""
        if self._clock is None or self._clock[0] != boot:
            self._clock = (boot, DeviceClock())
        clock = self._clock[1]
        clock.reading(raw, out.sent, self._now)
        return clock

    def _command_failed(self, command: _Command, status: int) -> None:
        self.stats.commands_failed += 1
        tries = f" after {command.busy_tries + 1} tries" if status == STATUS_BUSY else ""
        self._put(CommandResult(device=self.name, at=self._at, command=command.name, status=status))
        self._fault(
            "command_failed",
            f"command {command.name} failed: {_STATUS_TEXT.get(status, f'status {status}')}{tries}",
            command=command.name,
        )

    def _accept(self, event_boot: int, event_no: int) -> bool:
        """Whether event (``event_boot``, ``event_no``) is new; moves the window and reports resets and gaps."""
        if event_boot == self.window_boot:
            if event_no == self.last_event_no:
                polled_boot, polled_no = self._polled
                if not self.ack_when_journaled or (polled_boot == event_boot and polled_no >= event_no):
                    self.stats.duplicates += 1  # (not acknowledged by the poll: the device was right to send it again)
                return False
            if event_no < self.last_event_no:
                # Only a device that started again under the same boot id numbers backwards.
                self.stats.resets += 1
                self._fault(
                    "events_reset",
                    f"event numbers went back from {self.last_event_no} to {event_no} under the same boot id "
                    f"{event_boot:08x} (a restart without a new boot id); the window starts over",
                    event_no,
                )
                self._window_restarts(event_boot)
        elif event_boot in self._left_boots:
            self.stats.duplicates += 1  # an event of a boot already left behind: received before
            return False
        elif self.window_boot is not None and self.window_boot == self._boot_id:
            # An event of another boot than the one the device runs now is one it kept across a
            # power cycle: older than anything of the boot it runs, whose events come after it.
            # The window was that boot's (given from the journal, which names a device's boot by
            # its last link-up): it is not left behind, and its numbering starts from the start.
            self.window_boot, self.last_event_no = event_boot, event_no
            return True
        else:
            if self.window_boot is not None:
                self._left_boots.append(self.window_boot)
                self.stats.resets += 1
                self._fault(
                    "events_reset",
                    f"event numbering started over: boot {event_boot:08x} after boot {self.window_boot:08x} "
                    f"(last event {self.last_event_no})",
                    event_no,
                )
                self.last_event_no = 0
            elif self.last_event_no:
                self.last_event_no = 0  # a window given without its boot: the numbering is this boot's
            self.window_boot = event_boot
            if self.last_event_no == 0 and event_no != 1 and self._left_boots:
                self.stats.gaps += 1
                self._fault(
                    "events_gap", f"events 1 to {event_no - 1} of boot {event_boot:08x} never arrived", event_no
                )
            self.last_event_no = event_no
            return True
        if event_no != self.last_event_no + 1 and self.last_event_no:
            self.stats.gaps += 1
            self._fault("events_gap", f"events {self.last_event_no + 1} to {event_no - 1} never arrived", event_no)
        self.last_event_no = event_no
        return True

    # --- the state request ------------------------------------------------------------------

    def _state_reply(self, reply: Frame) -> None:
        """One part of the state answer: the next part is asked at the next step; the last one
        makes the snapshot. A bad answer is asked again from the first part (up to
        ``_STATE_TRIES`` in a row)."""
        assert self._on_state is not None
        read, part = self._read, self._read.part
        p = reply.payload
        if len(p) < 4:
            self.stats.faults += 1
            self._fault("state", f"state reply too short ({len(p)} bytes)")
            self._state_wanted, self._read = False, _StateRead()
            return
        boot = struct.unpack_from(">I", p)[0]
        self._seen_boot(boot)
        if reply.type is MsgType.NAK:
            self.stats.naks += 1
            self._fault("state", "the device refused the state request (NAK)")
            self._state_wanted, self._read = False, _StateRead()
            return
        if len(p) < 10 or p[8] != part or p[9] == 0 or (read.boot is not None and boot != read.boot):
            self.stats.faults += 1
            self._state_tries += 1
            gave_up = self._state_tries >= _STATE_TRIES
            self._fault(
                "state",
                f"state part {part}: bad answer (part {p[8:9].hex()}, boot {boot:08x})"
                + ("; not asked again until the next link-up" if gave_up else ""),
            )
            self._state_wanted, self._read = not gave_up, _StateRead()
            return  # asked again from the first part
        if part == 0:
            read.boot, read.newest, read.parts = boot, struct.unpack_from(">I", p, 4)[0], p[9]
            if boot == self.window_boot and read.newest < self.last_event_no:
                self.stats.resets += 1
                self._fault(
                    "events_reset",
                    f"the device's newest event is {read.newest}, before {self.last_event_no} received, under the "
                    f"same boot id {boot:08x} (a restart without a new boot id); the window starts over",
                )
                self._window_restarts(boot)
        read.bodies.append(bytes(p[10:]))
        read.part += 1
        if read.part < read.parts:
            return
        self._read = _StateRead()
        self._state_wanted, self._state_tries = False, 0
        try:
            state = self._on_state(read.bodies, self._at)
        except Exception as exc:
            self.stats.faults += 1
            self._fault("state", f"state answer: {exc}")
            return
        assert read.boot is not None
        watched = self._watch(state) if self._watch is not None else None
        self._watch_due = self._now + STATE_WATCH_S if watched is not None else None
        same = self._watch_read and watched is not None and watched == self._watched
        self._watched, self._watch_read = watched, False
        if same:
            return  # read for the watch, and nothing it follows changed: nothing new to tell
        self._state = (read.boot, read.newest, state)
        self._state_due(False)

    def _state_due(self, drained: bool) -> None:
        """Emit the snapshot once every event the device made before it has arrived (or the
        device has nothing left to send)."""
        if self._state is None:
            return
        boot, newest, state = self._state
        if drained or newest == 0 or (self.window_boot == boot and self.last_event_no >= newest):
            self._state = None
            self._put(state)
