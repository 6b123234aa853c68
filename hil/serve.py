"""Serving a simulated device on a real pty (``os.openpty``) or a loopback socket.

The controller opens the pty's slave path (or a stable symlink to it) like any tty, or
``socket://127.0.0.1:PORT``. ``disconnect()`` closes the port under the controller (it sees an
error, as when a cable is pulled); ``reconnect()`` opens a new pty and points the symlink at it.
"""

from __future__ import annotations

import os
import select
import socket
import threading
import tty
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from drivers.framing import Decoder
from hil.device import SimDevice
from hil.faults import Faults

if TYPE_CHECKING:
    import serial

__all__ = ["PtyServer", "SocketServer", "SerialServer"]


class _Server:
    def __init__(self, device: SimDevice, faults: Faults | None) -> None:
        self.device = device
        self.faults = faults or Faults()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.decoder = Decoder()

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

    def _start_thread(self, target: Callable[[], None]) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=target, name=f"sim-{type(self.device).__name__}", daemon=True)
        self._thread.start()

    def _join(self) -> None:
        self._stop.set()
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
            ready, _, _ = select.select([master], [], [], 0.02)
            if not ready:
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
        if self.link is not None and self.link.is_symlink():
            self.link.unlink()

    def __enter__(self) -> PtyServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SocketServer(_Server):
    """A simulator on ``socket://127.0.0.1:PORT`` (one controller connection at a time)."""

    def __init__(self, device: SimDevice, faults: Faults | None = None) -> None:
        super().__init__(device, faults)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
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
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._conn = conn
            conn.settimeout(0.02)
            with conn:
                while not self._stop.is_set():
                    try:
                        data = conn.recv(4096)
                    except TimeoutError:
                        continue
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

    def __enter__(self) -> SocketServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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
        while not self._stop.is_set():
            try:
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

    def __enter__(self) -> SerialServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
