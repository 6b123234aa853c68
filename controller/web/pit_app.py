"""The pit view (``tablectl floor web --db URL``): every table on the floor, read only, from the
floor store; a click through to a table's hold chart, its recent rounds and each round's recall.

Pages are Jinja2 templates (``templates/``, autoescaped, through Starlette's
``Jinja2Templates``); the overview is live through its event stream (``/events``: a new body
when what it shows changed, swapped in by ``static/pit.js``, no reload). Every value the store
holds is read defensively: a malformed one is shown as unreadable, never a 500. Names are plain
(:mod:`controller.web.names`); wagers are in the game's layout order. The same data is at
``/api/tables``, ``/api/tables/{id}/rounds`` and ``/api/tables/{id}/rounds/{n}``. A round is
found by table and time at ``/search`` (the one in play then, with the one before and after).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from controller.game import game_name, hand_name, wager_name, wager_order
from controller.host import NotATime, parse_local_time
from controller.web._guard import SESSION_KEY, Session, Sessions, page_secret
from controller.web._hold_chart import cumulative, hold_chart, outside_band
from controller.web._streams import StreamSlots
from controller.web._table_app import MAX_STREAMS, SlotStream, static_files, stream_refusal
from controller.web.pit_store import STALE_S, FloorReader, RoundHold, RoundLine, TableState

__all__ = ["pit_app"]

log = logging.getLogger("tablectl.web")

TEMPLATES = Jinja2Templates(directory=Path(__file__).parent / "templates")
REFRESH_S = 5
"""How often the live overview is checked for a change (sent only when it changed)."""
MAX_ROUND = 2**63 - 1
"""The largest round number (the store's bigint); a path beyond it is 404."""
MAX_ID = 200
"""The longest table id a path may name; a longer one is 404."""
SUITS = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}
RANKS = set("23456789TJQKA")


def money(cents: object) -> str:
    """Cents as dollars, ``—`` for none, ``?`` for a value that is not a whole number."""
    if cents is None:
        return "\u2014"
    if not isinstance(cents, int) or isinstance(cents, bool):
        return "?"
    return f"{'-' if cents < 0 else ''}${abs(cents) / 100:,.2f}"


def pct(value: object) -> str:
    return f"{value:.2f}%" if isinstance(value, float | int) and not isinstance(value, bool) else "\u2014"


TEMPLATES.env.filters["money"] = money
TEMPLATES.env.filters["pct"] = pct


@dataclass(frozen=True, slots=True)
class CardView:
    """A card to draw: rank and suit symbol, or ``bad`` for a stored value that is not a card."""

    text: str
    rank: str = ""
    suit: str = ""
    red: bool = False
    joker: bool = False
    bad: bool = False


def card_view(value: object) -> CardView:
    """A stored card (``As``, ``Td``, ``JK``) to draw; anything else is drawn as unreadable."""
    text = str(value)[:8]
    if text == "JK":
        return CardView(text, joker=True)
    if len(text) == 2 and text[0] in RANKS and text[1] in SUITS:
        return CardView(text, "10" if text[0] == "T" else text[0], SUITS[text[1]], text[1] in "hd")
    return CardView(text, bad=True)


def cards_view(value: object) -> list[CardView]:
    return [card_view(c) for c in str(value or "").split()]


def _clock_time(value: object) -> str:
    try:
        return datetime.fromtimestamp(float(str(value))).strftime("%H:%M:%S")
    except (TypeError, ValueError, OverflowError, OSError):
        return "?"


# --- the overview -------------------------------------------------------------------------------


def _state(t: TableState) -> tuple[str, str, str]:
    """(state key, badge, detail): finished, not reporting, hold, playing or open. A table that
    publishes its heartbeat is never silent while it runs: a held one stays HOLD with its reason
    however long it holds; NOT REPORTING is silence beyond the heartbeat."""
    next_round = (t.last_round or 0) + 1
    if t.stale_s > STALE_S:
        minutes = int(t.stale_s // 60)
        if t.hold:
            return "stale", "NOT REPORTING", f"{minutes} min silent; it last held on: {t.hold}"
        if t.in_play:
            return "stale", "NOT REPORTING", f"{minutes} min silent with round {next_round} under way"
        return "finished", "FINISHED", f"round {t.last_round or 0} was its last, {minutes} min ago"
    if t.hold:
        return "hold", "HOLD", f"round {next_round}: {t.hold}"
    if t.in_play:
        return "play", "PLAYING", f"round {next_round}: {t.activity}"
    return "idle", "OPEN", f"round {next_round}: {t.activity}"


def table_row(t: TableState, today: list[RoundHold] | None) -> dict[str, Any]:
    """One table's row of the overview (defensive: a bad value makes the row unreadable, never
    the page)."""
    row: dict[str, Any] = {"id": str(t.table_id), "game": "not known yet", "state": "unreadable"}
    row.update(badge="UNREADABLE", detail="", alerts=_alerts(t), held=False)
    if t.unreadable:
        row["unreadable"] = t.unreadable
        return row
    try:
        row["game"] = game_name(t.game) if t.game else "not known yet"
        row["state"], row["badge"], row["detail"] = _state(t)
        if isinstance(t.dealer, str) and t.dealer:
            row["detail"] += f"; dealer {t.dealer}"
        row["held"] = bool(t.hold)
        row.update(
            rounds=int(t.rounds_today),
            handle=int(t.handle_today),
            win=int(t.win_today),
            hold=t.hold_percent,
            theoretical=t.theoretical_percent,
            faults=[str(f) for f in t.faults_today],
            delta=None,
            outside=False,
        )
        if t.hold_percent is not None and t.theoretical_percent is not None:
            row["delta"] = t.hold_percent - t.theoretical_percent
            points = cumulative(today or [])
            last = points[-1] if points else None
            row["outside"] = outside_band(last)
            row["delta_class"] = ("pos" if row["delta"] >= 0 else "neg") if row["outside"] else "plain"
            if last is not None and last.low is not None and last.high is not None:
                row["band_text"] = f"95% band {last.low:.2f}% to {last.high:.2f}% over {len(points)} rounds"
            else:
                row["band_text"] = "no band yet"
    except Exception as exc:  # whatever the store held: this row only
        row["unreadable"] = type(exc).__name__
    return row


def _alerts(t: TableState) -> list[str]:
    """What the ingest kept aside for the table, in words (controller.floor.alerts)."""
    out = [f"floor feed held: {t.feed_held}"] if isinstance(t.feed_held, str) and t.feed_held else []
    if isinstance(t.throttled, str) and t.throttled:
        out.append(f"over its share of the floor stream: {t.throttled}")
    for n, what in ((t.quarantined, "quarantined"), (t.rejected, "rejected"), (t.pending, "pending")):
        if isinstance(n, int) and n > 0:
            out.append(f"{n} {what}")
    return out


def floor_totals(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], int]:
    """The floor's totals over the readable table rows, and how many tables hold."""
    readable = [r for r in rows if "unreadable" not in r]
    handle = sum(r["handle"] for r in readable)
    win = sum(r["win"] for r in readable)
    totals = {
        "rounds": sum(r["rounds"] for r in readable),
        "handle": handle,
        "win": win,
        "hold": 100.0 * win / handle if handle else None,
    }
    return totals, sum(1 for r in rows if r.get("held"))


def overview_html(tables: list[TableState], today: Mapping[str, list[RoundHold]] | None = None) -> str:
    """The floor: one row per table, with the floor's totals (the page without its frame)."""
    rows = [table_row(t, (today or {}).get(t.table_id)) for t in tables]
    totals, holding = floor_totals(rows)
    return _render("overview.html", body_only=True, tables=rows, totals=totals, holding=holding)


# --- a round's recall -----------------------------------------------------------------------------


def _decisions(seat: Mapping[str, Any]) -> str:
    out = []
    if seat.get("folded_at"):
        out.append(f"folded at {wager_name(seat['folded_at'])} street")
    if seat.get("folded"):
        out.append("folded")
    if seat.get("exposed_bonus"):
        out.append("bonus hand exposed")
    if seat.get("foul"):
        out.append("foul")
    if seat.get("high"):
        out.append(f"set high {seat['high']} / low {seat.get('low', '')}")
    elif seat.get("set") == "house_way":
        out.append("set the house way")
    return ", ".join(out) or "played"


def _hands(result: Mapping[str, Any]) -> str:
    hands = result.get("hands") or {}
    out = []
    for name, hand in hands.items():
        if not isinstance(hand, Mapping):
            continue
        if "category" in hand:
            out.append(f"{wager_name(name)}: {hand_name(hand['category'])}")
        if "high_category" in hand:
            out.append(f"high {hand_name(hand['high_category'])} / low {hand_name(hand.get('low_category', ''))}")
    return "; ".join(out)


def _seat_view(game: object, n: str, seat: Mapping[str, Any], result: Mapping[str, Any]) -> dict[str, object]:
    wagers = seat.get("wagers") or {}
    results = result.get("wagers") or {}
    return {
        "n": str(n),
        "cards": cards_view(seat.get("cards", "")),
        "wagers": [(wager_name(s), wagers[s]) for s in wager_order(game, list(wagers))],
        "hands": _hands(result),
        "decisions": _decisions(seat),
        "results": [
            (wager_name(s), str(results[s].get("result", "")), results[s].get("net"))
            for s in wager_order(game, list(results))
            if isinstance(results[s], Mapping)
        ],
        "net": result.get("net") if isinstance(result.get("net"), int) else None,
    }


def _event_text(kind: str, data: Mapping[str, Any]) -> str | None:
    if kind == "SpotReport":
        return f"seat {data.get('seat')} {wager_name(data.get('spot'))}: {money(data.get('cents'))} on the spot"
    if kind == "ButtonChanged" and data.get("pressed"):
        return f"button {wager_name(data.get('button'))}"
    if kind == "SupervisorAction":
        return f"SUPERVISOR {data.get('action')}: {data.get('reason')}"
    if kind in ("LinkDown", "LinkUp", "DeviceFault", "CardUnreadable", "Jam", "DoorChanged", "JournalFault"):
        return f"FAULT {kind} {data.get('device', '')}"
    return None


def recall_view(table_id: str, record: Mapping[str, Any]) -> tuple[dict[str, object], list[str]]:
    """The recall page's data and what of it was unreadable (each part read on its own)."""
    problems: list[str] = []
    r = record.get("recall") if isinstance(record.get("recall"), Mapping) else {}
    assert isinstance(r, Mapping)
    settlement = r.get("settlement") if isinstance(r.get("settlement"), Mapping) else {}
    assert isinstance(settlement, Mapping)
    game = record.get("game")
    dealer_info = settlement.get("dealer") if isinstance(settlement.get("dealer"), Mapping) else {}
    assert isinstance(dealer_info, Mapping)
    view: dict[str, Any] = {
        "table_id": table_id,
        "round": r.get("round", "?"),
        "game": game_name(game),
        "started": _clock_time(r.get("started", 0)),
        "ended": _clock_time(r.get("ended", 0)),
        "void": bool(r.get("void")),
        "house_net": settlement.get("house_net"),
        "rule": hand_name(dealer_info["rule"]) if dealer_info.get("rule") else "",
        "shown": [(k, cards_view(record[k])) for k in ("community", "dealer") if record.get(k)],
        "seats": [],
        "dealt": [],
        "steps": [],
        "events": [],
    }
    seat_nets = settlement.get("seats") if isinstance(settlement.get("seats"), Mapping) else {}
    assert isinstance(seat_nets, Mapping)
    seats = record.get("seats") if isinstance(record.get("seats"), Mapping) else {}
    assert isinstance(seats, Mapping)

    def order(n: object) -> tuple[int, str]:
        return (int(str(n)), "") if str(n).isdigit() else (10**6, str(n))

    for n in sorted(seats, key=order):
        try:
            seat, result = seats[n], seat_nets.get(n, {})
            if not isinstance(seat, Mapping) or not isinstance(result, Mapping):
                raise TypeError("not an object")
            view["seats"].append(_seat_view(game, n, seat, result))
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            problems.append(f"seat {n}")
            view["seats"].append({"n": str(n), "unreadable": type(exc).__name__})
    for c in r.get("cards") or []:
        if isinstance(c, Mapping):
            view["dealt"].append({"index": c.get("index"), "card": card_view(c.get("card")), "to": c.get("to")})
        else:
            problems.append("a dealt card")
    for s in settlement.get("procedure") or []:
        view["steps"].append(str(s.get("text", "")) if isinstance(s, Mapping) else "?")
    for ev in r.get("events") or []:
        if not isinstance(ev, Mapping):
            continue
        data = ev.get("data") if isinstance(ev.get("data"), Mapping) else {}
        assert isinstance(data, Mapping)
        text = _event_text(str(ev.get("kind", "")), data)
        if text is not None:
            view["events"].append((_clock_time(ev.get("at", 0)), text))
    return view, problems


def recall_html(table_id: str, record: Mapping[str, Any]) -> str:
    """One finished round in full (the page's section, without its frame)."""
    view, _ = recall_view(table_id, record)
    return TEMPLATES.get_template("recall.html").render(recall=view)


# --- the app --------------------------------------------------------------------------------------


def _render(name: str, body_only: bool = False, **values: object) -> str:
    template = TEMPLATES.get_template(name)
    if body_only:
        return "".join(template.blocks["body"](template.new_context(values)))
    return template.render(**values)


def _round_line(r: RoundLine) -> dict[str, object]:
    try:
        ended = r.ended_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
    except (AttributeError, ValueError, OverflowError, OSError):
        ended = "?"
    return {
        "round_no": r.round_no,
        "ended": ended,
        "seats": r.seats,
        "handle": r.handle,
        "win": r.win if isinstance(r.win, int) else 0,
        "void": r.void,
        "faults": r.faults,
    }


TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A table id as the floor has it (one NATS subject token)."""


def _when(value: datetime) -> str:
    try:
        return value.astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")
    except (AttributeError, ValueError, OverflowError, OSError):
        return "?"


def round_search(
    request: Request, reader: FloorReader, now: Callable[[], datetime], page: Callable[..., Response]
) -> Response:
    """The round search page (``/search?table=ID&at=TIME``): the form, and what it found; a table
    id or a time that is not one is a 400 naming it, with the form again."""
    table_id = request.query_params.get("table", "").strip()
    at_text = request.query_params.get("at", "").strip()
    local = now().astimezone()
    values: dict[str, object] = {"title": "find a round", "table_id": table_id[:64], "at_text": at_text[:64]}
    values.update(zone=local.strftime("%Z %z"), searched=False, problem="")
    if not table_id and not at_text:
        return page(request, "search.html", **values)
    problem = ""
    if not TABLE_ID.fullmatch(table_id):
        problem = f"table: {table_id[:40]!r} is not a table id (letters, digits, _ and -)"
    else:
        try:
            at = datetime.fromtimestamp(parse_local_time(at_text, local.date()), UTC)
        except NotATime as exc:
            problem = f"time: {exc}"
    if problem:
        return page(request, "search.html", 400, **{**values, "problem": problem})
    found, in_play = reader.rounds_at(table_id, at)
    when = at.astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")
    if in_play is not None:
        heading = f"round {in_play} was in play at {when}"
    elif found:
        heading = f"no round was in play at {when}; the nearest before and after"
    else:
        heading = f"no finished round at {when}"
    rows = [
        {**_round_line(r), "started": _when(r.started_at), "ended": _when(r.ended_at), "in_play": r.round_no == in_play}
        for r in found
    ]
    return page(request, "search.html", **{**values, "searched": True, "heading": heading, "rounds": rows})


def round_number(text: str) -> int | None:
    """A path's round number: digits, 1 to :data:`MAX_ROUND` (else ``None``: the page is 404)."""
    if not text.isascii() or not text.isdigit() or len(text) > len(str(MAX_ROUND)):
        return None
    n = int(text)
    return n if 1 <= n <= MAX_ROUND else None


class _PitView:
    """The pit view's pages, data and live stream on one reader (:func:`pit_app` routes to them)."""

    def __init__(self, reader: FloorReader, now: Callable[[], datetime], refresh_s: float) -> None:
        self.reader = reader
        self.now = now
        self.refresh_s = refresh_s
        self.latest: list[Any] = [-math.inf, None]  # (when, values): one read of the store for all streams
        self.slots = StreamSlots(MAX_STREAMS)
        self.rendered: list[Any] = [None, ""]  # (version, the overview's body as JSON): rendered once per change

    def today(self) -> datetime:
        return self.now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)

    def page(self, request: Request, name: str, status: int = 200, **values: object) -> Response:
        values.setdefault("unreadable", "")
        values["now"] = self.now().astimezone().strftime("%H:%M:%S")
        values["secret"] = page_secret(request.scope)  # the session's first page only
        return TEMPLATES.TemplateResponse(
            request, name, values, status_code=status, headers={"cache-control": "no-store"}
        )

    def guarded(self, handler: Callable[[Request], Response]) -> Callable[[Request], Awaitable[Response]]:
        """A page whose data cannot be read says so (200 with the reason), never a 500."""

        async def run(request: Request) -> Response:
            try:
                return handler(request)
            except Exception as exc:
                log.exception("pit view: %s could not be drawn", request.url.path)
                if request.url.path.startswith("/api/"):
                    return JSONResponse({"unreadable": type(exc).__name__})
                return self.page(request, "base.html", 200, title="unreadable", unreadable=type(exc).__name__)

        return run

    def series(self, table_id: str) -> list[RoundHold]:
        hold_series = getattr(self.reader, "hold_series", None)
        return list(hold_series(table_id)) if hold_series is not None else []

    def overview_values(self) -> dict[str, Any]:
        tables = self.reader.tables(self.today(), self.now())
        since = self.today()
        rows = []
        for t in tables:
            try:
                today_rounds = [r for r in self.series(t.table_id) if r.ended_at >= since]
            except Exception:
                log.exception("pit view: the hold series of %s", t.table_id)
                today_rounds = []
            rows.append(table_row(t, today_rounds))
        totals, holding = floor_totals(rows)
        values = {"tables": rows, "totals": totals, "holding": holding}
        # what the overview shows, as a short digest: the page is sent it, and the stream sends
        # a new body only when it differs
        text = json.dumps(values, sort_keys=True, default=str)
        return {**values, "version": hashlib.sha256(text.encode()).hexdigest()[:16]}

    def overview(self, request: Request) -> Response:
        return self.page(request, "overview.html", title="the floor", live=True, **self.overview_values())

    async def shared_values(self) -> dict[str, Any]:
        """The overview's values, read at most once per half :data:`REFRESH_S` for every open
        stream together (ten pit pages cost the store what one does)."""
        latest = self.latest
        if time.monotonic() - latest[0] >= self.refresh_s / 2:
            latest[1] = await asyncio.to_thread(self.overview_values)
            latest[0] = time.monotonic()
        return dict(latest[1])

    def overview_event(self, values: Mapping[str, object]) -> str:
        rendered = self.rendered
        if rendered[0] != values["version"]:
            rendered[1] = json.dumps(_render("overview.html", body_only=True, live=True, **values))
            rendered[0] = values["version"]
        return str(rendered[1])

    async def events(self, request: Request) -> Response:
        """The overview, live: its body as an ``overview`` event when it differs from what the
        page shows (``?shown=VERSION``; checked every :data:`REFRESH_S`), a ``beat`` otherwise;
        the page swaps it in (no reload). The body is rendered once per change for every stream."""
        slots = self.slots
        refused = stream_refusal(request.scope, slots)
        if isinstance(refused, Response):
            return refused
        slot = refused
        shown = request.query_params.get("shown", "")[:64]
        session, sessions = request.scope.get(SESSION_KEY), request.scope.get("tablectl.sessions")

        def open_still() -> bool:
            """The stream ends with its session (a logout, its expiry), as the table view's does."""
            if slot.ended:
                return False
            return not isinstance(session, Session) or not isinstance(sessions, Sessions) or sessions.alive(session)

        return SlotStream(
            lambda: slots.give_back(slot),
            self._stream(shown, open_still),
            media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},
        )

    async def _stream(self, shown: str, open_still: Callable[[], bool]) -> AsyncIterator[bytes]:
        """The live overview's events while ``open_still()``, from what the page shows (``shown``)."""
        while open_still():
            stamp = self.now().astimezone().strftime("%H:%M:%S")
            try:
                values = await self.shared_values()
                if values["version"] != shown:
                    shown = values["version"]
                    body = self.overview_event(values)
                    yield f'event: overview\ndata: {{"html": {body}, "now": "{stamp}"}}\n\n'.encode()
                    await asyncio.sleep(self.refresh_s)
                    continue
            except Exception:
                log.exception("pit view: the live overview")
            yield f"event: beat\ndata: {json.dumps({'now': stamp})}\n\n".encode()
            await asyncio.sleep(self.refresh_s)

    def known(self, table_id: str) -> bool:
        has_table = getattr(self.reader, "has_table", None)
        if has_table is not None:
            return bool(has_table(table_id))
        return any(t.table_id == table_id for t in self.reader.tables(self.today(), self.now()))

    def not_found(self, request: Request, what: str) -> Response:
        return self.page(request, "base.html", 404, title="not found", missing=what)

    def table_now(self, table_id: str) -> dict[str, Any] | None:
        """The table's state as the overview's row shows it (its hold and reason), with the round
        under way (or the last one), or ``None`` when the store does not list it."""
        try:
            state = next((t for t in self.reader.tables(self.today(), self.now()) if t.table_id == table_id), None)
        except Exception:
            log.exception("pit view: the state of %s", table_id)
            return {"state": "unreadable", "badge": "UNREADABLE", "detail": "", "unreadable": "its state"}
        if state is None:
            return None
        row = table_row(state, None)
        try:
            last = int(state.last_round) if state.last_round is not None else None
            row["in_play"] = bool(state.in_play)
            row["round"] = (last or 0) + 1 if state.in_play else last
        except (TypeError, ValueError) as exc:
            row["unreadable"] = type(exc).__name__
        return row

    def table(self, request: Request) -> Response:
        table_id = request.path_params["table_id"]
        if len(table_id) > MAX_ID or not self.known(table_id):
            return self.not_found(request, f"No table {table_id[:MAX_ID]!r} has reported to the floor.")
        current = self.table_now(table_id)
        rounds = self.reader.rounds(table_id)
        recall = None
        problems: list[str] = []
        if rounds:
            record = self.reader.recall(table_id, rounds[0].round_no)
            if record is not None:
                recall, problems = recall_view(table_id, record)
        try:
            chart = hold_chart(self.series(table_id))
        except Exception:
            log.exception("pit view: the hold chart of %s", table_id)
            chart = None
            problems.append("the hold chart")
        return self.page(
            request,
            "table.html",
            title=table_id,
            table_id=table_id,
            now_row=current,
            chart=chart,
            rounds=[_round_line(r) for r in rounds],
            recall=recall,
            unreadable=", ".join(problems),
        )

    def one_round(self, request: Request) -> Response:
        table_id, number = request.path_params["table_id"], round_number(request.path_params["round_no"])
        if number is None or len(table_id) > MAX_ID:
            return self.not_found(request, "There is no such round: a round number is a whole number from 1.")
        record = self.reader.recall(table_id, number)
        if record is None:
            return self.page(
                request, "round.html", 404, title=table_id, table_id=table_id, round_no=number, recall=None
            )
        recall, problems = recall_view(table_id, record)
        return self.page(
            request,
            "round.html",
            title=f"{table_id} round {number}",
            table_id=table_id,
            round_no=number,
            recall=recall,
            unreadable=", ".join(problems),
        )

    def search(self, request: Request) -> Response:
        """A round found by table and time: the one in play then, with the one before and after."""
        return round_search(request, self.reader, self.now, self.page)

    def api_tables(self, request: Request) -> Response:
        return JSONResponse(
            [
                {**asdict(t), "last_at": t.last_at.isoformat(), "hold_percent": t.hold_percent}
                for t in self.reader.tables(self.today(), self.now())
            ]
        )

    def api_rounds(self, request: Request) -> Response:
        if len(request.path_params["table_id"]) > MAX_ID or not self.known(request.path_params["table_id"]):
            return JSONResponse({"error": "no such table"}, 404)
        rounds = self.reader.rounds(request.path_params["table_id"])
        return JSONResponse(
            [{**asdict(r), "started_at": r.started_at.isoformat(), "ended_at": r.ended_at.isoformat()} for r in rounds]
        )

    def api_round(self, request: Request) -> Response:
        number = round_number(request.path_params["round_no"])
        if number is None:
            return JSONResponse({"error": "no such round"}, 404)
        record = self.reader.recall(request.path_params["table_id"], number)
        return JSONResponse(record) if record is not None else JSONResponse({"error": "no such round"}, 404)


def pit_app(
    reader: FloorReader, clock: Callable[[], datetime] | None = None, refresh_s: float = REFRESH_S
) -> Starlette:
    """The ASGI app of the pit view on ``reader`` (the server puts the guard in front)."""
    view = _PitView(reader, clock or (lambda: datetime.now(UTC)), refresh_s)
    return Starlette(
        routes=[
            Route("/", view.guarded(view.overview)),
            Route("/tables/{table_id}", view.guarded(view.table)),
            Route("/tables/{table_id}/rounds/{round_no}", view.guarded(view.one_round)),
            Route("/search", view.guarded(view.search)),
            Route("/api/tables", view.guarded(view.api_tables)),
            Route("/api/tables/{table_id}/rounds", view.guarded(view.api_rounds)),
            Route("/api/tables/{table_id}/rounds/{round_no}", view.guarded(view.api_round)),
            Route("/events", view.events),
            static_files(),
        ]
    )
