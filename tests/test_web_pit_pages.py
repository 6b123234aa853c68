"""The pit view's pieces without a database: the hold a table's fault events leave, and the pages
(every value escaped)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

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
    door = (40, "DoorChanged", {"device": "shoe", "open": True})
    assert table_state([door], 50) == "shoe door open"
    assert table_state([door, (41, "DoorChanged", {"device": "shoe", "open": False})], 50) is None


def test_pages_escape_what_the_tables_sent() -> None:
    now = datetime.now(UTC)
    t = TableState(
        table_id="<script>x</script>",
        game="boston5",
        last_at=now,
        last_round=3,
        in_play=True,
        activity="dealing",
        hold="<b>jam</b>",
        faults_today=["<i>f</i>"],
        rounds_today=3,
        handle_today=10000,
        win_today=500,
        voids_today=0,
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
