"""Serving a web view: the ``--web HOST:PORT`` address, the token rule, uvicorn on a thread.

A view listens on loopback unless told otherwise; any other address needs a token, and with a
token every request must carry it (:class:`TokenGate`): an ``Authorization: Bearer`` header, a
``token`` query parameter (the address you open), or the cookie the page sets from it.
"""

from __future__ import annotations

import hmac
import ipaddress
import threading
import time
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

import uvicorn

__all__ = ["WebAddress", "parse_address", "TokenGate", "WebServer", "COOKIE"]

COOKIE = "tablectl_token"


@dataclass(frozen=True, slots=True)
class WebAddress:
    """Where a view listens."""

    host: str
    port: int

    @property
    def loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


def parse_address(text: str, token: str | None, option: str = "--web") -> WebAddress:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) checked against the token rule; raises
    ``ValueError`` naming what is wrong."""
    host, sep, port_text = text.rpartition(":")
    if not sep or not host:
        raise ValueError(f"{option} {text!r}: expected HOST:PORT, e.g. 127.0.0.1:8080")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"{option} {text!r}: the port must be a number 0-65535")
    address = WebAddress(host, int(port_text))
    if not address.loopback:
        if host != "0.0.0.0" and host != "::":
            try:
                ipaddress.ip_address(host)
            except ValueError:
                raise ValueError(f"{option} {text!r}: the host must be an IP address or localhost") from None
        if not token:
            raise ValueError(
                f"{option} {text!r}: listening beyond loopback needs --web-token (every request must then carry it)"
            )
    if token is not None and len(token) < 8:
        raise ValueError("--web-token: use at least 8 characters")
    return address


class TokenGate:
    """ASGI middleware: with a token set, refuse (401) any request that does not carry it."""

    def __init__(self, app: Any, token: str | None) -> None:
        self.app, self.token = app, token

    def _carried(self, scope: dict[str, Any]) -> tuple[bool, bool]:
        """(carries the token, came by the query string)."""
        assert self.token is not None
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        offered: list[tuple[str, bool]] = []
        auth = headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            offered.append((auth[7:].strip(), False))
        for value in parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", []):
            offered.append((value, True))
        if "cookie" in headers:
            cookie: SimpleCookie = SimpleCookie()
            try:
                cookie.load(headers["cookie"])
            except Exception:
                cookie = SimpleCookie()
            if COOKIE in cookie:
                offered.append((cookie[COOKIE].value, False))
        for value, by_query in offered:
            if hmac.compare_digest(value.encode(), self.token.encode()):
                return True, by_query
        return False, False

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket") or self.token is None:
            await self.app(scope, receive, send)
            return
        ok, by_query = self._carried(scope)
        if not ok:
            body = b"401: this view needs its token (?token=..., or an Authorization: Bearer header)\n"
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"www-authenticate", b"Bearer")],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        if not by_query:
            await self.app(scope, receive, send)
            return
        cookie = f"{COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict".encode("latin-1")

        async def send_with_cookie(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)


class WebServer:
    """uvicorn serving ``app`` on a daemon thread; ``start`` returns once it listens."""

    def __init__(self, app: Any, address: WebAddress) -> None:
        self.address = address
        config = uvicorn.Config(
            app, host=address.host, port=address.port, log_level="warning", lifespan="off", access_log=False
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="web", daemon=True)
        self.port = address.port

    def start(self, timeout: float = 30.0) -> str:
        """Start listening; returns the base URL (with the real port when 0 was asked)."""
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive():
                raise OSError(f"the web view could not listen on {self.address.host}:{self.address.port}")
            if time.monotonic() > deadline:
                raise TimeoutError("the web view did not start")
            time.sleep(0.01)
        sockets = [s for server in self.server.servers for s in server.sockets]
        if sockets:
            self.port = sockets[0].getsockname()[1]
        host = f"[{self.address.host}]" if ":" in self.address.host else self.address.host
        return f"http://{host}:{self.port}/"

    def stop(self) -> None:
        """Stop serving (open event streams are closed) and wait for the thread."""
        self.server.should_exit = True
        self.server.force_exit = True
        self.thread.join(timeout=10)
