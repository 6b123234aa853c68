"""Transport: bytes in and out of one port, through ``serial.serial_for_url`` only.

So a port is a device path (``/dev/serial/by-id/...``, a pty path), ``socket://127.0.0.1:PORT``
or ``loop://`` with no code change. pyserial's errors become :class:`TransportError`, naming
the port, at this boundary. Parity, DTR and RTS are left alone (ptys reject them).
"""

from __future__ import annotations

import serial

__all__ = ["TransportError", "Transport"]


class TransportError(OSError):
    """The port could not be opened, read or written; says which port and why."""


class Transport:
    """An open port. ``read(timeout_s)`` returns what arrived within the timeout (maybe nothing)."""

    def __init__(self, url: str, baudrate: int = 115200, read_timeout_s: float = 0.005) -> None:
        self.url = url
        try:
            self._port = serial.serial_for_url(url, baudrate=baudrate, timeout=read_timeout_s, write_timeout=1.0)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise TransportError(f"{url}: cannot open: {exc}") from exc

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
