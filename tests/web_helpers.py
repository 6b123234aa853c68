"""Helpers of the browser tests: the OS Chromium driven by Selenium, a `tablectl bench --web`
process on a free loopback port, the raw event stream recorded, and the page's own controls."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_tablectl
from deadlines import STATE_TIMEOUT_S

ROOT = Path(__file__).resolve().parent.parent
SCREENS = (
    ROOT / "docs" / "screens"
    if os.environ.get("TABLECTL_UPDATE_SCREENSHOTS")
    else Path(tempfile.gettempdir()) / "tablectl-screens"
)
"""Where the browser tests save their screenshots: docs/screens (shown in the README) only when
TABLECTL_UPDATE_SCREENSHOTS is set, so an ordinary test run leaves the tree as it was."""
TIMEOUT = STATE_TIMEOUT_S
CARD = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][cdhs]|JK)(?![A-Za-z0-9])")
SUIT_SYMBOL = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}


def _find(*names: str) -> str | None:
    for name in names:
        path = shutil.which(name) or (f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}") else None)
        if path:
            return path
    return None


CHROMIUM = _find("chromium", "chromium-browser", "google-chrome")
CHROMEDRIVER = _find("chromedriver")


def need_browser() -> None:
    """Skip, saying why, without Selenium, Chromium or its driver."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        pytest.skip("browser tests need selenium: pip install -e '.[test]'")
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip(
            "browser tests need Chromium and its driver from the OS packages "
            "(apt-get install -y chromium chromium-driver, as .ci/run does): "
            f"chromium {'found' if CHROMIUM else 'missing'}, chromedriver {'found' if CHROMEDRIVER else 'missing'}"
        )


@contextmanager
def browser(width: int = 1560, height: int = 1040, extra: tuple[str, ...] = ()) -> Iterator[Any]:
    """A headless Chromium (no sandbox: CI runs as root); nothing is downloaded. Its console is
    kept (``driver.get_log("browser")``); ``extra``: more Chromium switches."""
    need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM  # type: ignore[assignment]
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        f"--window-size={width},{height}",
        "--force-device-scale-factor=1",
        "--hide-scrollbars",
        *extra,
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(TIMEOUT)
    try:
        yield driver
    finally:
        driver.quit()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(cond: Callable[[], Any], what: str, timeout: float = TIMEOUT) -> Any:
    """Wait until ``cond()`` is truthy (a state, never a fixed sleep)."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = cond()
            if value:
                return value
        except Exception as exc:
            last = exc
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}" + (f" (last error: {last})" if last else ""))


class BenchProcess:
    """`tablectl bench --web 127.0.0.1:PORT --manual` in a child process."""

    def __init__(
        self,
        tmp: Path,
        game: str,
        token: str | None = None,
        extra: tuple[str, ...] = (),
        journal: Path | None = None,
    ) -> None:
        self.journal = journal or tmp / f"{game}.db"
        self.err = tmp / f"bench-{game}.err"
        cmd = [sys.executable, "-m", "controller", "bench", "--game", game, "--quiet", "--manual"]
        # port 0: the bench binds a free port itself and names it (a port picked here first could be
        # taken by another test's server before the bench binds it: "address already in use")
        cmd += ["--web", "127.0.0.1:0", "--journal", str(self.journal), "--rounds", "100", *extra]
        if token:
            cmd += ["--web-token", token]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.pop("TABLECTL_WEB_TOKEN", None)
        self.proc = subprocess.Popen(
            cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=self.err.open("w"), env=env, start_new_session=True
        )
        try:
            self.url = wait_for(self._started, "the bench's web view to listen")
        except BaseException:
            self.kill()
            raise
        self.port = int(self.url.rstrip("/").rpartition(":")[2])

    def kill(self) -> None:
        """Stop the bench and everything it started at once (a test that failed leaves nothing running)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.communicate()

    def _started(self) -> str | None:
        if self.proc.poll() is not None:
            raise RuntimeError(f"bench exited {self.proc.returncode}: {self.err.read_text()}")
        m = re.search(r"web: table view on (http://\S+?/)", self.err.read_text())
        return m.group(1) if m else None

    def get(
        self, path: str, headers: dict[str, str] | None = None, method: str = "GET", body: bytes | None = None
    ) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            return r.status, r.read()
        finally:
            conn.close()

    def stop(self) -> str:
        """Ctrl-C: the bench stops between events and prints its summary."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        elif self.proc.stdout is None or self.proc.stdout.closed:
            return ""
        try:
            out, _ = self.proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        return out.decode()


class FakeFeed:
    """The view feed a table app reads (``controller.web._feed.TableFeed``'s face): one view,
    ``text`` at ``version``, until the test publishes another, waking every subscriber as the feed does."""

    def __init__(self, text: str = "{}") -> None:
        self.version, self.text = 1, text
        self.subscribers: list[asyncio.Event] = []

    def current(self) -> tuple[int, str]:
        return self.version, self.text

    def subscribe(self) -> asyncio.Event:
        event = asyncio.Event()
        self.subscribers.append(event)
        return event

    def unsubscribe(self, event: asyncio.Event) -> None:
        self.subscribers.remove(event)

    def publish(self) -> None:
        """A new version of the view (its text unchanged), each subscriber woken."""
        self.version += 1
        for event in self.subscribers:
            event.set()


def stream_until(s: socket.socket, path: str, cookie: str, marker: bytes) -> bytes:
    """Open the live stream ``path`` on connected socket ``s`` with the session ``cookie`` and read
    until ``marker`` (``b"event: view"``) has come: every byte read (fails if the server ends it first)."""
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\n\r\n".encode())
    got = b""
    while marker not in got:
        chunk = s.recv(65536)
        assert chunk, got
        got += chunk
    return got


class ServedApp:
    """A web app a test serves (a ``controller.web.server.WebServer``, started here on a free loopback
    port): its port and Origin, one HTTP request at a time, and its stop (also as a context manager)."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.url: str = server.start()
        self.port: int = server.port
        self.origin = f"http://127.0.0.1:{self.port}"

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        source: str | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        """One request, from address ``source`` if given: (status, headers by lower-case name, body)."""
        address = None if source is None else (source, 0)
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT, source_address=address)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        finally:
            conn.close()

    def stop(self) -> None:
        """Stop serving."""
        self.server.stop()

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class WebClient:
    """A view's client as its own page is: a session (logging in with ``token`` when one is set),
    its Origin, JSON bodies and the page's CSRF token on every change."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.port = port
        self.origin = f"http://127.0.0.1:{port}"
        self.cookie = ""
        if token is not None:
            status, headers, _ = self.request(
                "POST",
                "/login",
                f"token={token}".encode(),
                {"origin": self.origin, "content-type": "application/x-www-form-urlencoded"},
            )
            assert status == 303, status
            self.cookie = headers["set-cookie"].split(";")[0]
        status, headers, body = self.request("GET", "/", headers={"accept": "text/html"})
        assert status == 200, status
        if "set-cookie" in headers:
            self.cookie = headers["set-cookie"].split(";")[0]
        m = re.search(rb'name="csrf-token" content="([^"]+)"', body)
        assert m is not None, "no CSRF token on the page"
        self.csrf = m.group(1).decode()

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        try:
            sent = {"cookie": self.cookie} if self.cookie else {}
            conn.request(method, path, body=body, headers={**sent, **(headers or {})})
            r = conn.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        finally:
            conn.close()

    def post(self, action: str, body: dict[str, Any]) -> tuple[int, bytes]:
        """POST ``body`` to ``/api/ACTION`` as the page would."""
        headers = {"origin": self.origin, "content-type": "application/json", "x-csrf-token": self.csrf}
        status, _, data = self.request("POST", f"/api/{action}", json.dumps(body).encode(), headers)
        return status, data


def journal_count(journal: Path, *kinds: str) -> int:
    """Records of ``kinds`` in a journal (read while the table runs: WAL lets a reader in)."""
    import sqlite3

    from controller.journal.stored import read_records

    conn = sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=30)
    try:  # rows and folded rounds alike
        return sum(1 for _ in read_records(conn, kinds=kinds, checked=False))
    finally:
        conn.close()


class StreamRecorder:
    """Reads the raw ``/events`` stream on its own connection and keeps every byte."""

    def __init__(self, port: int, path: str = "/events") -> None:
        self.raw = bytearray()
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        self.conn.request("GET", path)
        self.response = self.conn.getresponse()
        assert self.response.status == 200, self.response.status
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            while True:
                chunk = self.response.read1(65536)
                if not chunk:
                    return
                self.raw += chunk
        except Exception:
            return

    def views(self) -> list[dict[str, Any]]:
        """The ``view`` events so far (not the heartbeats)."""
        text = bytes(self.raw).decode()
        return [json.loads(m) for m in re.findall(r"^event: view\nid: \d+\ndata: (.*)$", text, flags=re.M)]

    def close(self) -> None:
        sock = self.conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.conn.close()


class Page:
    """The table page, used only through its own controls."""

    def __init__(self, driver: Any, url: str) -> None:
        from selenium.webdriver.common.by import By

        self.d, self.By = driver, By
        driver.get(url)
        wait_for(lambda: self.body("version") not in (None, "", "0"), "the first view on the page")

    def wait_betting(self) -> None:
        """Wait until the table takes bets: betting open and every device link up (the view is
        served before the table starts, and chips placed before betting opens are late bets)."""
        wait_for(
            lambda: self.view()["step"] == "betting" and all(v == "up" for v in self.view()["links"].values()),
            "betting open with every device link up",
        )

    def body(self, key: str) -> str | None:
        return self.d.execute_script(f"return document.body.dataset[{json.dumps(key)}]")

    def view(self) -> dict[str, Any]:
        return dict(self.d.execute_script("return view"))

    def step(self) -> str:
        return str(self.body("step"))

    def settled(self) -> None:
        """Wait until every click so far has been answered."""
        wait_for(lambda: self.body("pending") in (None, "0"), "the page's requests to finish")

    def posts(self) -> int:
        """The requests the page has made since it opened."""
        return int(self.body("posts") or 0)

    def _posting(self, action: Callable[[], None], what: str) -> None:
        """Do ``action`` (clicks that end in one request) until the page makes its request. A page
        that misses its heartbeats for a moment (a loaded machine) calls itself not live: it
        disables its controls and closes the spot dialog, and a click then does nothing."""
        from selenium.common.exceptions import WebDriverException

        for _ in range(20):
            wait_for(lambda: self.body("live") == "yes", "the page to be live")
            before = self.posts()
            try:
                action()
            except WebDriverException:
                pass  # the control was disabled or its dialog closed under the click
            if self.posts() > before:
                return
            self.d.execute_script("const d = document.getElementById('spot-dialog'); if (d.open) d.close();")
        raise AssertionError(f"{what}: the page never made its request")

    def click(self, css: str) -> None:
        """Click a control that makes one request (a button, the key, a fault)."""
        self._posting(lambda: self.d.find_element(self.By.CSS_SELECTOR, css).click(), f"click {css}")

    def place(self, seat: int, spot: str, cents: int) -> None:
        def through_the_dialog() -> None:
            self.d.find_element(self.By.CSS_SELECTOR, f"#spot-{seat}-{spot}").click()
            amount = self.d.find_element(self.By.ID, "spot-amount")
            amount.clear()
            amount.send_keys(f"{cents / 100:.2f}")
            self.d.find_element(self.By.CSS_SELECTOR, "#spot-take" if cents == 0 else "#spot-place").click()

        self._posting(through_the_dialog, f"seat {seat} {spot} {cents}")
        self.settled()

    def bets(self, *wagers: tuple[int, str, int]) -> None:
        """Place each (seat, spot, cents) through the page, then wait until the page shows them all."""
        for wager in wagers:
            self.place(*wager)
        for wager in reversed(wagers):
            self.wait_wager(*wager)

    def wait_wager(self, seat: int, spot: str, cents: int) -> None:
        wait_for(
            lambda: self.view()["seats"][seat - 1]["wagers"].get(spot, 0) == cents,
            f"seat {seat} {spot} {cents} on the page",
        )

    def press(self, button: str) -> None:
        self.click(f"#btn-{button}")
        self.settled()

    def no_more_bets(self) -> None:
        """Press "no more bets" and wait until the page shows that step."""
        self.press("no_more_bets")
        self.wait_step("no_more_bets")

    def deal(self, count: int) -> None:
        for _ in range(count // 7):
            self.click("#deal-7")
        for _ in range(count % 7):
            self.click("#deal-1")
        self.settled()

    def wait_step(self, *steps: str) -> str:
        try:
            return str(wait_for(lambda: self.step() in steps and self.step(), f"the page to show step {steps}"))
        except AssertionError as exc:
            view = self.view()
            raise AssertionError(f"{exc}; the page shows {view['step']}, screen {view['screen']}") from None

    def ack(self) -> None:
        """Confirm what the dealer's screen asks to be confirmed (a notice, such as the wager a
        fold leaves to collect), if it asks."""
        for _ in range(10):
            screen = self.view()["screen"]
            if "(confirm)" not in " ".join(screen):
                return
            self.press("confirm")
            wait_for(lambda screen=screen: self.view()["screen"] != screen, "the notice to be confirmed")

    def confirm_until(self, *steps: str) -> None:
        """Press confirm, one settlement line at a time, until the step is one of ``steps``."""
        for _ in range(60):
            if self.step() in steps:
                return
            before = self.view()["screen"]
            self.press("confirm")
            wait_for(
                lambda before=before: self.step() in steps or self.view()["screen"] != before,
                "the dealer's screen to move on",
            )
        raise AssertionError(f"still in {self.step()} after 60 confirms")

    def key(self, on: bool) -> None:
        if self.view()["supervisor"] != on:
            self.click("#key")
            self.settled()
        wait_for(lambda: self.view()["supervisor"] == on, f"the key {'on' if on else 'off'}")

    def screenshot(self, name: str) -> Path:
        SCREENS.mkdir(parents=True, exist_ok=True)
        path = SCREENS / name
        self.d.save_screenshot(str(path))
        return path


def shown_cards(views: list[dict[str, Any]]) -> set[str]:
    """Every card token in ``views`` (anywhere in their JSON)."""
    return {m for v in views for m in CARD.findall(json.dumps(v))}


def html_cards(html: str) -> set[str]:
    """Card tokens in a page's HTML, as text or as the rank and suit symbol the page draws."""
    html = re.sub(r"<(script|style)\b.*?</\1>", "", html, flags=re.S)  # the page's own code, not data
    found = set(CARD.findall(html))
    for m in re.finditer(r'class="r">(10|[2-9JQKA])</span><span class="s">([\u2660-\u2666])', html):
        rank = "T" if m.group(1) == "10" else m.group(1)
        suit = next(k for k, v in SUIT_SYMBOL.items() if v == m.group(2))
        found.add(rank + suit)
    if "pc joker" in html:
        found.add("JK")
    return found


def round_data(journal: Path, number: int) -> dict[str, Any]:
    """The journal's record of finished round ``number`` (record, settlement, cards in dealt order)."""
    from controller.journal import SqliteJournal

    j = SqliteJournal(journal)
    try:
        for n, seq in j.round_seqs():
            if n == number:
                return dict(j.record(seq).data)
    finally:
        j.close()
    raise AssertionError(f"round {number} is not in {journal}")


def tablectl(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_tablectl(*args, stdin=stdin, timeout=TIMEOUT)


def self_signed_cert(folder: Path) -> tuple[Path, Path]:
    """A certificate for localhost, good for a day, and its key, made with the openssl command in
    ``folder`` (the test is skipped where there is no openssl)."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a test certificate")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost"]
        + ["-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return cert, key


def socket_from(address: str, timeout: float) -> socket.socket:
    """A TCP socket bound to ``address`` (a loopback address of its own: one client, an attacker),
    each call on it given up after ``timeout`` seconds; not connected yet."""
    s = socket.socket()
    s.settimeout(timeout)
    s.bind((address, 0))
    return s


def can_bind(address: str) -> bool:
    """A socket can be bound to ``address`` on this host (127.0.0.2 and up are not everywhere)."""
    with socket.socket() as s:
        try:
            s.bind((address, 0))
        except OSError:
            return False
    return True


class PageServer:
    """A second local web server, on a port of its own (``port``), serving one HTML page at every path."""

    def __init__(self, body: bytes) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/html")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def open_table_row(**changes: Any) -> Any:
    """A pit row (``controller.web.pit_store.TableState``) of a table open for bets now, no hold and no
    fault today: pai gow table ``t1`` at round 7, 5 rounds today, 100.00 wagered and 9.00 won, no void;
    with ``changes`` (any of its fields)."""
    from datetime import UTC, datetime

    from controller.web.pit_store import TableState

    fields: dict[str, Any] = {
        "table_id": "t1",
        "game": "pai_gow",
        "last_at": datetime.now(UTC),
        "last_round": 7,
        "in_play": False,
        "activity": "open for bets",
        "hold": None,
        "faults_today": [],
        "rounds_today": 5,
        "handle_today": 10000,
        "win_today": 900,
        "voids_today": 0,
    }
    return TableState(**{**fields, **changes})


class TablesOnly:
    """A pit reader (``controller.web.pit_app``'s) of the tables in ``tables_now``, which the test may
    change while a page is open; no table has rounds, recalled rounds or a hold series."""

    def __init__(self, tables: list[Any]) -> None:
        self.tables_now = tables

    def tables(self, since: Any, now: Any) -> list[Any]:
        return list(self.tables_now)

    def rounds(self, table_id: str, limit: int = 20) -> list[Any]:
        return []

    def recall(self, table_id: str, round_no: int) -> dict[str, Any] | None:
        return None

    def hold_series(self, table_id: str, limit: int = 500) -> list[Any]:
        return []
