"""The pit view (``tablectl floor web --db URL``): every table on the floor, read only, from the
floor store; a click through to a table's recent rounds and each round's full recall.

Pages are rendered on the server (the overview refreshes itself every few seconds); the same
data is at ``/api/tables``, ``/api/tables/{id}/rounds`` and ``/api/tables/{id}/rounds/{n}``.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from controller.web.pit_store import STALE_S, FloorReader, RoundLine, TableState
from controller.web.server import TokenGate

__all__ = ["pit_app", "REFRESH_S"]

STATIC = Path(__file__).parent / "static"
REFRESH_S = 5
_NO_STORE = {"cache-control": "no-store"}
SUITS = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}


def e(value: object) -> str:
    return html.escape(str(value), quote=True)


def money(cents: int | None) -> str:
    if cents is None:
        return "\u2014"
    return f"{'-' if cents < 0 else ''}${abs(cents) / 100:,.2f}"


def pct(value: float | None) -> str:
    return "\u2014" if value is None else f"{value:.2f}%"


def card_html(text: str) -> str:
    if text == "JK":
        return '<span class="pc joker">JOKER</span>'
    rank = "10" if text[0] == "T" else text[0]
    red = " red" if text[1] in "hd" else ""
    return f'<span class="pc{red}" data-card="{e(text)}"><span class="r">{e(rank)}</span><span class="s">{SUITS.get(text[1], "?")}</span></span>'


def cards_html(text: str) -> str:
    return "".join(card_html(c) for c in str(text).split())


def _page(title: str, body: str, refresh: bool = False) -> str:
    css = (STATIC / "common.css").read_text() + (STATIC / "pit.css").read_text()
    meta = f'<meta http-equiv="refresh" content="{REFRESH_S}">' if refresh else ""
    now = datetime.now().strftime("%H:%M:%S")
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8">{meta}<title>{e(title)}</title>'
        f"<style>{css}</style></head><body>"
        f'<header class="bar"><span class="brand">TABLECTL</span><a class="title" href="/">Pit view</a>'
        f'<span class="sub">{e(title)}</span><span class="spacer"></span><span class="sub">as of {now}</span></header>'
        f"<main>{body}</main></body></html>"
    )


def _state_cell(t: TableState) -> str:
    if t.stale_s > STALE_S:
        return f'<span class="badge stale">NOT REPORTING</span><div class="muted">{int(t.stale_s // 60)} min since its last record</div>'
    if t.hold:
        return f'<span class="badge hold">HOLD</span><div class="hold-text">{e(t.hold)}</div>'
    if t.in_play:
        return f'<span class="badge play">IN PLAY</span><div class="muted">round {(t.last_round or 0) + 1}: {e(t.activity)}</div>'
    return (
        f'<span class="badge idle">OPEN</span><div class="muted">round {(t.last_round or 0) + 1}: {e(t.activity)}</div>'
    )


def overview_html(tables: list[TableState]) -> str:
    """The floor: one row per table, with the floor's totals."""
    rows = []
    for t in tables:
        diff = None
        if t.hold_percent is not None and t.theoretical_percent is not None:
            diff = t.hold_percent - t.theoretical_percent
        faults = "".join(f"<li>{e(f)}</li>" for f in t.faults_today[-3:]) or '<li class="muted">none</li>'
        rows.append(
            f'<tr class="table-row" data-table="{e(t.table_id)}" data-hold="{"yes" if t.hold else "no"}">'
            f'<td><a class="table-link" href="/tables/{quote(t.table_id)}">{e(t.table_id)}</a></td>'
            f"<td>{e((t.game or '?').replace('_', ' '))}</td>"
            f"<td>{_state_cell(t)}</td>"
            f'<td class="num">{t.rounds_today}</td>'
            f'<td class="num">{money(t.handle_today)}</td>'
            f'<td class="num {"pos" if t.win_today >= 0 else "neg"}">{money(t.win_today)}</td>'
            f'<td class="num">{pct(t.hold_percent)}</td>'
            f'<td class="num">{pct(t.theoretical_percent)}'
            + (f'<div class="{"pos" if diff >= 0 else "neg"} small">{diff:+.2f} pts</div>' if diff is not None else "")
            + "</td>"
            f'<td><span class="count">{len(t.faults_today)}</span><ul class="fault-list">{faults}</ul></td>'
            "</tr>"
        )
    handle = sum(t.handle_today for t in tables)
    win = sum(t.win_today for t in tables)
    holding = sum(1 for t in tables if t.hold)
    summary = (
        '<section class="tiles">'
        f'<div class="tile"><div class="k">Tables</div><div class="v" id="table-count">{len(tables)}</div></div>'
        f'<div class="tile"><div class="k">On hold</div><div class="v {"neg" if holding else ""}">{holding}</div></div>'
        f'<div class="tile"><div class="k">Rounds today</div><div class="v">{sum(t.rounds_today for t in tables)}</div></div>'
        f'<div class="tile"><div class="k">Handle today</div><div class="v">{money(handle)}</div></div>'
        f'<div class="tile"><div class="k">Win today</div><div class="v {"pos" if win >= 0 else "neg"}">{money(win)}</div></div>'
        f'<div class="tile"><div class="k">Hold today</div><div class="v">{pct(100.0 * win / handle if handle else None)}</div></div>'
        "</section>"
    )
    head = (
        "<tr><th>Table</th><th>Game</th><th>State</th><th class='num'>Rounds</th><th class='num'>Handle</th>"
        "<th class='num'>Win</th><th class='num'>Hold</th><th class='num'>Theoretical</th><th>Faults today</th></tr>"
    )
    empty = '<tr><td colspan="9" class="muted">no table has reported to the floor yet</td></tr>'
    return (
        summary
        + f'<section class="card-box"><h2>Tables · today</h2><table class="grid" id="tables">{head}{"".join(rows) or empty}</table>'
        '<p class="muted small">Hold = win / handle. Theoretical = the house edge of each spot times what was '
        "wagered on it (controller.par; computed once per table config in the background, \u2014 until ready). State comes from the table's last records: the floor never "
        "sees a card before its round is over.</p></section>"
    )


def rounds_html(table_id: str, rounds: list[RoundLine]) -> str:
    """A table's recent rounds, each a link to its recall."""
    rows = "".join(
        f'<tr class="round-row" data-round="{r.round_no}">'
        f'<td><a href="/tables/{quote(table_id)}/rounds/{r.round_no}">Round {r.round_no}</a></td>'
        f"<td>{r.ended_at.astimezone().strftime('%Y-%m-%d %H:%M:%S')}</td>"
        f'<td class="num">{r.seats}</td><td class="num">{money(r.handle)}</td>'
        f'<td class="num {"pos" if r.win >= 0 else "neg"}">{money(r.win)}</td>'
        f"<td>{'VOID' if r.void else ''}</td><td class='num'>{r.faults}</td></tr>"
        for r in rounds
    )
    head = "<tr><th>Round</th><th>Ended</th><th class='num'>Seats</th><th class='num'>Handle</th><th class='num'>Win</th><th></th><th class='num'>Faults</th></tr>"
    return (
        f'<section class="card-box"><h2>{e(table_id)} · recent rounds</h2>'
        f'<table class="grid" id="rounds">{head}{rows or "<tr><td colspan=7 class=muted>no finished round yet</td></tr>"}</table></section>'
    )


def _decisions(seat: dict[str, Any]) -> str:
    out = []
    if seat.get("folded_at"):
        out.append(f"folded at {seat['folded_at']} street")
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


def recall_html(table_id: str, record: dict[str, Any]) -> str:
    """One finished round in full: cards in dealt order, wagers, decisions, settlement, events."""
    r = record.get("recall", {})
    settlement = r.get("settlement") or {}
    seat_nets = settlement.get("seats", {})
    started = datetime.fromtimestamp(float(r.get("started", 0))).strftime("%H:%M:%S")
    ended = datetime.fromtimestamp(float(r.get("ended", 0))).strftime("%H:%M:%S")
    head = (
        f'<section class="card-box"><h2>{e(table_id)} · round {e(r.get("round", "?"))}</h2>'
        f'<div class="facts"><span>{e(str(record.get("game", "")).replace("_", " "))}</span>'
        f"<span>{started} \u2013 {ended}</span>"
        + ('<span class="badge hold">VOID</span>' if r.get("void") else "")
        + f'<span>house net <b id="recall-house">{money(settlement.get("house_net"))}</b></span></div>'
    )
    shown = []
    for key in ("community", "dealer"):
        if record.get(key):
            shown.append(f'<div class="hand"><span class="who">{key}</span>{cards_html(record[key])}</div>')
    seats = []
    for n, seat in sorted(record.get("seats", {}).items(), key=lambda kv: int(kv[0])):
        wagers = ", ".join(f"{spot.replace('_', ' ')} {money(c)}" for spot, c in seat.get("wagers", {}).items())
        results = seat_nets.get(n, {})
        per = ", ".join(
            f"{spot.replace('_', ' ')} {w.get('result', '')} {money(w.get('net'))}"
            for spot, w in results.get("wagers", {}).items()
        )
        net = results.get("net")
        seats.append(
            f'<tr class="seat-row" data-seat="{e(n)}" data-net="{e(net)}"><td>Seat {e(n)}</td>'
            f'<td class="cards">{cards_html(seat.get("cards", ""))}</td><td>{e(wagers)}</td>'
            f"<td>{e(_decisions(seat))}</td><td class='muted'>{e(per)}</td>"
            f'<td class="num {"pos" if (net or 0) > 0 else "neg" if (net or 0) < 0 else ""}">{money(net)}</td></tr>'
        )
    dealt = "".join(
        f'<li class="dealt" data-card="{e(c.get("card"))}" data-to="{e(c.get("to"))}">'
        f'<span class="idx">{e(c.get("index"))}</span>{card_html(str(c.get("card")))}<span class="to">{e(c.get("to"))}</span></li>'
        for c in r.get("cards", [])
    )
    steps = "".join(f"<li>{e(s.get('text', ''))}</li>" for s in settlement.get("procedure", []))
    events = []
    for ev in r.get("events", []):
        kind, data = ev.get("kind", ""), ev.get("data", {})
        if kind == "SpotReport":
            text = f"seat {data.get('seat')} {data.get('spot')}: {money(data.get('cents'))} on the spot"
        elif kind == "ButtonChanged" and data.get("pressed"):
            text = f"button {data.get('button')}"
        elif kind == "SupervisorAction":
            text = f"SUPERVISOR {data.get('action')}: {data.get('reason')}"
        elif kind in ("LinkDown", "LinkUp", "DeviceFault", "CardUnreadable", "Jam", "DoorChanged", "JournalFault"):
            text = f"FAULT {kind} {data.get('device', '')}"
        else:
            continue
        when = datetime.fromtimestamp(float(ev.get("at", 0))).strftime("%H:%M:%S")
        events.append(f'<li><span class="when">{when}</span>{e(text)}</li>')
    return (
        head
        + f'<div class="hands">{"".join(shown)}</div>'
        + '<table class="grid" id="recall-seats"><tr><th>Seat</th><th>Cards</th><th>Wagers</th><th>Decisions</th>'
        "<th>Results</th><th class='num'>Net</th></tr>" + "".join(seats) + "</table></section>"
        '<div class="two">'
        f'<section class="card-box"><h2>Cards in dealt order</h2><ol id="dealt">{dealt}</ol></section>'
        f'<section class="card-box"><h2>Settlement, as the dealer was walked through it</h2><ol class="steps">{steps}</ol>'
        f'<h2>Decisions and events</h2><ul class="events">{"".join(events)}</ul></section>'
        "</div>"
    )


def pit_app(reader: FloorReader, token: str | None = None, clock: Callable[[], datetime] | None = None) -> Any:
    """The ASGI app of the pit view on ``reader`` (wrapped in the token gate when ``token`` is set)."""
    now = clock or (lambda: datetime.now(UTC))

    def today() -> datetime:
        return now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)

    def overview(request: Request) -> Response:
        return HTMLResponse(_page("the floor", overview_html(reader.tables(today(), now())), True), headers=_NO_STORE)

    def table(request: Request) -> Response:
        table_id = request.path_params["table_id"]
        rounds = reader.rounds(table_id)
        body = rounds_html(table_id, rounds)
        if rounds:
            latest = reader.recall(table_id, rounds[0].round_no)
            if latest is not None:
                body += recall_html(table_id, latest)
        return HTMLResponse(_page(table_id, body), headers=_NO_STORE)

    def one_round(request: Request) -> Response:
        table_id, number = request.path_params["table_id"], request.path_params["round_no"]
        record = reader.recall(table_id, number)
        if record is None:
            return HTMLResponse(_page(table_id, f"<p>Round {number} of {e(table_id)} is not on the floor.</p>"), 404)
        return HTMLResponse(_page(f"{table_id} round {number}", recall_html(table_id, record)), headers=_NO_STORE)

    def api_tables(request: Request) -> Response:
        return JSONResponse(
            [
                {**asdict(t), "last_at": t.last_at.isoformat(), "hold_percent": t.hold_percent}
                for t in reader.tables(today(), now())
            ]
        )

    def api_rounds(request: Request) -> Response:
        rounds = reader.rounds(request.path_params["table_id"])
        return JSONResponse(
            [{**asdict(r), "started_at": r.started_at.isoformat(), "ended_at": r.ended_at.isoformat()} for r in rounds]
        )

    def api_round(request: Request) -> Response:
        record = reader.recall(request.path_params["table_id"], request.path_params["round_no"])
        return JSONResponse(record) if record is not None else JSONResponse({"error": "no such round"}, 404)

    app = Starlette(
        routes=[
            Route("/", overview),
            Route("/tables/{table_id}", table),
            Route("/tables/{table_id}/rounds/{round_no:int}", one_round),
            Route("/api/tables", api_tables),
            Route("/api/tables/{table_id}/rounds", api_rounds),
            Route("/api/tables/{table_id}/rounds/{round_no:int}", api_round),
        ]
    )
    return TokenGate(app, token)
