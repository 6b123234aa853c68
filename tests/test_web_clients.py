"""One client address cannot take the view from another (issue #34, item 1), over raw sockets on
loopback: the attacker connects from 127.0.0.1, everyone else from 127.0.0.2 (Linux routes all of
127/8 to loopback). Each client address holds at most its share of connections and of bytes of
unfinished request heads (controller.web.server.ClientBudget); the global cap stays behind it.
Counts are kept small (a budget of 12 connections against a global cap of 40) so the test is
quick on a shared machine; the same arithmetic holds for the shipped 64 of 1,000."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

from test_web_guard import FakeFeed
from web_helpers import can_bind, self_signed_cert, socket_from, wait_for

from controller.web._table_app import table_app
from controller.web.server import ClientBudget, WebAddress, WebServer, client_key

ATTACKER, OTHER = "127.0.0.1", "127.0.0.2"
SHARE, GLOBAL = 12, 40

pytestmark = pytest.mark.skipif(not can_bind(OTHER), reason="127.0.0.2 is not usable on this host")


@pytest.fixture
def server() -> Iterator[WebServer]:
    budget = ClientBudget(connections=SHARE, head_bytes=8 * 1024)
    web = WebServer(table_app(FakeFeed()), WebAddress("127.0.0.1", 0), budget=budget, max_connections=GLOBAL)
    web.start()
    yield web
    web.stop()


def connect_from(source: str, port: int) -> socket.socket:
    s = socket_from(source, 10)
    try:
        s.connect(("127.0.0.1", port))
    except ConnectionResetError:
        pass  # reset at accept (past the address's share) before connect returned: a closed socket
    return s


def get_from(source: str, port: int, path: str = "/state", extra: dict[str, str] | None = None) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        conn.request("GET", path, headers=extra or {})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def closed(s: socket.socket) -> bool:
    """Whether the server has closed ``s`` (its read gives end of file or a reset)."""
    s.settimeout(0.05)
    try:
        return s.recv(1) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def test_one_address_holding_slow_connections_leaves_another_served(server: WebServer) -> None:
    port = server.port
    with contextlib.ExitStack() as stack:
        held: list[socket.socket] = []
        for _ in range(GLOBAL):  # as many slow heads as the whole server takes
            s = stack.enter_context(connect_from(ATTACKER, port))
            with contextlib.suppress(OSError):
                s.sendall(b"GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            held.append(s)
        # the attacker keeps its share and no more; the rest are closed as they open
        wait_for(lambda: server.budget.open.get(ATTACKER) == SHARE, "the attacker's share held")
        wait_for(lambda: sum(closed(s) for s in held) == GLOBAL - SHARE, "the connections past its share closed")
        # at the same time, the attacker fills its head bytes on the connections it keeps
        for s in held[:SHARE]:
            with contextlib.suppress(OSError):
                s.sendall(b"a" * 1024)
        wait_for(lambda: server.budget.heads.get(ATTACKER, 0) <= 8 * 1024, "head bytes within the share")
        assert any(closed(s) for s in held[:SHARE]), "a connection past the head-byte share stays open"
        # another address is served, one request after another and with a large head of its own
        assert [get_from(OTHER, port) for _ in range(5)] == [200] * 5
        assert get_from(OTHER, port, extra={"x-big": "b" * 6000}) == 200
    # everything given back once the attacker leaves: no count leaks
    wait_for(lambda: not server.budget.open and not server.budget.heads, "the budget empty again")
    assert get_from(ATTACKER, port) == 200


def test_the_share_is_per_address_and_the_global_cap_stays() -> None:
    budget = ClientBudget(connections=2, head_bytes=10, exempt=["10.0.0.9"])
    assert budget.admit("a") and budget.admit("a") and not budget.admit("a")
    assert budget.admit("b")  # another address has its own share
    assert all(budget.admit("10.0.0.9") for _ in range(10))  # a named proxy carries many clients
    assert budget.take_head("a", 10) and not budget.take_head("a", 1)
    budget.release("a", 11)
    budget.release("a", 0)
    assert "a" not in budget.open and "a" not in budget.heads
    # IPv6 addresses count by their /64; IPv4-mapped ones as the IPv4 address
    assert client_key("2001:db8::1") == client_key("2001:db8::ffff") == "2001:db8::/64"
    assert client_key("::ffff:10.0.0.1") == "10.0.0.1"
    assert json.dumps(client_key("not an address")) == '"not an address"'


def test_under_tls_connections_in_their_handshake_count_toward_the_share(tmp_path: Path) -> None:
    """asyncio hands a TLS connection to the protocol only once its handshake is done: counted
    there, one address could hold any number of connections that never send a ClientHello (each a
    file descriptor of the server for a minute, past the header timeout and uvicorn's cap).
    They are counted as they are accepted."""
    cert, key = self_signed_cert(tmp_path)
    budget = ClientBudget(connections=SHARE, head_bytes=8 * 1024)
    web = WebServer(
        table_app(FakeFeed()),
        WebAddress("127.0.0.1", 0),
        cert=str(cert),
        key=str(key),
        budget=budget,
        max_connections=GLOBAL,
    )
    web.start()
    context = ssl.create_default_context(cafile=str(cert))
    context.check_hostname = False

    def get_tls(source: str) -> int:
        conn = http.client.HTTPSConnection(
            "127.0.0.1", web.port, timeout=30, context=context, source_address=(source, 0)
        )
        try:
            conn.request("GET", "/state")
            response = conn.getresponse()
            response.read()
            return response.status
        finally:
            conn.close()

    try:
        with contextlib.ExitStack() as stack:
            # the attacker opens twice its share and never starts a handshake
            held: list[socket.socket] = []
            for _ in range(2 * SHARE):
                s = stack.enter_context(socket_from(ATTACKER, 10))
                with contextlib.suppress(ConnectionResetError):  # one past the share may be reset at once
                    s.connect(("127.0.0.1", web.port))
                held.append(s)
            wait_for(lambda: budget.open.get(ATTACKER) == SHARE, "the attacker's share held")
            wait_for(lambda: sum(closed(s) for s in held) == SHARE, "the connections past its share closed")
            # at the same time another address is served, over TLS
            assert [get_tls(OTHER) for _ in range(3)] == [200] * 3
        wait_for(lambda: not budget.open, "the budget empty again once the attacker leaves")
        assert get_tls(ATTACKER) == 200
    finally:
        web.stop()
