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
   Failed logins (the form's, or a wrong token in ``Authorization``) are logged (never the token offered) and limited per client address
   (:data:`LOGIN_FAILURES` a minute) and in total (:data:`LOGIN_FAILURES_TOTAL`), then a wrong
   token gets 429; the right one is always let in. Sessions expire after :data:`SESSION_S`;
   none is dropped while in use (:class:`Sessions`). The session's secret (its CSRF token) is
   given once, to the page that opened it (:func:`page_secret`): a server on another port of the
   host that is sent the cookie cannot obtain it. Under TLS (or a ``--web-proxy``'s HTTPS) the
   cookie is ``__Host-`` and ``Secure`` and every answer carries HSTS. A refusal to the page's
   own requests is JSON with the reason in words (the page shows it with the way back).
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
import ipaddress
import json
import logging
import math
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs

__all__ = [
    "Guard",
    "GuardPolicy",
    "Session",
    "Sessions",
    "LoginLimiter",
    "SESSION_KEY",
    "client_key",
    "page_secret",
    "CONNECTION",
    "TOKEN_SET_KEY",
    "QuietLog",
]

log = logging.getLogger("tablectl.web")


class _Provable(Protocol):
    """What the guard needs of a connection: to mark it as carrying a session or the token."""

    def prove(self) -> None:
        """A request on this connection was let in with a session or the token."""


class QuietLog:
    """Warnings at most one line per kind every ``interval_s``: the lines held back meanwhile are
    counted and their number said with the next one (a flood of refusals is a count in the log,
    not a line each)."""

    def __init__(
        self, logger: logging.Logger, interval_s: float = 10.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.logger, self.interval_s, self.clock = logger, interval_s, clock
        self._state: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()

    def warning(self, kind: str, message: str, *args: object) -> bool:
        """Log ``message`` unless a line of ``kind`` went out less than ``interval_s`` ago (then
        count it); whether it was logged."""
        with self._lock:
            now = self.clock()
            last, held = self._state.get(kind, (-math.inf, 0))
            if now - last < self.interval_s:
                self._state[kind] = (last, held + 1)
                return False
            self._state[kind] = (now, 0)
            if len(self._state) > 1000:  # kinds are a few fixed names; never let them grow
                self._state = {kind: (now, 0)}
        if held:
            message += " (and %d more like it in the last %.0f s)"
            args = (*args, held, now - last)
        self.logger.warning(message, *args)
        return True


CONNECTION: ContextVar[_Provable | None] = ContextVar("tablectl.connection", default=None)
"""The connection the current request came on (set by the server's protocol): a request let in
with a session or the token on a view that has one marks it proven (the server's reserve)."""

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
LOGIN_FAILURES_TOTAL = 60
"""Failed logins from all clients together in a minute; past it every wrong token gets 429."""
MAX_SESSIONS = 10_000
"""Open sessions kept at most (see :class:`Sessions` for which one a new one replaces)."""
ACTIVE_S = 600.0
"""A session used within this long is in use: it is never dropped for a new one."""
MAX_OPENS = 20
"""Sessions one client address may open in a minute by loading a token-less view's page."""
HSTS = b"max-age=31536000"
"""``Strict-Transport-Security`` under TLS (this host only: no ``includeSubDomains``)."""
SESSION_KEY = "tablectl.session"
"""Where the guard puts the request's :class:`Session` in the ASGI scope."""
TOKEN_SET_KEY = "tablectl.token_set"
"""Where the guard says (in the ASGI scope) whether the view has a token."""
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
_FULL = "503: the view holds as many sessions as it can, all in use; try again in a few minutes"
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


def client_key(address: str) -> str:
    """The address a client's limits are counted by: an IPv4 address as it is (an IPv4-mapped
    IPv6 one as its IPv4 address), an IPv6 one by its /64 (one host usually holds a whole /64)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


@dataclass(frozen=True, slots=True)
class Session:
    """A browser's session: its random id (the cookie), its per-session secret (``csrf``: every
    change needs it in ``X-CSRF-Token``; the page that opened the session is given it once),
    when it ends, and the ``Host`` (with its port) it was opened for: it is good for that Host only."""

    id: str
    csrf: str
    expires: float
    host: str = ""


class SessionsFull(Exception):
    """No session can be opened now: every open one is in use (see :meth:`Sessions.open`)."""


class Sessions:
    """The open sessions of one view, in memory (a restart logs every browser out).

    None is dropped for a flood of new ones: when :data:`MAX_SESSIONS` are open, a new one
    replaces the oldest session never used after the page that opened it, else the one idle
    longest if idle over :data:`ACTIVE_S` (a page with its event stream open uses its session
    every second); when every session is in use, none is opened (:class:`SessionsFull`). Each
    client address may open :data:`MAX_OPENS` a minute (:meth:`may_open`)."""

    def __init__(
        self,
        lifetime_s: float = SESSION_S,
        clock: Callable[[], float] = time.monotonic,
        capacity: int = MAX_SESSIONS,
        opens_per_minute: int = MAX_OPENS,
    ) -> None:
        self.lifetime_s, self.clock, self.capacity = lifetime_s, clock, capacity
        self._open: OrderedDict[str, Session] = OrderedDict()
        """Open sessions, least recently used first."""
        self._used: dict[str, float] = {}
        self._unused: OrderedDict[str, None] = OrderedDict()
        """Sessions not used since the page that opened them, oldest first."""
        self._revealed: set[str] = set()
        self._opens = LoginLimiter(opens_per_minute, 60.0, clock, total=None)
        self._lock = threading.Lock()

    def may_open(self, client: str) -> bool:
        """Count an opening by ``client`` (a page load without a session); ``False`` when it has
        opened :data:`MAX_OPENS` in the last minute."""
        if self._opens.blocked(client):
            return False
        self._opens.failed(client)
        return True

    def _drop(self, session_id: str) -> None:
        self._open.pop(session_id, None)
        self._used.pop(session_id, None)
        self._unused.pop(session_id, None)
        self._revealed.discard(session_id)

    def open(self, host: str = "") -> Session:
        """A new session (128-bit random id and secret) for ``host``; raises
        :class:`SessionsFull` when every open session is in use."""
        session = Session(
            secrets.token_urlsafe(16), secrets.token_urlsafe(16), self.clock() + self.lifetime_s, host.lower()
        )
        with self._lock:
            now = self.clock()
            for gone in [k for k, s in self._open.items() if s.expires <= now]:
                self._drop(gone)
            while len(self._open) >= self.capacity:
                if self._unused:
                    self._drop(next(iter(self._unused)))
                    continue
                oldest = next(iter(self._open))
                if now - self._used.get(oldest, now) <= ACTIVE_S:
                    raise SessionsFull
                self._drop(oldest)
            self._open[session.id] = session
            self._used[session.id] = now
            self._unused[session.id] = None
        return session

    def get(self, session_id: str | None, host: str | None = None) -> Session | None:
        """The live session with this id (for this ``Host``, when given), or ``None`` (unknown,
        expired or another Host's); marks it used."""
        if not session_id:
            return None
        with self._lock:
            session = self._open.get(session_id)
            if session is None:
                return None
            if session.expires <= self.clock():
                self._drop(session_id)
                return None
            if host is not None and session.host and not hmac.compare_digest(session.host, host.lower()):
                return None
            self._open.move_to_end(session_id)
            self._used[session_id] = self.clock()
            self._unused.pop(session_id, None)
            return session

    def reveal(self, session: Session) -> str:
        """The session's secret the first time it is asked for (the page that opened the
        session), ``""`` after: a GET with the cookie alone never gets it."""
        with self._lock:
            if session.id in self._revealed or session.id not in self._open:
                return ""
            self._revealed.add(session.id)
            return session.csrf

    def alive(self, session: Session) -> bool:
        """Whether ``session`` is still open (an event stream ends when its session does)."""
        return self.get(session.id) is not None

    def close(self, session_id: str) -> None:
        """End the session (logout)."""
        with self._lock:
            self._drop(session_id)

    def __len__(self) -> int:
        return len(self._open)


class LoginLimiter:
    """Failed logins per client over the last minute (at most :data:`LOGIN_FAILURES`) and from
    all clients together (at most :data:`LOGIN_FAILURES_TOTAL`). Being limited refuses a wrong
    token, never the right one (see :meth:`Guard._login`)."""

    def __init__(
        self,
        limit: int = LOGIN_FAILURES,
        window_s: float = LOGIN_WINDOW_S,
        clock: Callable[[], float] = time.monotonic,
        total: int | None = LOGIN_FAILURES_TOTAL,
    ) -> None:
        self.limit, self.window_s, self.clock, self.total = limit, window_s, clock, total
        self._failures: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()
        self._lock = threading.Lock()

    def _recent(self, client: str) -> deque[float]:
        now = self.clock()
        failures = self._failures.setdefault(client, deque())
        while failures and failures[0] <= now - self.window_s:
            failures.popleft()
        while self._all and self._all[0] <= now - self.window_s:
            self._all.popleft()
        return failures

    def blocked(self, client: str) -> bool:
        """Whether ``client`` (or every client together) has used up its failures for now."""
        with self._lock:
            mine = len(self._recent(client)) >= self.limit
            return mine or (self.total is not None and len(self._all) >= self.total)

    def failed(self, client: str) -> int:
        """Count a failure; returns how many ``client`` made in the window."""
        with self._lock:
            failures = self._recent(client)
            failures.append(self.clock())
            self._all.append(self.clock())
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


async def _refuse(
    send: Send, status: int, text: str, headers: dict[str, str], extra: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    """A refusal the page can explain: JSON ``{"error": text, "status": n}`` to the page's own
    requests (``Accept: application/json`` or an ``X-CSRF-Token``), plain text otherwise."""
    if "x-csrf-token" not in headers and "application/json" not in headers.get("accept", ""):
        await _plain(send, status, text, extra)
        return
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), *extra],
        }
    )
    await send({"type": "http.response.body", "body": json.dumps({"error": text, "status": status}).encode()})


def page_secret(scope: Scope) -> str:
    """The request's session secret if this is the first page of the session (else ``""``): a
    page puts it in its ``csrf-token`` meta, and its script keeps it for its own origin."""
    session, sessions = scope.get(SESSION_KEY), scope.get("tablectl.sessions")
    if isinstance(session, Session) and isinstance(sessions, Sessions):
        return sessions.reveal(session)
    return ""


class _TooLarge(Exception):
    pass


def _secure_sender(send: Send, tls: bool) -> Send:
    """``send`` with the security headers added to the response's start (and HSTS under TLS)."""

    async def send_secure(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            names = {k.lower() for k, _ in headers}
            headers += [h for h in SECURITY_HEADERS if h[0] not in names]
            if b"cache-control" not in names:
                headers.append((b"cache-control", b"no-store"))
            if tls:
                headers.append((b"strict-transport-security", HSTS))
            message = {**message, "headers": headers}
        await send(message)

    return send_secure


def _cookie_sender(send: Send, cookie: tuple[bytes, bytes]) -> Send:
    """``send`` with ``cookie`` (a new session's) set by the response."""

    async def send_cookie(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), cookie]}
        await send(message)

    return send_cookie


def _replayer(body: bytes, receive: Receive) -> Receive:
    """``receive`` for the app behind the guard: the body the guard read, then what follows."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


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
        self.sessions = sessions if sessions is not None else Sessions()
        self.limiter = limiter if limiter is not None else LoginLimiter()
        self.quiet = QuietLog(log)
        """This view's warnings about clients, rate-limited."""

    # --- pieces ---------------------------------------------------------------------------------

    def _tls(self, scope: Scope) -> bool:
        """Served over TLS: by uvicorn itself, or by a proxy named by ``--web-proxy`` (uvicorn's
        proxy middleware sets the scheme from its ``X-Forwarded-Proto``)."""
        return self.policy.tls or scope.get("scheme") == "https"

    def _cookie_name(self, scope: Scope) -> str:
        # cookies are shared by every port of a host: a name per port keeps two views apart;
        # under TLS the __Host- prefix makes the browser refuse it without Secure, with a Domain
        server = scope.get("server") or ("", 0)
        return f"{'__Host-' if self._tls(scope) else ''}tablectl_session_{server[1]}"

    def _session_of(self, scope: Scope, headers: dict[str, str]) -> Session | None:
        if "cookie" not in headers:
            return None
        cookie: SimpleCookie = SimpleCookie()
        try:
            cookie.load(headers["cookie"])
        except CookieError:
            return None
        morsel = cookie.get(self._cookie_name(scope))
        return self.sessions.get(morsel.value, headers.get("host", "")) if morsel is not None else None

    def _set_cookie(self, scope: Scope, session: Session) -> tuple[bytes, bytes]:
        value = f"{self._cookie_name(scope)}={session.id}; Path=/; HttpOnly; SameSite=Strict"
        value += f"; Max-Age={int(self.sessions.lifetime_s)}"
        if self._tls(scope):
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
        scheme = "https" if self._tls(scope) else scope.get("scheme", "http")
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

        send_secure = _secure_sender(send, self._tls(scope))
        headers = _headers(scope)
        host = host_name(headers.get("host", ""))
        if host not in self.policy.hosts:
            await _plain(send_secure, 421, f"421: this view does not answer to the host {host or '(none)'!r}")
            return

        method = scope.get("method", "GET")
        body = await self._body_or_refusal(receive, headers, send_secure)
        if body is None:
            return
        replay = _replayer(body, receive)

        path = scope.get("path", "/")
        client = (scope.get("client") or ("?", 0))[0]
        session = self._session_of(scope, headers)
        changes = method not in _READ_METHODS

        if changes and not await self._change_allowed(scope, headers, method, path, client, send_secure):
            return
        if path == "/login":
            await self._login(scope, send_secure, method, body, session, client, headers)
            return
        if path == "/logout" and changes:
            await self._logout(scope, headers, session, send_secure)
            return

        new_cookie: tuple[bytes, bytes] | None = None
        if not path.startswith(STATIC_PREFIX) and path not in _OPEN_PATHS:
            admitted = await self._admit(scope, headers, session, changes, path, client, send_secure)
            if admitted is None:
                return
            session, new_cookie = admitted
        if self.policy.token is not None and (session is not None or self._bearer_ok(headers)):
            conn = CONNECTION.get()
            if conn is not None:
                conn.prove()
        scope[SESSION_KEY] = session
        scope["tablectl.sessions"] = self.sessions
        scope[TOKEN_SET_KEY] = self.policy.token is not None

        if new_cookie is None:
            await self.app(scope, replay, send_secure)
            return
        await self.app(scope, replay, _cookie_sender(send_secure, new_cookie))

    async def _body_or_refusal(self, receive: Receive, headers: dict[str, str], send: Send) -> bytes | None:
        """The request's body, or ``None`` when it was refused (413, 400, 408) or the client left."""
        try:
            return await self._read_body(receive, headers.get("content-length"))
        except _TooLarge:
            await _plain(send, 413, f"413: a request body may be at most {self.policy.max_body} bytes")
        except ValueError as exc:
            await _plain(send, 400, f"400: {exc}")
        except TimeoutError:
            await _plain(send, 408, "408: the request's body did not arrive in time")
        except ConnectionError:
            pass
        return None

    async def _change_allowed(
        self, scope: Scope, headers: dict[str, str], method: str, path: str, client: str, send: Send
    ) -> bool:
        """Whether a change (not GET or HEAD) comes from this view's page with the body it must
        have; else it is refused (403, 415) and ``False``."""
        if not self._own_origin(scope, headers):
            self.quiet.warning(
                "origin",
                "web: refused %s %s from %s: Origin %r is not this view's",
                method,
                path,
                client,
                headers.get("origin"),
            )
            await _refuse(send, 403, "403: a change must come from this view's own page (Origin)", headers)
            return False
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        wanted = "application/x-www-form-urlencoded" if path == "/login" else "application/json"
        if kind != wanted:
            await _plain(
                send,
                415 if path != "/login" else 403,
                f"{415 if path != '/login' else 403}: the body must be {wanted}",
            )
            return False
        return True

    async def _logout(self, scope: Scope, headers: dict[str, str], session: Session | None, send: Send) -> None:
        # the session ends only with its secret (no one else can end it); the browser's
        # cookie is cleared either way, so a page that lost its secret can start afresh
        if session is not None and self._csrf_ok(headers, session):
            self.sessions.close(session.id)
        clear = f"{self._cookie_name(scope)}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"
        if self._tls(scope):
            clear += "; Secure"
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", b"/login" if self.policy.token else b"/"),
                    (b"set-cookie", clear.encode("latin-1")),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})

    async def _admit(
        self,
        scope: Scope,
        headers: dict[str, str],
        session: Session | None,
        changes: bool,
        path: str,
        client: str,
        send: Send,
    ) -> tuple[Session | None, tuple[bytes, bytes] | None] | None:
        """A request for a guarded path let in: its session (one opened for the page itself when
        no token is set, with its cookie to set), or ``None`` when it was refused."""
        new_cookie: tuple[bytes, bytes] | None = None
        if session is None:
            if self.policy.token is None:
                if not changes and path == "/":  # the page itself: it gets its secret once
                    opened = await self._open_session(scope, headers, client, send)
                    if opened is None:
                        return None
                    session, new_cookie = opened
            elif not changes and self._bearer_ok(headers):
                pass  # a script reading with the token in a header
            else:
                await self._no_session(headers, changes, client, send)
                return None
        if changes and (session is None or not self._csrf_ok(headers, session)):
            await _refuse(
                send,
                403,
                "403: this change lacks this session's key: it was not made by the page that "
                "opened the session (reload the page, or log in again)",
                headers,
            )
            return None
        return session, new_cookie

    async def _open_session(
        self, scope: Scope, headers: dict[str, str], client: str, send: Send
    ) -> tuple[Session, tuple[bytes, bytes]] | None:
        """A new session for the page (no token set) and its cookie, or ``None`` when this address
        opened too many (429) or the view holds as many as it can (503)."""
        if not self.sessions.may_open(client_key(client)):
            self.quiet.warning("opens", "web: %s opened too many sessions in the last minute", client)
            await _refuse(
                send,
                429,
                "429: this address opened too many sessions in the last minute; wait a minute",
                headers,
                [(b"retry-after", b"60")],
            )
            return None
        try:
            session = self.sessions.open(headers.get("host", ""))
        except SessionsFull:
            await _refuse(send, 503, _FULL, headers, [(b"retry-after", b"60")])
            return None
        return session, self._set_cookie(scope, session)

    async def _no_session(self, headers: dict[str, str], changes: bool, client: str, send: Send) -> None:
        """The answer to a request without a session when a token is set: a wrong token in the
        header is a failed login, a page is sent to log in, anything else is 401."""
        if headers.get("authorization", "").lower().startswith("bearer ") and not self._bearer_ok(headers):
            await self._wrong_token(headers, client, send)
        elif not changes and "text/html" in headers.get("accept", ""):
            await send({"type": "http.response.start", "status": 303, "headers": [(b"location", b"/login")]})
            await send({"type": "http.response.body", "body": b""})
        else:
            await _refuse(
                send,
                401,
                "401: no session: it is not logged in, or its session has ended (logged out, "
                "expired after 12 hours, or the view restarted); log in again",
                headers,
            )

    async def _wrong_token(self, headers: dict[str, str], client: str, send: Send) -> None:
        # a wrong token in the header is a failed login like the form's: one limit, one log
        key = client_key(client)
        if self.limiter.blocked(key):
            self.quiet.warning(
                "blocked", "web: token refused for %s: too many failed logins in the last minute", client
            )
            await _refuse(
                send,
                429,
                "429: too many failed logins from this address in the last minute; wait a minute",
                headers,
                [(b"retry-after", b"60")],
            )
            return
        n = self.limiter.failed(key)
        self.quiet.warning(
            "failed",
            "web: failed login from %s (a token in Authorization; %d in the last minute)",
            client,
            n,
        )
        await _refuse(send, 401, "401: that is not this view's token", headers)

    def _csrf_ok(self, headers: dict[str, str], session: Session) -> bool:
        offered = headers.get("x-csrf-token", "")
        return hmac.compare_digest(offered.encode(), session.csrf.encode())

    async def _login(
        self,
        scope: Scope,
        send: Send,
        method: str,
        body: bytes,
        session: Session | None,
        client: str,
        headers: dict[str, str],
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
        try:
            offered = parse_qs(body.decode("utf-8"), max_num_fields=4).get("token", [""])[0]
        except (UnicodeDecodeError, ValueError):
            offered = ""
        # the right token is always let in: a limit on failures never locks out who has it
        # (the token's 128 bits stop guessing; the limit bounds the failures' rate and log)
        if not hmac.compare_digest(offered.strip().encode(), token.encode()):
            key = client_key(client)
            if self.limiter.blocked(key):
                self.quiet.warning(
                    "blocked", "web: login refused for %s: too many failed logins in the last minute", client
                )
                await self._login_page(send, 429, "Too many failed attempts: wait a minute.", [(b"retry-after", b"60")])
                return
            n = self.limiter.failed(key)
            self.quiet.warning("failed", "web: failed login from %s (%d in the last minute)", client, n)
            await self._login_page(send, 401, "That is not this view's token.")
            return
        try:
            new = self.sessions.open(headers.get("host", ""))
        except SessionsFull:
            await self._login_page(send, 503, _FULL)
            return
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
