"""The views' socket closes a connection that ends even when a view is published in the same turn
(controller.web._viewsock): on a loaded machine a command line over the limit, read just as the
feed woke the connection's view pusher, left the pusher running (asyncio.wait_for on Python 3.11
swallowed its cancellation), the connection open with beats every second and its peer slot taken
(test_web_process's socket test hung reading to the end)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any, Literal, cast

import pytest
from deadlines import STATE_TIMEOUT_S

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

from controller.web._published import PublishedView
from controller.web._viewsock import MAX_LINE, ViewSocket


class _Peer:
    """The connection's two ends as ``_serve`` uses them: a reader whose second line is over the
    limit and arrives in the same turn as a new view, and a writer that keeps what is written."""

    def __init__(self, feed: PublishedView, sock: socket.socket) -> None:
        self.feed, self.sock = feed, sock
        self.lines = 0
        self.written: list[bytes] = []
        self.closed = False

    async def readline(self) -> bytes:
        self.lines += 1
        if self.lines == 1:  # an empty line, once the pusher has sent its hello and view
            while len(self.written) < 2:
                await asyncio.sleep(0)
            for _ in range(10):
                await asyncio.sleep(0)  # and waits for the next view
            return b"\n"
        for _, wake in list(self.feed._subscribers):
            wake.set()  # a view out: the pusher's wait ends in this turn ...
        raise ValueError(f"a line over {MAX_LINE} bytes")  # ... as the connection ends

    def get_extra_info(self, name: str) -> Any:
        return self.sock if name == "socket" else None

    def write(self, data: bytes) -> None:
        self.written.append(data)

    async def drain(self) -> None:
        await asyncio.sleep(0)

    def close(self) -> None:
        self.closed = True


def test_a_connection_that_ends_as_a_view_is_published_is_closed() -> None:
    feed = PublishedView()
    served = ViewSocket(cast(Any, feed), None, "unused.sock")  # it uses only current(), subscribe(), unsubscribe()
    mine, theirs = socket.socketpair(socket.AF_UNIX)
    with mine, theirs:
        peer = _Peer(feed, mine)

        async def serve() -> None:
            task = asyncio.create_task(served._serve(cast(Any, peer), cast(Any, peer)))
            deadline = asyncio.get_running_loop().time() + STATE_TIMEOUT_S
            while not peer.closed:
                assert asyncio.get_running_loop().time() < deadline, "timed out waiting for the connection to close"
                await asyncio.sleep(0.01)
            await task

        asyncio.run(serve())
    assert peer.closed and served.peers == 0
    assert peer.written[0].startswith(b"hello ")


def test_stop_with_a_peer_connected_logs_no_error(tmp_path: Any, caplog: pytest.LogCaptureFixture) -> None:
    """``stop`` with a connection open (the bench's web server on the views' socket) closes it
    without asyncio's "Exception in callback" and its traceback (a cancelled connection's task, on
    Python 3.11: seen in ``tablectl bench --manual``'s stop on a loaded machine)."""
    feed = PublishedView()
    served = ViewSocket(cast(Any, feed), None, tmp_path / "views.sock")
    served.start()
    with socket.socket(socket.AF_UNIX) as peer:
        peer.connect(str(tmp_path / "views.sock"))
        peer.settimeout(STATE_TIMEOUT_S)
        assert peer.recv(6) == b"hello "  # served: the connection's task waits for a command
        with caplog.at_level("DEBUG", logger="asyncio"):
            served.stop()
        # stop returns once every connection has ended: before, it stopped the loop at once and a
        # connection cancelled while its pusher ended stayed open (its task never resumed)
        assert served.peers == 0
        while peer.recv(65536):  # read to the end: stop closed the connection (a timeout if not)
            pass
    errors = [r for r in caplog.records if r.name == "asyncio" and r.levelname == "ERROR"]
    assert not errors, [r.getMessage() for r in errors]
    assert served.peers == 0


class _SlowToEnd(asyncio.Event):
    """A subscriber's wake-up whose wait, once cancelled, ends only after ``STOP_WAIT_S``'s
    fraction: the connection's pusher is still ending when ``stop`` has cancelled it."""

    async def wait(self) -> Literal[True]:
        try:
            return await super().wait()
        except asyncio.CancelledError:
            await asyncio.sleep(0.5)  # its cancellation takes a while (a loaded machine)
            raise


class _SlowFeed(PublishedView):
    def subscribe(self) -> asyncio.Event:
        return _SlowToEnd()


def test_stop_waits_for_a_connection_still_ending(tmp_path: Any) -> None:
    """``stop`` returns once every connection it cancelled has ended, its socket closed: before,
    it stopped the loop at once, and a connection whose pusher had not ended yet stayed suspended
    for good with its socket open (``test_stop_with_a_peer_connected_logs_no_error`` hung reading
    on a loaded machine)."""
    served = ViewSocket(cast(Any, _SlowFeed()), None, tmp_path / "views.sock")
    served.start()
    with socket.socket(socket.AF_UNIX) as peer:
        peer.connect(str(tmp_path / "views.sock"))
        peer.settimeout(STATE_TIMEOUT_S)
        assert peer.recv(6) == b"hello "
        served.stop()
        left = served.peers
        assert left == 0, f"{left} connection(s) still open after stop"
        while peer.recv(65536):
            pass
