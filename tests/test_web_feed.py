"""The table never waits for a browser (issue 23, item 5): the controller thread only marks the
view stale; the view is built on the feed's publisher thread at most five times a second, every
change in between coalesced into the next (checked on an injected clock); and event-stream
clients that never read leave the real controller playing rounds while a reading client still
gets the latest view."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

from deadlines import STATE_TIMEOUT_S
from hil_table import HilTable, wait
from table_helpers import FedTable, ManualClock
from test_hil_mississippi import play_round
from web_helpers import FakeFeed

from controller.configuration import config_dir, load_table
from controller.game.mississippi_stud._machine import MississippiTable
from controller.table.latest import LatestSnapshot
from controller.table.snapshot import TableSnapshot
from controller.web._feed import PUBLISH_HZ, TableFeed
from controller.web._table_app import StreamHub, table_app
from controller.web.server import WebAddress, WebServer
from drivers.link import DeviceFault

INTERVAL = 0.25  # binary-exact, so the injected clock lands on it
TABLE = load_table(config_dir() / "bench" / "mississippi_stud.yaml")


class Runtime:
    """What the feed reads of a runtime: a table fed events directly, its snapshot published and
    the observers called after each event, as the controller thread does."""

    def __init__(self) -> None:
        self.config = TABLE
        self.fed = FedTable(MississippiTable, TABLE)
        self.drivers = {"shoe": None, "bet_spots": None, "panel": None}
        self.observers: list[Any] = []
        self.latest = LatestSnapshot()

    def publish(self) -> None:
        """The table's snapshot published (versioned by the events fed: ``FedTable.snapshot``)."""
        self.latest.publish(self.fed.snapshot())

    @property
    def snapshot(self) -> TableSnapshot:
        return self.latest.get()

    def handle(self, event: Any) -> None:
        self.fed.feed(event)
        self.publish()
        for observe in self.observers:
            observe(event)

    def spot(self, seat: int, cents: int) -> None:
        from drivers.bet_spots import SpotReport

        self.handle(SpotReport(device="bet_spots", seat=seat, spot="ante", cents=cents))


def antes(feed: TableFeed) -> dict[int, int]:
    view = json.loads(feed.current()[1])
    return {s["number"]: s["wagers"]["ante"] for s in view["seats"] if "ante" in s["wagers"]}


def test_the_controller_thread_builds_no_view_and_publishing_is_paced_and_coalesced() -> None:
    clock = ManualClock(100.0)
    runtime = Runtime()
    assert PUBLISH_HZ <= 5
    feed = TableFeed(runtime, interval_s=INTERVAL, clock=clock, start=False)
    assert feed.published == 1 and not feed.publish_due()  # nothing changed since the first view
    for cents in range(100, 5100, 100):  # 50 events: what the controller thread does for each
        runtime.spot(1, cents)
    assert feed.published == 1, "the controller thread built a view"
    assert not feed.publish_due(), "published sooner than the pace allows"
    clock.now += INTERVAL
    assert feed.publish_due() and feed.published == 2
    assert antes(feed) == {1: 5000}  # the 50 changes in one view, the latest
    assert feed.current()[0] == 2

    runtime.spot(2, 500)
    clock.now += INTERVAL / 2
    runtime.handle(DeviceFault(device="shoe", error="jammed", kind="command_failed", command="deal"))
    runtime.spot(3, 700)
    assert not feed.publish_due() and feed.published == 2  # half the interval: still waiting
    clock.now += INTERVAL / 2
    assert feed.publish_due() and feed.published == 3
    view = json.loads(feed.current()[1])
    assert antes(feed) == {1: 5000, 2: 500, 3: 700}
    assert [f["text"] for f in view["faults"]] == ["fault: jammed"]

    clock.now += 10 * INTERVAL
    assert not feed.publish_due() and feed.published == 3  # no change, no view
    runtime.spot(4, 900)
    assert feed.publish_due() and antes(feed)[4] == 900  # the first change after a quiet spell: at once


class Stream:
    """An event-stream client; ``reading``: it reads every event (else it never reads a byte, its
    receive buffer as small as the kernel allows)."""

    def __init__(self, port: int, reading: bool) -> None:
        self.views: list[dict[str, Any]] = []
        if reading:
            self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=STATE_TIMEOUT_S)
            self.conn.request("GET", "/events")
            self.response = self.conn.getresponse()
            assert self.response.status == 200
            threading.Thread(target=self._read, daemon=True).start()
        else:
            self.sock = socket.socket()
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            self.sock.connect(("127.0.0.1", port))
            self.sock.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())

    def _read(self) -> None:
        try:
            for line in self.response:
                if line.startswith(b"data: {"):
                    self.views.append(json.loads(line[6:]))
        except (OSError, ValueError):
            pass


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[HilTable, WebServer]]:
    t = HilTable(TABLE, tmp_path)
    feed = TableFeed(t.runtime, interval_s=0.0)  # unpaced: as much for the stuck clients as can be
    server = WebServer(table_app(feed), WebAddress("127.0.0.1", 0))
    server.start()
    try:
        yield t, server
    finally:
        server.stop()
        feed.stop()
        t.close()


def test_clients_that_never_read_do_not_hold_up_the_table_or_the_other_clients(
    served: tuple[HilTable, WebServer],
) -> None:
    t, server = served
    stuck = [Stream(server.port, reading=False) for _ in range(3)]
    reader = Stream(server.port, reading=True)
    connections = server.server.server_state.connections
    wait(lambda: len(connections) >= len(stuck) + 1, "the server to accept every client")
    for c in list(connections):
        # The server's send buffers as small as the kernel allows: a stuck client then pauses after
        # a few frames, however few frames a round makes on this machine (autotuned, a loopback
        # buffer takes up to 4 MB: at 10 rounds a second that was more than 100 rounds' worth).
        c.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)

    def all_stuck() -> bool:
        paused = [c for c in list(connections) if getattr(c, "flow", None) is not None and c.flow.write_paused]
        return len(paused) >= len(stuck)

    rounds = 0
    while not all_stuck():  # the stuck clients' buffers fill as the table plays
        assert rounds < 100, "the stuck clients' connections were never paused"
        play_round(t)
        t.finish()
        rounds += 1
    for _ in range(2):  # every stuck client's writes paused: the table goes on
        play_round(t)
        t.finish()
        assert all_stuck()

    def latest() -> bool:
        # The table's own latest, read again each time: on a loaded machine a link can miss its
        # reply deadline after the last round and hold then clear by itself, moving the step on.
        now = t.snap
        return bool(reader.views) and (reader.views[-1]["round"], reader.views[-1]["step"]) == (now.round_no, now.step)

    wait(latest, "the reading client to get the latest view")
    assert len(t.results) == rounds + 2
    for s in stuck:
        s.sock.close()


class HandPublished(FakeFeed):
    """A feed whose view (its version) the test publishes by hand, waking its subscribers as TableFeed does."""

    def current(self) -> tuple[int, str]:
        return self.version, json.dumps({"version": self.version})


def test_a_view_published_as_the_first_client_arrives_reaches_it() -> None:
    """The event stream's hub is made by the table's first client; a view published before the
    hub's task first runs (late on a loaded machine) is sent, not lost until the next change: a
    quiet table's page showed its links "connecting" for good (issue #31)."""

    async def scenario() -> None:
        feed = HandPublished()
        hub = StreamHub(feed, heartbeat_s=STATE_TIMEOUT_S)  # no heartbeat comes first
        feed.publish()  # the links came up: before the hub's task has run once
        # the hub takes it (a client then sends it: _stream sends the hub's latest view before each
        # wait for the next): no heartbeat comes first, so waiting for it is waiting for the state
        deadline = asyncio.get_running_loop().time() + STATE_TIMEOUT_S
        while hub.version != 2:
            assert asyncio.get_running_loop().time() < deadline, (
                "the view published before the hub ran never reached it"
            )
            await asyncio.sleep(0.01)
        assert b'"version": 2' in hub.frame

    asyncio.run(scenario())
