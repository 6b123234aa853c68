"""The pit view's pieces without a database: the hold a table's fault events leave, and the pages
(every value escaped)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from deadlines import STATE_TIMEOUT_S

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

from web_helpers import open_table_row

from controller.web.pit_app import overview_html, recall_html
from controller.web.pit_store import TableState, table_state


def test_a_fault_holds_until_cleared_and_a_link_until_it_is_back() -> None:
    jam = (12, "Jam", {"device": "shoe"})
    assert table_state([jam], last_round_seq=10) == "shoe jammed"
    assert table_state([jam, (13, "SupervisorAction", {"action": "fault cleared"})], 10) is None
    assert table_state([jam], last_round_seq=20) is None  # a fault of a finished round
    down = (30, "LinkDown", {"device": "panel", "reason": "no reply"})
    assert table_state([down], 20) == "panel link down (no reply)"
    assert table_state([down, (31, "LinkUp", {"device": "panel"})], 20) is None
    renumbered = (35, "DeviceFault", {"device": "shoe", "kind": "renumbered", "error": "numbering started over"})
    assert table_state([renumbered], 20) is None  # listed among the faults, not a hold
    failed = (36, "DeviceFault", {"device": "panel", "kind": "command_failed", "error": "display failed"})
    assert table_state([failed], 20) == "panel: display failed"
    jammed, ok = ({"device": "shoe", "status": status} for status in ("jam", "ok"))
    for other in ([], [(13, "CardUnreadable", {"index": 2})]):
        # the jam ends when the shoe's state (read again while jammed) is ok; another fault stays
        assert table_state([jam, *other, (14, "ShoeState", jammed)], 10) == "; ".join(
            ["shoe jammed"] + ["card 2 unreadable"] * len(other)
        )
        assert table_state([jam, *other, (14, "ShoeState", jammed), (15, "ShoeState", ok)], 10) == (
            "card 2 unreadable" if other else None
        )
    door = (40, "DoorChanged", {"device": "shoe", "open": True})
    assert table_state([door, (41, "ShoeState", ok)], 50) is None
    assert table_state([(41, "ShoeState", {"device": "shoe", "status": "door_open"})], 50) == "shoe door open"
    assert table_state([door], 50) == "shoe door open"
    assert table_state([door, (41, "DoorChanged", {"device": "shoe", "open": False})], 50) is None


def test_pages_escape_what_the_tables_sent() -> None:
    t = open_table_row(
        table_id="<script>x</script>",
        game="boston5",
        last_round=3,
        in_play=True,
        activity="dealing",
        hold="<b>jam</b>",
        faults_today=["<i>f</i>"],
        rounds_today=3,
        win_today=500,
        theoretical_win_today=300,
    )
    page = overview_html([t])
    assert "<script>x" not in page and "&lt;script&gt;" in page and "<b>jam" not in page
    assert "5.00%" in page and "3.00%" in page and "+2.00 pts" in page
    record = {
        "game": "boston5",
        "seats": {"1": {"wagers": {"ante": 500}, "cards": "As Kd", "folded": True}},
        "dealer": "2c 3d",
        "recall": {"round": 4, "cards": [{"index": 1, "card": "As", "to": "seat <1>"}], "settlement": None},
    }
    html = recall_html("t1", record)
    assert "seat &lt;1&gt;" in html and 'data-card="As"' in html and "folded" in html


def test_floor_web_refuses_a_store_it_cannot_read() -> None:
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "controller", "floor", "web", "--db", "postgresql://pit:secret@127.0.0.1:1/floor"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "--db" in r.stderr and "secret" not in r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "controller", "floor", "web", "--db", "x", "--web", "0.0.0.0:8090"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and "needs --web-token" in r.stderr


def _state(**changes: object) -> TableState:
    return open_table_row(**{"theoretical_win_today": 300, **changes})


def test_plain_names_and_wagers_in_the_games_order() -> None:
    from controller.game import game_name, hand_name, wager_name, wager_order

    assert [game_name(g) for g in ("boston5", "mississippi_stud", "pai_gow")] == [
        "Boston 5",
        "Mississippi Stud",
        "Pai Gow Poker",
    ]
    assert hand_name("foxwoods.no_pair") == "Foxwoods: no pair" and hand_name("one_pair") == "one pair"
    assert wager_name("pai_gow") == "pai gow"
    assert wager_order("mississippi_stud", ["fifth", "ante", "fourth", "third"]) == ["ante", "third", "fourth", "fifth"]
    assert wager_order("pai_gow", ["envy_marker", "insurance", "pai_gow"]) == ["pai_gow", "insurance", "envy_marker"]
    record = {
        "game": "mississippi_stud",
        "seats": {"1": {"wagers": {"third": 500, "ante": 500, "fifth": 500, "fourth": 500}, "cards": "As Kd"}},
        "recall": {"round": 4, "cards": [], "settlement": None},
    }
    html = recall_html("t1", record)
    assert "Mississippi Stud" in html
    order = [html.index(f"{w} $5.00") for w in ("ante", "third", "fourth", "fifth")]
    assert order == sorted(order)


def test_states_told_apart() -> None:
    page = overview_html(
        [
            _state(table_id="open"),
            _state(table_id="playing", in_play=True, activity="dealing"),
            _state(table_id="holding", in_play=True, hold="shoe jammed"),
            _state(table_id="finished", stale_s=3600.0),
            _state(table_id="silent", stale_s=3600.0, in_play=True),
        ]
    )
    for table_id, state, badge in (
        ("open", "idle", "OPEN"),
        ("playing", "play", "PLAYING"),
        ("holding", "hold", "HOLD"),
        ("finished", "finished", "FINISHED"),
        ("silent", "stale", "NOT REPORTING"),
    ):
        assert f'data-table="{table_id}" data-hold="{"yes" if state == "hold" else "no"}" data-state="{state}"' in page
        assert badge in page
    assert "round 8: dealing" in page  # the round in play


def test_the_delta_is_coloured_only_outside_the_band() -> None:
    from controller.web.pit_store import RoundHold

    now = datetime.now(UTC)
    noisy = [RoundHold(n, now, False, 2000, 180, 60.0, 1.5 * 2000**2) for n in range(1, 6)]
    page = overview_html([_state()], {"t1": noisy})
    assert 'class="small delta plain" data-outside="no"' in page and "within the 95% band" in page
    steady = [RoundHold(n, now, False, 2000, 180, 60.0, 100.0) for n in range(1, 400)]
    page = overview_html([_state()], {"t1": steady})
    assert 'class="small delta pos" data-outside="yes"' in page


def test_a_malformed_stored_value_is_shown_unreadable_never_a_500() -> None:
    import http.client
    from typing import Any

    from controller.web.pit_app import pit_app
    from controller.web.pit_store import RoundLine
    from controller.web.server import WebAddress, WebServer

    now = datetime.now(UTC)
    bad_record: dict[str, Any] = {
        "game": "boston5",
        "seats": {"1": {"wagers": {"ante": "five"}, "cards": "Zz 9"}, "2": "not a seat", "x": {"cards": None}},
        "dealer": 17,
        "recall": {"round": "?", "started": "noon", "cards": [{"card": "Q?"}, 5], "settlement": {"seats": []}},
    }

    class BadReader:
        def tables(self, since: object, now_: object) -> list[TableState]:
            return [_state(table_id="t1", rounds_today="many"), _state(table_id="t2")]

        def rounds(self, table_id: str, limit: int = 20) -> list[RoundLine]:
            return [RoundLine(3, now, now, False, 1, 500, 100, 0)]

        def recall(self, table_id: str, round_no: int) -> dict[str, Any] | None:
            return bad_record

        def hold_series(self, table_id: str, limit: int = 500) -> list[Any]:
            raise ValueError("a stored value that is not a number")

    server = WebServer(pit_app(BadReader()), WebAddress("127.0.0.1", 0))
    server.start()
    try:
        for path in ("/", "/tables/t1", "/tables/t1/rounds/3"):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=STATE_TIMEOUT_S)
            conn.request("GET", path)
            r = conn.getresponse()
            body = r.read().decode()
            conn.close()
            assert r.status == 200, (path, body)
            assert "unreadable" in body, path
    finally:
        server.stop()
