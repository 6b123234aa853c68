"""The views' side of the table's socket (:mod:`controller.web._viewsock`): the table's view model
and its bench controls, read and sent over the unix socket, for ``tablectl web serve``.

:class:`RemoteTable` keeps one connection: a reader thread takes each ``view`` line as the
latest view (the interface of :class:`~controller.web._feed.TableFeed`: ``current``,
``subscribe``, ``unsubscribe``) and each ``reply`` to the command waiting for it; while the
table is not connected or silent, ``live`` is false (the event streams send no heartbeat, so the pages
show themselves stale) and it connects again. :class:`RemoteControls` is the bench controls'
interface, each call a command answered by the table (its 400 a :class:`ControlError`, its
429 a :class:`ControlBusy`).
"""

from __future__ import annotations

import json
import logging
import math
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from controller.web._controls import ControlBusy, ControlError
from controller.web._published import PublishedView

__all__ = ["RemoteTable", "RemoteControls", "TableUnreachable", "MAX_WAITING_COMMANDS", "COMMAND_TIMEOUT_S"]

log = logging.getLogger("tablectl.web")

MAX_WAITING_COMMANDS = 16
"""Commands sent and not answered yet; one more is refused as busy (429)."""
COMMAND_TIMEOUT_S = 10.0
"""How long a command waits for the table's answer."""
MAX_VIEW_LINE = 4 * 1024 * 1024
"""The longest line the table may send (a view model is far smaller)."""
RECONNECT_S = 0.5
SILENT_S = 5.0
"""A table not heard from for this long (it says ``beat`` every second) is not live: stopped or stuck."""


class TableUnreachable(Exception):
    """The table's socket is not connected (or did not say hello in time)."""


@dataclass(slots=True)
class _Slot:
    """A command waiting for the table's reply: set ``done`` once ``reply`` is there."""

    done: threading.Event
    reply: dict[str, object] = field(default_factory=dict)


class RemoteTable(PublishedView):
    """One connection to the table's views' socket at ``path`` (see the module). ``once``: end
    (``ended`` set) when the table closes the socket instead of connecting again (a view started
    by the table as its child goes with it)."""

    def __init__(self, path: str, once: bool = False, on_end: Callable[[], None] | None = None) -> None:
        self.path, self.once = path, once
        self._on_end = on_end
        """Called (on the socket's thread) once ``ended`` is set."""
        self.bench: bool | None = None
        self.faults: dict[str, str] = {}
        self._connected = False
        self._heard = -math.inf
        self.ended = threading.Event()
        self._hello = threading.Event()
        super().__init__()
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._next_id = 0
        self._waiting: dict[int, _Slot] = {}
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="table-socket", daemon=True)
        self._thread.start()

    def wait_hello(self, timeout: float | None = None) -> None:
        """Wait for the table's first hello (raises :class:`TableUnreachable` on ``timeout``)."""
        if not self._hello.wait(timeout):
            raise TableUnreachable(f"the table's socket {self.path} did not answer")

    def _run(self) -> None:
        warned = False
        while not self._stopping.is_set():
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(self.path)
            except OSError as exc:
                sock.close()
                if not warned:
                    log.warning("web: the table's socket %s: %s; trying again", self.path, exc.strerror)
                    warned = True
                if self.once and self._hello.is_set():
                    break
                self._stopping.wait(RECONNECT_S)
                continue
            warned = False
            with self._lock:
                self._sock = sock
            try:
                self._read(sock)
            except OSError:
                pass
            finally:
                self._lost(sock)
            if self.once:
                break
            if not self._stopping.is_set():
                log.warning("web: the table's socket %s closed; connecting again", self.path)
                self._stopping.wait(RECONNECT_S)
        self.ended.set()
        if self._on_end is not None:
            self._on_end()

    def _lost(self, sock: socket.socket) -> None:
        with self._lock:
            self._connected = False
            self._sock = None
            waiting, self._waiting = self._waiting, {}
        sock.close()
        for slot in waiting.values():
            slot.reply = {"status": 503, "error": "the table's socket closed before it answered"}
            slot.done.set()
        self._wake_all()

    def _read(self, sock: socket.socket) -> None:
        stream = sock.makefile("rb")
        while True:
            line = stream.readline(MAX_VIEW_LINE + 1)
            if not line:
                return
            if len(line) > MAX_VIEW_LINE:
                log.warning("web: the table sent a line over %d bytes; connecting again", MAX_VIEW_LINE)
                return
            self._heard = time.monotonic()
            kind, _, rest = line.rstrip(b"\n").partition(b" ")
            if kind == b"view":
                _version, _, text = rest.partition(b" ")
                decoded = text.decode()
                with self._lock:
                    self._connected = True
                self._put(decoded)  # numbered by us, not the table: a reconnection never goes back
            elif kind == b"reply":
                reply = json.loads(rest)
                with self._lock:
                    slot = self._waiting.pop(reply.get("id"), None)
                if slot is not None:
                    slot.reply = reply
                    slot.done.set()
            elif kind == b"hello":
                hello = json.loads(rest)
                self.bench, self.faults = bool(hello.get("bench")), dict(hello.get("faults") or {})
                self._hello.set()

    # --- the feed's interface -------------------------------------------------------------------

    @property
    def live(self) -> bool:
        """Whether the table is connected and was heard within :data:`SILENT_S` (it beats every second)."""
        return self._connected and time.monotonic() - self._heard < SILENT_S

    # --- commands -------------------------------------------------------------------------------

    def command(self, action: str, body: dict[str, object], timeout: float = COMMAND_TIMEOUT_S) -> dict[str, object]:
        """Send a command and wait for the table's reply (``status``, ``error``)."""
        done = threading.Event()
        slot = _Slot(done)
        with self._lock:
            sock = self._sock
            if sock is None:
                return {"status": 503, "error": "the table is not connected"}
            if len(self._waiting) >= MAX_WAITING_COMMANDS:
                return {"status": 429, "error": "commands are still waiting for the table; try again shortly"}
            self._next_id += 1
            ident = self._next_id
            self._waiting[ident] = slot
            line = json.dumps({"id": ident, "action": action, "body": body}, separators=(",", ":")) + "\n"
            try:
                sock.sendall(line.encode())
            except OSError:
                self._waiting.pop(ident, None)
                return {"status": 503, "error": "the table's socket closed"}
        if not done.wait(timeout):
            with self._lock:
                self._waiting.pop(ident, None)
            return {"status": 503, "error": "the table did not answer in time"}
        return slot.reply

    def stop(self) -> None:
        """Close the connection and stop the reader (idempotent)."""
        self._stopping.set()
        with self._lock:
            sock = self._sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._thread.join(timeout=10)


class RemoteControls:
    """The bench controls of :class:`~controller.web._controls.BenchControls`, carried out by the
    table over its socket."""

    def __init__(self, table: RemoteTable) -> None:
        self.table = table

    def _send(self, action: str, body: dict[str, object]) -> None:
        start = time.monotonic()
        reply = self.table.command(action, body)
        status = reply.get("status")
        if status == 200:
            return
        error = str(reply.get("error", "refused"))
        prefix = f"/api/{action}: "
        error = error[len(prefix) :] if error.startswith(prefix) else error
        if status in (429, 503):
            raise ControlBusy(error)
        log.debug("web: /api/%s refused by the table in %.3f s", action, time.monotonic() - start)
        raise ControlError(error)

    def spot(self, seat: object, spot: object, cents: object) -> None:
        """Set the chips on a seat's spot."""
        self._send("spot", {"seat": seat, "spot": spot, "cents": cents})

    def press(self, button: object) -> None:
        """Press and release a panel button."""
        self._send("press", {"button": button})

    def key(self, on: object) -> None:
        """Turn the supervisor key."""
        self._send("key", {"on": on})

    def deal(self, count: object) -> None:
        """Deal cards from the shoe."""
        self._send("deal", {"count": count})

    def fault(self, kind: object, seat: object = 1, spot: object = None) -> None:
        """Inject a device fault."""
        self._send("fault", {"kind": kind, "seat": seat, "spot": spot})
