"""The door of every web view: who may ask, from where, how much, and what every answer carries.

:class:`Guard` is ASGI middleware in front of the table view and the pit view. In order, for
each HTTP request:

1. **Host allow-list.** The ``Host`` header must name one of the allowed hosts (loopback names,
   the address listened on, and each ``--web-host``), whatever the port; anything else gets
   421 Misdirected Request. This defeats DNS rebinding: a page on ``evil.example`` that resolves
   to 127.0.0.1 still sends ``Host: evil.example``. (Starlette's TrustedHostMiddleware answers
   400 and cannot tell the refusal from a malformed request; this answers 421.)
2. **Body limit.** A request whose ``Content-Length`` is over :data:`MAX_BODY` gets 413 before a
   byte of it is read; a body without a length is read and counted, and 413 as soon as it passes
   the limit. A body that does not arrive within :data:`BODY_TIMEOUT_S` gets 408.
3. **Session.** With a token set, every request but the login page and the static files needs a
   session: the token is entered once on ``/login`` (a POST form) and exchanged for a random
   session id in an ``HttpOnly; SameSite=Strict`` cookie (``Secure`` under TLS). The token is
   never in a URL. Without a token (loopback only), the page's first GET opens a session by
   itself; the session still carries the CSRF token every state-changing request needs.
   A script may read (GET) with ``Authorization: Bearer TOKEN``; it may not change state so.
   Failed logins are logged (never the token offered) and limited per client:
   :data:`LOGIN_FAILURES` a minute, then 429. Sessions expire after :data:`SESSION_S`.
4. **Only the page itself changes state.** Every request other than GET and HEAD must carry an
   ``Origin`` equal to the page's own (scheme, host and port), ``Content-Type:
   application/json`` (the login form: ``application/x-www-form-urlencoded``), and, but for the
   login, the session's CSRF token in ``X-CSRF-Token``. A page on another origin, or on another
   port of the same host (same site, so a SameSite cookie goes along), is refused 403.
5. **Headers on every answer:** a Content-Security-Policy allowing scripts and styles only from
   the view itself (no inline script), ``frame-ancestors 'none'``, ``X-Content-Type-Options:
   nosniff``, ``Referrer-Policy: no-referrer``, and ``Cache-Control: no-store`` unless the
   answer set its own.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

__all__ = [
    "Guard",
    "GuardPolicy",
    "Session",
    "Sessions",
    "LoginLimiter",
    "LOOPBACK_HOSTS",
    "MAX_BODY",
    "SESSION_S",
    "LOGIN_FAILURES",
    "CSP",
    "SESSION_KEY",
    "host_name",
]

log = logging.getLogger("tablectl.web")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
"""The host names allowed by default."""
MAX_BODY = 16 * 1024
"""The largest request body accepted, in bytes."""
BODY_TIMEOUT_S = 10.0
"""How long a request's body may take to arrive."""
SESSION_S = 12 * 3600.0
"""How long a session lasts from login (a shift); then the page asks for the token again."""
LOGIN_FAILURES = 5
"""Failed logins a client may make in a minute; the next attempt gets 429."""
LOGIN_WINDOW_S = 60.0
MAX_SESSIONS = 10_000
"""Open sessions kept at most (the oldest is dropped for a new one)."""
SESSION_KEY = "tablectl.session"
"""Where the guard puts the request's :class:`Session` in the ASGI scope."""
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
"""The Content-Security-Policy of every answer: nothing inline, nothing from elsewhere, no frames."""
SECURITY_HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)
_READ_METHODS = ("GET", "HEAD")
_OPEN_PATHS = ("/login", "/favicon.ico")
STATIC_PREFIX = "/static/"
LOGIN_PAGE = Path(__file__).parent / "static" / "login.html"


def host_name(header: str) -> str:
    """The host of a ``Host`` header, lower case, without its port (``[::1]:8080`` gives ``::1``)."""
    header = header.strip().lower()
    if header.startswith("["):
        end = header.find("]")
        return header[1:end] if end > 0 else header
    name, sep, port = header.rpartition(":")
    return name if sep and port.isdigit() else header


@dataclass(frozen=True, slots=True)
class Session:
    """A browser's session: its random id (the cookie), its CSRF token and when it ends."""

    id: str
    csrf: str
    expires: float


class Sessions:
    """The open sessions of one view, in memory (a restart logs every browser out)."""

    def __init__(self, lifetime_s: float = SESSION_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.lifetime_s, self.clock = lifetime_s, clock
        self._open: dict[str, Session] = {}
        self._lock = threading.Lock()

    def open(self) -> Session:
        """A new session (128-bit random id and CSRF token)."""
        session = Session(secrets.token_urlsafe(16), secrets.token_urlsafe(16), self.clock() + self.lifetime_s)
        with self._lock:
            now = self.clock()
            self._open = {k: s for k, s in self._open.items() if s.expires > now}
            while len(self._open) >= MAX_SESSIONS:  # a flood of page loads: the oldest go first
                del self._open[next(iter(self._open))]
            self._open[session.id] = session
        return session

    def get(self, session_id: str | None) -> Session | None:
        """The live session with this id, or ``None`` (unknown or expired)."""
        if not session_id:
            return None
        with self._lock:
            session = self._open.get(session_id)
            if session is not None and session.expires <= self.clock():
                del self._open[session_id]
                return None
            return session

    def alive(self, session: Session) -> bool:
        """Whether ``session`` is still open (an event stream ends when its session does)."""
        return self.get(session.id) is not None

    def close(self, session_id: str) -> None:
        with self._lock:
            self._open.pop(session_id, None)


class LoginLimiter:
    """Failed logins per client over the last minute; a client past :data:`LOGIN_FAILURES` waits."""

    def __init__(
        self, limit: int = LOGIN_FAILURES, window_s: float = LOGIN_WINDOW_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit, self.window_s, self.clock = limit, window_s, clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, client: str) -> deque[float]:
        now = self.clock()
        failures = self._failures.setdefault(client, deque())
        while failures and failures[0] <= now - self.window_s:
            failures.popleft()
        return failures

    def blocked(self, client: str) -> bool:
        """Whether ``client`` has used up its failures for now."""
        with self._lock:
            return len(self._recent(client)) >= self.limit

    def failed(self, client: str) -> int:
        """Count a failure; returns how many in the window."""
        with self._lock:
            failures = self._recent(client)
            failures.append(self.clock())
            if len(self._failures) > 10_000:  # many clients: forget the quiet ones
                self._failures = {k: v for k, v in self._failures.items() if v}
            return len(failures)


@dataclass(frozen=True)
class GuardPolicy:
    """What a view lets in: its hosts, its token, TLS, and the limits."""

    hosts: frozenset[str] = LOOPBACK_HOSTS
    token: str | None = None
    tls: bool = False
    max_body: int = MAX_BODY
    body_timeout_s: float = BODY_TIMEOUT_S
    extra: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def for_address(
        host: str, extra_hosts: Iterable[str] = (), token: str | None = None, tls: bool = False
    ) -> GuardPolicy:
        """Loopback names, the host listened on (unless a wildcard) and ``extra_hosts``."""
        hosts = set(LOOPBACK_HOSTS) | {h.strip().lower().strip("[]") for h in extra_hosts if h.strip()}
        if host not in ("0.0.0.0", "::", ""):
            hosts.add(host.lower())
        return GuardPolicy(hosts=frozenset(hosts), token=token, tls=tls)


def _headers(scope: Scope) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in scope.get("headers", []):
        name = k.decode("latin-1").lower()
        if name not in out:  # the first of a repeated header counts
            out[name] = v.decode("latin-1")
    return out


async def _plain(send: Send, status: int, text: str, headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8"), *headers],
        }
    )
    await send({"type": "http.response.body", "body": (text + "\n").encode()})


class _TooLarge(Exception):
    pass


class Guard:
    """ASGI middleware: see the module docstring."""

    def __init__(
        self,
        app: ASGIApp,
        policy: GuardPolicy,
        sessions: Sessions | None = None,
        limiter: LoginLimiter | None = None,
    ) -> None:
        self.app, self.policy = app, policy
        self.sessions = sessions or Sessions()
        self.limiter = limiter or LoginLimiter()

    # --- pieces ---------------------------------------------------------------------------------

    def _cookie_name(self, scope: Scope) -> str:
        # cookies are shared by every port of a host: a name per port keeps two views apart
        server = scope.get("server") or ("", 0)
        return f"tablectl_session_{server[1]}"

    def _session_of(self, scope: Scope, headers: dict[str, str]) -> Session | None:
        if "cookie" not in headers:
            return None
        cookie: SimpleCookie = SimpleCookie()
        try:
            cookie.load(headers["cookie"])
        except CookieError:
            return None
        morsel = cookie.get(self._cookie_name(scope))
        return self.sessions.get(morsel.value) if morsel is not None else None

    def _set_cookie(self, scope: Scope, session: Session) -> tuple[bytes, bytes]:
        value = f"{self._cookie_name(scope)}={session.id}; Path=/; HttpOnly; SameSite=Strict"
        value += f"; Max-Age={int(self.sessions.lifetime_s)}"
        if self.policy.tls:
            value += "; Secure"
        return (b"set-cookie", value.encode("latin-1"))

    def _bearer_ok(self, headers: dict[str, str]) -> bool:
        auth = headers.get("authorization", "")
        token = self.policy.token
        if token is None or not auth.lower().startswith("bearer "):
            return False
        return hmac.compare_digest(auth[7:].strip().encode(), token.encode())

    def _own_origin(self, scope: Scope, headers: dict[str, str]) -> bool:
        origin = headers.get("origin")
        host = headers.get("host", "")
        if not origin or origin == "null":
            return False
        scheme = "https" if self.policy.tls else scope.get("scheme", "http")
        return hmac.compare_digest(origin.lower().encode(), f"{scheme}://{host.lower()}".encode())

    async def _read_body(self, receive: Receive, length: str | None) -> bytes:
        limit = self.policy.max_body
        if length is not None:
            if not length.strip().isdigit():
                raise ValueError("Content-Length is not a number")
            if int(length) > limit:
                raise _TooLarge
        chunks: list[bytes] = []
        size = 0
        async with asyncio.timeout(self.policy.body_timeout_s):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    raise ConnectionError("the client went away")
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    raise _TooLarge
                chunks.append(chunk)
                if not message.get("more_body", False):
                    return b"".join(chunks)

    # --- the request ----------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await send({"type": "websocket.close", "code": 1008})
            return

        async def send_secure(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                headers += [h for h in SECURITY_HEADERS if h[0] not in names]
                if b"cache-control" not in names:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        headers = _headers(scope)
        host = host_name(headers.get("host", ""))
        if host not in self.policy.hosts:
            await _plain(send_secure, 421, f"421: this view does not answer to the host {host or '(none)'!r}")
            return

        method = scope.get("method", "GET")
        try:
            body = await self._read_body(receive, headers.get("content-length"))
        except _TooLarge:
            await _plain(send_secure, 413, f"413: a request body may be at most {self.policy.max_body} bytes")
            return
        except ValueError as exc:
            await _plain(send_secure, 400, f"400: {exc}")
            return
        except TimeoutError:
            await _plain(send_secure, 408, "408: the request's body did not arrive in time")
            return
        except ConnectionError:
            return

        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        path = scope.get("path", "/")
        client = (scope.get("client") or ("?", 0))[0]
        session = self._session_of(scope, headers)
        changes = method not in _READ_METHODS

        if changes:
            if not self._own_origin(scope, headers):
                log.warning(
                    "web: refused %s %s from %s: Origin %r is not this view's",
                    method,
                    path,
                    client,
                    headers.get("origin"),
                )
                await _plain(send_secure, 403, "403: a change must come from this view's own page (Origin)")
                return
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            wanted = "application/x-www-form-urlencoded" if path == "/login" else "application/json"
            if kind != wanted:
                await _plain(
                    send_secure,
                    415 if path != "/login" else 403,
                    f"{415 if path != '/login' else 403}: the body must be {wanted}",
                )
                return

        if path == "/login":
            await self._login(scope, send_secure, method, body, session, client)
            return
        if path == "/logout" and changes:
            if session is not None and self._csrf_ok(headers, session):
                self.sessions.close(session.id)
            await send_secure(
                {
                    "type": "http.response.start",
                    "status": 303,
                    "headers": [(b"location", b"/login" if self.policy.token else b"/")],
                }
            )
            await send_secure({"type": "http.response.body", "body": b""})
            return

        new_cookie: tuple[bytes, bytes] | None = None
        if not path.startswith(STATIC_PREFIX) and path not in _OPEN_PATHS:
            if session is None:
                if self.policy.token is None:
                    if not changes and path == "/":  # the page itself: it gets its CSRF token
                        session = self.sessions.open()
                        new_cookie = self._set_cookie(scope, session)
                elif not changes and self._bearer_ok(headers):
                    pass  # a script reading with the token in a header
                elif not changes and "text/html" in headers.get("accept", ""):
                    await send_secure(
                        {"type": "http.response.start", "status": 303, "headers": [(b"location", b"/login")]}
                    )
                    await send_secure({"type": "http.response.body", "body": b""})
                    return
                else:
                    await _plain(send_secure, 401, "401: log in first (open the page and enter the view's token)")
                    return
            if changes and (session is None or not self._csrf_ok(headers, session)):
                await _plain(send_secure, 403, "403: this change lacks the page's CSRF token")
                return
        scope[SESSION_KEY] = session
        scope["tablectl.sessions"] = self.sessions

        if new_cookie is None:
            await self.app(scope, replay, send_secure)
            return
        cookie = new_cookie

        async def send_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), cookie]}
            await send_secure(message)

        await self.app(scope, replay, send_cookie)

    def _csrf_ok(self, headers: dict[str, str], session: Session) -> bool:
        offered = headers.get("x-csrf-token", "")
        return hmac.compare_digest(offered.encode(), session.csrf.encode())

    async def _login(
        self, scope: Scope, send: Send, method: str, body: bytes, session: Session | None, client: str
    ) -> None:
        token = self.policy.token
        if token is None or (session is not None and method in _READ_METHODS):
            await send({"type": "http.response.start", "status": 303, "headers": [(b"location", b"/")]})
            await send({"type": "http.response.body", "body": b""})
            return
        if method in _READ_METHODS:
            await self._login_page(send, 200, "")
            return
        if method != "POST":
            await _plain(send, 405, "405: log in with POST")
            return
        if self.limiter.blocked(client):
            log.warning("web: login refused for %s: too many failed logins in the last minute", client)
            await self._login_page(send, 429, "Too many failed attempts: wait a minute.", [(b"retry-after", b"60")])
            return
        try:
            offered = parse_qs(body.decode("utf-8"), max_num_fields=4).get("token", [""])[0]
        except (UnicodeDecodeError, ValueError):
            offered = ""
        if not hmac.compare_digest(offered.strip().encode(), token.encode()):
            n = self.limiter.failed(client)
            log.warning("web: failed login from %s (%d in the last minute)", client, n)
            await self._login_page(send, 401, "That is not this view's token.")
            return
        new = self.sessions.open()
        log.info("web: login from %s", client)
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [(b"location", b"/"), self._set_cookie(scope, new)],
            }
        )
        await send({"type": "http.response.body", "body": b""})

    async def _login_page(
        self, send: Send, status: int, message: str, extra: Iterable[tuple[bytes, bytes]] = ()
    ) -> None:
        import html

        text = LOGIN_PAGE.read_text().replace("{{message}}", html.escape(message))
        await send(
            {
                "type": "http.response.start",
                "status": status,
                # same-origin, not no-referrer, on this page alone: under no-referrer Chromium sends
                # "Origin: null" with a form's POST, and the login would be refused as a
                # cross-site one. Its URL holds nothing (the token is in the POST body).
                "headers": [
                    (b"content-type", b"text/html; charset=utf-8"),
                    (b"referrer-policy", b"same-origin"),
                    *extra,
                ],
            }
        )
        await send({"type": "http.response.body", "body": text.encode()})
