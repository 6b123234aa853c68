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
``reconnect_min_s`` to ``reconnect_max_s``, from the first pause again once an exchange
succeeded (:meth:`LinkProtocol.reopen_pause`: the protocol keeps the backoff for every runner,
the simulation's too). Counters of everything that went wrong are kept per link
(:class:`LinkStats`), and a log line names the device and the counts when they change (at most
one every ``log_interval_s``). A link runs in a :class:`LinkLoop`: one thread for all of a
table's links (``open_drivers`` gives them one), or one of its own when none is given. It delivers
what the protocol returns (:class:`~drivers.delivery.Delivery`) right after each call; whatever
fails in one link (its port, a driver's reader, a sink) is reported as a :class:`DeviceFault` and
that link's port is opened again after the backoff, while the loop goes on with the others, so a
link never dies silently and a stuck, dead or flooding device harms only its own link.
The loop sleeps in one ``select`` on the ports of the links waiting for a reply, a wake-up pipe (a
command queued, an event journaled) and the earliest deadline of them all: the next poll, a
reply's deadline, a busy command's pause, a reopening. Deadlines within :data:`COALESCE_S` of each
other are served in one wake-up (so a table's polls fall together), a poll's reply is first looked
for that long after it, and a port that does not take a whole frame is waited on for room (never
a blocking write): an idle table's links wake about twice a poll interval, all devices together.
A table whose links have passed nothing but polls and empty answers for ``idle_after_s`` is
polled every ``idle_poll_interval_s`` (the link's pace, :class:`~drivers.link_pace.LinkPace`, which
the simulation steps too); an event received or a command queued on any link of the loop brings
every link back to its ``poll_interval_s`` at once (docs/protocol.md, section 4.1).
"""

from __future__ import annotations

import logging
import math
import os
import secrets
import selectors
import threading
import time
from collections.abc import Callable

from drivers.delivery import Delivery
from drivers.link_events import (
    COUNTERS,
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
from drivers.link_pace import LinkPace, stirred
from drivers.messages import DeviceEvent
from drivers.protocol import LinkProtocol
from drivers.transport import PortOpenError, Transport, TransportError

__all__ = [
    "LinkConfig",
    "LinkStats",
    "Link",
    "LinkLoop",
    "wake_after",
    "COALESCE_S",
    "LinkUp",
    "LinkDown",
    "DeviceFault",
    "CommandResult",
    "COUNTERS",
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
        self._shared: LinkLoop | None = None
        self._running_in: LinkLoop | None = None
        """The loop running the link (None: not started, or closed)."""
        self._transport: Transport | None = None
        # what the loop knows of the link, kept by the loop's thread
        self._poked = False  # a command queued, an event journaled: serve the link at once
        self._due = -math.inf  # the next deadline (the link's clock): a poll, a reply's, a reopening
        self._reading = False  # waiting for a reply: the loop waits on the port to be readable
        self._spin = False  # waiting for a reply on a port without a descriptor: read at every pass
        self._gathering = False  # a poll sent: its reply is first looked for at ``_due`` (no wake-up of its own)
        self._pending: memoryview | None = None  # what the port has not taken yet of a frame
        self._write_by = 0.0  # when a frame the port does not take fails (the write timeout)
        self._reopen_at: float | None = None  # the port is closed until then (the protocol's backoff)
        self._left = threading.Event()  # the loop has stopped running the link
        self.pace = LinkPace(self.protocol)
        """The link's idle pace (docs/protocol.md, section 4.1), on :attr:`clock`: the idle poll
        after ``idle_after_s`` of nothing at the table (a simulation steps it on its own clock)."""
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
    def ack_when_journaled(self) -> bool:
        """Acknowledge an event only once the table has journaled it (:meth:`journaled`); the
        event window itself (last received, last journaled) is the :attr:`protocol`'s."""
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

    @property
    def loop(self) -> LinkLoop | None:
        """The loop that runs this link with others (a table's links share one); None: the link
        runs in a loop of its own. Set before :meth:`start`."""
        return self._shared

    @loop.setter
    def loop(self, loop: LinkLoop | None) -> None:
        self._shared = loop

    def start(self) -> None:
        """Start running the link: in its table's loop, or in a thread of its own."""
        if self._running_in is None:
            loop = self._shared or LinkLoop(f"link-{self.name}")
            self._running_in = loop
            loop.add(self)

    def is_alive(self) -> bool:
        """Whether the thread that runs the link is running."""
        return self._running_in is not None and self._running_in.is_alive()

    def close(self) -> None:
        """Stop running the link and close the port (idempotent)."""
        loop, self._running_in = self._running_in, None
        if loop is not None:
            loop.remove(self)
        self._close_port()

    def send_command(self, name: str, code: int, body: bytes = b"") -> None:
        """Queue a command for the device; its result arrives as a :class:`CommandResult`."""
        with self._lock:
            self.protocol.send_command(name, code, body)
        self._poke()

    def read_state_again(self) -> None:
        """Read the device's whole state again (any thread; :meth:`LinkProtocol.read_state_again`),
        the link served at once."""
        with self._lock:
            self.protocol.read_state_again()
        self._poke()

    def set_window(self, boot_id: int | None, last_event_no: int) -> None:
        """Where the event window starts (:meth:`LinkProtocol.set_window`); before :meth:`start`."""
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
        """The table journaled ``item`` (the controller thread; :meth:`LinkProtocol.journaled`): the
        link is served at once when the next POLL acknowledges it."""
        with self._lock:
            wake = self.protocol.journaled(item)
        if wake:
            self._poke()

    def refused(self, item: object) -> bool:
        """The table could not journal ``item`` (the controller thread): True when its device
        will send it again (:meth:`LinkProtocol.refused`)."""
        with self._lock:
            return self.protocol.refused(item)

    # --- the runner (the loop's thread) ----------------------------------------------------------

    def _poke(self) -> None:
        """Have the loop serve the link at once (a command queued, an event journaled)."""
        self.pace.stir(self.clock())
        self._poked = True
        loop = self._running_in
        if loop is not None:
            loop.wake()

    def _close_port(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None

    @property
    def _slack_s(self) -> float:
        """How late the loop may serve this link's deadline to serve another's in the same
        wake-up, and how long after a poll its reply is first looked for."""
        return min(COALESCE_S, self.config.poll_interval_s / 4)

    def _interest(self) -> tuple[Transport, int, int] | None:
        """What the loop waits on for this link: its port (transport, descriptor, events), or
        nothing (between requests the link waits on its deadline and the loop's wake-up only)."""
        transport = self._transport
        if transport is None or (fd := transport.descriptor) is None:
            return None
        if self._pending is not None:
            return transport, fd, selectors.EVENT_WRITE
        if self._reading:
            return transport, fd, selectors.EVENT_READ
        return None

    def _turn(self, ready: int) -> None:
        """Serve the link once (``ready``: the events its port is ready for). Whatever fails is
        this link's alone: reported as the thread per link reported it, the port closed and opened
        again after the backoff, and the loop goes on with the other links."""
        try:
            self._serve(ready)
        except PortOpenError as exc:
            with self._lock:
                self._delivery(self.protocol.not_connected("open_failed", exc.reason, self.wall()))
                self._delivery(self.protocol.port_failed(str(exc), self.wall()))
            self._down()
        except TransportError as exc:
            with self._lock:
                self._delivery(self.protocol.port_failed(str(exc), self.wall()))
            self._down()
        except Exception as exc:  # last resort: the link never dies silently
            # Whatever else a driver's reader or a sink raises (a bug) is reported as a fault and
            # the link starts over: one bad message must not stop the device's link for good.
            with self._lock:
                self._delivery(self.protocol.thread_failed(exc, self.wall()))
            self._down()

    def _down(self) -> None:
        """The port is closed; it opens again after the backoff's pause."""
        self._close_port()
        self._pending, self._reading, self._spin, self._gathering = None, False, False, False
        now = self.clock()
        with self._lock:
            self.protocol.log_counters(now)
            pause = self.protocol.reopen_pause()
        self._reopen_at = self._due = now + pause

    def _serve(self, ready: int) -> None:
        timed = not ready and not self._poked  # served for its deadline alone (a poll's, say)
        # Served now: a link that cannot send yet (its port closed until the backoff ends, or
        # full) is served again at its reopening or when there is room, not at every pass.
        self._poked = False
        transport = self._transport
        if transport is None:
            if self._reopen_at is not None:
                if self.clock() < self._reopen_at:
                    self._due = self._reopen_at
                    return
                self._reopen_at = None
                self.protocol.stats.add("reconnects")
            self._transport = transport = Transport(
                self.url, self.config.baudrate, write_timeout_s=self.config.write_timeout_s
            )
            transport.discard_input()  # nothing from before this opening can answer a new request
            with self._lock:
                self._delivery(self.protocol.opened(self.clock(), secrets.randbits(32), self.wall()))
        elif self._pending is not None:
            if not self._flush(transport, self._pending):
                return
        elif self._gathering or self._reading:
            # what the port holds now, in one read (a reply's first bytes, or all of it), whatever
            # the link is served for. Served for its deadline alone, the port is read too: after
            # the controller itself stalled (a loaded machine), a reply that came meanwhile is
            # taken before the request counts as unanswered, and the device as silent for the time
            # the controller was away. So for a poke (a command queued, an event journaled) at or
            # after the reply's deadline: the reply in the port is taken before the link is found
            # silent at link_down_s (it went down with the device's answer in its port).
            readable = bool(ready & selectors.EVENT_READ) and not self._gathering
            data = transport.take(readable=readable)
            self._gathering, self._reading = False, True
            if data:
                with self._lock:
                    self._delivery(self.protocol.receive(data, self.clock(), self.wall()))
        self._steps(transport, timed)

    def _steps(self, transport: Transport, timed: bool = False) -> None:
        """Step the protocol until it waits: for a reply (on the port, until the reply's deadline)
        or for its next deadline (the next poll, a busy command's pause) or a poke.

        A request sent at its deadline alone (``timed``: a poll, not the next of a drain or a
        command) has its reply looked for first after the link's slack (``_slack_s``), without a
        wake-up of its own: the devices polled together answer meanwhile, and one wake-up takes
        every reply; a reply not there yet is then waited for on the port."""
        sent = False
        now = self.clock()
        self.protocol.log_counters(now)  # once a turn: the counters change by what it read and sent
        with self._lock:
            self.pace.turn(now)  # the idle pace, or back from it on an event received
        while True:
            self._poked = False  # before the step: a poke after it is served in the next pass
            with self._lock:
                action, outputs = self.protocol.step(self.clock(), self.wall())
                self._delivery(outputs)
                waiting_reply = self.protocol.waiting_reply
            if isinstance(action, Close):
                self._down()
                return
            if isinstance(action, Send):
                if not self._flush(transport, memoryview(action.data), fresh=True):
                    return
                sent = True
                continue
            self._due, self._reading = action.until, waiting_reply
            if waiting_reply and sent and timed and transport.descriptor is not None:
                self._due, self._reading, self._gathering = min(action.until, self.clock() + self._slack_s), False, True
            # a port without a descriptor (loop://) is read with pyserial's own short timed read
            self._spin = waiting_reply and transport.descriptor is None
            return

    def _stirred(self) -> None:
        """Something happened at the table (on this link or another of the loop's): poll at the
        config's interval again, the next poll brought forward (the loop serves the link at once)."""
        with self._lock:
            if self.pace.wake(self.clock()):
                self._poked = True

    def _flush(self, transport: Transport, data: memoryview, fresh: bool = False) -> bool:
        """Write what the port takes of ``data``; True when all of it went. The rest waits for
        room on the port (never in a blocking write: the loop serves other links meanwhile), up to
        the write timeout from the first frame the port did not take whole."""
        data = data[transport.write_some(data) :]
        if not data:
            self._pending = None
            return True
        now = self.clock()
        if fresh or self._pending is None:
            self._write_by = now + self.config.write_timeout_s
        elif now >= self._write_by:
            raise TransportError(f"{self.url}: write failed: Write timeout ({len(data)} bytes not taken)")
        self._pending, self._due = data, self._write_by
        return False


COALESCE_S = 0.005
"""How late (seconds, at most a quarter of its poll interval) a loop may serve one link's deadline
so as to serve another link's in the same wake-up: a table's polls fall together after the first,
and its devices are polled in one wake-up instead of one each."""


def wake_after(deadlines: list[tuple[float, float]]) -> float | None:
    """When a loop wakes, from each link's (seconds to its deadline, how late it may be served):
    the latest deadline that keeps every link within its slack, so that one wake-up serves every
    deadline that can share it. None: no deadline (wait for the port or a poke only)."""
    if not deadlines:
        return None
    bound = min(left + slack for left, slack in deadlines)
    return max(0.0, max(left for left, _ in deadlines if left <= bound))


class _Run:
    """One run of a loop's thread: its selector and the pipe that wakes it."""

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)
        os.set_blocking(self.write_fd, False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.read_fd, selectors.EVENT_READ)
        self.thread: threading.Thread | None = None

    def wake(self) -> None:
        try:
            os.write(self.write_fd, b"!")
        except OSError:  # full: the loop is woken anyway
            pass

    def drain(self) -> None:
        try:
            while os.read(self.read_fd, 4096):
                pass
        except OSError:  # drained
            pass

    def close(self) -> None:
        self.selector.close()
        os.close(self.read_fd)
        os.close(self.write_fd)


class LinkLoop:
    """One thread that runs several links (a table's): it sleeps in one ``select`` on the ports
    of the links waiting for a reply, a wake-up pipe (a command queued, an event journaled, a link
    added or removed) and the earliest deadline of them all (gathered: :func:`wake_after`), and
    serves each link that is due, ready or poked. Each link's failures are its own
    (:meth:`Link._turn`) and its writes never block (a port that takes nothing is waited on, up
    to the write timeout). The thread starts with the first link added and ends when the last
    is removed; ``name`` names it."""

    def __init__(self, name: str = "links") -> None:
        self.name = name
        self._lock = threading.Lock()
        self._links: list[Link] = []
        self._leaving: list[Link] = []
        self._run: _Run | None = None

    def add(self, link: Link) -> None:
        """Run ``link`` (from its next pass: its port is opened at once)."""
        link._due, link._reopen_at = -math.inf, None
        with link._lock:
            link.protocol.started()  # its backoff from the first pause
        link.pace.start(link.clock())
        link._left.clear()
        with self._lock:
            self._links.append(link)
            if self._run is None:
                self._run = run = _Run()
                run.thread = threading.Thread(target=self._serve, args=(run,), name=self.name, daemon=True)
                run.thread.start()
            else:
                self._run.wake()

    def remove(self, link: Link, timeout_s: float = 5.0) -> None:
        """Stop running ``link``: the loop closes its port; waits for that (at most ``timeout_s``)."""
        with self._lock:
            run = self._run
            if run is None or link not in self._links:
                return
            self._leaving.append(link)
            run.wake()
        if run.thread is not threading.current_thread():
            link._left.wait(timeout_s)
            if self._run is not run and run.thread is not None:  # the last link: the thread ends
                run.thread.join(timeout_s)

    def wake(self) -> None:
        """Have the loop look at its links again (any thread)."""
        with self._lock:
            if self._run is not None:
                self._run.wake()

    def is_alive(self) -> bool:
        """Whether the loop's thread runs."""
        run = self._run
        return run is not None and run.thread is not None and run.thread.is_alive()

    def _serve(self, run: _Run) -> None:
        ready: dict[Link, int] = {}
        watched: dict[Link, tuple[Transport, int, int]] = {}
        selector = run.selector
        try:
            while True:
                with self._lock:
                    for link in self._leaving:
                        if link in self._links:
                            self._links.remove(link)
                        old = watched.pop(link, None)
                        if old is not None:
                            selector.unregister(old[1])
                        link._close_port()
                        link._pending, link._reading, link._spin, link._gathering = None, False, False, False
                        link._left.set()
                    self._leaving.clear()
                    if not self._links:
                        self._run = None
                        run.close()
                        return
                    links = list(self._links)
                try:
                    timeout = self._pass(links, ready, watched, selector)
                    ready = {}
                    for key, events in selector.select(timeout):
                        if key.data is None:
                            run.drain()
                        else:
                            ready[key.data] = events
                except Exception:  # the loop's own bookkeeping failed (a bug): say so, go on
                    log.exception("%s: the links' loop failed; going on", self.name)
                    ready = {}
                    time.sleep(0.1)
        finally:
            with self._lock:
                if self._run is run:  # ended by an error: the next link added starts it again
                    self._run = None
                    run.close()

    @staticmethod
    def _pass(
        links: list[Link],
        ready: dict[Link, int],
        watched: dict[Link, tuple[Transport, int, int]],
        selector: selectors.BaseSelector,
    ) -> float | None:
        """Serve each link due, ready or poked; update what the selector waits on; return how
        long to sleep."""
        for link in links:
            events = ready.get(link, 0)
            if events or link._poked or link._spin or link._due <= link.clock():
                link._turn(events)
        if stirred(link.pace for link in links):
            # an event or a command on one link: every link polls at its interval again (the event
            # order waits for every device's report, so one idle link would hold the others' events)
            for link in links:
                link._stirred()
        wanted = {link: interest for link in links if (interest := link._interest()) is not None}
        for link, old in list(watched.items()):  # first every port no longer waited on (maybe closed)
            if wanted.get(link, (None,))[0] is not old[0]:
                selector.unregister(old[1])
                del watched[link]
        for link, interest in wanted.items():
            old_interest = watched.get(link)
            if old_interest is None:
                selector.register(interest[1], interest[2], link)
            elif old_interest[2] != interest[2]:
                selector.modify(interest[1], interest[2], link)
            watched[link] = interest
        if any(link._spin or link._poked for link in links):
            return 0.0
        return wake_after([(link._due - link.clock(), link._slack_s) for link in links])
