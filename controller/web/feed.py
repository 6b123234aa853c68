"""The live feed of one table: the view model rebuilt on the controller thread after each event,
published to the web server's subscribers (server-sent events).

:class:`TableFeed` attaches to a :class:`~controller.table.runtime.TableRuntime` as an observer:
after each event it reads the table's latest snapshot (``runtime.snapshot``, published by the
controller thread just before the observers run; lamps, screen, panel lamps and the lock are in
it) and never the table itself. Link states and recent device faults come from the events the
controller handled, stamped with the time the driver received them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections import deque
from typing import Any

from controller.web.view import table_view

__all__ = ["TableFeed", "fault_text"]

log = logging.getLogger("tablectl.web")

KEEP_FAULTS = 12


def fault_text(event: object) -> str | None:
    """A device fault in words, or ``None`` when ``event`` is not one."""
    kind = type(event).__name__
    e: Any = event
    if kind == "DeviceFault":
        return f"fault: {e.error}"
    if kind == "Jam":
        return "shoe jammed"
    if kind == "DoorChanged":
        return "shoe door open" if e.open else None
    if kind == "SpotFault":
        what = {1: "no reading", 2: "unreadable chip", 3: "covered"}.get(e.code, f"code {e.code}")
        return f"seat {e.seat} {e.spot}: sensor fault ({what})"
    if kind == "CardUnreadable":
        return f"card {e.index} unreadable"
    if kind == "ShoeEmpty":
        return "shoe empty"
    if kind == "SelfTest" and not e.ok:
        return "self test failed"
    if kind == "LinkDown":
        reason = str(e.reason)
        return f"link down ({reason[:57]}...)" if len(reason) > 60 else f"link down ({reason})"
    return None


class TableFeed:
    """The table's view model, kept current, with a version number and async subscribers."""

    def __init__(self, runtime: Any) -> None:
        self.runtime = runtime
        self.links: dict[str, str] = {role: "connecting" for role in runtime.drivers}
        self.faults: deque[dict[str, Any]] = deque(maxlen=KEEP_FAULTS)
        self._lock = threading.Lock()
        self._version = 0
        self._json = "{}"
        self._subscribers: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        runtime.observers.append(self.observe)
        if runtime.latest.current() is None:  # before the runtime starts: the table as it is now
            runtime.publish()
        self.publish()

    # --- the controller thread ------------------------------------------------------------------

    def observe(self, event: object) -> None:
        """After each event the controller handled: note links and faults, rebuild, publish."""
        kind = type(event).__name__
        device = getattr(event, "device", None)
        if kind == "LinkUp" and device:
            self.links[device] = "up"
        elif kind == "LinkDown" and device:
            self.links[device] = "down"
        text = fault_text(event)
        if text is not None:
            self.faults.appendleft({"device": device or "", "text": text, "at": getattr(event, "at", 0.0)})
        self.publish()

    def publish(self) -> None:
        """Build the view model from the latest snapshot and wake every subscriber."""
        view = table_view(self.runtime.snapshot, self.runtime.config, self.links, self.faults)
        with self._lock:
            self._version += 1
            view["version"] = self._version
            self._json = json.dumps(view, separators=(",", ":"))
            subscribers = list(self._subscribers)
        for loop, event in subscribers:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # the loop has closed
                pass

    # --- the web server -------------------------------------------------------------------------

    def current(self) -> tuple[int, str]:
        """The latest version number and view model (JSON text)."""
        with self._lock:
            return self._version, self._json

    def subscribe(self) -> asyncio.Event:
        """An event set whenever a new view is published (call from the server's loop)."""
        event = asyncio.Event()
        with self._lock:
            self._subscribers.add((asyncio.get_running_loop(), event))
        return event

    def unsubscribe(self, event: asyncio.Event) -> None:
        with self._lock:
            self._subscribers = {s for s in self._subscribers if s[1] is not event}
