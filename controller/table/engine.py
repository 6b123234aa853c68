"""The engine: one controller thread takes events from one queue, journals each, then acts.

Drivers and timers only ``post`` frozen events; nothing else ever calls into the table, so no
trigger of a state machine runs on a reader or timer thread.
"""

from __future__ import annotations

import logging
import queue
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from controller.journal.records import Journal, MemoryJournal, event_record
from controller.journal.store import JournalError

__all__ = ["TimerExpired", "StartDrawn", "JournalFault", "Engine", "TimerStart", "thread_timer", "failure_text"]

log = logging.getLogger("tablectl.engine")


def failure_text(exc: BaseException) -> str:
    """An error for the log: its type and where it was raised, never its text (an error raised
    while handling an event may quote the event, and with it a card not yet revealed)."""
    return f"{type(exc).__name__} at\n" + "".join(traceback.format_tb(exc.__traceback__)).rstrip()


@dataclass(frozen=True, slots=True)
class TimerExpired:
    """A timer the controller set has run out."""

    name: str


@dataclass(frozen=True, slots=True)
class StartDrawn:
    """A random starting number (pai gow, 31.11(c): 1 to 7), drawn outside the machine and posted
    as an event so a replayed round sees the same number."""

    value: int


@dataclass(frozen=True, slots=True)
class JournalFault:
    """The journal could not be written for a while: ``refused`` events were not acted on.
    Recorded (and handled: the table holds) as soon as the journal takes records again, so a
    replay holds where the live table held."""

    reason: str
    refused: int


class _Stop:
    pass


TimerStart = Callable[[float, Callable[[], None]], Callable[[], None]]
"""Calls a function after a delay in seconds (on another thread); returns what cancels it."""


def thread_timer(delay_s: float, call: Callable[[], None]) -> Callable[[], None]:
    """The real timer: a daemon ``threading.Timer``."""
    timer = threading.Timer(delay_s, call)
    timer.daemon = True
    timer.start()
    return timer.cancel


class Engine:
    """Runs ``handle(event)`` for each posted event, in order, on one thread. ``start_timer``
    runs what :meth:`after` schedules (a test passes one it fires itself)."""

    def __init__(
        self,
        handle: Callable[[object], None],
        journal: Journal | None = None,
        on_journal_error: Callable[[str], None] | None = None,
        start_timer: TimerStart = thread_timer,
    ) -> None:
        self.handle = handle
        self.start_timer = start_timer
        self.journal: Journal = journal or MemoryJournal()
        self.on_journal_error = on_journal_error or (lambda reason: None)
        """Told when an event cannot be recorded (the table holds; the event is not acted on)."""
        self.refused = 0
        self.journal_problem = ""
        self.current_seq = 0
        """The sequence number of the event being handled."""
        self.queue: queue.Queue[object] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._timers: list[Callable[[], None]] = []  # what cancels each timer started
        self.processed = 0

    def post(self, event: object) -> None:
        """Queue an event (any thread)."""
        self.queue.put(event)

    def after(self, delay_s: float, name: str) -> None:
        """Post ``TimerExpired(name)`` after ``delay_s`` (the timer thread only posts)."""
        self._timers.append(self.start_timer(delay_s, lambda: self.post(TimerExpired(name))))

    def step(self, event: object) -> None:
        """Journal and handle one event (the controller thread, or a test driving it directly).
        An event that cannot be recorded is not acted on."""
        if self.refused and not self._record(JournalFault(self.journal_problem, self.refused)):
            return
        self._record(event)

    def _record(self, event: object) -> bool:
        kind, data = event_record(event)
        try:
            self.current_seq = self.journal.append(kind, data, event=True)
        except JournalError as exc:
            self.refused += 1
            if self.refused == 1:
                log.error("journal: %s: events are not acted on until it can be written", exc)
            self.journal_problem = str(exc)
            self.on_journal_error(str(exc))
            return False
        if isinstance(event, JournalFault):
            self.refused, self.journal_problem = 0, ""
        self.handle(event)
        self.processed += 1
        return True

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
            except Exception as exc:
                # Named by kind and journal number only: the event may hold a card not yet revealed.
                log.error(
                    "controller: handling %s (record %d) failed: %s",
                    type(event).__name__,
                    self.current_seq,
                    failure_text(exc),
                )
                try:
                    self.journal.append("ControllerError", {"event": type(event).__name__, "seq": self.current_seq})
                except JournalError:
                    pass

    def stop(self) -> None:
        """Finish the events already queued, then stop (idempotent)."""
        for cancel in list(self._timers):
            cancel()
        self._timers.clear()
        if self._thread is not None:
            self.queue.put(_Stop())
            self._thread.join(timeout=10)
            self._thread = None
