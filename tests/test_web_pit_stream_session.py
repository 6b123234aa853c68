"""The pit overview's event stream ends with its session, as the table view's does (docs/web.md:
"an open event stream ends with its session"): after a logout, or once the session has
expired, an open stream sends nothing more of the floor. Over raw HTTP on loopback, with a
token, a pit app on an empty floor (no PostgreSQL needed) and an injected clock."""

from __future__ import annotations

import http.client
import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from deadlines import STATE_TIMEOUT_S

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

from table_helpers import ManualClock
from test_web_guard import TOKEN
from web_helpers import ServedApp

from controller.web._guard import LoginLimiter, Sessions
from controller.web.pit_app import pit_app
from controller.web.pit_store import RoundHold, RoundLine, TableState
from controller.web.server import WebAddress, WebServer


class EmptyFloor:
    """A floor store no table has reported to."""

    def hold_series(self, table_id: str, limit: int = 500) -> list[RoundHold]:
        return []

    def tables(self, since: datetime, now: datetime) -> list[TableState]:
        return []

    def rounds(self, table_id: str, limit: int = 20) -> list[RoundLine]:
        return []

    def recall(self, table_id: str, round_no: int) -> dict[str, Any] | None:
        return None

    def rounds_at(self, table_id: str, at: datetime) -> tuple[list[RoundLine], int | None]:
        return [], None

    def has_table(self, table_id: str) -> bool:
        return False


class Pit(ServedApp):
    def __init__(self) -> None:
        self.clock = ManualClock(1000.0)
        self.sessions = Sessions(lifetime_s=3600.0, clock=self.clock)
        app = pit_app(EmptyFloor(), refresh_s=0.05)
        super().__init__(
            WebServer(
                app,
                WebAddress("127.0.0.1", 0),
                token=TOKEN,
                sessions=self.sessions,
                limiter=LoginLimiter(clock=self.clock),
            )
        )

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=STATE_TIMEOUT_S)

    def login(self) -> tuple[str, str]:
        """(cookie, the session's secret from its first page)."""
        conn = self.connect()
        try:
            conn.request(
                "POST",
                "/login",
                f"token={TOKEN}",
                {"origin": self.origin, "content-type": "application/x-www-form-urlencoded"},
            )
            r = conn.getresponse()
            r.read()
            assert r.status == 303
            cookie = (r.getheader("set-cookie") or "").split(";")[0]
            conn.request("GET", "/", headers={"cookie": cookie, "accept": "text/html"})
            r = conn.getresponse()
            page = r.read()
            assert r.status == 200
            secret = re.search(rb'name="csrf-token" content="([^"]+)"', page)
            assert secret is not None and secret.group(1)
            return cookie, secret.group(1).decode()
        finally:
            conn.close()


@pytest.fixture
def pit() -> Iterator[Pit]:
    with Pit() as p:
        yield p


def read_until_end(response: http.client.HTTPResponse, limit: int = 8_000) -> int:
    """Read the stream until the server ends it; the bytes read (fails past ``limit``)."""
    n = 0
    while n < limit:
        chunk = response.read1(4096)
        if not chunk:
            return n
        n += len(chunk)
    raise AssertionError(f"the stream went on past {limit} bytes after its session ended")


@pytest.mark.parametrize("ending", ["logout", "expiry"])
def test_the_overview_stream_ends_with_its_session(pit: Pit, ending: str) -> None:
    cookie, secret = pit.login()
    other_cookie, _ = pit.login()  # a second supervisor's session, at the same time
    streams = []
    for c in (cookie, other_cookie):
        conn = pit.connect()
        conn.request("GET", "/events", headers={"cookie": c, "accept": "text/event-stream"})
        r = conn.getresponse()
        assert r.status == 200
        assert r.read1(4096)  # the overview (or a beat) comes
        streams.append((conn, r))
    try:
        if ending == "logout":
            conn = pit.connect()
            conn.request(
                "POST",
                "/logout",
                b"{}",
                {"cookie": cookie, "origin": pit.origin, "content-type": "application/json", "x-csrf-token": secret},
            )
            assert conn.getresponse().status == 303
            conn.close()
        else:
            pit.clock.now += 3601
        # the ended session's stream ends
        read_until_end(streams[0][1])
        if ending == "logout":  # the other supervisor's goes on
            assert streams[1][1].read1(4096)
    finally:
        for conn, _ in streams:
            conn.close()
