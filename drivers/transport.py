"""Transport: bytes in and out of one port, opened through ``serial.serial_for_url`` only.

So a port is a device path (``/dev/serial/by-id/...``, a pty path), ``socket://127.0.0.1:PORT``
or ``loop://`` with no code change. pyserial's errors become :class:`TransportError`, naming
the port, at this boundary. Parity, DTR and RTS are left alone (ptys reject them).

A device path is opened exclusively (pyserial's ``exclusive=True``: a POSIX ``flock`` on the
port), so a second controller, a second ``tablectl run`` or a terminal program that also locks
cannot share the port: the second opener gets :class:`PortOpenError` ``port X is in use by
another process``. The lock is advisory: a program that opens the port without ``flock`` (``cat``,
``echo >``) is not kept out. URLs (``socket://``, ``loop://``) are not locked.

Reading waits on the port's file descriptor (``selectors``: epoll on Linux) until the first byte
arrives or the caller's deadline passes, so an idle link sleeps in the kernel instead of waking
every few milliseconds, then takes what is there with one ``read`` of the descriptor (pyserial
keeps no buffer of its own on a tty or a socket; its ``read`` would ask the kernel three times
more); a port without a descriptor (``loop://``) falls back to pyserial's own timed read.
Writing is one ``write`` of the descriptor too: only when the port takes less than the whole frame
(a full output buffer) does it wait for room, up to the write timeout (pyserial waits on the
descriptor after every write, and fails one whose thread looked at the clock late even when every
byte went out).
"""

from __future__ import annotations

import errno
import io
import os
import select
import selectors
from time import monotonic

import serial

from drivers.errors import DriverError

__all__ = ["TransportError", "PortOpenError", "Transport", "open_reason"]


class TransportError(DriverError, OSError):
    """The port could not be opened, read or written; says which port and why."""


class PortOpenError(TransportError):
    """The port would not open; ``reason`` is the OS reason in words (the same reason again
    means the same trouble, so it is reported once)."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(reason if reason.startswith(f"port {url} ") else f"cannot open port {url}: {reason}")
        self.url, self.reason = url, reason


_HINTS = {
    errno.EACCES: "is the user in the dialout group?",
    errno.EPERM: "is the user in the dialout group?",
    errno.EBUSY: "is another program holding it?",
}


def open_reason(exc: BaseException, url: str) -> str:
    """The OS reason in words for pyserial's failure to open ``url`` (the flock failure of an
    exclusive open becomes ``port URL is in use by another process``)."""
    code = getattr(exc, "errno", None)
    text = str(exc)
    if "exclusively lock" in text or code in (errno.EAGAIN, errno.EWOULDBLOCK):
        return f"port {url} is in use by another process"
    if isinstance(code, int) and code in errno.errorcode:
        words = os.strerror(code)
        hint = _HINTS.get(code)
        return f"{words}: {hint}" if hint else words
    return text or type(exc).__name__


_READ_SIZE = 4096
"""The most bytes one read takes (a frame is at most a few hundred)."""


def _is_device_path(url: str) -> bool:
    return "://" not in url


def _descriptor(port: serial.SerialBase) -> int | None:
    """The port's file descriptor, or None when it has none (``loop://``)."""
    try:
        fd = port.fileno()
    except (AttributeError, io.UnsupportedOperation, serial.SerialException, OSError):
        return None
    return fd if isinstance(fd, int) and fd >= 0 else None


class Transport:
    """An open port. ``read(timeout_s)`` returns what arrived within the timeout (maybe nothing),
    sleeping on the port's descriptor meanwhile."""

    def __init__(
        self, url: str, baudrate: int = 115200, read_timeout_s: float = 0.005, write_timeout_s: float = 1.0
    ) -> None:
        self.url = url
        self._write_timeout_s = write_timeout_s
        self._fd: int | None = None
        self._selector: selectors.BaseSelector | None = None
        try:
            if _is_device_path(url):
                self._port = serial.serial_for_url(
                    url, baudrate=baudrate, timeout=read_timeout_s, write_timeout=write_timeout_s, exclusive=True
                )
            else:
                self._port = serial.serial_for_url(
                    url, baudrate=baudrate, timeout=read_timeout_s, write_timeout=write_timeout_s
                )
        except (serial.SerialException, OSError, ValueError) as exc:
            raise PortOpenError(url, open_reason(exc, url)) from exc
        self._fd = fd = _descriptor(self._port)
        if fd is not None:
            os.set_blocking(fd, False)  # pyserial opens it so; a read or write never waits in the call
            self._selector = selectors.DefaultSelector()
            self._selector.register(fd, selectors.EVENT_READ)

    @property
    def waits_on_descriptor(self) -> bool:
        """Reads sleep on the port's file descriptor (every port but ``loop://``)."""
        return self._selector is not None

    def read(self, timeout_s: float | None = None) -> bytes:
        """Whatever bytes have arrived, waiting at most ``timeout_s`` for the first (None: the
        read timeout given when the port was opened) asleep on the port's descriptor."""
        try:
            if self._fd is not None and self._selector is not None:
                if not self._selector.select(self._port.timeout if timeout_s is None else max(0.0, timeout_s)):
                    return b""
                # readable: the bytes there, in one system call (pyserial keeps no buffer of its own
                # on a tty or a socket, so nothing is skipped); none means the other end is gone
                try:
                    data = os.read(self._fd, _READ_SIZE)
                except BlockingIOError:  # readable, then taken (a spurious wake-up): nothing yet
                    return b""
                if not data:
                    raise TransportError(f"{self.url}: read failed: the port reports data but returned none")
                return data
            waiting = self._port.in_waiting
            return self._port.read(waiting or 1)
        except (serial.SerialException, OSError) as exc:
            if isinstance(exc, TransportError):
                raise
            raise TransportError(f"{self.url}: read failed: {exc}") from exc

    @property
    def descriptor(self) -> int | None:
        """The port's file descriptor, for a loop that waits on several ports at once (None: the
        port has none, ``loop://``)."""
        return self._fd

    def take(self, readable: bool = True) -> bytes:
        """The bytes there now, in one ``read`` of the descriptor, without waiting; nothing when
        there are none. ``readable``: a loop saw the port readable, so no bytes at all means the
        other end is gone (:class:`TransportError`; a raw tty reads nothing, not an error, when it
        has nothing)."""
        if self._fd is None:
            return self.read()
        try:
            data = os.read(self._fd, _READ_SIZE)
        except BlockingIOError:  # readable, then taken (a spurious wake-up): nothing yet
            return b""
        except OSError as exc:
            raise TransportError(f"{self.url}: read failed: {exc}") from exc
        if not data and readable:
            raise TransportError(f"{self.url}: read failed: the port reports data but returned none")
        return data

    def write_some(self, data: bytes | memoryview) -> int:
        """Write what the port takes of ``data`` now, without waiting: how many bytes it took (a
        full output buffer takes fewer, maybe none; a loop waits for room on the descriptor). A
        port without a descriptor takes all of it (:meth:`write`)."""
        try:
            if self._fd is None:
                self._port.write(bytes(data))
                return len(data)
            try:
                return os.write(self._fd, data)
            except BlockingIOError:
                return 0
        except (serial.SerialException, OSError) as exc:
            raise TransportError(f"{self.url}: write failed: {exc}") from exc

    def write(self, data: bytes) -> None:
        """Send ``data``: all of it, waiting for room at most the write timeout in all."""
        try:
            if self._fd is None:
                self._port.write(data)
                return
            view = memoryview(data)
            deadline: float | None = None
            while view:
                try:
                    view = view[os.write(self._fd, view) :]
                except BlockingIOError:  # the output buffer is full: wait for room below
                    pass
                if not view:
                    return
                if deadline is None:
                    deadline = monotonic() + self._write_timeout_s
                left = deadline - monotonic()
                if left <= 0 or not select.select([], [self._fd], [], left)[1]:
                    raise TransportError(f"{self.url}: write failed: Write timeout ({len(view)} bytes not taken)")
        except (serial.SerialException, OSError) as exc:
            if isinstance(exc, TransportError):
                raise
            raise TransportError(f"{self.url}: write failed: {exc}") from exc

    def discard_input(self) -> None:
        """Throw away whatever has arrived and not been read (bytes left from before a reconnect)."""
        try:
            self._port.reset_input_buffer()
        except (serial.SerialException, OSError) as exc:
            raise TransportError(f"{self.url}: cannot clear the input: {exc}") from exc

    def close(self) -> None:
        """Close the port (idempotent)."""
        if self._selector is not None:
            self._selector.close()
            self._selector = None
        self._fd = None
        try:
            self._port.close()
        except (serial.SerialException, OSError):  # pragma: no cover - closing a dead port
            pass
