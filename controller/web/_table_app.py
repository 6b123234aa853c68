"""The table view's web application (Starlette): the page, its data and its live event stream,
and on a bench table the controls that drive the simulators.

Routes: ``GET /`` the page (its script and styles are files under ``/static/``: the page runs
under a CSP with no inline script); ``GET /state`` the view model (JSON); ``GET /events``
server-sent events, one ``view`` event per new view model and a ``beat`` every
:data:`HEARTBEAT_S` (the page shows itself stale when they stop); ``POST /api/spot|press|key|
deal|fault`` the bench controls (404 on a real table). Every answer is built from
:mod:`controller.web.view`, which holds only what the table has revealed. Who may ask is the
guard's business (:mod:`controller.web._guard`, put in front by the server).
"""

from __future__ import annotations

import asyncio
import html as html_lib
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from controller.web._controls import FAULTS, BenchControls, ControlBusy, ControlError
from controller.web._guard import SESSION_KEY, TOKEN_SET_KEY, client_key, page_secret
from controller.web._jsonbody import BadBody, parse_object
from controller.web._remote import RemoteControls
from controller.web._streams import StreamSlot, StreamSlots

__all__ = ["table_app", "SlotStream", "stream_refusal", "MAX_STREAMS"]

STATIC = Path(__file__).parent / "static"
HEARTBEAT_S = 1.0
"""The event stream sends a heartbeat this often; the page calls itself stale after 2 s without one."""
MAX_STREAMS = 250
"""Event-stream clients one table serves at once; one more gets 503."""
MAX_FRAMES_S = 400
"""Views a table's event streams send a second, all clients together: with more than 80 clients
(the feed's five views a second each) the views go out less often, the latest each time, so
that the fan-out's share of the controller's process stays small (docs/benchmarks.md)."""
_NO_STORE = {"cache-control": "no-store"}


class ViewFeed(Protocol):
    """What the view reads of a table's feed (controller.web._feed.TableFeed, controller.web._remote.RemoteTable)."""

    def current(self) -> tuple[int, str]:
        """The latest version number and view model (JSON text)."""
        ...

    def subscribe(self) -> asyncio.Event:
        """An event set whenever a new view is out (call from the server's loop)."""
        ...

    def unsubscribe(self, event: asyncio.Event) -> None:
        """Stop waking ``event``."""
        ...


class StreamHub:
    """The event stream of one table on one server loop, shared by all its clients: one wake from
    the feed per view, the view's frame encoded once, a heartbeat after :data:`HEARTBEAT_S`
    without a view, at most :data:`MAX_FRAMES_S` frames a second to all clients together. A client holds no queue of its own, only the version it last sent: a client
    that reads slowly (its socket full: uvicorn's flow control holds its writes) is sent the latest
    view when it can take one, never a backlog, and nothing it does reaches the feed or the
    controller."""

    def __init__(self, feed: ViewFeed, heartbeat_s: float = HEARTBEAT_S, max_frames_s: float = MAX_FRAMES_S) -> None:
        self.feed = feed
        self.heartbeat_s = heartbeat_s
        self.max_frames_s = max_frames_s
        self.clients = 0
        """Streams open on this hub."""
        self.version = -1
        """The latest view's version."""
        self.frame = b""
        """The latest view as one server-sent event (``event: view``)."""
        self._tick: asyncio.Future[bytes | None] | None = None
        # Subscribed before the first view is read: a view published in between wakes the hub.
        # Read first and subscribed later (in the task, once it ran), a view published between the
        # two was never sent, and a quiet table then showed the page its start (the device links
        # "connecting") for good: the browser tests waited for links up in vain on a loaded machine,
        # where the task runs late (issue #31).
        self._wake = self.feed.subscribe()
        self._refresh()
        self._task = asyncio.get_running_loop().create_task(self._run())

    def _refresh(self) -> bool:
        version, text = self.feed.current()
        if version == self.version:
            return False
        self.version = version
        self.frame = f"event: view\nid: {version}\ndata: {text}\n\n".encode()
        return True

    async def _run(self) -> None:
        wake = self._wake
        try:
            while True:
                beat: bytes | None = None
                try:
                    # not asyncio.wait_for: on Python 3.11 it drops a cancellation that comes in the
                    # turn the wait ends, and the hub went on looping (the server's stop waited)
                    async with asyncio.timeout(self.heartbeat_s):
                        await wake.wait()
                    wake.clear()
                    if not self._refresh():
                        continue
                except TimeoutError:
                    if not getattr(self.feed, "live", True):
                        continue  # the table is not connected: no heartbeat, the pages show it stale
                    beat = f"event: beat\ndata: {time.time():.3f}\n\n".encode()
                tick, self._tick = self._tick, None
                if tick is not None and not tick.done():
                    tick.set_result(beat)
                if (
                    beat is None and self.clients > 0
                ):  # within the budget; what comes meanwhile waits, the latest winning
                    await asyncio.sleep(self.clients / self.max_frames_s)
        finally:
            self.feed.unsubscribe(wake)

    async def next(self) -> bytes | None:
        """Wait for the next view (``None``: read :attr:`frame`) or heartbeat (its frame)."""
        if self._tick is None:
            self._tick = asyncio.get_running_loop().create_future()
        return await asyncio.shield(self._tick)  # a client leaving cancels only its own wait


class SlotStream(StreamingResponse):
    """An event stream that gives its slot back when the response ends, however it ends: a client
    gone before the first byte means the body never starts, so the body's own ``finally`` never
    runs (the slot was lost, and 250 such clients left the table with no live view)."""

    def __init__(self, release: Callable[[], None], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()


def stream_refusal(scope: Scope, slots: StreamSlots) -> StreamSlot | Response:
    """A live stream's slot for this request, or the refusal: where the view has a token, a stream
    needs a session (the token in a header reads, it does not watch: 403); where it has none, each
    address holds its share (429) and a full view shares its streams fairly (503 to an address
    already holding no less than any other)."""
    token_set = bool(scope.get(TOKEN_SET_KEY))
    if token_set and scope.get(SESSION_KEY) is None:
        return JSONResponse({"error": "a live page needs a session: log in"}, status_code=403)
    key = client_key((scope.get("client") or ("?", 0))[0])
    if not token_set and slots.per_client is not None and slots.held(key) >= slots.per_client:
        return JSONResponse(
            {"error": f"this address already has {slots.per_client} live pages open; close one"},
            status_code=429,
            headers={"retry-after": "10"},
        )
    slot = slots.take(key, limit_client=not token_set)
    if slot is None:
        return JSONResponse(
            {"error": f"this view already serves {slots.capacity} live pages; try again later"},
            status_code=503,
            headers={"retry-after": "10"},
        )
    return slot


def page(name: str, **values: str) -> str:
    """A page from ``static/`` with ``{{key}}`` filled in (each value HTML-escaped)."""
    text = (STATIC / f"{name}.html").read_text()
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", html_lib.escape(value, quote=True))
    return text


def static_files() -> Mount:
    """``/static/``: the pages' scripts and styles."""
    return Mount("/static", app=StaticFiles(directory=STATIC), name="static")


class _TableView:
    """One table's view: its page, its state, its live stream and (on a bench) its controls."""

    def __init__(
        self, feed: ViewFeed, controls: BenchControls | RemoteControls | None, max_streams: int, heartbeat_s: float
    ):
        self.feed = feed
        self.controls = controls
        self.heartbeat_s = heartbeat_s
        self.bench = "true" if controls is not None else "false"
        self.faults = json.dumps(FAULTS)
        self.slots = StreamSlots(max_streams)
        self.hubs: dict[asyncio.AbstractEventLoop, StreamHub] = {}

    async def index(self, request: Request) -> Response:
        csrf = page_secret(request.scope)  # the session's first page only
        return HTMLResponse(page("table", bench=self.bench, faults=self.faults, csrf=csrf), headers=_NO_STORE)

    async def state(self, request: Request) -> Response:
        _, text = self.feed.current()
        return Response(text, media_type="application/json", headers=_NO_STORE)

    async def events(self, request: Request) -> Response:
        slots = self.slots
        refused = stream_refusal(request.scope, slots)
        if isinstance(refused, Response):
            return refused
        slot = refused

        def release() -> None:
            slots.give_back(slot)

        session = request.scope.get(SESSION_KEY)
        sessions = request.scope.get("tablectl.sessions")

        def open_still() -> bool:
            return not slot.ended and (session is None or sessions is None or sessions.alive(session))

        hub = self.hubs.get(asyncio.get_running_loop())
        if hub is None:
            hub = self.hubs[asyncio.get_running_loop()] = StreamHub(self.feed, self.heartbeat_s)
        return SlotStream(
            release,
            _stream(hub, open_still, release),
            media_type="text/event-stream",
            headers={**_NO_STORE, "x-accel-buffering": "no"},
        )

    async def control(self, request: Request) -> Response:
        if self.controls is None:
            return JSONResponse({"error": "this is a real table: the page only shows it"}, status_code=404)
        action = request.path_params["action"]
        try:
            body = parse_object(await request.body())
        except BadBody as exc:
            return JSONResponse({"error": f"/api/{action}: {exc}"}, status_code=400)
        bench_controls = self.controls
        actions: dict[str, Callable[[], None]] = {
            "spot": lambda: bench_controls.spot(body.get("seat"), body.get("spot"), body.get("cents")),
            "press": lambda: bench_controls.press(body.get("button")),
            "key": lambda: bench_controls.key(body.get("on")),
            "deal": lambda: bench_controls.deal(body.get("count", 1)),
            "fault": lambda: bench_controls.fault(body.get("kind"), body.get("seat", 1), body.get("spot")),
        }
        if action not in actions:
            return JSONResponse({"error": f"/api/{action}: no such control"}, status_code=404)
        try:
            # on a worker thread: a table's answer over its socket never holds the server's loop
            await run_in_threadpool(actions[action])
        except ControlBusy as exc:
            return JSONResponse({"error": f"/api/{action}: {exc}", "busy": True}, status_code=429)
        except ControlError as exc:
            return JSONResponse({"error": f"/api/{action}: {exc}"}, status_code=400)
        return JSONResponse({"ok": True})


async def _stream(hub: StreamHub, open_still: Callable[[], bool], release: Callable[[], None]) -> AsyncIterator[bytes]:
    """A live page's events from ``hub`` while ``open_still()``: each new view, else the beats."""
    sent = -1
    hub.clients += 1
    try:
        while open_still():
            if hub.version != sent:  # only the latest view: one a slow client missed is gone
                sent = hub.version
                yield hub.frame
                continue
            beat = await hub.next()
            if beat is not None and hub.version == sent:
                yield beat
    finally:
        release()
        hub.clients -= 1


def table_app(
    feed: ViewFeed,
    controls: BenchControls | RemoteControls | None = None,
    max_streams: int = MAX_STREAMS,
    heartbeat_s: float = HEARTBEAT_S,
) -> Starlette:
    """The ASGI app of one table's view on ``feed`` (a :class:`~controller.web._feed.TableFeed`:
    ``current()``, ``subscribe()``, ``unsubscribe()``)."""
    view = _TableView(feed, controls, max_streams, heartbeat_s)
    return Starlette(
        routes=[
            Route("/", view.index),
            Route("/state", view.state),
            Route("/events", view.events),
            Route("/api/{action}", view.control, methods=["POST"]),
            static_files(),
        ]
    )
