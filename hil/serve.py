"""Serving a simulated device on a real pty (``os.openpty``) or a loopback socket.

The controller opens the pty's slave path (or a stable symlink to it) like any tty, or
``socket://127.0.0.1:PORT``. ``disconnect()`` closes the port under the controller (it sees an
error, as when a cable is pulled); ``reconnect()`` opens a new pty and points the symlink at it.
Each server's thread sleeps on its descriptors (the port and a wake-up pipe that stopping writes
to), never on a short timeout: an idle simulator costs nothing.
"""

from __future__ import annotations

import os
import select
import socket
import threading
import tty
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Self

from drivers.framing import Decoder
from hil.device import SimDevice
from hil.faults import Faults

if TYPE_CHECKING:
    import serial

__all__ = ["PtyServer", "SocketServer", "SerialServer", "served_table_config"]


def _fileno(port: serial.Serial) -> int | None:
    """The port's descriptor to sleep on (None: a URL without one, read with pyserial's timeout)."""
    try:
        fd = port.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return fd if isinstance(fd, int) and fd >= 0 else None


class _Server(ABC):
    """What every server does: serve a device's replies in a thread of its own; a context manager
    that starts it and closes it."""

    def __init__(self, device: SimDevice, faults: Faults | None) -> None:
        self.device = device
        self.faults = faults or Faults()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.decoder = Decoder()
        self._wake_r, self._wake_w = os.pipe()  # written on stopping: wakes the thread's select
        os.set_blocking(self._wake_w, False)

    def _serve_bytes(self, data: bytes, write: Callable[[bytes], object]) -> None:
        for frame in self.decoder.feed(data):
            if self.faults.ignore_request():
                continue
            stale = self.faults.stale_reply(frame) if frame.address == self.device.address else None
            if stale is not None:
                write(stale)
                continue
            reply = self.device.reply_to(frame)
            if reply is not None:
                self.faults.remember(frame, reply)
                self.faults.send(write, reply)

    def _readable(self, fd: int) -> bool:
        """Sleep until ``fd`` is readable (True) or the server is stopping (False)."""
        ready, _, _ = select.select([fd, self._wake_r], [], [])
        return fd in ready and not self._stop.is_set()

    def _drain_wake(self) -> None:
        os.set_blocking(self._wake_r, False)
        try:
            while os.read(self._wake_r, 4096):
                pass
        except BlockingIOError:
            pass

    def _close_wake(self) -> None:
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass
        self._wake_r = self._wake_w = -1

    def _start_thread(self, target: Callable[[], None]) -> None:
        self._stop.clear()
        if self._wake_r < 0:  # closed, then started again
            self._wake_r, self._wake_w = os.pipe()
            os.set_blocking(self._wake_w, False)
        self._drain_wake()
        self._thread = threading.Thread(target=target, name=f"sim-{type(self.device).__name__}", daemon=True)
        self._thread.start()

    @abstractmethod
    def start(self) -> str:
        """Start serving; returns the URL the controller opens."""

    @abstractmethod
    def close(self) -> None:
        """Stop serving and close what the server opened."""

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _join(self) -> None:
        self._stop.set()
        try:
            os.write(self._wake_w, b"x")
        except OSError:  # already full or closed: the thread is awake or gone
            pass
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None


class PtyServer(_Server):
    """A simulator on a pty pair; ``path`` is the slave's path (or ``link``, a symlink to it)."""

    def __init__(self, device: SimDevice, faults: Faults | None = None, link: Path | str | None = None) -> None:
        super().__init__(device, faults)
        self.link = Path(link) if link else None
        self._master = self._slave = -1
        self.path = ""

    def start(self) -> str:
        """Open a new pty and serve it; returns the path to open."""
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)  # no echo, no line editing, before anyone opens it
        self.path = os.ttyname(self._slave)
        if self.link is not None:
            tmp = self.link.with_name(self.link.name + ".new")
            if tmp.is_symlink() or tmp.exists():
                tmp.unlink()
            tmp.symlink_to(self.path)
            os.replace(tmp, self.link)
        self._start_thread(self._run)
        return str(self.link) if self.link else self.path

    def _run(self) -> None:
        master = self._master

        def write(data: bytes) -> None:
            os.write(master, data)

        while not self._stop.is_set():
            if not self._readable(master):
                continue
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if data:
                try:
                    self._serve_bytes(data, write)
                except OSError:
                    return

    def inject(self, data: bytes) -> None:
        """Write raw bytes to the controller's side, as line noise would (a fault to count)."""
        view = memoryview(data)
        while view:
            n = os.write(self._master, view[:4096])
            view = view[n:]

    def disconnect(self) -> None:
        """Close the pty under the controller."""
        self._join()
        for fd in (self._master, self._slave):
            if fd >= 0:
                os.close(fd)
        self._master = self._slave = -1
        self.decoder = Decoder(stats=self.decoder.stats)

    def reconnect(self) -> str:
        """Serve a new pty (the symlink, if any, follows)."""
        return self.start()

    def close(self) -> None:
        """Stop serving and close everything (idempotent)."""
        self.disconnect()
        self._close_wake()
        if self.link is not None and self.link.is_symlink():
            self.link.unlink()


class SocketServer(_Server):
    """A simulator on ``socket://127.0.0.1:PORT`` (one controller connection at a time)."""

    def __init__(self, device: SimDevice, faults: Faults | None = None) -> None:
        super().__init__(device, faults)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._conn: socket.socket | None = None

    @property
    def url(self) -> str:
        return f"socket://127.0.0.1:{self.port}"

    def start(self) -> str:
        self._start_thread(self._run)
        return self.url

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                if not self._readable(self._listener.fileno()):
                    continue
                conn, _ = self._listener.accept()
            except OSError:
                return
            self._conn = conn
            with conn:
                while not self._stop.is_set():
                    try:
                        if not self._readable(conn.fileno()):
                            continue
                        data = conn.recv(4096)
                    except OSError:
                        break
                    if not data:
                        break
                    try:
                        self._serve_bytes(data, conn.sendall)
                    except OSError:
                        break
            self._conn = None

    def close(self) -> None:
        self._join()
        self._listener.close()
        self._close_wake()


class SerialServer(_Server):
    """A simulator on any pyserial URL: a real port (a loopback cable on the bench) or a pty path."""

    def __init__(self, device: SimDevice, url: str, faults: Faults | None = None, baudrate: int = 115200) -> None:
        super().__init__(device, faults)
        self.url = url
        self.baudrate = baudrate
        self._port: serial.Serial | None = None

    def start(self) -> str:
        import serial

        self._port = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=0.02)
        self._start_thread(self._run)
        return self.url

    def _run(self) -> None:
        port = self._port
        assert port is not None, "start() opens the port before the thread runs"
        fd = _fileno(port)
        while not self._stop.is_set():
            try:
                if fd is not None and not port.in_waiting and not self._readable(fd):
                    continue
                data = port.read(port.in_waiting or 1)
                if data:
                    self._serve_bytes(data, port.write)
            except OSError:
                return

    def close(self) -> None:
        self._join()
        if self._port is not None:
            self._port.close()
            self._port = None
        self._close_wake()


def served_table_config(
    source: Path, folder: Path, urls: Mapping[str, str], poll_interval_s: float, log_interval_s: float | None = None
) -> Path:
    """Write ``folder``/table.yaml: the checkout ``source``'s config/mississippi_stud.yaml with its
    devices on ``urls`` (role -> URL or pty path, addressed 1, 2, 3 in that order), each polled every
    ``poll_interval_s`` (and its link's problem counters logged at most every ``log_interval_s``;
    None: the default), its paytables read from ``source`` and its journal in ``folder``."""
    text = (source / "config" / "mississippi_stud.yaml").read_text()
    head = text[: text.index("devices:")]
    every = "" if log_interval_s is None else f", log_interval_s: {log_interval_s}"
    devices = "devices:\n" + "".join(
        f"  {role}: {{driver: {role}, url: {url}, poll_interval_s: {poll_interval_s}, address: {n}{every}}}\n"
        for n, (role, url) in enumerate(urls.items(), 1)
    )
    path = folder / "table.yaml"
    journal = f"journal: {{path: {folder / 'table.db'}}}\n"
    path.write_text(head + f"paytables_dir: {source / 'config' / 'paytables'}\n" + devices + journal)
    return path
