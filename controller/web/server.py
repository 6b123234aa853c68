"""Serving a web view: the ``--web HOST:PORT`` address, the token rule, uvicorn on a thread.

A view listens on loopback unless told otherwise; any other address needs a token of at least
128 bits (``tablectl web token`` makes one). Every app served here sits behind
:class:`~controller.web._guard.Guard` (Host allow-list, sessions and login, Origin and CSRF,
body limit, security headers). uvicorn serves it with TLS when given a certificate and key
(its own ``ssl_certfile``/``ssl_keyfile``), with a keep-alive timeout, h11's header size limit
and a header timeout (:class:`HeaderTimeoutH11`: a connection that has not sent a whole request
head within :data:`HEADER_TIMEOUT_S` is closed).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import math
import resource
import socket
import string
import struct
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, cast

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from controller.web._guard import CONNECTION, Guard, GuardPolicy, LoginLimiter, QuietLog, Sessions, client_key

__all__ = ["WebAddress", "parse_address", "WebServer", "client_key"]

log = logging.getLogger("tablectl.web")

MIN_TOKEN_BITS = 128
HEADER_TIMEOUT_S = 10.0
"""A connection must send a whole request head within this long of opening (or of its last answer)."""
KEEP_ALIVE_S = 5
"""An idle keep-alive connection is closed after this long."""
MAX_HEADER_BYTES = 16 * 1024
"""h11's limit on a request head (request line and headers)."""
MAX_CONNECTIONS = 1000
"""Connections and requests in hand at once, all clients together: the last guard (uvicorn's
``limit_concurrency``, 503 beyond); each client is held to far less (:class:`ClientBudget`)."""
MAX_CLIENT_CONNECTIONS = 64
"""Connections one client address (an IPv6 /64) may hold open at once; one more is closed as it opens."""
MAX_CLIENT_HEAD_BYTES = 64 * 1024
"""Bytes of request heads not yet complete that one client address may hold, over all its connections."""
MAX_WAITING = 256
"""Connections in their TLS handshake or request head at once, all addresses together, shared
fairly (:class:`ClientBudget`)."""
MAX_RESERVE = 64
"""Connections kept for requests with a session or the token (the operator, the pit boss):
unproven connections never take these."""
FD_HEADROOM = 64
"""Descriptors a view's process keeps besides its client connections."""


@dataclass(frozen=True, slots=True)
class WebAddress:
    """Where a view listens."""

    host: str
    port: int

    @property
    def loopback(self) -> bool:
        """Whether only this machine can reach the address."""
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


def token_bits(token: str) -> float:
    """A cautious estimate of a token's strength: its length times the bits of the smallest
    usual alphabet its characters fit (hex 4, base64url 6, printable ASCII 6.5)."""
    chars = set(token)
    if chars <= set(string.hexdigits):
        per = 4.0
    elif chars <= set(string.ascii_letters + string.digits + "-_"):
        per = 6.0
    else:
        per = math.log2(95)
    return len(token) * per


def check_token(token: str | None) -> None:
    """Raise ``ValueError`` for a token weaker than :data:`MIN_TOKEN_BITS`."""
    if token is not None and token_bits(token) < MIN_TOKEN_BITS:
        raise ValueError(
            f"--web-token: a token needs at least {MIN_TOKEN_BITS} bits "
            f"(this one has about {int(token_bits(token))}); make one with `tablectl web token`"
        )


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
                f"{option} {text!r}: listening beyond loopback needs --web-token (the page then asks for it once, at its login)"
            )
    check_token(token)
    return address


class HeaderTimeoutH11(H11Protocol):
    """uvicorn's h11 protocol, closing a connection that has not sent a whole request head within
    :data:`HEADER_TIMEOUT_S` (uvicorn itself waits for ever: a slow-header client holds a
    connection open)."""

    header_timeout_s = HEADER_TIMEOUT_S
    _header_timer: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._header_timeout)

    def _header_timeout(self) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # asyncio's base class names the BaseTransport; a stream server always hands its
        # protocols a Transport, the type uvicorn's H11Protocol declares.
        super().connection_made(cast(asyncio.Transport, transport))
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        super().connection_lost(exc)


class Connection:
    """One accepted connection as the budget sees it: its client key, the socket (to close it when
    a fairer newcomer needs its place), whether it is *waiting* (in its TLS handshake or its
    request head: from accept to a complete head, and again between keep-alive requests) and
    whether it is *proven* (a request on it carried a session or the token, on a view with a token)."""

    __slots__ = ("key", "sock", "waiting", "proven", "order")

    def __init__(self, key: str, sock: socket.socket | None, order: int) -> None:
        self.key, self.sock, self.order = key, sock, order
        self.waiting, self.proven = True, False

    def prove(self) -> None:
        """A request on this connection carried a session or the token."""
        self.proven = True

    def evict(self) -> None:
        """Close this connection to make room (its transport sees the end and closes)."""
        sock, self.sock = self.sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class ClientBudget:
    """What each client address holds of one server before any request is handled, and what all
    of them hold together. Kept on the server's event loop (no lock); the addresses in ``exempt``
    (the proxies of ``--web-proxy``, which carry many clients) are not held to a share.

    - Each address: at most ``connections`` open and ``head_bytes`` of unfinished request heads.
    - All addresses: at most ``total`` connections open (well below the process's descriptor
      limit, :func:`descriptor_total`: an accept never fails for want of a descriptor), of which at
      most ``total - reserve`` unproven (:class:`Connection`): the reserve is for the operator
      and the pit boss, whose requests carry a session; and at most ``waiting`` connections in
      their handshake or head at once (a proven connection idle between requests is not counted:
      the operator's browser keeps a few open).
    - When a global limit is reached, a newcomer whose address holds fewer such connections than
      the address holding the most takes the place of that address's oldest one; otherwise the
      newcomer is closed. So the limit is shared fairly: however many addresses push, each keeps
      about its equal part, and an address that holds little always gets in."""

    def __init__(
        self,
        connections: int = MAX_CLIENT_CONNECTIONS,
        head_bytes: int = MAX_CLIENT_HEAD_BYTES,
        exempt: Iterable[str] = (),
        total: int | None = None,
        waiting: int | None = None,
        reserve: int | None = None,
    ) -> None:
        self.connections, self.head_bytes = connections, head_bytes
        self.exempt = frozenset(exempt)
        self.total = total if total is not None else descriptor_total()
        self.waiting_cap = waiting if waiting is not None else max(8, min(MAX_WAITING, self.total // 4))
        self.reserve = reserve if reserve is not None else max(2, min(MAX_RESERVE, self.total // 4))
        self.open: dict[str, int] = {}
        """Open connections by client key."""
        self.heads: dict[str, int] = {}
        """Bytes of unfinished request heads by client key."""
        self.refused = 0
        """Connections closed as they opened, or evicted, since the last :meth:`take_refused`."""
        self.quiet = QuietLog(log)
        """Its warnings (refusals, evictions, the server loop's errors), rate-limited."""
        self._conns: dict[int, Connection] = {}
        self._order = 0

    # --- counting -------------------------------------------------------------------------------

    def _count(self, pick: Callable[[Connection], bool]) -> tuple[int, dict[str, list[Connection]]]:
        by_key: dict[str, list[Connection]] = {}
        n = 0
        for c in self._conns.values():
            if pick(c) and c.sock is not None:
                n += 1
                by_key.setdefault(c.key, []).append(c)
        return n, by_key

    def _make_room(self, key: str, pick: Callable[[Connection], bool], cap: int) -> bool:
        """Whether a newcomer of ``key`` fits under ``cap`` connections of the kind ``pick``
        chooses, evicting the oldest of the heaviest address's when that is fairer."""
        n, by_key = self._count(pick)
        if n < cap:
            return True
        heaviest = max(by_key, key=lambda k: len(by_key[k]), default=None)
        if heaviest is None or len(by_key.get(key, ())) + 1 >= len(by_key[heaviest]):
            return False
        min(by_key[heaviest], key=lambda c: c.order).evict()
        self.refused += 1
        self.quiet.warning(
            "evicted", "web: a connection from %s closed to make room for %s (a fair share)", heaviest, key
        )
        return True

    def admit(self, key: str, sock: socket.socket | None = None) -> bool:
        """Count a new connection of ``key``; ``False`` (not counted) when it holds its share, or
        when the server is full and ``key`` holds no less than the address holding most."""
        if key not in self.exempt:
            if self.open.get(key, 0) >= self.connections:
                return False
            unproven = lambda c: not c.proven and c.key not in self.exempt  # noqa: E731
            if not self._make_room(key, lambda c: c.key not in self.exempt, self.total):
                return False
            if not self._make_room(key, unproven, self.total - self.reserve):
                return False
            waiting = lambda c: c.waiting and not c.proven and c.key not in self.exempt  # noqa: E731
            if not self._make_room(key, waiting, self.waiting_cap):
                return False
            self.open[key] = self.open.get(key, 0) + 1
        if sock is not None:
            self._order += 1
            self._conns[sock.fileno()] = Connection(key, sock, self._order)
        return True

    def counts(self) -> dict[str, int]:
        """Connections held now: ``open``, ``waiting`` (unproven, in their handshake or head),
        ``unproven``, ``proven``."""
        live = [c for c in self._conns.values() if c.sock is not None and c.key not in self.exempt]
        return {
            "open": len(live),
            "waiting": sum(c.waiting and not c.proven for c in live),
            "unproven": sum(not c.proven for c in live),
            "proven": sum(c.proven for c in live),
        }

    def connection(self, fileno: int) -> Connection | None:
        """The connection accepted on descriptor ``fileno``."""
        return self._conns.get(fileno)

    def release(self, key: str, head_bytes: int, fileno: int | None = None) -> None:
        """A connection of ``key`` closed, holding ``head_bytes`` of an unfinished head."""
        if fileno is not None:
            self._conns.pop(fileno, None)
        if key in self.exempt:
            return
        self.take_head(key, -head_bytes)
        left = self.open.get(key, 0) - 1
        if left > 0:
            self.open[key] = left
        else:
            self.open.pop(key, None)

    def take_head(self, key: str, n: int) -> bool:
        """Add ``n`` bytes (negative: give back) to what ``key``'s unfinished heads hold; ``False``
        when that is over its share."""
        if key in self.exempt:
            return True
        held = self.heads.get(key, 0) + n
        if held > 0:
            self.heads[key] = held
        else:
            self.heads.pop(key, None)
        return held <= self.head_bytes

    def take_refused(self) -> int:
        """Connections refused or evicted since the last call (for a count in the log)."""
        n, self.refused = self.refused, 0
        return n


def descriptor_total(headroom: int = FD_HEADROOM) -> int:
    """Connections a server may hold: :data:`MAX_CONNECTIONS`, or fewer when the process's
    descriptor limit leaves less than ``headroom`` descriptors besides (files, the table's socket,
    the store's connections, the log)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(8, min(MAX_CONNECTIONS, (soft - headroom) // 2 if soft < 2 * headroom else soft - headroom))


class ClientLimitedH11(HeaderTimeoutH11):
    """:class:`HeaderTimeoutH11` holding each client address to its share of bytes of unfinished
    request heads (:class:`ClientBudget`): a connection whose unfinished head takes the address
    past it is closed. Its share of connections is counted as each is accepted, before any TLS
    handshake (:class:`BudgetedSocket`). A server makes a subclass with its own budget
    (:meth:`with_budget`)."""

    budget: ClientBudget = ClientBudget()
    _key = ""
    _head = 0
    _conn: Connection | None = None

    @classmethod
    def with_budget(cls, budget: ClientBudget) -> type[ClientLimitedH11]:
        """This protocol with a budget of its own (one per server)."""
        return type("ClientLimitedH11", (cls,), {"budget": budget})

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        self._key = client_key(str(peer[0])) if isinstance(peer, tuple) and peer else "?"
        sock = transport.get_extra_info("socket")
        self._conn = self.budget.connection(sock.fileno()) if sock is not None else None
        super().connection_made(transport)

    def data_received(self, data: bytes) -> None:
        waiting = self.conn.their_state is h11.IDLE
        if waiting:
            self._head += len(data)
            if not self.budget.take_head(self._key, len(data)):
                self.transport.abort()
                return
        # the request's task, made in here, inherits this: the guard marks the connection proven
        CONNECTION.set(self._conn)
        super().data_received(data)
        if waiting and self.conn.their_state is not h11.IDLE:  # the head is complete
            self.budget.take_head(self._key, -self._head)
            self._head = 0
            if self._conn is not None:
                self._conn.waiting = False

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._conn is not None:
            self._conn.waiting = True  # waiting for the next head (keep-alive)

    def connection_lost(self, exc: Exception | None) -> None:
        self.budget.take_head(self._key, -self._head)
        self._head = 0
        super().connection_lost(exc)


class _CountedSocket(socket.socket):
    """An accepted connection that gives its place in its client's share back when closed."""

    budget: ClientBudget | None = None
    key = ""

    def close(self) -> None:
        budget, self.budget = self.budget, None
        if budget is not None:
            budget.release(self.key, 0, self.fileno())
        super().close()


class BudgetedSocket(socket.socket):
    """A listening socket that holds each client address to its share of connections
    (:class:`ClientBudget`) as each connection is accepted: before its TLS handshake (asyncio
    calls the protocol only after it, so under TLS a count in the protocol would leave one
    address free to hold any number of connections in their handshakes) and before uvicorn counts
    it toward ``limit_concurrency``. A connection past the share is reset at once."""

    budget: ClientBudget = ClientBudget()

    @classmethod
    def with_budget(cls, budget: ClientBudget) -> type[BudgetedSocket]:
        """This socket class with a budget of its own (one per server)."""
        return type("BudgetedSocket", (cls,), {"budget": budget})

    def accept(self) -> tuple[socket.socket, object]:
        """The next connection within its client's share (raises ``BlockingIOError`` when none waits)."""
        while True:
            plain, address = super().accept()
            conn = _CountedSocket(self.family, self.type, self.proto, fileno=plain.detach())
            key = client_key(str(address[0])) if isinstance(address, tuple) and address else "?"
            if self.budget.admit(key, conn):
                conn.budget, conn.key = self.budget, key
                return conn, address
            self.budget.refused += 1
            self.budget.quiet.warning(
                "refused", "web: a connection from %s closed as it opened (its address or the view is full)", key
            )
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # reset, no linger
            conn.close()


TICK_S = 1.0
"""How often the idle server wakes (uvicorn's own loop wakes ten times a second): its Date header
is to the second, and a stop wakes it at once."""


class _TickingServer(uvicorn.Server):
    """uvicorn's server whose main loop wakes once every :data:`TICK_S` (its ``on_tick``, as
    uvicorn does every tenth of its ticks: the Date header) or when :meth:`stop_now` is called,
    not every 0.1 s: an idle view costs nothing."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._woken: asyncio.Event | None = None

    async def main_loop(self) -> None:
        self._loop, self._woken = asyncio.get_running_loop(), asyncio.Event()
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 10) % 864000  # a multiple of 10: uvicorn's once-a-second work each time
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._woken.wait(), TICK_S)

    def stop_now(self) -> None:
        """Stop serving (any thread): the main loop wakes at once."""
        self.should_exit = True
        self.force_exit = True
        loop, woken = self._loop, self._woken
        if loop is not None and woken is not None:
            with contextlib.suppress(RuntimeError):  # the loop already closed: nothing left to wake
                loop.call_soon_threadsafe(woken.set)


class WebServer:
    """uvicorn serving ``app`` behind the guard on a daemon thread; ``start`` returns once it listens.

    ``hosts``: the host names allowed besides loopback and the address itself (``--web-host``);
    ``cert``/``key``: serve HTTPS (``--web-cert``/``--web-key``); ``proxies``: the addresses of
    the reverse proxies whose ``X-Forwarded-For``/``-Proto`` are believed (``--web-proxy``; no
    one else's are); ``budget``: each client's share (:class:`ClientBudget`); ``max_connections``:
    all clients together."""

    def __init__(
        self,
        app: Any,
        address: WebAddress,
        token: str | None = None,
        hosts: Iterable[str] = (),
        cert: str | None = None,
        key: str | None = None,
        sessions: Sessions | None = None,
        limiter: LoginLimiter | None = None,
        proxies: Iterable[str] = (),
        budget: ClientBudget | None = None,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        if (cert is None) != (key is None):
            raise ValueError("--web-cert and --web-key go together")
        self.address = address
        self.tls = cert is not None
        self.proxies = tuple(proxies)
        self.policy = GuardPolicy.for_address(address.host, hosts, token, self.tls)
        self.guard = Guard(app, self.policy, sessions, limiter)
        self.budget = budget or ClientBudget(
            exempt=(client_key(p) for p in self.proxies), total=min(max_connections, descriptor_total())
        )
        config = uvicorn.Config(
            self.guard,
            host=address.host,
            port=address.port,
            log_level="warning",
            log_config=None,  # its records go to tablectl's handler (controller/host/_logs.py), not uvicorn's own
            lifespan="off",
            access_log=False,
            http=ClientLimitedH11.with_budget(self.budget),
            # X-Forwarded-For/-Proto only from the proxies named (uvicorn's default believes loopback)
            proxy_headers=bool(self.proxies),
            forwarded_allow_ips=list(self.proxies) or None,
            timeout_keep_alive=KEEP_ALIVE_S,
            h11_max_incomplete_event_size=MAX_HEADER_BYTES,
            ssl_certfile=cert,
            ssl_keyfile=key,
            server_header=False,
            # the budget's limits come first (fairly shared, a reserve for sessions): uvicorn's own
            # cap, which answers 503 to whoever comes next, is only a last guard behind them
            limit_concurrency=2 * max(self.budget.total, max_connections) + 16,
        )
        self.server = _TickingServer(config)
        self.thread = threading.Thread(target=self._serve, name="web", daemon=True)
        self.port = address.port
        self._listening: BudgetedSocket | None = None

    def _listen(self) -> BudgetedSocket:
        """The listening socket, counting each client's connections as they are accepted."""
        host = self.address.host
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = BudgetedSocket.with_budget(self.budget)(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, self.address.port))
        except OSError as exc:
            sock.close()
            raise OSError(f"the web view could not listen on {host}:{self.address.port}: {exc.strerror}") from None
        return sock

    def _serve(self) -> None:
        with asyncio.Runner(loop_factory=self.server.config.get_loop_factory()) as runner:
            runner.run(self._main())

    async def _main(self) -> None:
        # what the loop reports (a failed accept, a connection's error) is counted, not a traceback each
        quiet = self.budget.quiet

        def loop_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            exc = context.get("exception")
            what = f"{type(exc).__name__}: {exc}" if exc is not None else ""
            quiet.warning("loop", "web: %s %s", context.get("message", "an error"), what)

        asyncio.get_running_loop().set_exception_handler(loop_error)
        await self.server.serve(sockets=[self._listening] if self._listening is not None else None)

    def start(self, timeout: float = 30.0) -> str:
        """Start listening; returns the base URL (with the real port when 0 was asked)."""
        self._listening = self._listen()
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
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}/"

    def stop(self) -> None:
        """Stop serving (open event streams are closed) and wait for the thread."""
        self.server.stop_now()
        self.thread.join(timeout=10)
        if self._listening is not None:
            self._listening.close()
