"""The web views' door over plain HTTP (a real uvicorn on loopback, in this process): the Host
allow-list, Origin, content type and CSRF on every change, the login, its limit and session
expiry on an injected clock, the body limit before reading, strict JSON, the bounded press queue,
the cap on event streams, the security headers and the header timeout. The browser side of the
same rules is in tests/test_web_browser_safety.py."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from deadlines import STATE_TIMEOUT_S

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

import web_helpers
from starlette.requests import ClientDisconnect
from table_helpers import ManualClock
from web_helpers import ServedApp, self_signed_cert

from controller.web._controls import BenchControls
from controller.web._guard import LoginLimiter, Sessions
from controller.web._table_app import table_app
from controller.web.server import WebAddress, WebServer, check_token, parse_address

TOKEN = "Qm9zdG9uNS10ZXN0LXRva2Vu"  # 24 URL-safe characters: 144 bits


class FakeFeed(web_helpers.FakeFeed):
    """The feed the table app reads: one fixed view, in betting."""

    def __init__(self) -> None:
        super().__init__(json.dumps({"round": 1, "step": "betting", "version": 1}))


class FakePanel:
    def __init__(self) -> None:
        self.pressed: list[str] = []

    def press(self, button: str) -> None:
        self.pressed.append(button)


class FakeSpots:
    def __init__(self) -> None:
        self.placed: list[tuple[int, str, int]] = []

    def place(self, seat: int, spot: str, cents: int) -> None:
        self.placed.append((seat, spot, cents))


class View(ServedApp):
    """A table app behind the guard, served by uvicorn on a free loopback port."""

    def __init__(self, token: str | None = None, max_streams: int = 250, max_waiting: int = 8) -> None:
        self.clock = ManualClock(1000.0)
        self.panel, self.spots = FakePanel(), FakeSpots()
        self.controls = BenchControls(
            {"panel": self.panel, "bet_spots": self.spots, "shoe": None},
            {},
            7,
            ("ante", "bonus"),
            joker=False,
            seed=1,
            round_no=lambda: 1,
            max_waiting=max_waiting,
            clock=self.clock,
        )
        self.sessions = Sessions(lifetime_s=3600.0, clock=self.clock)
        self.limiter = LoginLimiter(clock=self.clock)
        app = table_app(FakeFeed(), self.controls, max_streams=max_streams)
        super().__init__(
            WebServer(app, WebAddress("127.0.0.1", 0), token=token, sessions=self.sessions, limiter=self.limiter)
        )

    def session(self) -> tuple[str, str]:
        """(cookie, CSRF token) of a fresh page load (no token set)."""
        status, headers, body = self.request("GET", "/", headers={"accept": "text/html"})
        assert status == 200, body
        cookie = headers["set-cookie"].split(";")[0]
        csrf = re.search(rb'name="csrf-token" content="([^"]+)"', body)
        assert csrf is not None
        return cookie, csrf.group(1).decode()

    def login(self, token: str) -> tuple[int, dict[str, str]]:
        status, headers, _ = self.request(
            "POST",
            "/login",
            f"token={token}".encode(),
            {"origin": self.origin, "content-type": "application/x-www-form-urlencoded"},
        )
        return status, headers

    def post(
        self, action: str, body: bytes, cookie: str, csrf: str, extra: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        headers = {"origin": self.origin, "content-type": "application/json", "cookie": cookie, "x-csrf-token": csrf}
        headers.update(extra or {})
        status, _, data = self.request("POST", f"/api/{action}", body, headers)
        return status, data


@pytest.fixture
def view() -> Iterator[View]:
    with View() as v:
        yield v


PRESS = b'{"button": "no_more_bets"}'


def test_a_change_needs_the_pages_origin_json_and_its_csrf_token(view: View) -> None:
    cookie, csrf = view.session()
    assert view.post("press", PRESS, cookie, csrf) == (200, b'{"ok":true}')
    assert view.panel.pressed == ["no_more_bets"]
    other_port = f"http://127.0.0.1:{view.port + 1}"
    refused = [
        view.post("press", PRESS, cookie, csrf, {"origin": other_port}),  # another port, same site
        view.post("press", PRESS, cookie, csrf, {"origin": "http://evil.example"}),
        view.post("press", PRESS, cookie, csrf, {"origin": "null"}),
        view.post("press", PRESS, cookie, csrf, {"content-type": "text/plain"}),  # a plain form's type
        view.post("press", PRESS, cookie, csrf, {"content-type": "application/x-www-form-urlencoded"}),
        view.post("press", PRESS, cookie, "wrong"),
        view.post("press", PRESS, cookie, ""),
        view.post("press", PRESS, "tablectl_session_1=nope", csrf),
    ]
    assert [s for s, _ in refused] == [403, 403, 403, 415, 415, 403, 403, 403]
    status, _, _ = view.request("POST", "/api/press", PRESS, {"content-type": "application/json", "cookie": cookie})
    assert status == 403  # no Origin at all
    assert view.panel.pressed == ["no_more_bets"]  # nothing refused was pressed
    assert view.request("GET", "/api/press")[0] == 405  # GET never changes state


def test_a_foreign_host_is_refused_with_421(view: View) -> None:
    for path in ("/", "/state", "/events", "/static/table.js", "/login"):
        status, headers, body = view.request("GET", path, headers={"host": "evil.example"})
        assert status == 421, path
        assert headers["content-security-policy"]
    cookie, csrf = view.session()
    assert view.post("press", PRESS, cookie, csrf, {"host": f"evil.example:{view.port}"})[0] == 421
    for host in ("localhost", "127.0.0.1", f"127.0.0.1:{view.port}", f"localhost:{view.port}"):
        assert view.request("GET", "/state", headers={"host": host})[0] == 200, host
    assert view.panel.pressed == []


def test_every_answer_carries_the_security_headers(view: View) -> None:
    for path in ("/", "/state", "/static/table.js", "/nope"):
        _, headers, _ = view.request("GET", path)
        csp = headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
    assert view.request("GET", "/state")[1]["cache-control"] == "no-store"
    _, headers, body = view.request("GET", "/")
    assert b"<script>" not in body and b"<style>" not in body and b'src="/static/table.js"' in body
    assert "HttpOnly" in headers["set-cookie"] and "SameSite=Strict" in headers["set-cookie"]
    assert "Secure" not in headers["set-cookie"]  # plain HTTP; under TLS the cookie is Secure


def test_bodies_over_16_kb_are_refused_before_they_are_read(view: View) -> None:
    cookie, csrf = view.session()
    big = b'{"button": "no_more_bets", "pad": "' + b"x" * 17000 + b'"}'
    assert view.post("press", big, cookie, csrf)[0] == 413
    # a length of 100 MB and no body sent at all: the answer comes without waiting for it
    with socket.create_connection(("127.0.0.1", view.port), timeout=STATE_TIMEOUT_S) as s:
        s.sendall(
            (
                f"POST /api/press HTTP/1.1\r\nHost: 127.0.0.1:{view.port}\r\nOrigin: {view.origin}\r\n"
                f"Content-Type: application/json\r\nCookie: {cookie}\r\nX-CSRF-Token: {csrf}\r\n"
                "Content-Length: 100000000\r\n\r\n"
            ).encode()
        )
        assert s.recv(4096).startswith(b"HTTP/1.1 413")
    # chunked, no length: counted as it streams in
    with socket.create_connection(("127.0.0.1", view.port), timeout=STATE_TIMEOUT_S) as s:
        head = (
            f"POST /api/press HTTP/1.1\r\nHost: 127.0.0.1:{view.port}\r\nOrigin: {view.origin}\r\n"
            f"Content-Type: application/json\r\nCookie: {cookie}\r\nX-CSRF-Token: {csrf}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n"
        ).encode()
        chunk = b"1000\r\n" + b" " * 4096 + b"\r\n"
        s.sendall(head + chunk * 5)
        assert s.recv(4096).startswith(b"HTTP/1.1 413")
    assert view.panel.pressed == []


@pytest.mark.parametrize(
    "body",
    [
        b'{"button": ',
        b"\xff\xfe",
        b'{"button": "no_more_bets", "n": ' + b"9" * 5000 + b"}",
        b'{"button": "no_more_bets", "n": 1e99999}',
        b'{"button": "no_more_bets", "n": NaN}',
        b"[" * 5000 + b"]" * 5000,
        b'{"a": ' + b'{"a": ' * 2000 + b"1" + b"}" * 2001,
        b'["no_more_bets"]',
        b'"no_more_bets"',
        b"",
    ],
    ids=["cut", "not-utf8", "5000-digits", "huge-float", "nan", "deep-list", "deep-object", "list", "string", "empty"],
)
def test_malformed_deep_or_huge_json_gets_400(view: View, body: bytes) -> None:
    cookie, csrf = view.session()
    status, data = view.post("press", body, cookie, csrf)
    assert status == 400, data
    assert b"/api/press" in data
    assert view.panel.pressed == []


def test_a_full_press_queue_refuses_with_429_until_the_table_catches_up() -> None:
    v = View(max_waiting=3)
    try:
        cookie, csrf = v.session()
        assert [v.post("press", PRESS, cookie, csrf)[0] for _ in range(5)] == [200, 200, 200, 429, 429]
        status, data = v.post("press", PRESS, cookie, csrf)
        assert status == 429 and json.loads(data)["busy"] is True
        from drivers.panel import ButtonChanged

        v.controls.handled(
            ButtonChanged(device="panel", button="no_more_bets", pressed=True)
        )  # the controller handled one
        assert v.post("press", PRESS, cookie, csrf)[0] == 200
        assert v.post("press", PRESS, cookie, csrf)[0] == 429
        v.clock.now += 11  # presses never reported handled stop counting
        assert v.post("press", PRESS, cookie, csrf)[0] == 200
        assert len(v.panel.pressed) == 5
    finally:
        v.stop()


def test_event_streams_beyond_the_cap_get_503() -> None:
    v = View(max_streams=2)
    opened: list[http.client.HTTPConnection] = []
    try:
        for _ in range(2):
            conn = http.client.HTTPConnection("127.0.0.1", v.port, timeout=STATE_TIMEOUT_S)
            conn.request("GET", "/events")
            r = conn.getresponse()
            assert r.status == 200
            assert r.readline().startswith(b"event: view")
            opened.append(conn)
        assert v.request("GET", "/events")[0] == 503
        r = opened[0].sock
        assert r is not None
        r.shutdown(socket.SHUT_RDWR)
        opened[0].close()
        opened.pop(0)

        def room() -> bool:
            return v.request("GET", "/state")[0] == 200 and _stream_status(v.port) == 200

        from web_helpers import wait_for

        wait_for(room, "a stream slot to free up once a client left")
    finally:
        for conn in opened:
            conn.close()
        v.stop()


def _stream_status(port: int) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=STATE_TIMEOUT_S)
    try:
        conn.request("GET", "/events")
        return conn.getresponse().status
    finally:
        conn.close()


def test_the_stream_sends_a_heartbeat(view: View) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", view.port, timeout=STATE_TIMEOUT_S)
    try:
        conn.request("GET", "/events")
        r = conn.getresponse()
        lines = [r.readline() for _ in range(5)]
        assert lines[0].startswith(b"event: view")
        assert b"event: beat\n" in lines
    finally:
        conn.close()


def test_login_exchanges_the_token_for_a_session_and_is_limited() -> None:
    v = View(token=TOKEN)
    try:
        status, headers, _ = v.request("GET", "/", headers={"accept": "text/html"})
        assert status == 303 and headers["location"] == "/login"
        assert v.request("GET", "/state")[0] == 401
        assert v.request("GET", "/state", headers={"authorization": f"Bearer {TOKEN}"})[0] == 200  # a script reads
        status, _, page = v.request("GET", "/login")
        assert status == 200 and b'method="post"' in page
        status, headers = v.login(TOKEN)
        assert status == 303 and headers["location"] == "/"
        cookie = headers["set-cookie"]
        assert TOKEN not in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
        cookie = cookie.split(";")[0]
        status, _, body = v.request("GET", "/", headers={"cookie": cookie})
        assert status == 200
        csrf = re.search(rb'name="csrf-token" content="([^"]+)"', body)
        assert csrf is not None and TOKEN.encode() not in body
        assert v.post("press", PRESS, cookie, csrf.group(1).decode())[0] == 200
        # the session expires
        v.clock.now += 3601
        assert v.request("GET", "/state", headers={"cookie": cookie})[0] == 401
        # failed logins: a few a minute, then 429 for a wrong token until the minute has passed;
        # the right token is let in all the while
        assert [v.login("wrong-" + str(i))[0] for i in range(5)] == [401] * 5
        assert v.login("wrong-again")[0] == 429
        assert v.login(TOKEN)[0] == 303
        v.clock.now += 61
        assert v.login("wrong-later")[0] == 401
        assert v.login(TOKEN)[0] == 303
        # a login from another origin is refused (login CSRF)
        status, _, _ = v.request(
            "POST",
            "/login",
            f"token={TOKEN}".encode(),
            {"origin": "http://evil.example", "content-type": "application/x-www-form-urlencoded"},
        )
        assert status == 403
    finally:
        v.stop()


def test_failed_logins_are_logged_without_the_token(caplog: pytest.LogCaptureFixture) -> None:
    v = View(token=TOKEN)
    try:
        with caplog.at_level("WARNING", logger="tablectl.web"):
            v.login("a-guess-that-is-wrong")
        assert any("failed login from 127.0.0.1" in r.getMessage() for r in caplog.records)
        assert not any("a-guess-that-is-wrong" in r.getMessage() for r in caplog.records)
    finally:
        v.stop()


def test_a_slow_header_connection_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    from controller.web import server

    monkeypatch.setattr(server.HeaderTimeoutH11, "header_timeout_s", 0.5)
    v = View()
    try:
        with socket.create_connection(("127.0.0.1", v.port), timeout=STATE_TIMEOUT_S) as s:
            s.sendall(b"GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # and never the rest
            assert s.recv(100) == b""  # closed by the server (the socket's timeout would raise)
    finally:
        v.stop()


def test_tokens_under_128_bits_are_refused() -> None:
    for weak in ("s3cret-token-for-test", "deadbeefdeadbeefdeadbeefdeadbe", "short"):
        with pytest.raises(ValueError, match="128 bits"):
            check_token(weak)
    check_token(TOKEN)
    check_token("0123456789abcdef0123456789abcdef")  # 32 hex digits
    with pytest.raises(ValueError, match="128 bits"):
        parse_address("0.0.0.0:8080", "tooshort")


def test_a_new_token_never_starts_like_an_option(monkeypatch: pytest.MonkeyPatch) -> None:
    """A token starting with '-' is taken by argparse for an option (`--web-token -x...`: "expected
    one argument"), which one token in 64 did."""
    import secrets

    from controller.cli import _webtoken as webtoken

    drawn = iter(["-" + "a" * 21, "b" * 22])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: next(drawn))
    assert webtoken.new_token() == "b" * 22


def test_tablectl_web_token_makes_a_128_bit_token(tmp_path: Any) -> None:
    run = [sys.executable, "-m", "controller", "web", "token"]
    r = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0
    token = r.stdout.strip()
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", token)
    check_token(token)
    out = tmp_path / "web.token"
    r = subprocess.run([*run, "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and token not in r.stdout
    assert os.stat(out).st_mode & 0o777 == 0o600
    check_token(out.read_text().strip())
    r = subprocess.run([*run, "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "exists" in r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "controller", "bench", "--game", "boston5", "--web", "127.0.0.1:0"]
        + ["--web-token", "short", "--manual"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and "128 bits" in r.stderr and "Traceback" not in r.stderr


def test_under_tls_the_cookie_is_secure_and_the_origin_https(tmp_path: Any) -> None:
    import ssl

    cert, key = self_signed_cert(tmp_path)
    server = WebServer(table_app(FakeFeed()), WebAddress("127.0.0.1", 0), cert=str(cert), key=str(key))
    url = server.start()
    try:
        assert url.startswith("https://")
        context = ssl.create_default_context(cafile=str(cert))
        context.check_hostname = False
        conn = http.client.HTTPSConnection("127.0.0.1", server.port, timeout=STATE_TIMEOUT_S, context=context)
        conn.request("GET", "/", headers={"accept": "text/html"})
        r = conn.getresponse()
        r.read()
        assert r.status == 200
        cookie = r.getheader("set-cookie") or ""
        assert "Secure" in cookie and "HttpOnly" in cookie and cookie.startswith("__Host-tablectl_session_")
        assert "Domain" not in cookie and "Path=/" in cookie  # what the __Host- prefix requires
        assert r.getheader("strict-transport-security") == "max-age=31536000"
        conn.request(
            "POST",
            "/api/press",
            body=PRESS,
            headers={"origin": f"http://127.0.0.1:{server.port}", "content-type": "application/json"},
        )
        r = conn.getresponse()
        r.read()
        assert r.status == 403  # an http:// page is not this https:// view's own
        conn.close()
    finally:
        server.stop()


def test_a_stream_whose_client_left_before_it_began_frees_its_slot() -> None:
    """The client is gone before the stream's first byte (sending the response head fails): the
    stream's body never starts, and its slot must still be given back, or 250 such clients would
    leave a table's page without a live view for good."""
    app = table_app(FakeFeed(), None, max_streams=2)
    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"}, "http_version": "1.1", "method": "GET"}
    scope |= {"scheme": "http", "path": "/events", "raw_path": b"/events", "query_string": b"", "headers": []}
    scope |= {"server": ("127.0.0.1", 80), "client": ("127.0.0.1", 5000), "root_path": ""}

    async def receive() -> dict[str, Any]:
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def gone(message: dict[str, Any]) -> None:
        raise OSError("the client closed the connection")

    async def started(message: dict[str, Any]) -> None:
        starts.append(message)
        if message["type"] == "http.response.start":
            raise OSError("enough: the head says whether the stream was served")

    async def main() -> None:
        for _ in range(3):
            with contextlib.suppress(OSError, ClientDisconnect):
                await app(dict(scope), receive, gone)
        with contextlib.suppress(OSError, ClientDisconnect):
            await app(dict(scope), receive, started)

    starts: list[dict[str, Any]] = []
    asyncio.run(main())
    assert starts and starts[0]["status"] == 200, starts


def test_wrong_bearer_tokens_are_failed_logins_limited_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    """A script's ``Authorization: Bearer`` is a way in like the login form: a wrong token there
    counts, is logged (never the guess) and is limited as a failed login (429), so guessing is no
    faster through the header than through the form; the right token still reads all the while,
    and the form's limit and the header's are one."""
    v = View(token=TOKEN)
    try:
        with caplog.at_level("WARNING", logger="tablectl.web"):
            statuses = [v.request("GET", "/state", headers={"authorization": f"Bearer guess-{i}"})[0] for i in range(5)]
            assert statuses == [401] * 5
            assert v.request("GET", "/state", headers={"authorization": "Bearer guess-again"})[0] == 429
            assert v.login("wrong-by-the-form")[0] == 429  # one limit for both ways in
        assert any("failed login from 127.0.0.1" in r.getMessage() for r in caplog.records)
        assert not any("guess-" in r.getMessage() for r in caplog.records)
        # at the same time the right token still reads, through the header and the form
        assert v.request("GET", "/state", headers={"authorization": f"Bearer {TOKEN}"})[0] == 200
        assert v.login(TOKEN)[0] == 303
        v.clock.now += 61
        assert v.request("GET", "/state", headers={"authorization": "Bearer guess-later"})[0] == 401
    finally:
        v.stop()
