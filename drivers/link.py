"""Link supervision: the controller side of one device link, a thin runner over the pure
:class:`~drivers.protocol.LinkProtocol` (which holds every rule below) with a port and a thread.

The controller polls the device every ``poll_interval_s``; the device answers with its oldest
unacknowledged event or an empty ACK. Each POLL names the last event received (its boot id and
number), which acknowledges it; the device keeps every event until then, so each event arrives
exactly once (duplicates are dropped here) across corruption, loss, duplication, retries and
device reboots. A link the table runs (``ack_when_journaled``) names instead the last event
journaled: the device is asked for the next event only once the table has committed the one
before (:meth:`Link.journaled`), and an event the journal refused is taken again when the
device, which still holds it, sends it again (:meth:`Link.refused`). Event numbers belong to a boot: a device that starts again numbers from 1 under
a new random boot id, and the link resets its event window, reporting the reset (and any gap)
as a :class:`DeviceFault`. Commands go out between polls, one at a time, in order.

A request unanswered within ``response_timeout_s`` is sent again (same sequence number, so the
device resends its reply rather than acting twice), up to ``retries`` times. Sequence numbers are
32 bits and start at a random value each time the port opens, and a reply counts only if it
echoes the request's number and is of a type that answers it (a RESP also names the command's
code), so a late reply never passes for a newer one. A command answered ``busy`` is sent again
after a pause doubling from ``busy_backoff_s`` (other commands wait behind it so order is kept),
up to ``busy_retries`` times; a command that finally fails is a :class:`DeviceFault` naming it.

After every link-up (and a reboot seen without one) the link asks the device for its whole
state (the STATE_REQ exchange) and puts the driver's snapshot (``drivers.state``) on the queue
once every event older than the snapshot has arrived. While the driver's ``watch`` says a state
is worth following (the shoe jammed or its door open: no event says when that ends), the link
reads the state again every :data:`STATE_WATCH_S` and puts it on the queue when what is watched
changed. After ``link_down_s`` without a good reply
the link is down: the port is closed and reopened with exponential backoff from
``reconnect_min_s`` to ``reconnect_max_s`` (:class:`~drivers.backoff.Backoff`, the policy the
simulation's runner shares). Counters of everything that went wrong are kept per
link (:class:`LinkStats`), and a log line names the device and the counts when they change (at
most one every ``log_interval_s``). Everything runs in one thread per link, which delivers what
the protocol returns (:class:`~drivers.delivery.Delivery`) right after each call; an exception in
it is reported as a :class:`DeviceFault` and the supervisor starts it again, so it never dies
silently.
Between requests the thread sleeps until the next deadline the protocol names (the next poll, a
busy command's pause) or until a command is queued; waiting for a reply it sleeps on the port's
descriptor until the reply's first byte or its deadline: an idle link wakes once per poll.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable

from drivers.delivery import Delivery
from drivers.link_events import (
    COUNTERS,
    PROBLEM_COUNTERS,
    STATE_WATCH_S,
    STATUS_BAD_BODY,
    STATUS_BUSY,
    STATUS_NAK,
    STATUS_NO_ANSWER,
    STATUS_OK,
    STATUS_UNKNOWN,
    Close,
    CommandResult,
    DeviceFault,
    EventReader,
    LinkConfig,
    LinkCounters,
    LinkDown,
    LinkStats,
    LinkUp,
    OrderFeed,
    Output,
    Send,
    StateReader,
    Watch,
)
from drivers.messages import DeviceEvent
from drivers.protocol import LinkProtocol
from drivers.transport import PortOpenError, Transport, TransportError

__all__ = [
    "LinkConfig",
    "LinkCounters",
    "LinkStats",
    "Link",
    "LinkUp",
    "LinkDown",
    "DeviceFault",
    "CommandResult",
    "COUNTERS",
    "PROBLEM_COUNTERS",
    "STATE_WATCH_S",
    "STATUS_OK",
    "STATUS_UNKNOWN",
    "STATUS_BAD_BODY",
    "STATUS_BUSY",
    "STATUS_NAK",
    "STATUS_NO_ANSWER",
]

log = logging.getLogger("tablectl.link")


class Link:
    """The supervised link to one device at ``address`` on ``url``: the protocol (``protocol``)
    run over the port in a thread of its own.

    ``read_event(event_no, code, body, at)`` reads each new event (in the link thread) into what
    goes to ``emit``, as do link events, command results and the state snapshot (made by
    ``on_state``); to the ``order`` instead when one is set.
    ``boot_id`` and ``last_event_no`` give the last event already received, if known.
    """

    def __init__(
        self,
        name: str,
        url: str,
        address: int,
        emit: Callable[[DeviceEvent], None],
        read_event: EventReader,
        config: LinkConfig = LinkConfig(),  # noqa: B008 (frozen, shared safely)
        last_event_no: int = 0,
        *,
        boot_id: int | None = None,
        on_state: StateReader | None = None,
        watch: Watch | None = None,
    ) -> None:
        self.name, self.url, self.address, self.config = name, url, address, config
        self.protocol = LinkProtocol(
            name, address, config, last_event_no, boot_id=boot_id, on_state=on_state, watch=watch, url=url
        )
        """The link's rules, fed by this runner under ``_lock``."""
        self._delivery = Delivery(self.protocol, emit, read_event)
        self._lock = threading.RLock()
        """Held while the protocol is fed or asked (the link thread) or told of the journal (the controller's)."""
        self._stop = threading.Event()
        self._wake = threading.Event()  # set when a command is queued, so it goes out at once
        self._thread: threading.Thread | None = None
        self._transport: Transport | None = None
        self.clock: Callable[[], float] = time.monotonic
        """What the link measures silence, timeouts and pauses with (a test may set another before start)."""
        self.wall: Callable[[], float] = time.time
        """The wall-clock time events are stamped with (a simulation sets its own)."""

    # --- what the protocol knows ------------------------------------------------------------------

    @property
    def stats(self) -> LinkCounters:
        """The link's counters (live)."""
        return self.protocol.stats

    @property
    def up(self) -> bool:
        """The device answers."""
        return self.protocol.up

    @property
    def last_event_no(self) -> int:
        """The number of the last event received (of ``window_boot``)."""
        return self.protocol.last_event_no

    @property
    def window_boot(self) -> int | None:
        """The boot whose event numbering ``last_event_no`` counts (None: not known yet)."""
        return self.protocol.window_boot

    @property
    def ack_boot(self) -> int | None:
        """The boot of the last event journaled."""
        return self.protocol.ack_boot

    @property
    def ack_no(self) -> int:
        """The number of the last event journaled: what each POLL acknowledges."""
        return self.protocol.ack_no

    @property
    def ack_when_journaled(self) -> bool:
        """Acknowledge an event only once the table has journaled it (:meth:`journaled`)."""
        return self.protocol.ack_when_journaled

    @ack_when_journaled.setter
    def ack_when_journaled(self, value: bool) -> None:
        self.protocol.ack_when_journaled = value

    @property
    def boot_id(self) -> int | None:
        """The device's boot id as last seen (None before its first answer)."""
        return self.protocol.boot_id

    def snapshot(self) -> LinkStats:
        """The link's state and a copy of its counters, stamped ``wall()``."""
        with self._lock:
            return self.protocol.snapshot(self.wall())

    # --- public -----------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the link thread."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._supervise, name=f"link-{self.name}", daemon=True)
            self._thread.start()

    def is_alive(self) -> bool:
        """Whether the link thread is running."""
        return self._thread is not None and self._thread.is_alive()

    def close(self) -> None:
        """Stop the link thread and close the port (idempotent)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._close_port()

    def send_command(self, name: str, code: int, body: bytes = b"") -> None:
        """Queue a command for the device; its result arrives as a :class:`CommandResult`."""
        with self._lock:
            self.protocol.send_command(name, code, body)
        self._wake.set()

    def read_state_again(self) -> None:
        """Read the device's whole state again (any thread): its snapshot is put on the queue once
        every event older than it has arrived, as after a link-up (the controller after a journal
        outage: what the device sent meanwhile was neither acknowledged nor acted on)."""
        with self._lock:
            self.protocol.read_state_again()
        self._wake.set()

    def set_window(self, boot_id: int | None, last_event_no: int) -> None:
        """Start from event ``last_event_no`` of boot ``boot_id``, received and journaled (a
        controller started again, from its journal); before :meth:`start`."""
        with self._lock:
            self.protocol.set_window(boot_id, last_event_no)

    @property
    def order(self) -> OrderFeed | None:
        """Where everything delivered goes with the time it happened, when the links' events are
        taken in that order (None: straight to ``emit``); set before :meth:`start`."""
        return self._delivery.order

    @order.setter
    def order(self, feed: OrderFeed | None) -> None:
        self._delivery.order = feed

    def dispatch(self, outputs: list[Output]) -> None:
        """Deliver what the protocol returned (a runner of its own, such as the simulation's
        :class:`~hil.wire.SimWire`, that feeds :attr:`protocol` in this link's place)."""
        self._delivery(outputs)

    @property
    def running(self) -> bool:
        """The heartbeat each POLL carries: the table is running (docs/protocol.md, section 4.8)."""
        return self.protocol.running

    @running.setter
    def running(self, value: bool) -> None:
        with self._lock:
            self.protocol.running = value

    def journaled(self, item: object) -> None:
        """The table journaled ``item``: when it carries the event received last, that event is
        acknowledged by the next POLL, which goes out at once (the controller thread)."""
        with self._lock:
            wake = self.protocol.journaled(item)
        if wake:
            self._wake.set()

    def refused(self, item: object) -> bool:
        """The table could not journal ``item`` (the controller thread): True when its device
        will send it again (:meth:`LinkProtocol.refused`)."""
        with self._lock:
            return self.protocol.refused(item)

    # --- the thread -------------------------------------------------------------------------------

    def _supervise(self) -> None:
        backoff = self.config.reconnect
        delay = backoff.first_s
        while not self._stop.is_set():
            try:
                self._run()
                delay = backoff.first_s
            except PortOpenError as exc:
                with self._lock:
                    self._delivery(self.protocol.not_connected("open_failed", exc.reason, self.wall()))
                    self._delivery(self.protocol.port_failed(str(exc), self.wall()))
            except TransportError as exc:
                with self._lock:
                    self._delivery(self.protocol.port_failed(str(exc), self.wall()))
            except Exception as exc:  # last resort: the link thread never dies silently
                # Whatever else a driver's reader or a sink raises (a bug) is reported as a fault and
                # the link starts over: one bad message must not stop the device's link for good.
                with self._lock:
                    self._delivery(self.protocol.thread_failed(exc, self.wall()))
            self._close_port()
            self.protocol.log_counters(self.clock())
            if self._stop.wait(delay):
                break
            delay = backoff.after(delay)
            self.protocol.stats.add("reconnects")

    def _close_port(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None

    def _run(self) -> None:
        self._transport = transport = Transport(
            self.url, self.config.baudrate, write_timeout_s=self.config.write_timeout_s
        )
        transport.discard_input()  # nothing from before this opening can answer a new request
        with self._lock:
            self._delivery(self.protocol.opened(self.clock(), secrets.randbits(32), self.wall()))
        while not self._stop.is_set():
            self.protocol.log_counters(self.clock())
            self._wake.clear()  # before the step: a command queued after it is seen by the wait below
            with self._lock:
                action, outputs = self.protocol.step(self.clock(), self.wall())
                self._delivery(outputs)
                waiting_reply = self.protocol.waiting_reply
            if isinstance(action, Close):
                return
            if isinstance(action, Send):
                transport.write(action.data)
                continue
            wait = action.until - self.clock()
            if waiting_reply:
                # asleep on the port until the reply's first byte or its deadline, never a short poll
                data = transport.read(wait)
                if data:
                    with self._lock:
                        self._delivery(self.protocol.receive(data, self.clock(), self.wall()))
                continue
            if wait > 0:
                self._wake.wait(min(wait, self.config.poll_interval_s))  # the next deadline, or a command
