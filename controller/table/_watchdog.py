"""systemd's watchdog for a running table: a keep-alive at half its interval while the table is
alive; a stuck table sends none, and systemd restarts the service."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from controller.table._sdnotify import SystemdNotifier

__all__ = ["Watchdog"]

log = logging.getLogger("tablectl.runtime")


class Watchdog:
    """Sends ``notifier``'s keep-alives on a thread of its own while ``alive()`` says so (nothing
    when systemd set no watchdog)."""

    def __init__(self, notifier: SystemdNotifier, alive: Callable[[], bool]) -> None:
        self.notifier = notifier
        self.alive = alive
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start sending keep-alives, if systemd asked for them and they are not sent already."""
        if self.notifier.watchdog_s and self._thread is None:
            self._stop.clear()
            interval = self.notifier.watchdog_s / 2
            self._thread = threading.Thread(target=self._keep_alive, args=(interval,), name="watchdog", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop sending keep-alives (idempotent)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _keep_alive(self, interval: float) -> None:
        while not self._stop.wait(interval):
            if self.alive():
                self.notifier.watchdog()
            else:
                log.error("controller not alive: no watchdog keep-alive sent")
