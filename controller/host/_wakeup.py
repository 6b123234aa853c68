"""A flag a signal handler may set, and a thread sleep on until it is: a pipe under an event.

``threading.Event.set`` takes a lock, so a signal handler that sets an event the main thread is
waiting on can deadlock (the handler runs in the main thread, maybe while that thread holds the
event's lock). :meth:`Wakeup.set` sets a flag and writes a byte to a non-blocking pipe, safe from
a handler and from any thread; :meth:`Wakeup.wait` sleeps in ``select`` on the pipe (a signal
interrupts it, its handler runs, and the byte it wrote ends the wait), so a waiter needs no
timeout to look for a stop: it costs nothing while nothing happens.

A signal meant for the process may be delivered on any of its threads; Python runs its handler
only when the main thread next runs Python code, which a main thread asleep in ``select`` (or on a
lock) does not, so the stop would wait for ever. :meth:`on_signals` therefore also gives the pipe to
:func:`signal.set_wakeup_fd`: the interpreter's own C-level handler writes to it on whatever thread
took the signal, the waiter wakes, and the Python handler runs. :meth:`close` puts back the
handlers and the wake-up fd it replaced (a closed pipe left as the wake-up fd would have the next
signal's byte written to whatever file is given its number next).
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

__all__ = ["Wakeup"]

_Handler = Callable[[int, FrameType | None], Any] | int | None
"""What :func:`signal.signal` gives back: a handler, ``SIG_DFL`` or ``SIG_IGN``, or None (one not set from Python)."""


class Wakeup:
    """Like ``threading.Event`` (``set``, ``is_set``, ``wait``, ``clear``) and safe to set from a
    signal handler; :meth:`close` when done (or use it as a context manager)."""

    def __init__(self) -> None:
        self._flag = False
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        self._replaced: dict[signal.Signals, _Handler] = {}
        self._replaced_fd: int | None = None

    def set(self) -> None:
        """Set the flag and wake the waiter (any thread, or a signal handler)."""
        self._flag = True
        try:
            os.write(self._write, b"!")
        except OSError:  # full (the waiter is woken anyway) or closed
            pass

    def on_signals(self, *signals: signal.Signals, note: Callable[[signal.Signals], None] | None = None) -> None:
        """Set on each of ``signals`` (call from the main thread): their handlers set the flag
        (after ``note(signal)``, when given: only what is safe in a handler), and the pipe is the
        interpreter's wake-up fd, so the main thread's :meth:`wait` wakes whichever thread the
        signal was delivered on. Until :meth:`close`, which puts back what this replaced."""

        def handler(signum: int, frame: FrameType | None) -> None:
            if note is not None:
                note(signal.Signals(signum))
            self.set()

        for sig in signals:
            replaced = signal.signal(sig, handler)
            self._replaced.setdefault(sig, replaced)
        replaced_fd = signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
        if self._replaced_fd is None:
            self._replaced_fd = replaced_fd

    def is_set(self) -> bool:
        """Whether :meth:`set` was called since the last :meth:`clear`."""
        return self._flag

    def wait(self, timeout: float | None = None) -> bool:
        """Sleep until the flag is set or ``timeout`` seconds pass (None: no limit); returns the flag."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._flag:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                break
            if select.select([self._read], [], [], left)[0] and not self._flag:
                self._drain()  # the byte of a set() a clear() undid: sleep again
        return self._flag

    def clear(self) -> None:
        """Unset the flag (a :meth:`set` after this wakes the next :meth:`wait`)."""
        self._flag = False
        self._drain()

    def _drain(self) -> None:
        try:
            while os.read(self._read, 4096):
                pass
        except OSError:  # drained (or closed)
            pass

    def close(self) -> None:
        """Put back the handlers and wake-up fd :meth:`on_signals` replaced (from the main thread),
        then close the pipe (idempotent); a later :meth:`set` only sets the flag."""
        if self._replaced_fd is not None:
            signal.set_wakeup_fd(self._replaced_fd)
            self._replaced_fd = None
        for sig, replaced in self._replaced.items():
            signal.signal(sig, signal.SIG_DFL if replaced is None else replaced)
        self._replaced.clear()
        for fd in (self._read, self._write):
            if fd >= 0:
                os.close(fd)
        self._read = self._write = -1

    def __enter__(self) -> Wakeup:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
