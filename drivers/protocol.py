"""The device link's protocol, pure: no thread, no port, no clock, no callbacks (docs/protocol.md,
sections 4-6).

:class:`LinkProtocol` is the controller side of one device link as a state machine. Its runner
(the threaded :class:`~drivers.link.Link` over a port, or a simulation in process) asks it what
to do now with :meth:`LinkProtocol.step` (``now`` is the runner's monotonic time): a
:class:`Send` of bytes to write, a :class:`Wait` until a time (or until bytes arrive or a command
is queued), or a :class:`Close` (the device was silent for ``link_down_s``: the link is down,
close the port and open it again later). Bytes read from the port go to
:meth:`LinkProtocol.receive` as they arrive (whole frames, split, a byte at a time). Each of these
returns what happened, in order, for the runner to deliver (:mod:`drivers.delivery`): a
:class:`Received` device event for the driver to read (exactly once, in order), a
:class:`Deliver` of a link report (up, down, faults), a command result or a state snapshot, and
a :class:`Reported` mark (how far the device has reported, for the order of several links).

The protocol keeps the event window and the acknowledgement (a POLL names the last event
journaled when ``ack_when_journaled``, else the last received), drops duplicates, reports
resets and gaps, retries a request left unanswered (same sequence number), backs off a command
answered busy, reads the device's whole state after every link-up and while a watch follows it,
and declares the link down after ``link_down_s`` of silence. Its parts, one job each: the
requests and their numbers (:mod:`drivers._exchange`), the event window and acknowledgement
(:mod:`drivers._window`), the state request (:mod:`drivers._state_read`), the device's clock
(:mod:`drivers.clock`), and what a call produced (:mod:`drivers._outbox`).
"""

from __future__ import annotations

import logging
import math
import struct
from dataclasses import dataclass

from drivers._exchange import AT_ONCE, Command, Exchange, Request
from drivers._outbox import Outbox
from drivers._state_read import StateReading
from drivers._window import EventWindow
from drivers.clock import DeviceClock
from drivers.framing import Decoder, Frame, MsgType
from drivers.link_events import (
    COUNTERS,
    PROBLEM_COUNTERS,
    STATUS_BUSY,
    STATUS_NAK,
    STATUS_NO_ANSWER,
    STATUS_OK,
    STATUS_TEXT,
    Action,
    Close,
    CommandResult,
    Deliver,
    DeviceFault,
    LinkConfig,
    LinkCounters,
    LinkDown,
    LinkStats,
    LinkUp,
    Output,
    Received,
    Reported,
    Send,
    StateReader,
    Wait,
    Watch,
)
from drivers.messages import DeviceEvent

__all__ = [
    "LinkProtocol",
    "LinkConfig",
    "LinkCounters",
    "LinkUp",
    "LinkDown",
    "DeviceFault",
    "CommandResult",
    "Send",
    "Wait",
    "Close",
    "Deliver",
    "Received",
    "Reported",
    "Output",
]

log = logging.getLogger("tablectl.link")

_EVENT_HEAD = 21
"""An EVENT's payload before the body: boot id, clock, event boot, event number, stamp, code."""
_U32_AT = struct.Struct(">I").unpack_from
_POLL, _ACK, _EVENT, _NAK, _RESP, _STATE_REQ = (
    MsgType.POLL,
    MsgType.ACK,
    MsgType.EVENT,
    MsgType.NAK,
    MsgType.RESP,
    MsgType.STATE_REQ,
)
"""The message types, each a global name: an enum's member read through its class is a slow look-up."""
_ACK_AT = struct.Struct(">II").unpack_from
"""An ACK's payload: the boot id, the device's clock (more bytes after them are not read)."""
_NOT_QUIET = -math.inf
"""``LinkProtocol._quiet`` when a step must look again: before every time, 0.0 included (the
runner's clock may be below 0.0: ``time.monotonic``'s reference point is undefined)."""
_EVENT_AT = struct.Struct(">IIIIB").unpack_from
_PACK_POLL = struct.Struct(">IIB").pack
"""A POLL's payload: the last event journaled (boot id, event number), the heartbeat."""


@dataclass(slots=True)
class _Device:
    """What the link knows of the device itself: up or not, its boot, its clock, and the last
    reason reported for the link not coming up (reported again only when it changes)."""

    up: bool = False
    boot_id: int | None = None
    clock: tuple[int, DeviceClock] | None = None
    """The device's clock (the boot it belongs to, and what was learned of it)."""
    not_connected: tuple[str, str] | None = None


class _CounterLog:
    """Logs a link's problem counters when they changed, at most once per ``log_interval_s``."""

    __slots__ = ("_logged", "_at", "_total")

    def __init__(self) -> None:
        self._logged: dict[str, int] = dict.fromkeys(COUNTERS, 0)
        self._at = -math.inf  # never logged (the runner's clock may read anything)
        self._total = 0
        """:meth:`LinkCounters.problem_total` when last logged (called at every step: most calls
        find nothing changed)."""

    def log(self, counters: LinkCounters, now: float, interval_s: float, name: str, url: str) -> None:
        if now - self._at < interval_s:
            return
        seen = counters.problem_total()
        if seen == self._total:
            return
        current = counters.as_dict()
        changed = {
            key: (current[key], current[key] - self._logged[key])
            for key in PROBLEM_COUNTERS
            if current[key] != self._logged[key]
        }
        if not changed:
            return
        self._at, self._logged, self._total = now, current, seen
        text = ", ".join(f"{key} {total} (+{delta})" for key, (total, delta) in changed.items())
        log.warning(
            "link %s (%s): %s",
            name,
            url,
            text,
            extra={"device": name, "counters": {key: total for key, (total, _) in changed.items()}},
        )


class LinkProtocol:
    """The controller side of the link to the device at ``address``, fed bytes and times.

    ``on_state`` reads a state answer into the driver's snapshot and ``watch`` says what of an
    event or a snapshot to follow (both pure: they return, they deliver nothing). ``boot_id`` and
    ``last_event_no`` give the last event already received, if known; ``url`` only names the
    port in messages.
    """

    def __init__(
        self,
        name: str,
        address: int,
        config: LinkConfig = LinkConfig(),  # noqa: B008 (frozen, shared safely)
        last_event_no: int = 0,
        *,
        boot_id: int | None = None,
        on_state: StateReader | None = None,
        watch: Watch | None = None,
        url: str = "",
    ) -> None:
        self.name, self.url, self.address = name, url, address
        self.stats = LinkCounters()
        """The link's counters (live)."""
        self.running = False
        """The heartbeat each POLL carries: the table is running (its controller takes and
        journals events). The runtime sets it while its engine runs; a device that hears none for
        ``link_down_s`` knows the table has stopped (docs/protocol.md, section 4.8)."""
        self._out = Outbox(name, self.stats)
        self._exchange = Exchange(address, config)
        self._window = EventWindow(self._out, boot_id, last_event_no)
        self._state = StateReading(self._out, self._window, on_state, watch)
        self._device = _Device()
        self._decoder = Decoder(stats=self.stats.decoder)
        self._log = _CounterLog()
        self._poll_s: float | None = None  # the runner's pace (None: the config's poll interval)
        self._reopen_s = 0.0
        """The last pause before the port opened again (0.0: a good reply since: the next is the first)."""
        self._poll_refused = False
        """A POLL was refused (NAK) since the last good reply or link-down: later refusals are only counted."""
        self._waiting: Wait | None = None  # the Wait returned last (frozen: returned again while its time holds)
        self._quiet = _NOT_QUIET
        """Until when (exclusive) :meth:`step` returns :attr:`_waiting` again and nothing else,
        unless the link is told or given something first (each such call sets it back to
        :data:`_NOT_QUIET`):
        the step before found nothing due before then (:meth:`_quiet_to`)."""

    # --- what the table and the driver ask and tell ---------------------------------------------

    @property
    def config(self) -> LinkConfig:
        """The link's timing."""
        return self._exchange.config

    @config.setter
    def config(self, config: LinkConfig) -> None:
        self._quiet = _NOT_QUIET
        self._exchange.config = config

    @property
    def poll_interval_s(self) -> float:
        """How long after a poll the next one goes out: the config's ``poll_interval_s`` unless
        the runner paced the link otherwise (:meth:`pace`)."""
        poll_s = self._poll_s  # (read at every step: the config only when the runner has not paced the link)
        return self._exchange.config.poll_interval_s if poll_s is None else poll_s

    def pace(self, seconds: float) -> None:
        """Poll every ``seconds`` from now on (the runner's idle pace, or the config's interval
        again). A shorter interval brings the next poll forward to ``seconds`` after the last one;
        a longer one takes effect from the next poll."""
        exchange, before = self._exchange, self.poll_interval_s
        self._poll_s, self._quiet = seconds, _NOT_QUIET
        if exchange.next_poll > AT_ONCE:  # (at once: nothing to bring forward)
            exchange.next_poll = min(exchange.next_poll, exchange.next_poll - before + seconds)

    @property
    def up(self) -> bool:
        """The device answers."""
        return self._device.up

    @property
    def boot_id(self) -> int | None:
        """The device's boot id as last seen (None before its first answer)."""
        return self._device.boot_id

    @property
    def last_event_no(self) -> int:
        """The number of the last event received (of the boot the window counts)."""
        return self._window.last_no

    @property
    def ack_no(self) -> int:
        """The number of the last event journaled: what each POLL acknowledges."""
        return self._window.ack_no

    @property
    def ack_when_journaled(self) -> bool:
        """Acknowledge an event only once the table has journaled it (:meth:`journaled`): the
        table's runtime sets it; a link read by anything else acknowledges what it received."""
        return self._window.ack_when_journaled

    @ack_when_journaled.setter
    def ack_when_journaled(self, value: bool) -> None:
        self._quiet = _NOT_QUIET
        self._window.ack_when_journaled = value

    @property
    def waiting_reply(self) -> bool:
        """A request is out and its reply not yet in."""
        return self._exchange.out is not None

    def send_command(self, name: str, code: int, body: bytes = b"") -> None:
        """Queue a command for the device; its result is delivered as a :class:`CommandResult`."""
        self._quiet = _NOT_QUIET
        self._exchange.queue(Command(name, code, body))

    def watch_event(self, event: DeviceEvent) -> None:
        """``event`` (just received) may start a watch: when the driver's ``watch`` follows
        something in it, the state is read again in :data:`STATE_WATCH_S`."""
        self._quiet = _NOT_QUIET
        self._state.watch_event(event)

    def read_state_again(self) -> None:
        """Read the device's whole state again: its snapshot is delivered once every event older
        than it has arrived, as after a link-up (the controller after a journal outage: what the
        device sent meanwhile was neither acknowledged nor acted on)."""
        self._quiet = _NOT_QUIET
        self._state.again()

    def set_window(self, boot_id: int | None, last_event_no: int) -> None:
        """Start from event ``last_event_no`` of boot ``boot_id``, received and journaled (a
        controller started again, from its journal)."""
        self._quiet = _NOT_QUIET
        self._window.set(boot_id, last_event_no)

    def carry(self, item: object) -> None:
        """``item``, about to be queued, carries the event received last (what the driver made of
        a :class:`Received`)."""
        self._quiet = _NOT_QUIET
        self._window.carry(item)

    def unreadable(self, event_no: int, code: int, error: str) -> DeviceFault:
        """The driver could not read the event received last: the fault to deliver in its place
        (counted; the runner carries and delivers it)."""
        self.stats.add("faults")
        return DeviceFault(
            device=self.name,
            at=self._out.at,
            event_no=event_no,
            kind="bad_event",
            error=f"event {event_no} (code {code}): {error}",
        )

    def journaled(self, item: object) -> bool:
        """The table journaled ``item``: when it carries the event received last, that event is
        acknowledged by the next POLL, which goes out at once (True: the runner should wake)."""
        self._quiet = _NOT_QUIET
        if not self._window.journaled(item):
            return False
        self._exchange.poll_now = True
        return True

    def refused(self, item: object) -> bool:
        """The table could not journal ``item``: when it carries the event received last, the
        window goes back to the last event journaled, so the device, which still holds the event
        (it was never acknowledged), sends it again and it is taken as new. True when the device
        will send it again."""
        self._quiet = _NOT_QUIET
        return self._window.refused(item)

    def snapshot(self, at: float | None = None) -> LinkStats:
        """The link's state and a copy of its counters (stamped ``at``, or the time last given)."""
        return LinkStats(
            device=self.name,
            at=self._out.at if at is None else at,
            up=self.up,
            boot_id=self.boot_id or 0,
            **self.stats.as_dict(),
        )

    # --- what the runner calls --------------------------------------------------------------------

    def opened(self, now: float, seq: int, at: float | None = None) -> list[Output]:
        """The port was (re)opened at ``now``; sequence numbers start after ``seq`` (random, u32).
        The state request goes first: it tells the device's boot and newest event before any POLL
        acknowledges anything, so a device that numbers from 1 again is caught before it deletes.
        ``at``: the wall-clock time the link's own events are stamped with (as for :meth:`step`)."""
        self._out.stamp(now, at)
        self._quiet = _NOT_QUIET
        self._decoder = Decoder(stats=self.stats.decoder)
        self._exchange.opened(now, seq)
        self._state.opened()
        return self._out.take()

    def step(self, now: float, at: float | None = None) -> tuple[Action, list[Output]]:
        """What to do at ``now`` (send bytes, wait, or close the port: the link went down) and
        what happened meanwhile. ``at``: the wall-clock time now, which the link's own events (up,
        down, faults, results) are stamped with (None: the time last given)."""
        out = self._out
        out.stamp(now, at)
        if now < self._quiet:  # (most steps of an idle link: the wait before, nothing produced)
            wait = self._waiting
            assert wait is not None
            return wait, []
        action = self._step(now)
        wait = self._waiting
        self._quiet = self._quiet_to(wait.until) if wait is not None and action is wait else _NOT_QUIET
        return action, out.take()

    def receive(self, data: bytes, now: float, at: float) -> list[Output]:
        """Bytes read from the port at ``now`` (``at``: the wall-clock time events are stamped
        with): what they delivered."""
        self._out.stamp(now, at)
        self._quiet = _NOT_QUIET
        for frame in self._decoder.feed(data):
            if frame.address != self.address:
                continue
            out = self._exchange.out
            if out is None or not out.answered_by(frame):
                self.stats.add("stale")  # late, or the answer to another request
                continue
            self._exchange.out = None
            if frame.type is _ACK and len(frame.payload) >= 8:  # (most replies: nothing new)
                self._nothing_new(frame, out)
            elif out.kind is _STATE_REQ:
                self._state_reply(frame)
            elif self._handle(frame, out) and not self._window.awaiting():
                self._exchange.next_poll = AT_ONCE  # the device may hold more events: drain them without waiting
        return self._out.take()

    def port_failed(self, reason: str, at: float | None = None) -> list[Output]:
        """The port failed or would not open: the link is down (when it was up)."""
        self._out.stamp(None, at)
        self._quiet = _NOT_QUIET
        self._exchange.out = None
        self._link_down(reason)
        return self._out.take()

    def not_connected(self, kind: str, reason: str, at: float | None = None) -> list[Output]:
        """Report why the link is not up (the port would not open, or opened and the device never
        answered) as a :class:`DeviceFault`: on the first failure and whenever the reason changes,
        never on every retry (the reconnect counter says how often it was tried)."""
        self._out.stamp(None, at)
        self._quiet = _NOT_QUIET
        self._not_connected(kind, reason)
        return self._out.take()

    def thread_failed(self, exc: BaseException, at: float | None = None) -> list[Output]:
        """The runner failed while driving the protocol: a fault, and the link is down."""
        self._out.stamp(None, at)
        self._quiet = _NOT_QUIET
        self.stats.add("faults")
        self._out.fault("link", f"link thread: {type(exc).__name__}: {exc}")
        self._exchange.out = None
        self._link_down(f"link thread failed: {exc}")
        return self._out.take()

    def started(self) -> None:
        """The runner starts running the link, first or again after it was closed: the reconnect
        backoff begins from its first pause (a link closed while backing off, the table stopped,
        must not keep the ceiling's pause until its first good reply)."""
        self._reopen_s = 0.0

    def reopen_pause(self) -> float:
        """The runner closed the port (the link down, a port error, a port that would not open):
        how long to wait before opening it again. The link's reconnect backoff (docs/protocol.md,
        4.7), kept here for every runner: ``reconnect_min_s`` after the link was last healthy (a
        good reply since the pause before), then twice the pause before, at most ``reconnect_max_s``."""
        self._reopen_s = self.config.reconnect.after(self._reopen_s)
        return self._reopen_s

    def log_counters(self, now: float) -> None:
        """Log the problem counters when they changed, at most once per ``log_interval_s``."""
        self._log.log(self.stats, now, self.config.log_interval_s, self.name, self.url)

    # --- choosing the next request ----------------------------------------------------------------

    def _step(self, now: float) -> Action:
        exchange = self._exchange
        out = exchange.out
        if out is not None:
            if now < out.deadline:
                return self._wait(out.deadline)
            self.stats.add("timeouts")
            again = exchange.retry(now)
            if again is not None:
                self.stats.add("retries")
                return again
            exchange.out = None
            if out.command is not None:
                self._command_failed(out.command, STATUS_NO_ANSWER)
            if out.kind is _STATE_REQ:
                self._state.unanswered()
        if exchange.silent(now):  # no request that would be late already: down at the boundary itself
            return self._silent()
        return self._next(now)

    def _next(self, now: float) -> Action:
        exchange = self._exchange
        part = self._state.request(now)
        if part is not None:
            return exchange.request(_STATE_REQ, part, now)
        if exchange.poll_now:  # the event in flight was journaled: ask for the next at once
            exchange.poll_now, exchange.next_poll = False, AT_ONCE
        command = exchange.next_command(now)
        if command is not None:
            return exchange.request(MsgType.CMD, bytes((command.code,)) + command.body, now, command)
        until = exchange.poll_due()
        deferred = self._state.deferred_to  # a refused state request, asked again at its pause's end
        if deferred is not None and deferred > now:
            until = min(until, deferred)
        if now < until:
            return self._wait(until)
        exchange.next_poll = now + self.poll_interval_s
        boot, number = self._window.poll()
        return exchange.request(_POLL, _PACK_POLL(boot, number, self.running), now)

    def _quiet_to(self, until: float) -> float:
        """Until when a step may return the wait until ``until`` it just returned, nothing told
        since: before ``until``, before the device is found silent (a request whose answer never
        came, nothing out) and before the state is read again for the driver's watch; up to then
        :meth:`_step` would find the same (nothing else in it moves with the time alone)."""
        exchange = self._exchange
        if exchange.out is None:  # (else: the wait is the reply's deadline, and nothing else is looked at)
            silent_at = exchange.silent_at()
            if silent_at is not None and silent_at < until:
                until = silent_at
            due = self._state.watch_due
            if due is not None and due < until:
                until = due
        return until

    def _wait(self, until: float) -> Wait:
        """``Wait(until)``: the one returned last when it waits until the same time (a link
        waiting for its next poll is asked again at every tick of its runner)."""
        wait = self._waiting
        if wait is None or wait.until != until:
            wait = self._waiting = Wait(until)
        return wait

    # --- the link's own reports -------------------------------------------------------------------

    def _silent(self) -> Close:
        """No good reply for ``link_down_s``: the link is down (or, never up on this opening, the
        device does not answer)."""
        if not self.up:
            self._not_connected("no_answer", f"the device does not answer (no reply for {self.config.link_down_s} s)")
        reason = f"no reply for {self.config.link_down_s} s"
        self._link_down(reason)
        return Close(reason)

    def _not_connected(self, kind: str, reason: str) -> None:
        if (kind, reason) == self._device.not_connected:
            return
        self._device.not_connected = (kind, reason)
        self.stats.add("faults")
        if kind == "open_failed":
            error = reason if reason.startswith(f"port {self.url} ") else f"cannot open port {self.url}: {reason}"
        else:
            error = f"port {self.url} opened but {reason}"
        self._out.fault(kind, error + " (tried again with backoff; reported again only if the reason changes)")

    def _link_down(self, reason: str) -> None:
        if self.up:
            self._device.up = False
            self.stats.add("link_downs")
            self._poll_refused = False  # a refusal after the next link-up is reported again
            self._state.link_down()
            self._out.put(LinkDown(device=self.name, at=self._out.at, reason=reason))

    def _seen_boot(self, boot_id: int) -> None:
        """A good reply from the device running as ``boot_id``: link up, or a reboot seen."""
        device = self._device
        self._exchange.heard(self._out.now)
        self._reopen_s = 0.0  # a good exchange: the link is healthy, a later outage backs off from the first pause
        if not device.up or boot_id != device.boot_id:
            rebooted = device.up or (device.boot_id is not None and boot_id != device.boot_id)
            if not device.up:
                device.up = True
                device.not_connected = None  # a later failure is a new outage: reported again
            self._state.link_up()
            self._out.put(LinkUp(device=self.name, at=self._out.at, boot_id=boot_id, rebooted=rebooted))
            self._window.linked(boot_id)
        device.boot_id = boot_id

    # --- replies ----------------------------------------------------------------------------------

    def _too_short(self, reply: Frame, kind: str, what: str, least: int, lacks: str = "") -> bool:
        """Whether the reply's payload is shorter than ``least`` bytes (then a fault of ``kind``
        naming ``what`` it was and what it ``lacks``)."""
        size = len(reply.payload)
        if size >= least:
            return False
        self.stats.add("faults")
        self._out.fault(kind, f"reply seq {reply.ack}: {what} too short ({size} bytes){lacks}")
        return True

    def _handle(self, reply: Frame, out: Request) -> bool:
        """Act on a reply to ``out``; True when it carried an event."""
        if len(reply.payload) < 4:  # (the type's name only then: an enum's name is a slow look-up)
            self._too_short(reply, "link", reply.type.name, 4)
            return False
        boot = _U32_AT(reply.payload)[0]
        self._seen_boot(boot)
        if reply.type is _NAK:
            self._refused(reply, out)
            return False
        self._poll_refused = False  # a good reply ends a run of refused polls
        if reply.type is _EVENT:
            return self._event(reply, out, boot)
        if reply.type is _ACK:
            self._ack(reply, out, boot)
        elif reply.type is _RESP and len(reply.payload) >= 6:
            assert out.command is not None
            self._response(out.command, reply.payload[4])
        return False

    def _refused(self, reply: Frame, out: Request) -> None:
        """A NAK answering ``out``: a refused command has failed (its :class:`CommandResult`, as
        each time); a refused POLL is a :class:`DeviceFault` (``kind: nak``) only the first time of
        a run (until a good reply or a link-down), later ones are only counted (``naks``): a
        device that refuses every poll is reported once, not about 20 times a second."""
        self.stats.add("naks")
        if out.command is not None:
            self._command_failed(out.command, STATUS_NAK)
        elif not self._poll_refused:
            self._poll_refused = True
            self._out.fault(
                "nak",
                f"device refused the poll (seq {reply.ack}): later refusals are only counted (naks) until it answers",
            )

    def _event(self, reply: Frame, out: Request, boot: int) -> bool:
        """An EVENT answering ``out`` from the device running ``boot``: a new one is handed to the
        driver (True: the reply carried an event)."""
        if self._too_short(reply, "bad_event", "EVENT", _EVENT_HEAD):
            return False
        p, now = reply.payload, self._out.now
        clock, event_boot, event_no, stamp, code = _EVENT_AT(p, 4)
        reported, _ = self._read_clock(boot, clock, out)
        # an event of an earlier boot (kept across a power cycle) is older than anything now
        when = min(reported.to_controller(stamp), now) if event_boot == boot else None
        if when is not None:
            self._out.reported(when)  # its oldest event not yet journaled
        if not self._window.accept(event_boot, event_no, self._device.boot_id):
            return True
        self._window.name_boot(event_boot)  # journaled before the event: its window's boot
        self.stats.add("events")
        at = self._out.at if when is None else self._out.at - (now - when)
        self._window.unread()
        self._out.received(event_no, code, bytes(p[_EVENT_HEAD:]), at, when)
        self._state.due(False)
        return True

    def _ack(self, reply: Frame, out: Request, boot: int) -> None:
        """An ACK: the device has nothing left to send, so everything it made before now is in."""
        if len(reply.payload) < 8:  # (the check's call only then: every idle poll's answer comes here)
            self._too_short(reply, "link", "ACK", 8, ": no clock")
            return
        raw = _U32_AT(reply.payload, 4)[0]
        _, read = self._read_clock(boot, raw, out)
        self._out.reported(min(read, self._out.now))
        self._state.due(True)

    def _nothing_new(self, reply: Frame, out: Request) -> None:
        """An ACK of at least 8 bytes answering ``out`` (a POLL: only a POLL is answered by an
        ACK, :data:`~drivers._exchange.ANSWERS`): what :meth:`_handle` and :meth:`_ack` do with
        it, on one path (the link coming up, a reboot: :meth:`_seen_boot` as every reply)."""
        boot, raw = _ACK_AT(reply.payload)
        self._seen_boot(boot)
        self._poll_refused = False  # a good reply ends a run of refused polls
        _, read = self._read_clock(boot, raw, out)
        now = self._out.now
        self._out.reported(now if now < read else read)  # min(read, now), one call less
        self._state.due(True)

    def _response(self, command: Command, status: int) -> None:
        """The device's RESP to ``command``: busy (sent again after a pause), done or failed."""
        if status == STATUS_BUSY:
            self.stats.add("busy")
            if command.busy_tries < self.config.busy_retries:
                pause = self.config.busy_backoff.nth(command.busy_tries)
                command.busy_tries += 1
                self._exchange.hold(command, self._out.now + pause)
                return
        if status == STATUS_OK:
            self._out.put(CommandResult(device=self.name, at=self._out.at, command=command.name, status=status))
        else:
            self._command_failed(command, status)

    def _read_clock(self, boot: int, raw: int, out: Request) -> tuple[DeviceClock, float]:
        """The device (boot ``boot``) read its clock as ``raw`` answering ``out``: learn from it
        (a new boot's clock starts anew). Its clock, and the reading in the controller's time."""
        device = self._device
        if device.clock is None or device.clock[0] != boot:
            device.clock = (boot, DeviceClock())
        clock = device.clock[1]
        return clock, clock.reading(raw, out.sent, self._out.now)

    def _command_failed(self, command: Command, status: int) -> None:
        self.stats.add("commands_failed")
        tries = f" after {command.busy_tries + 1} tries" if status == STATUS_BUSY else ""
        self._out.put(CommandResult(device=self.name, at=self._out.at, command=command.name, status=status))
        self._out.fault(
            "command_failed",
            f"command {command.name} failed: {STATUS_TEXT.get(status, f'status {status}')}{tries}",
            command=command.name,
        )

    def _state_reply(self, reply: Frame) -> None:
        """One part of the state answer (:meth:`StateReading.reply`)."""
        p = reply.payload
        if len(p) < 4:
            self._state.failed(f"state reply too short ({len(p)} bytes)", self.config.reconnect)
            return
        boot = struct.unpack_from(">I", p)[0]
        self._seen_boot(boot)
        self._state.reply(reply, boot, self.config.reconnect)
