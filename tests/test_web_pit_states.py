"""The pit overview's rules of issue #34 without a database, each in every state where it can
apply: a held table stays HOLD however long while its heartbeat comes, and keeps its reason when
it goes silent; the "On hold" tile counts every held table; a table before its first round by a
plain name; a round number in a path is 1 to 2**63-1 or 404; the hold chart's axis fitted to
the hold and its band, not to the first rounds' band."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

from test_web_pit_pages import _state
from web_helpers import TablesOnly, stream_until

from controller.web._hold_chart import hold_chart
from controller.web.pit_app import floor_totals, round_number, table_row
from controller.web.pit_store import STALE_S, RoundHold

LONG = STALE_S * 30  # an hour: silent for it, only a heartbeat would tell


@pytest.mark.parametrize(
    ("hold", "in_play", "silent_s", "state", "words"),
    [
        ("shoe jammed", False, 0.0, "hold", "shoe jammed"),  # held between rounds, heartbeat recent
        ("shoe jammed", True, 0.0, "hold", "shoe jammed"),  # held mid-round
        ("shoe jammed", False, LONG, "stale", "it last held on: shoe jammed"),  # silent beyond the heartbeat
        ("shoe jammed", True, LONG, "stale", "it last held on: shoe jammed"),
        (None, True, 0.0, "play", "dealing"),
        (None, True, LONG, "stale", "under way"),
        (None, False, 0.0, "idle", "open for bets"),
        (None, False, LONG, "finished", "was its last"),
    ],
)
def test_hold_stays_hold_and_silence_is_beyond_the_heartbeat(
    hold: str | None, in_play: bool, silent_s: float, state: str, words: str
) -> None:
    activity = "dealing" if in_play else "open for bets"
    row = table_row(_state(hold=hold, in_play=in_play, activity=activity, stale_s=silent_s), [])
    assert row["state"] == state and words in row["detail"]
    _, holding = floor_totals([row])
    assert holding == (1 if hold else 0)  # the tile counts a held table, reporting or not


def test_a_table_before_its_first_round_and_an_unreadable_one() -> None:
    row = table_row(_state(game=None, last_round=None, rounds_today=0, handle_today=0, win_today=0), [])
    assert row["game"] == "not known yet" and "?" not in row["detail"]
    assert table_row(_state(game="boston5"), [])["game"] == "Boston 5"
    bad = table_row(_state(unreadable="DataError", quarantined=3, pending=2), [])
    assert bad["unreadable"] == "DataError" and bad["alerts"] == ["3 quarantined", "2 pending"]
    totals, _ = floor_totals([bad, table_row(_state(), [])])
    assert totals["rounds"] == 5  # the unreadable row is left out of the floor's totals, the other counted


def test_a_round_number_in_a_path() -> None:
    assert round_number("1") == 1 and round_number(str(2**63 - 1)) == 2**63 - 1
    for text in ("0", "-1", "+1", "1e3", "１", "", "9" * 5000, str(2**63), " 1"):
        assert round_number(text) is None, text


def test_the_chart_axis_is_fitted_to_the_hold_and_its_band() -> None:
    now = datetime.now(UTC)
    # 300 rounds near a 3% hold: the first rounds' band is tens of points wide, the last one's
    # a point or so either side
    rounds = [RoundHold(n, now, False, 1000, 30 + (n % 3) - 1, 30.0, 9.0e4) for n in range(1, 301)]
    chart = hold_chart(rounds)
    assert chart is not None
    ticks = [float(label.rstrip("%")) for _, label in chart.y_ticks]
    assert -2.0 <= min(ticks) and max(ticks) <= 8.0, ticks  # not -50%..+50%
    last = chart.last
    assert last.low is not None and last.high is not None
    assert min(ticks) <= last.low + 1.0 and last.high - 1.0 <= max(ticks)  # the band where it ends is in view


@pytest.mark.parametrize(
    ("hold", "in_play", "round_words"),
    [
        ("shoe jammed", True, "Round 8 in play"),  # held mid-round: the round it holds
        ("shoe jammed", False, "Round 7 was the last"),  # held between rounds
        (None, True, "Round 8 in play"),
        (None, False, "Round 7 was the last"),
    ],
)
def test_the_table_page_shows_its_hold_reason_and_round(hold: str | None, in_play: bool, round_words: str) -> None:
    """Issue 44 item 7: a held table's detail page says HOLD, why and in which round, as the overview does."""
    import http.client
    import re

    from deadlines import STATE_TIMEOUT_S

    from controller.web.pit_app import pit_app
    from controller.web.server import WebAddress, WebServer

    server = WebServer(
        pit_app(TablesOnly([_state(table_id="t1", hold=hold, in_play=in_play, last_round=7)])),
        WebAddress("127.0.0.1", 0),
    )
    server.start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=STATE_TIMEOUT_S)
        conn.request("GET", "/tables/t1")
        r = conn.getresponse()
        body = r.read().decode()
        conn.close()
    finally:
        server.stop()
    assert r.status == 200, body
    now = re.search(r'<section class="card-box" id="now".*?</section>', body, re.S)
    assert now is not None, body
    assert round_words in now.group(0)
    if hold:
        assert 'data-hold="yes"' in now.group(0) and "HOLD" in now.group(0) and hold in now.group(0)
    else:
        assert 'data-hold="no"' in now.group(0)


def test_the_live_overview_is_rendered_once_per_change_for_every_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 44 item 7: ten pit pages (or one client asking with ``?shown=`` again and again) cost
    one rendering of the overview per change, not one per stream."""
    import http.client
    import socket
    from typing import Any

    from deadlines import STATE_TIMEOUT_S

    from controller.web import pit_app as module
    from controller.web.server import WebAddress, WebServer

    rendered: list[str] = []
    real = module._render

    def counting(name: str, body_only: bool = False, **values: Any) -> str:
        if body_only:
            rendered.append(name)
        return real(name, body_only, **values)

    monkeypatch.setattr(module, "_render", counting)

    server = WebServer(
        module.pit_app(TablesOnly([_state(table_id="t1", hold="shoe jammed")]), refresh_s=3600.0),
        WebAddress("127.0.0.1", 0),
    )
    server.start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=STATE_TIMEOUT_S)
        conn.request("GET", "/", headers={"accept": "text/html"})
        r = conn.getresponse()
        r.read()
        cookie = str(r.getheader("set-cookie")).split(";")[0]
        conn.close()
        for n in range(10):
            with socket.create_connection(("127.0.0.1", server.port), timeout=STATE_TIMEOUT_S) as s:
                stream_until(s, f"/events?shown=x{n}", cookie, b"event: overview")
    finally:
        server.stop()
    assert rendered == ["overview.html"]
