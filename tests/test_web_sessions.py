"""Sessions no one else can end or use, cookies bound to this view, a login limit that never locks
out the right token, and forwarded headers believed only from a named proxy (issue #34, items
2-4), over plain HTTP against a real uvicorn on loopback. The attacker is a second address
(127.0.0.2) or a server on another port holding the cookie; the clock is injected."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

from table_helpers import ManualClock
from test_web_guard import PRESS, TOKEN, FakeFeed, FakePanel, FakeSpots
from web_helpers import ServedApp, can_bind

from controller.web._guard import LoginLimiter, Sessions
from controller.web._table_app import table_app
from controller.web.server import WebAddress, WebServer

OTHER = "127.0.0.2"
needs_other = pytest.mark.skipif(not can_bind(OTHER), reason="127.0.0.2 is not usable on this host")


class Site(ServedApp):
    """A bench table's view behind the guard with small, injectable limits."""

    def __init__(
        self, token: str | None = None, capacity: int = 10_000, opens: int = 20, proxies: tuple[str, ...] = ()
    ) -> None:
        from controller.web._controls import BenchControls

        self.clock = ManualClock(1000.0)
        self.panel = FakePanel()
        controls = BenchControls(
            {"panel": self.panel, "bet_spots": FakeSpots(), "shoe": None},
            {},
            7,
            ("ante", "bonus"),
            joker=False,
            seed=1,
            round_no=lambda: 1,
            clock=self.clock,
        )
        self.sessions = Sessions(lifetime_s=3600.0, clock=self.clock, capacity=capacity, opens_per_minute=opens)
        self.limiter = LoginLimiter(clock=self.clock)
        super().__init__(
            WebServer(
                table_app(FakeFeed(), controls),
                WebAddress("127.0.0.1", 0),
                token=token,
                sessions=self.sessions,
                limiter=self.limiter,
                proxies=proxies,
            )
        )

    def page(self, cookie: str = "", source: str = "127.0.0.1") -> tuple[int, str, str]:
        """(status, cookie, secret on the page) of a page load."""
        headers = {"accept": "text/html", **({"cookie": cookie} if cookie else {})}
        status, answer, body = self.request("GET", "/", headers=headers, source=source)
        cookie = answer["set-cookie"].split(";")[0] if "set-cookie" in answer else cookie
        m = re.search(rb'name="csrf-token" content="([^"]*)"', body)
        return status, cookie, m.group(1).decode() if m else ""

    def login(self, token: str, source: str = "127.0.0.1", extra: dict[str, str] | None = None) -> tuple[int, str]:
        headers = {"origin": self.origin, "content-type": "application/x-www-form-urlencoded", **(extra or {})}
        status, answer, _ = self.request("POST", "/login", f"token={token}".encode(), headers, source)
        return status, answer.get("set-cookie", "")

    def press(self, cookie: str, secret: str, source: str = "127.0.0.1") -> tuple[int, Any]:
        headers = {"origin": self.origin, "content-type": "application/json", "cookie": cookie, "x-csrf-token": secret}
        status, _, body = self.request("POST", "/api/press", PRESS, headers, source)
        return status, json.loads(body)


@pytest.fixture
def site() -> Iterator[Site]:
    with Site() as s:
        yield s


def test_a_flood_of_page_loads_never_ends_a_session_in_use() -> None:
    site = Site(capacity=20, opens=1000)
    try:
        status, cookie, secret = site.page()
        assert status == 200 and secret
        assert site.request("GET", "/state", headers={"cookie": cookie})[0] == 200  # the page in use
        # a flood of cookie-less page loads, far past the capacity: each replaces an unused one
        for _ in range(60):
            assert site.page()[0] == 200
        assert len(site.sessions) == 20
        assert site.press(cookie, secret) == (200, {"ok": True})
        # and at the same time, sessions that are used: when every session is in use, a new
        # one is refused (503, saying why) rather than the operator's dropped
        for _ in range(19):
            _, c, _ = site.page()
            assert site.request("GET", "/state", headers={"cookie": c})[0] == 200
        status, headers, body = site.request("GET", "/", headers={"accept": "application/json"})
        assert status == 503 and "all in use" in json.loads(body)["error"]
        assert site.press(cookie, secret) == (200, {"ok": True})
        # one idle past the active time is the one a new session replaces; the operator's, in use, stays
        site.clock.now += 601
        assert site.request("GET", "/state", headers={"cookie": cookie})[0] == 200
        assert site.page()[0] == 200
        assert site.press(cookie, secret) == (200, {"ok": True})
        assert site.panel.pressed == ["no_more_bets"] * 3
    finally:
        site.stop()


@needs_other
def test_each_address_may_open_a_few_sessions_a_minute(site: Site) -> None:
    assert [site.page()[0] for _ in range(20)] == [200] * 20
    status, headers, body = site.request("GET", "/", headers={"accept": "text/html"})
    assert status == 429 and b"too many sessions" in body and headers["retry-after"] == "60"
    assert site.page(source=OTHER)[0] == 200  # another address is not held back
    site.clock.now += 61
    assert site.page()[0] == 200


def test_a_get_with_the_cookie_alone_never_obtains_the_sessions_secret() -> None:
    site = Site(token=TOKEN)
    try:
        status, set_cookie = site.login(TOKEN)
        cookie = set_cookie.split(";")[0]
        assert status == 303
        status, _, secret = site.page(cookie)  # the browser's page, right after the login
        assert status == 200 and secret
        # a server on another port of the host that got the cookie fetches the page with it
        status, _, stolen = site.page(cookie)
        assert status == 200 and stolen == ""
        refused = [site.press(cookie, stolen), site.press(cookie, "guess")]
        assert [s for s, _ in refused] == [403, 403]
        assert all("session's key" in answer["error"] and "reload" in answer["error"] for _, answer in refused)
        # the session is good for the Host it was opened for only
        other_host = {"cookie": cookie, "host": f"localhost:{site.port}"}
        assert site.request("GET", "/state", headers=other_host)[0] == 401
        assert site.press(cookie, secret) == (200, {"ok": True})  # the page itself still acts
        assert site.panel.pressed == ["no_more_bets"]
        # logging out ends it: the cookie no longer reads or acts
        headers = {"origin": site.origin, "content-type": "application/json", "cookie": cookie, "x-csrf-token": secret}
        assert site.request("POST", "/logout", b"{}", headers)[0] == 303
        status, _, body = site.request("GET", "/state", headers={"cookie": cookie, "accept": "application/json"})
        assert status == 401 and "log in again" in json.loads(body)["error"]
    finally:
        site.stop()


def test_a_token_less_views_secret_is_given_once_too(site: Site) -> None:
    status, cookie, secret = site.page()
    assert status == 200 and secret
    assert site.page(cookie) == (200, cookie, "")  # the page again, with the cookie: no secret
    assert site.press(cookie, "")[0] == 403
    assert site.press(cookie, secret) == (200, {"ok": True})


def test_logout_needs_the_sessions_secret() -> None:
    site = Site(token=TOKEN)
    try:
        cookie = site.login(TOKEN)[1].split(";")[0]
        _, _, secret = site.page(cookie)
        headers = {"origin": site.origin, "content-type": "application/json", "cookie": cookie, "x-csrf-token": "x"}
        site.request("POST", "/logout", b"{}", headers)
        assert site.press(cookie, secret)[0] == 200  # a logout without the secret ended nothing
    finally:
        site.stop()


@needs_other
def test_the_right_token_is_let_in_while_an_address_and_the_floor_are_limited() -> None:
    site = Site(token=TOKEN)
    try:
        assert [site.login("wrong")[0] for _ in range(5)] == [401] * 5
        assert site.login("wrong")[0] == 429
        assert site.login(TOKEN)[0] == 303  # the supervisor behind the same address gets in
        assert site.login("wrong", OTHER)[0] == 401  # the limit is per address ...
        # ... and in total: many addresses' failures limit every wrong token, never the right one
        site.limiter.total = 8
        assert [site.login("wrong", OTHER)[0] for _ in range(2)] == [401, 401]
        assert site.login("wrong", OTHER)[0] == 429
        assert site.login(TOKEN, OTHER)[0] == 303
    finally:
        site.stop()


def test_forwarded_headers_are_believed_only_from_a_named_proxy(caplog: pytest.LogCaptureFixture) -> None:
    site = Site(token=TOKEN)  # no --web-proxy: 127.0.0.1 is a client like any other
    try:
        forged = {"x-forwarded-for": "203.0.113.7", "x-forwarded-proto": "https"}
        with caplog.at_level("WARNING", logger="tablectl.web"):
            assert [site.login("wrong", extra=forged)[0] for _ in range(5)] == [401] * 5
            status, _ = site.login("wrong", extra={"x-forwarded-for": "203.0.113.8"})
        assert status == 429  # a limited client does not get out by naming another address
        assert not any("203.0.113" in r.getMessage() for r in caplog.records)
        assert any("from 127.0.0.1" in r.getMessage() for r in caplog.records)
        status, cookie = site.login(TOKEN, extra=forged)
        assert status == 303 and "Secure" not in cookie  # nor claim TLS
    finally:
        site.stop()
    site = Site(token=TOKEN, proxies=("127.0.0.1",))  # --web-proxy 127.0.0.1
    try:
        https = {"x-forwarded-for": "203.0.113.7", "x-forwarded-proto": "https"}
        with caplog.at_level("INFO", logger="tablectl.web"):
            status, cookie = site.login(TOKEN, extra={**https, "origin": f"https://127.0.0.1:{site.port}"})
        assert status == 303
        assert cookie.startswith("__Host-") and "Secure" in cookie
        assert any("login from 203.0.113.7" in r.getMessage() for r in caplog.records)
        status, headers, _ = site.request("GET", "/state", headers={**https, "cookie": cookie.split(";")[0]})
        assert status == 200 and headers["strict-transport-security"] == "max-age=31536000"
        # the proxy's clients are limited each by its own address
        assert [site.login("wrong", extra={**https, "origin": f"https://127.0.0.1:{site.port}"})[0] for _ in range(6)][
            -1
        ] == 429
        other = {"x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "https"}
        assert site.login("wrong", extra={**other, "origin": f"https://127.0.0.1:{site.port}"})[0] == 401
    finally:
        site.stop()


def test_web_proxy_takes_ip_addresses_only() -> None:
    import argparse

    from controller.cli._webopts import add_web_arguments, web_attach, web_proxies

    parser = argparse.ArgumentParser()
    add_web_arguments(parser)
    args = parser.parse_args(["--web", "127.0.0.1:0", "--web-proxy", "10.0.0.1", "--web-proxy", "[::1]"])
    assert web_proxies(args) == ("10.0.0.1", "::1")
    with pytest.raises(ValueError, match=r"--web-proxy 'proxy\.example': expected the proxy's IP address"):
        web_proxies(parser.parse_args(["--web", "127.0.0.1:0", "--web-proxy", "proxy.example"]))
    with pytest.raises(ValueError, match="need --web"):
        web_attach(parser.parse_args(["--web-proxy", "10.0.0.1"]), bench=True)
