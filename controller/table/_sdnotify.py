"""systemd's notify protocol with the standard library: readiness, watchdog keep-alives, status.

Under a unit with ``Type=notify`` systemd sets ``NOTIFY_SOCKET`` (a path, or ``@name`` for the
abstract namespace) and, with ``WatchdogSec=``, ``WATCHDOG_USEC``; the service sends datagrams
such as ``READY=1`` and ``WATCHDOG=1`` to that AF_UNIX socket (sd_notify(3)). Outside systemd
(no ``NOTIFY_SOCKET``) every call does nothing.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

__all__ = ["SystemdNotifier"]

log = logging.getLogger("tablectl.sdnotify")


class SystemdNotifier:
    """Sends notify datagrams to ``NOTIFY_SOCKET`` from ``env`` (default: the process environment)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        address = env.get("NOTIFY_SOCKET", "")
        self.address = "\0" + address[1:] if address.startswith("@") else address
        self.watchdog_s: float | None = None
        """How often systemd wants a keep-alive at the latest (None: no watchdog)."""
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        if usec.isdigit() and int(usec) > 0 and (not pid or pid == str(os.getpid())):
            self.watchdog_s = int(usec) / 1_000_000
        self._failed = False

    @property
    def enabled(self) -> bool:
        """Whether there is a socket to notify."""
        return bool(self.address)

    def notify(self, *fields: str) -> bool:
        """Send ``fields`` (``KEY=value`` lines) in one datagram; False when not sent."""
        if not self.address:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.sendto("\n".join(fields).encode(), self.address)
        except OSError as exc:
            if not self._failed:
                self._failed = True
                log.warning("cannot notify systemd at %s: %s", self.address.lstrip("\0"), exc)
            return False
        return True

    def ready(self, status: str = "") -> bool:
        """The service is up (``READY=1``)."""
        return self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def watchdog(self) -> bool:
        """A keep-alive (``WATCHDOG=1``)."""
        return self.notify("WATCHDOG=1")

    def stopping(self) -> bool:
        """The service is stopping (``STOPPING=1``)."""
        return self.notify("STOPPING=1")
