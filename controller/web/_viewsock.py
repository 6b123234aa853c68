"""The table's side of the views' socket: the view model and the bench controls offered on a
local unix socket, so that the views (``tablectl web serve``) run in a process of their own.

Nothing a browser does reaches this process: the views' process holds every client connection,
every thread and every byte a client sends; this side holds at most :data:`MAX_PEERS` socket
connections, each a line protocol with a bounded line (:data:`MAX_LINE`), served by one thread
(``view-socket``) with its own event loop, never the controller's thread.

The protocol, one line each way (UTF-8, ``\\n`` ends a line):

- this side sends ``hello {"bench": BOOL, "faults": {...}}`` once, then ``view VERSION JSON`` for
  each view model the feed publishes (the latest only: a peer that reads slowly misses the views
  in between, never queues them), ``beat`` after :data:`BEAT_S` without a view, and ``reply {"id": N, "status": 200|400|429|404, ...}`` for each
  command;
- the peer sends commands ``{"id": N, "action": "spot|press|key|deal|fault", "body": {...}}``.

Who: the socket file is made 0660 (its group: the views' user's, ``--view-socket-group``) and
each peer's credentials (``SO_PEERCRED``) must be this process's user or the socket's group, else
the connection is closed unread. What: the actions of :class:`~controller.web._controls.
BenchControls` only (404 on a real table), each checking its fields (400 naming the field; 429
when presses wait). A line that is not a command gets a 400 reply; one longer than
:data:`MAX_LINE` closes the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import grp
import json
import logging
import os
import socket
import struct
import threading
from pathlib import Path

from controller.web._controls import FAULTS, BenchControls, ControlBusy, ControlError
from controller.web._feed import TableFeed

__all__ = ["ViewSocket", "MAX_LINE", "MAX_PEERS", "ACTIONS", "peer_allowed"]

log = logging.getLogger("tablectl.web")

MAX_LINE = 16 * 1024
"""The longest command line a peer may send."""
MAX_PEERS = 4
"""Views' processes served at once (one is usual; a restarting one overlaps its old self)."""
BEAT_S = 1.0
"""A quiet table says ``beat`` this often: the views tell a quiet table from a stopped one."""
STOP_WAIT_S = 10.0
"""How long ``stop`` waits for the connections it cancelled to end (each closes its writer)."""
ACTIONS = ("spot", "press", "key", "deal", "fault")
"""The commands of the bench controls, by name."""
_UCRED = struct.Struct("3i")


def peer_allowed(sock: socket.socket, uid: int, gid: int | None) -> bool:
    """Whether the peer of a unix ``sock`` runs as ``uid`` or in group ``gid`` (its ``SO_PEERCRED``)."""
    try:
        _pid, peer_uid, peer_gid = _UCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size))
    except OSError:
        return False
    return peer_uid == uid or peer_uid == 0 or (gid is not None and peer_gid == gid)


def run_command(controls: BenchControls | None, line: bytes) -> dict[str, object]:
    """Carry out one command line; the reply (``id`` and ``status``, ``error`` naming what is wrong)."""
    try:
        command = json.loads(line)
    except (UnicodeDecodeError, ValueError) as exc:
        return {"id": None, "status": 400, "error": f"not a JSON command ({exc})"}
    if not isinstance(command, dict):
        return {"id": None, "status": 400, "error": "a command is a JSON object"}
    ident = command.get("id")
    if not isinstance(ident, int) or isinstance(ident, bool):
        return {"id": None, "status": 400, "error": "id: a command needs a whole-number id"}
    action, body = command.get("action"), command.get("body")
    if controls is None:
        return {"id": ident, "status": 404, "error": "this is a real table: the page only shows it"}
    if action not in ACTIONS:
        return {"id": ident, "status": 404, "error": f"/api/{str(action)[:40]}: no such control"}
    if not isinstance(body, dict):
        return {"id": ident, "status": 400, "error": f"/api/{action}: the body must be a JSON object"}
    try:
        if action == "spot":
            controls.spot(body.get("seat"), body.get("spot"), body.get("cents"))
        elif action == "press":
            controls.press(body.get("button"))
        elif action == "key":
            controls.key(body.get("on"))
        elif action == "deal":
            controls.deal(body.get("count", 1))
        else:
            controls.fault(body.get("kind"), body.get("seat", 1), body.get("spot"))
    except ControlBusy as exc:
        return {"id": ident, "status": 429, "error": f"/api/{action}: {exc}", "busy": True}
    except ControlError as exc:
        return {"id": ident, "status": 400, "error": f"/api/{action}: {exc}"}
    return {"id": ident, "status": 200}


class ViewSocket:
    """The feed and the controls of one table on the unix socket ``path`` (see the module).

    ``group``: the group whose members may connect besides this process's user (the socket file
    is given that group, mode 0660). ``start`` binds and serves on a thread; ``stop`` closes
    every connection and removes the socket file."""

    def __init__(
        self, feed: TableFeed, controls: BenchControls | None, path: str | Path, group: str | None = None
    ) -> None:
        self.feed, self.controls, self.path = feed, controls, Path(path)
        self.gid = grp.getgrnam(group).gr_gid if group else None
        self.uid = os.getuid()
        self.peers = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.AbstractServer | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="view-socket", daemon=True)
        hello = {"bench": controls is not None, "faults": FAULTS}
        self._hello = f"hello {json.dumps(hello, separators=(',', ':'))}\n".encode()

    def start(self) -> None:
        """Bind the socket (a stale file left by a dead process is replaced) and serve it."""
        with contextlib.suppress(FileNotFoundError):
            if self.path.is_socket():
                self.path.unlink()
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            raise OSError(f"the views' socket {self.path}: {self._error}")

    def _run(self) -> None:
        loop = self._loop = asyncio.new_event_loop()
        try:
            old = os.umask(0o117)  # 0660 from the start: never a moment others may connect
            try:
                self._server = loop.run_until_complete(
                    asyncio.start_unix_server(self._serve, path=str(self.path), limit=MAX_LINE)
                )
            finally:
                os.umask(old)
            if self.gid is not None:
                os.chown(self.path, -1, self.gid)
        except BaseException as exc:
            self._error = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if self.peers >= MAX_PEERS or sock is None or not peer_allowed(sock, self.uid, self.gid):
            log.warning("views' socket: a connection refused (%s)", "too many" if self.peers >= MAX_PEERS else "who")
            writer.close()
            return
        self.peers += 1
        wake = self.feed.subscribe()
        lock = asyncio.Lock()

        async def write(data: bytes) -> None:
            async with lock:
                writer.write(data)
                await writer.drain()

        async def views() -> None:
            await write(self._hello)
            sent = -1
            while True:
                version, text = self.feed.current()
                if version != sent:
                    sent = version
                    await write(f"view {version} {text}\n".encode())
                # asyncio.timeout, not wait_for: on Python 3.11 wait_for swallows the task's
                # cancellation when the wait ends in the same turn (a view published as the
                # connection ends), and the pusher outlived its connection, which stayed open.
                try:
                    async with asyncio.timeout(BEAT_S):
                        await wake.wait()
                    wake.clear()
                except TimeoutError:
                    await write(b"beat\n")  # the table is alive: a stopped one goes silent

        pusher = asyncio.get_running_loop().create_task(views())
        try:
            while True:
                try:
                    line = await reader.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    log.warning("views' socket: a command longer than %d bytes; connection closed", MAX_LINE)
                    return
                if not line:
                    return
                if not line.strip():
                    continue
                reply = run_command(self.controls, line)
                await write(f"reply {json.dumps(reply, separators=(',', ':'))}\n".encode())
        except (ConnectionError, OSError):
            return
        except asyncio.CancelledError:
            # ``stop`` cancels every connection: end it here, as a connection that ended. On Python
            # 3.11 a connection's task that ends cancelled makes asyncio's own callback raise and
            # log "Exception in callback" with a traceback on every stop with a peer connected.
            return
        finally:
            pusher.cancel()
            with contextlib.suppress(BaseException):
                await pusher
            self.feed.unsubscribe(wake)
            self.peers -= 1
            writer.close()

    def stop(self) -> None:
        """Stop serving, close every connection, remove the socket file (idempotent)."""
        loop = self._loop
        if loop is not None and loop.is_running():

            async def close() -> None:
                if self._server is not None:
                    self._server.close()
                tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
                for task in tasks:
                    task.cancel()
                # Each connection ends (its pusher awaited, its writer closed) before the loop
                # stops: stopping it at once left a connection whose pusher had not ended yet
                # suspended for good, its socket open (a peer read until its timeout).
                if tasks:
                    await asyncio.wait(tasks, timeout=STOP_WAIT_S)

            asyncio.run_coroutine_threadsafe(close(), loop).result(timeout=STOP_WAIT_S + 5)
            loop.call_soon_threadsafe(loop.stop)
            self._thread.join(timeout=10)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
