"""Putting the table view on a running table, in a process of its own.

The table's process keeps only the feed (its publisher thread) and the bench controls, offered on
a local unix socket (:class:`~controller.web._viewsock.ViewSocket`, :func:`publish_table`). The
views (every browser connection, the guard, the event streams) run in another process,
``tablectl web serve`` (:func:`serve_views`): started by the table as its child with ``--web``
(:func:`serve_table`), or by its own systemd unit under its own user
(deploy/tablectl-web.service). Nothing a client does to the views can take a descriptor, a
thread or CPU time from the controller: they are another process's (run at a lower priority).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from controller.host import Wakeup
from controller.web._controls import BenchControls
from controller.web._feed import TableFeed
from controller.web._viewsock import ViewSocket
from controller.web.server import WebAddress
from controller.web.view import SPOTS

if TYPE_CHECKING:
    from controller.table.runtime import TableRuntime

__all__ = ["serve_table", "publish_table", "serve_views"]

VIEWS_NICE = 10
"""How much lower the views' child process runs than the table (``nice``)."""
START_TIMEOUT_S = 120.0
"""How long the table waits for its views' child to listen."""
HELLO_CHECK_S = 0.5
"""While the table has not said hello yet, how often ``web serve`` looks for a stop."""


def publish_table(
    runtime: TableRuntime,
    path: str | Path,
    sims: Mapping[str, object] | None = None,
    servers: Mapping[str, object] | None = None,
    seed: int = 1,
    group: str | None = None,
) -> Callable[[], None]:
    """Offer ``runtime``'s view (and the bench controls when ``sims`` are given) on the unix
    socket ``path``; call before the runtime starts. Returns the function that stops it."""
    feed = TableFeed(runtime)
    controls = None
    if sims is not None:
        controls = BenchControls(
            sims,
            servers or {},
            runtime.config.seats,
            SPOTS[runtime.config.game],
            joker=runtime.snapshot.deck_size == 53,
            seed=seed,
            round_no=lambda: runtime.snapshot.round_no,
        )
        runtime.observers.append(controls.handled)
    sock = ViewSocket(feed, controls, path, group)
    try:
        sock.start()
    except OSError:
        feed.stop()
        raise

    def stop() -> None:
        sock.stop()
        feed.stop()

    return stop


def _views_command(
    socket_path: str,
    address: WebAddress,
    hosts: Iterable[str],
    cert: str | None,
    key: str | None,
    proxies: Iterable[str],
) -> list[str]:
    host = f"[{address.host}]" if ":" in address.host else address.host
    cmd = [
        sys.executable,
        "-m",
        "controller",
        "web",
        "serve",
        "--socket",
        socket_path,
        "--web",
        f"{host}:{address.port}",
    ]
    cmd += ["--with-table", "--print-url"]
    for name in hosts:
        cmd += ["--web-host", name]
    for proxy in proxies:
        cmd += ["--web-proxy", proxy]
    if cert is not None and key is not None:
        cmd += ["--web-cert", cert, "--web-key", key]
    return cmd


def _first_line(proc: subprocess.Popen[bytes], timeout: float) -> str:
    """The child's first line on stdout ("" when it exited or said nothing in time)."""
    assert proc.stdout is not None
    buffer = b""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while b"\n" not in buffer and time.monotonic() < deadline:
            if not sel.select(timeout=0.5):
                continue
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break
            buffer += chunk
    return buffer.partition(b"\n")[0].decode(errors="replace").strip()


def serve_table(
    runtime: TableRuntime,
    address: WebAddress,
    token: str | None = None,
    sims: Mapping[str, object] | None = None,
    servers: Mapping[str, object] | None = None,
    seed: int = 1,
    announce: bool = True,
    hosts: Iterable[str] = (),
    cert: str | None = None,
    key: str | None = None,
    proxies: Iterable[str] = (),
    socket_path: str | None = None,
    group: str | None = None,
) -> tuple[str, Callable[[], None]]:
    """Serve the view of ``runtime``'s table (with bench controls when ``sims`` are given) from a
    child process, ``tablectl web serve``, reading the table over a unix socket (``socket_path``,
    else one in a private temporary folder); call before the runtime starts. Returns the URL and
    the function that stops serving. Raises ``OSError`` when the view cannot listen."""
    folder = None
    if socket_path is None:
        folder = tempfile.mkdtemp(prefix="tablectl-view-")
        socket_path = str(Path(folder) / "view.sock")
    stop_socket = publish_table(runtime, socket_path, sims, servers, seed, group)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("TABLECTL_WEB_TOKEN", None)
    if token is not None:
        env["TABLECTL_WEB_TOKEN"] = token  # never on a command line (the process list shows it)
    proc = subprocess.Popen(
        _views_command(socket_path, address, hosts, cert, key, proxies),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        env=env,
    )

    def stop() -> None:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        stop_socket()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)

    url = _first_line(proc, START_TIMEOUT_S)
    if not url.startswith(("http://", "https://")):
        stop()
        raise OSError(f"the web view could not listen on {address.host}:{address.port} (see its message above)")
    if announce:
        shown = f"{url} (log in with the token)" if token else url
        print(f"web: table view on {shown}", file=sys.stderr, flush=True)
    return url, stop


def serve_views(
    socket_path: str,
    address: WebAddress,
    token: str | None = None,
    hosts: Iterable[str] = (),
    cert: str | None = None,
    key: str | None = None,
    proxies: Iterable[str] = (),
    with_table: bool = False,
    ready: Callable[[str], None] | None = None,
    stopping: Wakeup | None = None,
) -> int:
    """``tablectl web serve``: the table's views on ``address``, reading the table at
    ``socket_path``; runs until ``stopping`` (set by a signal handler) is set or, ``with_table``,
    the table closes the socket. ``ready`` is called with the URL once listening."""
    from controller.web._remote import RemoteControls, RemoteTable
    from controller.web._table_app import table_app
    from controller.web.server import WebServer

    if with_table:
        os.nice(VIEWS_NICE)  # the table's own child yields the CPU to the table
    done = stopping if stopping is not None else Wakeup()  # set on a stop or the table's end
    table = RemoteTable(socket_path, once=with_table, on_end=done.set)
    try:
        while not table.ended.is_set():
            with contextlib.suppress(Exception):
                table.wait_hello(HELLO_CHECK_S)
                break
            if done.is_set():
                return 0
        if table.bench is None:
            print(
                f"tablectl web serve: --socket {socket_path}: the table closed it before saying hello", file=sys.stderr
            )
            return 1
        controls = RemoteControls(table) if table.bench else None
        server = WebServer(
            table_app(table, controls), address, token=token, hosts=hosts, cert=cert, key=key, proxies=proxies
        )
        url = server.start()
        if ready is not None:
            ready(url)
        try:
            done.wait()  # asleep until a stop or the table's end: nothing wakes to look
        finally:
            server.stop()
    finally:
        table.stop()
        if stopping is None:
            done.close()
    return 0
