"""The table's views in a process of their own (issue 44 item 1): the table offers its view and
controls on a unix socket, ``tablectl web serve`` serves browsers from it. The views' descriptors
held exhausted by many addresses leave the controller dealing and settling rounds, its own
descriptors untouched; the socket checks who connects and what it asks (bad input a 4xx)."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from deadlines import STATE_TIMEOUT_S

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

from web_helpers import WebClient, wait_for

from controller.web.server import FD_HEADROOM, MAX_WAITING

VIEWS_NOFILE = 256
"""The views' descriptor limit in the test: small, so that a few hundred connections use it up."""
VIEWS_WAITING = (VIEWS_NOFILE - FD_HEADROOM) // 4
"""The connections without a request head the views then take (controller.web.server.ClientBudget:
a quarter of their connections, which leave the process a headroom of descriptors so that an
accept never fails for want of one)."""


def _rounds(journal: Path) -> int:
    import sqlite3

    conn = sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=30)
    try:
        return int(conn.execute("SELECT count(*) FROM rounds").fetchone()[0])
    finally:
        conn.close()


def _fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@contextlib.contextmanager
def _process(cmd: list[str], err: Path, **kwargs: object) -> Iterator[subprocess.Popen[bytes]]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("TABLECTL_WEB_TOKEN", None)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err.open("w"), env=env, **kwargs)  # type: ignore[call-overload]
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait()


def _limit_nofile() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (VIEWS_NOFILE, VIEWS_NOFILE))


def _views_url(err: Path, proc: subprocess.Popen[bytes]) -> str:
    def started() -> str | None:
        if proc.poll() is not None:
            raise RuntimeError(f"exited {proc.returncode}: {err.read_text()}")
        for line in err.read_text().splitlines():
            if "web: table view on " in line:
                return line.split("web: table view on ")[1].split()[0]
        return None

    url: str = wait_for(started, "the views to listen")
    return url


def test_the_views_descriptors_exhausted_leave_the_controller_dealing(tmp_path: Path) -> None:
    sock, journal = tmp_path / "view.sock", tmp_path / "table.db"
    bench = [sys.executable, "-m", "controller", "bench", "--quiet", "--rounds", "1000000"]
    bench += ["--journal", str(journal), "--view-socket", str(sock)]
    views = [sys.executable, "-m", "controller", "web", "serve", "--socket", str(sock), "--web", "127.0.0.1:0"]
    with (
        _process(bench, tmp_path / "bench.err", cwd=tmp_path) as table,
        _process(views, tmp_path / "views.err", preexec_fn=_limit_nofile) as web,
    ):
        url = _views_url(tmp_path / "views.err", web)
        port = int(url.rstrip("/").rpartition(":")[2])
        wait_for(lambda: _rounds(journal) >= 1, "the table to settle a round")
        table_fds, web_fds = _fds(table.pid), _fds(web.pid)
        assert VIEWS_WAITING < MAX_WAITING
        held: list[socket.socket] = []
        try:
            # many addresses open and hold connections until the views take no more
            for n in range(VIEWS_NOFILE * 2):
                s = socket.socket()
                s.settimeout(STATE_TIMEOUT_S)
                s.bind((f"127.0.0.{2 + n % 8}", 0))
                try:
                    s.connect(("127.0.0.1", port))
                except OSError:
                    s.close()
                    continue
                held.append(s)
            # every place the views give to connections without a request is taken
            wait_for(lambda: _fds(web.pid) >= web_fds + VIEWS_WAITING, "the views' descriptors to be used up")
            before = _rounds(journal)
            wait_for(lambda: _rounds(journal) >= before + 2, "the table to deal and settle two more rounds")
            assert _fds(web.pid) >= web_fds + VIEWS_WAITING  # still held while the rounds were played
            assert table.poll() is None and web.poll() is None
            assert _fds(table.pid) <= table_fds + 2  # nothing the clients did took a descriptor of the table's
        finally:
            for s in held:
                s.close()
        # the views serve again once the clients have gone, and the table still feeds them
        client = wait_for(lambda: WebClient(port), "the views to take a client again")
        status, _, body = wait_for(lambda: (r := client.request("GET", "/state")) and r[0] == 200 and r, "the state")
        assert json.loads(body)["table"]["game"] == "mississippi_stud"


def _connected(path: Path, proc: subprocess.Popen[bytes]) -> socket.socket | None:
    """A connection to the table's socket at ``path``, or None while it does not listen yet: its
    file exists from its bind, a moment before it listens (the views' process connects again
    until it does, and so does a test)."""
    if proc.poll() is not None:
        raise RuntimeError(f"the table exited {proc.returncode}")
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(STATE_TIMEOUT_S)
    try:
        s.connect(str(path))
    except (FileNotFoundError, ConnectionRefusedError):
        s.close()
        return None
    return s


def test_the_table_socket_checks_what_it_is_asked(tmp_path: Path) -> None:
    sock, journal = tmp_path / "view.sock", tmp_path / "table.db"
    bench = [sys.executable, "-m", "controller", "bench", "--quiet", "--manual", "--rounds", "5"]
    bench += ["--journal", str(journal), "--view-socket", str(sock)]
    with _process(bench, tmp_path / "bench.err", cwd=tmp_path) as table:
        connected: socket.socket = wait_for(lambda: _connected(sock, table), "the table's socket to listen")
        with connected as s:
            stream = s.makefile("rb")
            hello = stream.readline()
            assert hello.startswith(b"hello ") and json.loads(hello[6:])["bench"] is True
            assert oct(sock.stat().st_mode & 0o777) == oct(0o660)

            def ask(line: bytes) -> dict[str, object]:
                s.sendall(line + b"\n")
                while True:
                    got = stream.readline()
                    if got.startswith(b"reply "):
                        reply: dict[str, object] = json.loads(got[6:])
                        return reply

            assert ask(b"not json")["status"] == 400
            assert ask(b'{"id": 1, "action": "press", "body": {"button": "nope"}}') == {
                "id": 1,
                "status": 400,
                "error": "/api/press: button: 'nope' is not a panel button (the key is turned, not pressed)",
            }
            assert ask(b'{"id": 2, "action": "shutdown", "body": {}}')["status"] == 404
            assert ask(b'{"id": 3, "action": "spot", "body": []}')["status"] == 400
            assert ask(b'{"id": 4, "action": "spot", "body": {"seat": 1, "spot": "ante", "cents": 500}}') == {
                "id": 4,
                "status": 200,
            }
            s.sendall(b"x" * (70 * 1024) + b"\n")  # over the line limit: the connection is closed
            while stream.readline():  # the table closes the connection (the socket's timeout bounds the wait)
                pass
