"""Fair shares that hold against many addresses (issue 44 item 2), over raw sockets on loopback:
fifty attacking addresses (127.0.0.10-59; Linux routes all of 127/8 to loopback) hold slow request
heads, TLS handshakes that never start and event streams, and the operator (127.0.0.2) is served
at every probe. The global limits are shared fairly (controller.web.server.ClientBudget,
controller.web._streams.StreamSlots); a reserve is kept for requests with a session."""

from __future__ import annotations

import contextlib
import http.client
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

from test_web_guard import TOKEN, FakeFeed
from web_helpers import can_bind, self_signed_cert, socket_from, stream_until, wait_for

from controller.web._table_app import table_app
from controller.web.server import ClientBudget, WebAddress, WebServer

ATTACKERS = [f"127.0.0.{n}" for n in range(10, 60)]
OPERATOR = "127.0.0.2"
TOTAL, WAITING, RESERVE = 1000, 256, 64
"""The shipped limits (MAX_CONNECTIONS, MAX_WAITING, MAX_RESERVE)."""
PROBES = 10

pytestmark = pytest.mark.skipif(not can_bind(ATTACKERS[-1]), reason="127.0.0.59 is not usable on this host")


def _connect(source: str, port: int) -> socket.socket | None:
    s = socket_from(source, 30)
    try:
        s.connect(("127.0.0.1", port))
    except OSError:
        s.close()
        return None
    return s


def _send(s: socket.socket | None, data: bytes) -> None:
    if s is not None:
        with contextlib.suppress(OSError):
            s.sendall(data)


@pytest.fixture
def cert(tmp_path: Path) -> tuple[str, str]:
    cert, key = self_signed_cert(tmp_path)
    return str(cert), str(key)


@contextlib.contextmanager
def _server(token: str | None, cert: tuple[str, str] | None = None) -> Iterator[WebServer]:
    budget = ClientBudget(total=TOTAL, waiting=WAITING, reserve=RESERVE)
    web = WebServer(
        table_app(FakeFeed()),
        WebAddress("127.0.0.1", 0),
        token=token,
        cert=cert[0] if cert else None,
        key=cert[1] if cert else None,
        budget=budget,
        max_connections=TOTAL,
    )
    web.start()
    try:
        yield web
    finally:
        web.stop()


def test_fifty_addresses_of_held_handshakes_and_slow_heads_leave_the_operator_served(cert: tuple[str, str]) -> None:
    context = ssl.create_default_context(cafile=cert[0])
    context.check_hostname = False
    with _server(TOKEN, cert) as web, contextlib.ExitStack() as stack:
        port = web.port

        def operator(path: str, cookie: str = "", body: bytes | None = None) -> http.client.HTTPResponse:
            conn = http.client.HTTPSConnection(
                "127.0.0.1", port, timeout=60, context=context, source_address=(OPERATOR, 0)
            )
            stack.callback(conn.close)
            headers = {"cookie": cookie} if cookie else {}
            if body is not None:
                headers |= {"origin": f"https://127.0.0.1:{port}", "content-type": "application/x-www-form-urlencoded"}
            conn.request("POST" if body is not None else "GET", path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            return response

        login = operator("/login", body=f"token={TOKEN}".encode())
        assert login.status == 303
        cookie = str(login.getheader("set-cookie")).split(";")[0]
        # fifty addresses: each holds handshakes that never start and TLS connections with a slow head
        for source in ATTACKERS:
            for _ in range(12):
                s = _connect(source, port)
                if s is not None:
                    stack.enter_context(s)
            for _ in range(2):
                raw = _connect(source, port)
                if raw is None:
                    continue
                with contextlib.suppress(OSError):
                    tls = stack.enter_context(context.wrap_socket(raw, server_hostname="localhost"))
                    _send(tls, b"GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        wait_for(
            lambda: web.budget.counts()["waiting"] >= WAITING - len(ATTACKERS), "the flood to fill the waiting share"
        )
        # the operator is served at every probe, each on a new connection (as a browser's)
        statuses = [operator("/state", cookie).status for _ in range(PROBES)]
        assert statuses == [200] * PROBES
        counts = web.budget.counts()
        assert counts["waiting"] <= WAITING and counts["open"] <= TOTAL


def test_fifty_addresses_of_slow_heads_and_event_streams_leave_the_operators_live_page() -> None:
    with _server(None) as web, contextlib.ExitStack() as stack:
        port = web.port
        cookie_name = f"tablectl_session_{port}"

        def page_from(source: str) -> str:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(source, 0))
            try:
                conn.request("GET", "/", headers={"accept": "text/html"})
                response = conn.getresponse()
                response.read()
                assert response.status == 200, response.status
                return str(response.getheader("set-cookie")).split(";")[0]
            finally:
                conn.close()

        for source in ATTACKERS:
            cookie = page_from(source)
            for _ in range(8):  # its share of event streams, never read
                _send(
                    stack.enter_context(contextlib.closing(_connect(source, port) or socket.socket())),
                    f"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\n\r\n".encode(),
                )
            for _ in range(10):  # and slow heads
                _send(
                    stack.enter_context(contextlib.closing(_connect(source, port) or socket.socket())),
                    b"GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ",
                )
        wait_for(
            lambda: web.budget.counts()["waiting"] >= WAITING - len(ATTACKERS), "the flood to fill the waiting share"
        )
        # the operator's page loads, its live stream opens and sends the view, at every probe
        cookie = page_from(OPERATOR)
        assert cookie.startswith(cookie_name)
        for _ in range(PROBES):
            s = _connect(OPERATOR, port)
            assert s is not None
            with s:
                got = stream_until(s, "/events", cookie, b"event: view")
                assert got.startswith(b"HTTP/1.1 200"), got[:200]


def test_stream_slots_are_shared_fairly_and_capped_per_address() -> None:
    from controller.web._streams import StreamSlots

    slots = StreamSlots(capacity=6, per_client=4)
    a = [slots.take("a") for _ in range(5)]
    assert all(s is not None for s in a[:4]) and a[4] is None  # its share, no more
    b = [slots.take("b") for _ in range(3)]
    # full at 6: "b" took "a"'s oldest while it held fewer, and stops at an equal share
    assert [s is not None for s in b] == [True, True, True]
    assert a[0] is not None and a[0].ended and slots.held("a") == 3 and slots.held("b") == 3
    assert slots.take("b") is None and slots.take("a") is None  # no one takes from an equal
    c = slots.take("c")
    assert c is not None and len(slots) == 6
    for s in [*a, *b, c]:
        if s is not None:
            slots.give_back(s)
            slots.give_back(s)  # idempotent
    assert len(slots) == 0


def test_with_a_token_the_live_stream_needs_a_session_not_the_header() -> None:
    with _server(TOKEN) as web:
        conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=60)
        try:
            conn.request("GET", "/events", headers={"authorization": f"Bearer {TOKEN}"})
            response = conn.getresponse()
            assert response.status == 403 and b"needs a session" in response.read()
            conn.request("GET", "/state", headers={"authorization": f"Bearer {TOKEN}"})
            response = conn.getresponse()
            assert response.status == 200  # a script still reads with the token
            response.read()
        finally:
            conn.close()


def test_warnings_are_counted_not_a_line_each(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from controller.web._guard import QuietLog

    now = [0.0]
    quiet = QuietLog(logging.getLogger("tablectl.web"), interval_s=10.0, clock=lambda: now[0])
    with caplog.at_level("WARNING", logger="tablectl.web"):
        assert quiet.warning("refused", "web: refused %s", "a")
        assert not any(quiet.warning("refused", "web: refused %s", n) for n in range(1000))
        assert quiet.warning("other", "web: another kind")  # each kind its own
        now[0] = 10.0
        assert quiet.warning("refused", "web: refused %s", "b")
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "web: refused a",
        "web: another kind",
        "web: refused b (and 1000 more like it in the last 10 s)",
    ]
