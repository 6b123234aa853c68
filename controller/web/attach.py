"""Putting the table view on a running table: the feed (its publisher thread), the bench controls, the server."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from controller.web.controls import BenchControls
from controller.web.feed import TableFeed
from controller.web.server import WebAddress, WebServer
from controller.web.table_app import MAX_STREAMS, table_app
from controller.web.view import SPOTS

__all__ = ["serve_table"]


def serve_table(
    runtime: Any,
    address: WebAddress,
    token: str | None = None,
    sims: Mapping[str, Any] | None = None,
    servers: Mapping[str, Any] | None = None,
    seed: int = 1,
    announce: bool = True,
    hosts: Iterable[str] = (),
    cert: str | None = None,
    key: str | None = None,
    max_streams: int = MAX_STREAMS,
    proxies: Iterable[str] = (),
) -> tuple[str, Callable[[], None]]:
    """Serve the view of ``runtime``'s table (with bench controls when ``sims`` are given);
    call before the runtime starts. Returns the URL and the function that stops serving."""
    feed = TableFeed(runtime)
    controls = None
    if sims is not None:
        controls = BenchControls(
            sims,
            servers or {},
            runtime.config.seats,
            SPOTS[runtime.config.game],
            joker=runtime.snapshot.deck_size == 53,
            seed=seed,
            round_no=lambda: runtime.snapshot.round_no,
        )
        runtime.observers.append(controls.handled)
    app = table_app(feed, controls, max_streams=max_streams)
    server = WebServer(app, address, token=token, hosts=hosts, cert=cert, key=key, proxies=proxies)
    url = server.start()

    def stop() -> None:
        server.stop()
        feed.stop()

    if announce:
        shown = f"{url} (log in with the token)" if token else url
        print(f"web: table view on {shown}", file=sys.stderr, flush=True)
    return url, stop
