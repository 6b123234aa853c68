"""The table view's web application (Starlette): the page, its data and its live event stream,
and on a bench table the controls that drive the simulators.

Routes: ``GET /`` the page; ``GET /state`` the view model (JSON); ``GET /events`` server-sent
events, one ``view`` event per new view model; ``POST /api/spot|press|key|deal|fault`` the bench
controls (404 on a real table). Every answer is built from :mod:`controller.web.view`, which holds only what
the table has revealed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from controller.web.controls import FAULTS, BenchControls, ControlError
from controller.web.feed import TableFeed
from controller.web.server import TokenGate

__all__ = ["table_app", "HEARTBEAT_S"]

STATIC = Path(__file__).parent / "static"
HEARTBEAT_S = 15.0
_NO_STORE = {"cache-control": "no-store"}


def page(name: str, **values: str) -> str:
    """A page from ``static/``: its CSS and script inlined (one request), ``{{key}}`` filled in."""
    html = (STATIC / f"{name}.html").read_text()
    html = html.replace("{{css}}", (STATIC / "common.css").read_text() + (STATIC / f"{name}.css").read_text())
    html = html.replace("{{js}}", (STATIC / f"{name}.js").read_text())
    for key, value in values.items():
        html = html.replace("{{" + key + "}}", value)
    return html


def table_app(feed: TableFeed, controls: BenchControls | None = None, token: str | None = None) -> Any:
    """The ASGI app of one table's view (wrapped in the token gate when ``token`` is set)."""
    html = page("table", bench="true" if controls is not None else "false", faults=json.dumps(FAULTS))

    async def index(request: Request) -> Response:
        return HTMLResponse(html, headers=_NO_STORE)

    async def state(request: Request) -> Response:
        _, text = feed.current()
        return Response(text, media_type="application/json", headers=_NO_STORE)

    async def events(request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            wake = feed.subscribe()
            sent = -1
            try:
                while True:
                    version, text = feed.current()
                    if version != sent:
                        sent = version
                        yield f"event: view\nid: {version}\ndata: {text}\n\n"
                    try:
                        await asyncio.wait_for(wake.wait(), HEARTBEAT_S)
                    except TimeoutError:
                        yield ": keep-alive\n\n"
                    wake.clear()
            finally:
                feed.unsubscribe(wake)

        return StreamingResponse(
            stream(), media_type="text/event-stream", headers={**_NO_STORE, "x-accel-buffering": "no"}
        )

    async def control(request: Request) -> Response:
        if controls is None:
            return JSONResponse({"error": "this is a real table: the page only shows it"}, status_code=404)
        action = request.path_params["action"]
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return JSONResponse({"error": f"/api/{action}: the body is not JSON"}, status_code=400)
        if not isinstance(body, dict):
            return JSONResponse({"error": f"/api/{action}: the body must be a JSON object"}, status_code=400)
        try:
            if action == "spot":
                controls.spot(body.get("seat"), body.get("spot"), body.get("cents"))
            elif action == "press":
                controls.press(body.get("button"))
            elif action == "key":
                controls.key(body.get("on"))
            elif action == "deal":
                controls.deal(body.get("count", 1))
            elif action == "fault":
                controls.fault(body.get("kind"), body.get("seat", 1), body.get("spot"))
            else:
                return JSONResponse({"error": f"/api/{action}: no such control"}, status_code=404)
        except ControlError as exc:
            return JSONResponse({"error": f"/api/{action}: {exc}"}, status_code=400)
        return JSONResponse({"ok": True})

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/state", state),
            Route("/events", events),
            Route("/api/{action}", control, methods=["POST"]),
        ]
    )
    return TokenGate(app, token)
