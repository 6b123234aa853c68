"""Transport: bytes in and out of one port, through ``serial.serial_for_url`` only.

So a port is a device path (``/dev/serial/by-id/...``, a pty path), ``socket://127.0.0.1:PORT``
or ``loop://`` with no code change. pyserial's errors become :class:`TransportError`, naming
the port, at this boundary. Parity, DTR and RTS are left alone (ptys reject them).

A device path is opened exclusively (pyserial's ``exclusive=True``: a POSIX ``flock`` on the
port), so a second controller, a second ``tablectl run`` or a terminal program that also locks
cannot share the port: the second opener gets :class:`PortOpenError` ``port X is in use by
another process``. The lock is advisory: a program that opens the port without ``flock`` (``cat``,
``echo >``) is not kept out. URLs (``socket://``, ``loop://``) are not locked.
"""

from __future__ import annotations

import errno
import os

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


def _is_device_path(url: str) -> bool:
    return "://" not in url


class Transport:
    """An open port. ``read(timeout_s)`` returns what arrived within the timeout (maybe nothing)."""

    def __init__(
        self, url: str, baudrate: int = 115200, read_timeout_s: float = 0.005, write_timeout_s: float = 1.0
    ) -> None:
        self.url = url
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

    def read(self) -> bytes:
        """Whatever bytes have arrived, waiting at most the read timeout for the first."""
        try:
            waiting = self._port.in_waiting
            return self._port.read(waiting or 1)
        except (serial.SerialException, OSError) as exc:
            raise TransportError(f"{self.url}: read failed: {exc}") from exc

    def write(self, data: bytes) -> None:
        """Send ``data``."""
        try:
            self._port.write(data)
        except (serial.SerialException, OSError) as exc:
            raise TransportError(f"{self.url}: write failed: {exc}") from exc

    def discard_input(self) -> None:
        """Throw away whatever has arrived and not been read (bytes left from before a reconnect)."""
        try:
            self._port.reset_input_buffer()
        except (serial.SerialException, OSError) as exc:
            raise TransportError(f"{self.url}: cannot clear the input: {exc}") from exc

    def close(self) -> None:
        """Close the port (idempotent)."""
        try:
            self._port.close()
        except (serial.SerialException, OSError):  # pragma: no cover - closing a dead port
            pass
