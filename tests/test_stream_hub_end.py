"""The table view's stream hub ends when cancelled even as it is
woken in the same turn (Python 3.11's ``asyncio.wait_for`` returned the wait's result then and
dropped the cancellation: the hub went on looping, and the loop's shutdown waited on it; the same
fault kept a views' socket connection open, tests/test_view_socket_end.py)."""

from __future__ import annotations

import asyncio

import pytest
from deadlines import STATE_TIMEOUT_S

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

from web_helpers import FakeFeed

from controller.web._table_app import StreamHub


def test_a_hub_cancelled_as_a_view_wakes_it_ends() -> None:
    feed = FakeFeed()

    async def run() -> None:
        hub = StreamHub(feed, heartbeat_s=3600.0)
        for _ in range(10):
            await asyncio.sleep(0)  # the hub waits for the next view
        for wake in feed.subscribers:
            wake.set()  # a view out: the hub's wait ends in this turn ...
        hub._task.cancel()  # ... as the server stops it
        deadline = asyncio.get_running_loop().time() + STATE_TIMEOUT_S
        while not hub._task.done():
            assert asyncio.get_running_loop().time() < deadline, "timed out waiting for the hub to end"
            await asyncio.sleep(0.01)
        assert hub._task.cancelled()

    asyncio.run(run())
    assert feed.subscribers == []  # it unsubscribed on its way out
