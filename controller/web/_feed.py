"""The live feed of one table: the view model built from the table's snapshot on a publisher
thread of its own, at most :data:`PUBLISH_HZ` times a second, the latest winning.

:class:`TableFeed` attaches to a :class:`~controller.table.runtime.TableRuntime` as an observer.
On the controller (engine) thread it only notes what the event says about links and faults (a
new tuple or dict swapped in, never one changed in place) and sets an event: the controller
never builds JSON, never touches a socket and never waits for a browser. The publisher thread
wakes on that event, waits until :data:`PUBLISH_INTERVAL_S` has passed since its last view (every
event in between is coalesced into the next one), then reads the table's latest published
snapshot (``runtime.latest``: lamps, screen, panel lamps and the lock are in it, never the table
itself), builds the view model and its JSON once, and wakes each web server loop once
(:meth:`subscribe`). Fanning the view out to the event-stream clients is
:mod:`controller.web._table_app`'s: every client shares the one serialized frame.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from controller.web._published import PublishedView
from controller.web.view import table_view
from drivers.bet_spots import SpotFault
from drivers.link_events import DeviceFault, LinkDown
from drivers.shoe import CardUnreadable, DoorChanged, Jam, SelfTest, ShoeEmpty

if TYPE_CHECKING:
    from controller.table.runtime import TableRuntime

__all__ = ["TableFeed"]

log = logging.getLogger("tablectl.web")

KEEP_FAULTS = 12
PUBLISH_HZ = 5
"""At most this many views a second (a fault is drawn within 1 s: the first change after a quiet
spell is published at once, later ones at most 0.2 s after)."""
PUBLISH_INTERVAL_S = 1.0 / PUBLISH_HZ


def fault_text(event: object) -> str | None:
    """A device fault in words, or ``None`` when ``event`` is not one."""
    if isinstance(event, DeviceFault):
        return f"fault: {event.error}"
    if isinstance(event, Jam):
        return "shoe jammed"
    if isinstance(event, DoorChanged):
        return "shoe door open" if event.open else None
    if isinstance(event, SpotFault):
        what = {1: "no reading", 2: "unreadable chip", 3: "covered"}.get(event.code, f"code {event.code}")
        return f"seat {event.seat} {event.spot}: sensor fault ({what})"
    if isinstance(event, CardUnreadable):
        return f"card {event.index} unreadable"
    if isinstance(event, ShoeEmpty):
        return "shoe empty"
    if isinstance(event, SelfTest) and not event.ok:
        return "self test failed"
    if isinstance(event, LinkDown):
        reason = str(event.reason)
        return f"link down ({reason[:57]}...)" if len(reason) > 60 else f"link down ({reason})"
    return None


class PublishPace:
    """When the next view may go out: at least ``interval_s`` after the last, on ``clock``."""

    def __init__(self, interval_s: float = PUBLISH_INTERVAL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval_s = interval_s
        self.clock = clock
        self._last: float | None = None

    def delay(self) -> float:
        """Seconds until a view may be published (0 when it may now)."""
        if self._last is None:
            return 0.0
        return max(0.0, self._last + self.interval_s - self.clock())

    def published(self) -> None:
        """A view went out now."""
        self._last = self.clock()


class TableFeed(PublishedView):
    """The table's view model, kept current by a publisher thread, with a version number and
    async subscribers (one wake per web server loop, however many clients it serves).

    ``interval_s`` and ``clock``: the pace of publishing (:class:`PublishPace`); ``start``: run
    the publisher thread now (without it, :meth:`publish_due` publishes, e.g. in a test)."""

    def __init__(
        self,
        runtime: TableRuntime,
        interval_s: float = PUBLISH_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
        start: bool = True,
    ) -> None:
        self.runtime = runtime
        self.links: dict[str, str] = {role: "connecting" for role in runtime.drivers}
        self.faults: tuple[dict[str, object], ...] = ()
        self.pace = PublishPace(interval_s, clock)
        self.published = 0
        """Views built so far (the first, at attach, included)."""
        super().__init__()
        self._lock = threading.Lock()
        self._changed = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        runtime.observers.append(self.observe)
        if runtime.latest.current() is None:  # before the runtime starts: the table as it is now
            runtime.publish()
        self.publish()
        if start:
            self.start()

    # --- the controller thread: note, swap, signal; nothing that can wait -------------------------

    def observe(self, event: object) -> None:
        """After each event the controller handled: note links and faults, mark the view stale."""
        kind = type(event).__name__
        device = getattr(event, "device", None)
        if kind in ("LinkUp", "LinkDown") and device:
            self.links = {**self.links, device: "up" if kind == "LinkUp" else "down"}
        text = fault_text(event)
        if text is not None:
            fault = {"device": device or "", "text": text, "at": getattr(event, "at", 0.0)}
            self.faults = (fault, *self.faults[: KEEP_FAULTS - 1])
        self._changed.set()

    # --- the publisher thread -------------------------------------------------------------------

    def start(self) -> None:
        """Start the publisher thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="web-feed", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the publisher thread (idempotent)."""
        self._stopping.set()
        self._changed.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def _run(self) -> None:
        while True:
            self._changed.wait()
            if self._stopping.is_set():
                return
            delay = self.pace.delay()
            if delay > 0 and self._stopping.wait(delay):
                return
            try:
                self.publish_due()
            except Exception:  # a view that cannot be built must not end the feed
                log.exception("the web view could not be built")

    def publish_due(self) -> bool:
        """Publish a view when the table changed since the last and the pace allows; whether it did."""
        if not self._changed.is_set() or self.pace.delay() > 0:
            return False
        self._changed.clear()  # before reading the snapshot: a change after this is seen next time
        self.publish()
        return True

    def publish(self) -> None:
        """Build the view model from the latest snapshot and wake every subscriber's loop once."""
        view = table_view(self.runtime.snapshot, self.runtime.config, self.links, self.faults)
        self.pace.published()
        with self._lock:
            self.published += 1

        def text(version: int) -> str:
            view["version"] = version
            return json.dumps(view, separators=(",", ":"))

        self._put(text)

    # --- the web server: current(), subscribe() and unsubscribe() (PublishedView) ---------------
