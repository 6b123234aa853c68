"""The engine: one controller thread takes events from one queue, journals each, then acts.

Drivers and timers only ``post`` frozen events; nothing else ever calls into the table, so no
trigger of a state machine runs on a reader or timer thread.
"""

from __future__ import annotations

import logging
import queue
import threading
from dataclasses import dataclass
from typing import Callable

from controller.table.journal import Journal, MemoryJournal, event_record

__all__ = ["TimerExpired", "StartDrawn", "Engine"]

log = logging.getLogger("tablectl.engine")


@dataclass(frozen=True, slots=True)
class TimerExpired:
    """A timer the controller set has run out."""

    name: str


@dataclass(frozen=True, slots=True)
class StartDrawn:
    """A random starting number (pai gow, 31.11(c): 1 to 7), drawn outside the machine and posted
    as an event so a replayed round sees the same number."""

    value: int


class _Stop:
    pass


class Engine:
    """Runs ``handle(event)`` for each posted event, in order, on one thread."""

    def __init__(self, handle: Callable[[object], None], journal: Journal | None = None) -> None:
        self.handle = handle
        self.journal: Journal = journal or MemoryJournal()
        self.queue: "queue.Queue[object]" = queue.Queue()
        self._thread: threading.Thread | None = None
        self._timers: set[threading.Timer] = set()
        self.processed = 0

    def post(self, event: object) -> None:
        """Queue an event (any thread)."""
        self.queue.put(event)

    def after(self, delay_s: float, name: str) -> None:
        """Post ``TimerExpired(name)`` after ``delay_s`` (the timer thread only posts)."""
        timer = threading.Timer(delay_s, lambda: self.post(TimerExpired(name)))
        timer.daemon = True
        self._timers.add(timer)
        timer.start()

    def step(self, event: object) -> None:
        """Journal and handle one event (the controller thread, or a test driving it directly)."""
        kind, data = event_record(event)
        self.journal.append(kind, data)
        self.handle(event)
        self.processed += 1

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="controller", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            event = self.queue.get()
            if isinstance(event, _Stop):
                return
            try:
                self.step(event)
            except Exception:  # noqa: BLE001 - logged and journaled; the loop goes on
                log.exception("controller: handling %r failed", event)
                self.journal.append("ControllerError", {"event": repr(event)})

    def stop(self) -> None:
        """Finish the events already queued, then stop (idempotent)."""
        for timer in list(self._timers):
            timer.cancel()
        self._timers.clear()
        if self._thread is not None:
            self.queue.put(_Stop())
            self._thread.join(timeout=10)
            self._thread = None
