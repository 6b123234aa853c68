"""What a web server reads of a table's feed, shared by the in-process feed
(controller.web._feed) and the remote one (controller.web._remote): the latest view model as JSON
text with its version number, and the servers' loops woken, thread-safely, when the next is out."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

__all__ = ["PublishedView"]


class PublishedView:
    """The latest view (``current()``) and its subscribers (``subscribe()``, ``unsubscribe()``)."""

    def __init__(self) -> None:
        self._view_lock = threading.Lock()
        self._version = 0
        self._json = "{}"
        self._subscribers: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()

    def current(self) -> tuple[int, str]:
        """The latest version number and view model (JSON text)."""
        with self._view_lock:
            return self._version, self._json

    def subscribe(self) -> asyncio.Event:
        """An event set whenever a new view is out (call from the server's loop)."""
        event = asyncio.Event()
        with self._view_lock:
            self._subscribers.add((asyncio.get_running_loop(), event))
        return event

    def unsubscribe(self, event: asyncio.Event) -> None:
        """Stop waking ``event``."""
        with self._view_lock:
            self._subscribers = {s for s in self._subscribers if s[1] is not event}

    def _put(self, text: str | Callable[[int], str]) -> None:
        """Publish the next version, its JSON ``text`` (or ``text(version)``); wake every subscriber."""
        with self._view_lock:
            self._version += 1
            self._json = text if isinstance(text, str) else text(self._version)
        self._wake_all()

    def _wake_all(self) -> None:
        """Set every subscriber's event on its loop, once (a loop that has closed is passed over)."""
        with self._view_lock:
            subscribers = list(self._subscribers)
        for loop, event in subscribers:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # the loop has closed
                pass
