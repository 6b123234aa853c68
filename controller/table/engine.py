"""The engine: one controller thread takes events from one queue, journals each, then acts.

Drivers and timers only ``post`` frozen events; nothing else ever calls into the table, so no
trigger of a state machine runs on a reader or timer thread.
"""

from __future__ import annotations

import logging
import queue
import threading
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from controller.journal.records import Journal, MemoryJournal, event_record
from controller.journal.store import JournalError, JournalFull

__all__ = ["TimerExpired", "StartDrawn", "JournalFault", "Engine", "TimerStart"]

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
    """The journal could not be written for a while. Recorded (and handled) as soon as the
    journal takes records again, before anything else, so a replay holds and resumes where the
    live table did. ``refused``: events lost (not recorded, never acted on: none unless more than
    :data:`KEEP_UNRECORDED` waited); ``retaken``: events taken again after it, in order (each
    device event not journaled is asked of its device again; anything else waited in memory)."""

    reason: str
    refused: int
    retaken: int = 0


KEEP_UNRECORDED = 10_000
"""Events that no device will send again (link events, timers) kept in memory while the journal
cannot be written; any beyond are lost (and counted)."""

RETRY_S = 0.5
"""While the journal cannot be written, how often it is tried again with nothing new to record."""


class _Retry:
    pass


class _Stop:
    pass


_RETRY = _Retry()


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
        on_recorded: Callable[[object], None] | None = None,
        on_refused: Callable[[object], bool] | None = None,
        prepare: Callable[[object], object] | None = None,
    ) -> None:
        self.handle = handle
        self.prepare = prepare
        """What an event is journaled and handled as (a PIN entry: the sign-in it checks to, so the
        PIN is never journaled); on the controller thread, before the journal is tried. None: the
        event itself."""
        self._delivered: dict[int, object] = {}
        """The event a device delivered, by the id of what it was prepared as while that is being
        recorded: its link acknowledges (or asks again for) what it delivered."""
        self.start_timer = start_timer
        self.journal: Journal = journal or MemoryJournal()
        self.on_journal_error = on_journal_error or (lambda reason: None)
        """Told when the journal cannot be written, and whenever the reason changes (the table
        holds; the event is not acted on)."""
        self.on_recorded = on_recorded
        """Told each event once its record is committed (its device may now be acknowledged)."""
        self.on_refused = on_refused or (lambda event: False)
        """Told each event the journal refused; True when its device will send it again."""
        self.failing = False
        """The journal could not be written; nothing is acted on until it can (the ``JournalFault``)."""
        self.refused = 0
        self.asked_again: set[tuple[str, int]] = set()
        """Device events refused, by device and event number (each is sent again by its device)."""
        self.journal_problem = ""
        self._problem_key = ""
        self._unrecorded: deque[object] = deque()
        self._retry_due = False
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
        An event that cannot be recorded is not acted on: its device sends it again, or it waits
        in memory, and it is taken in order once the journal can be written."""
        prepare = self.prepare
        if prepare is not None:
            prepared = prepare(event)
            if prepared is not event:
                self._delivered[id(prepared)] = event
                event = prepared
        if self.failing and not self.retry():
            self._refuse(event)
            return
        self._record(event)

    def retry(self) -> bool:
        """Try the journal again after a failure: record the ``JournalFault``, then the events
        that waited in memory, in order. True when all are recorded."""
        fault = JournalFault(self.journal_problem, self.refused, len(self.asked_again) + len(self._unrecorded))
        if not self._append(fault):
            return False
        self.failing, self.refused, self.journal_problem, self._problem_key = False, 0, "", ""
        self.asked_again = set()
        self.handle(fault)
        self.processed += 1
        while self._unrecorded:
            event = self._unrecorded[0]
            if not self._append(event):
                return False  # it stays first
            self._unrecorded.popleft()
            self._acted_on(event)
        return True

    def _append(self, event: object) -> bool:
        kind, data = event_record(event)
        try:
            self.current_seq = self.journal.append(kind, data, event=True)
        except JournalError as exc:
            self._journal_failed(exc)
            return False
        return True

    def _journal_failed(self, exc: JournalError) -> None:
        """The journal refused a record: the table holds (told once, and whenever the reason
        changes) and the journal is tried again later."""
        reason = exc.reason if isinstance(exc, JournalFull) else str(exc)
        key = "disk full" if isinstance(exc, JournalFull) else reason  # the free bytes may change
        first, changed = not self.failing, key != self._problem_key
        self.failing, self._problem_key = True, key
        if first or changed:
            self.journal_problem = reason
            log.error(
                "journal: %s: the table holds; nothing is acted on or acknowledged to a device until the "
                "journal can be written, then every event is taken again in order",
                exc,
            )
            self.on_journal_error(reason)
        self._schedule_retry()

    def _record(self, event: object) -> None:
        if not self._append(event):
            self._refuse(event)
            return
        self._acted_on(event)

    def _acted_on(self, event: object) -> None:
        """``event`` is recorded: its device may be acknowledged, and the table acts on it."""
        on_recorded, delivered = self.on_recorded, self._delivered
        if delivered:  # only while an event prepared as another is recorded (a PIN entry)
            got = delivered.pop(id(event), event)
            if on_recorded is not None:
                on_recorded(got)
        elif on_recorded is not None:
            on_recorded(event)
        self.handle(event)
        self.processed += 1

    def _refuse(self, event: object) -> None:
        """``event`` was not recorded: its device sends it again, or it waits in memory."""
        if self.on_refused(self._delivered.pop(id(event), event)):
            self.asked_again.add((str(getattr(event, "device", "")), int(getattr(event, "event_no", 0))))
        elif len(self._unrecorded) < KEEP_UNRECORDED:
            self._unrecorded.append(event)
        else:
            self.refused += 1

    def _schedule_retry(self) -> None:
        if not self._retry_due:
            self._retry_due = True
            self._timers.append(self.start_timer(RETRY_S, lambda: self.post(_RETRY)))

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="controller", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            event = self.queue.get()
            if isinstance(event, _Stop):
                return
            self.run_one(event)

    def run_one(self, event: object) -> None:
        """Take one item from the queue as the controller thread does (a simulation in one thread
        calls it itself): a journal retry, or an event journaled and handled; a failure is logged
        and journaled by kind, never raised."""
        if isinstance(event, _Retry):
            self._retry_due = False
            if self.failing:
                self.retry()
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
