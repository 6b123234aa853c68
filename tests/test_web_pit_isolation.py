"""The pit isolated per table (issue #34, item 5), on a real PostgreSQL floor store: a property
test writes malformed values into every column the pit view reads, one table at a time, and
checks that every page answers 200 (a round page 200 or 404, never 500) and that every other
table's row is exactly as before; a held table stays HOLD with its reason (from its heartbeat)
however long it holds; the alerts of controller.floor.alerts on each row; a table not yet past
its first round by its plain game name. The rows are written straight into the store (owner
role); the pit reads with its own read-only role."""

from __future__ import annotations

import html as html_lib
import http.client
import itertools
import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")
pytest.importorskip("psycopg", reason="the floor store needs the floor extra")

import psycopg
from floor_fixtures import THROWAWAY_POSTGRES, data_folder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from psycopg.types.json import Jsonb

from controller.web.pit_app import pit_app
from controller.web.pit_store import PgFloorReader
from controller.web.server import WebAddress, WebServer

NOW = datetime.now(UTC).replace(microsecond=0)
OK = ("ok-1", "ok-2", "ok-3")


@pytest.fixture(scope="module")
def store() -> Iterator[Any]:
    """A migrated floor database on a PostgreSQL of this module's own."""
    from controller.floor.migrate import migrate
    from controller.floor.servers import FloorServerError, LocalPostgres

    base = Path(tempfile.mkdtemp(prefix="tablectl-pit-", dir=data_folder()))
    base.chmod(0o711)
    postgres = LocalPostgres(base / "pg", settings=THROWAWAY_POSTGRES)
    try:
        postgres.start()
    except (FloorServerError, OSError) as exc:
        shutil.rmtree(base, ignore_errors=True)
        pytest.skip(f"no PostgreSQL to run: {exc}")
    try:
        db = postgres.create_database("pit_iso")
        migrate(db.migrator)
        yield db
    finally:
        postgres.stop()
        shutil.rmtree(base, ignore_errors=True)


def seed(conn: Any, table_id: str, *, hold: str | None = None, heartbeat: bool = True, game: str | None = None) -> None:
    """One table as the ingest would store it: a finished round with a wager, a fault event,
    its heartbeat (``hold`` as the table says it)."""
    last = NOW - timedelta(minutes=30)  # its last record long ago: only the heartbeat says it is there
    beat = {"step": "betting", "hold": hold, "round": 2, "backlog": 0}
    conn.execute(
        "INSERT INTO floor_table (table_id, game, config, first_at, last_at, last_seq, last_round, heartbeat_at, "
        "heartbeat) VALUES (%s, %s, NULL, %s, %s, 11, 1, %s, %s)",
        (table_id, game, last - timedelta(minutes=5), last, NOW if heartbeat else None, Jsonb(beat)),
    )
    if game is None:
        return
    recall = {
        "game": game,
        "recall": {
            "round": 1,
            "cards": [{"index": 1, "card": "As", "to": "seat 1"}],
            "events": [],
            "settlement": {"house_net": 100, "seats": {"1": {"net": -100}}},
        },
        "seats": {"1": {"cards": "As Kd", "wagers": {"ante": 100}}},
    }
    conn.execute(
        "INSERT INTO round (table_id, seq, round_no, game, config, started_at, ended_at, void, seats, handle, win, "
        "paid, collected, commission, late_bets, faults, first_seq, recall) "
        "VALUES (%s, 10, 1, %s, NULL, %s, %s, false, 1, 100, 100, 0, 100, 0, 0, 1, 1, %s)",
        (table_id, game, last - timedelta(minutes=1), last, Jsonb(recall)),
    )
    conn.execute(
        "INSERT INTO wager (table_id, seq, round_no, seat, spot, cents, result, net) "
        "VALUES (%s, 10, 1, 1, 'ante', 100, 'lose', -100)",
        (table_id,),
    )
    conn.execute(
        "INSERT INTO journal_event (table_id, seq, at, at_epoch, kind, class, data) "
        "VALUES (%s, 5, %s, 0, 'DeviceFault', 'fault', %s)",
        (table_id, last - timedelta(seconds=70), Jsonb({"device": "shoe", "error": "sensor"})),
    )


def wipe(conn: Any, table_id: str) -> None:
    for t in ("journal_event", "wager", "round", "floor_table"):
        conn.execute(f"DELETE FROM {t} WHERE table_id = %s", (table_id,))


class Pit:
    def __init__(self, db: Any) -> None:
        reader = PgFloorReader(db.reader)
        # the day starts an hour before the test's rounds, whatever the hour: "today" holds them
        self.server = WebServer(pit_app(reader, clock=lambda: NOW), WebAddress("127.0.0.1", 0))
        self.server.start()
        self.cookie = ""
        self.before: dict[str, str] = {}
        self.api_before: dict[str, Any] = {}

    def get(self, path: str) -> tuple[int, str]:
        """GET ``path`` as one browser would (its session cookie kept)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
        try:
            conn.request(
                "GET", path, headers={"accept": "text/html", **({"cookie": self.cookie} if self.cookie else {})}
            )
            r = conn.getresponse()
            if r.getheader("set-cookie"):
                self.cookie = (r.getheader("set-cookie") or "").split(";")[0]
            return r.status, r.read().decode()
        finally:
            conn.close()


def rows(html: str) -> dict[str, str]:
    """The overview's table rows by table id."""
    return {
        m.group(1): m.group(0) for m in re.finditer(r'<tr class="table-row" data-table="([^"]*)".*?</tr>', html, re.S)
    }


@pytest.fixture(scope="module")
def pit(store: Any) -> Iterator[tuple[Any, Pit]]:
    with psycopg.connect(store.owner, autocommit=True) as conn:
        for n, table_id in enumerate(OK):
            seed(conn, table_id, hold="shoe jammed" if n == 0 else None, game="mississippi_stud")
        p = Pit(store)
        yield conn, p
        p.server.stop()


def test_a_held_table_stays_hold_with_its_reason_however_long(pit: tuple[Any, Pit]) -> None:
    _, p = pit
    status, html = p.get("/")
    assert status == 200
    held = rows(html)["ok-1"]
    assert 'data-state="hold"' in held and "shoe jammed" in held  # its last record 30 minutes old
    assert 'data-state="idle"' in rows(html)["ok-2"]  # quiet, not silent: its heartbeat is recent
    assert re.search(r'On hold</div><div class="v neg">1<', html)


def test_silent_beyond_the_heartbeat_is_not_reporting_and_keeps_its_hold(pit: tuple[Any, Pit]) -> None:
    conn, p = pit
    conn.execute("UPDATE floor_table SET heartbeat_at = %s WHERE table_id = 'ok-1'", (NOW - timedelta(minutes=9),))
    try:
        row = rows(p.get("/")[1])["ok-1"]
        assert "NOT REPORTING" in row and "shoe jammed" in row
    finally:
        conn.execute("UPDATE floor_table SET heartbeat_at = %s WHERE table_id = 'ok-1'", (NOW,))


def test_alerts_and_a_table_before_its_first_round(pit: tuple[Any, Pit]) -> None:
    conn, p = pit
    seed(conn, "new-1", game=None)
    # a table of its own: the quarantine is evidence, append-only in the store (it cannot be removed after)
    seed(conn, "q-1", game="mississippi_stud")
    conn.execute(
        "INSERT INTO floor_quarantine (table_id, seq, subject, reason, prev, hash, payload) "
        "VALUES ('q-1', 99, 's', 'forged', '', '', '\\x00'::bytea)"
    )
    try:
        html = p.get("/")[1]
        assert "1 quarantined" in rows(html)["q-1"]
        assert "quarantined" not in rows(html)["ok-3"]
        assert "not known yet" in rows(html)["new-1"] and "?" not in rows(html)["new-1"].split("</td>")[1]
    finally:
        wipe(conn, "new-1")
        wipe(conn, "q-1")


def test_paths_out_of_range_and_unknown_tables_are_404(pit: tuple[Any, Pit]) -> None:
    _, p = pit
    for path in (
        "/tables/nope",
        "/tables/ok-1/rounds/" + "9" * 5000,
        "/tables/ok-1/rounds/0",
        "/tables/ok-1/rounds/-1",
        "/tables/ok-1/rounds/1e3",
        "/tables/ok-1/rounds/99999",
        "/tables/" + "x" * 5000,
        "/api/tables/nope/rounds",
        "/api/tables/ok-1/rounds/" + "9" * 5000,
    ):
        assert p.get(path)[0] == 404, path[:60]
    status, html = p.get("/tables/nope")
    assert "No table 'nope'" in html_lib.unescape(html) and 'href="/"' in html


# Only what a jsonb column can hold: no NaN or Infinity (not JSON: PostgreSQL refuses the token
# before the page is ever read, issue 40) and no \u0000 (filtered below).
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
).filter(lambda v: "\\u0000" not in json.dumps(v))
TEXT = st.text(max_size=40).filter(lambda t: "\x00" not in t)
TIMES = st.sampled_from(
    ["infinity", "-infinity", "0001-01-01 00:00:00+00", "294276-12-31 23:00:00+00", "4713-01-01 BC"]
)
BIGINTS = st.sampled_from([-(2**63), 2**63 - 1, -1, 0])

COLUMNS: dict[tuple[str, str], tuple[str, Any]] = {
    ("floor_table", "game"): ("text", TEXT),
    ("floor_table", "config"): ("text", TEXT),
    ("floor_table", "last_at"): ("timestamptz", TIMES),
    ("floor_table", "last_round"): ("bigint", BIGINTS),
    ("floor_table", "heartbeat_at"): ("timestamptz", TIMES),
    ("floor_table", "heartbeat"): ("jsonb", JSON | st.fixed_dictionaries({"hold": JSON, "step": JSON})),
    ("round", "round_no"): ("bigint", BIGINTS),
    ("round", "game"): ("text", TEXT),
    ("round", "config"): ("text", TEXT),
    ("round", "started_at"): ("timestamptz", TIMES),
    ("round", "ended_at"): ("timestamptz", TIMES),
    ("round", "handle"): ("bigint", BIGINTS),
    ("round", "win"): ("bigint", BIGINTS),
    ("round", "seats"): ("integer", st.sampled_from([-(2**31), 2**31 - 1])),
    ("round", "faults"): ("integer", st.sampled_from([-(2**31), 2**31 - 1])),
    ("round", "first_seq"): ("bigint", BIGINTS),
    ("round", "recall"): ("jsonb", JSON | st.fixed_dictionaries({"recall": JSON, "seats": JSON, "game": JSON})),
    ("wager", "spot"): ("text", TEXT),
    ("wager", "cents"): ("bigint", BIGINTS),
    ("journal_event", "kind"): ("text", st.sampled_from(["LinkDown", "Jam", "ButtonChanged", "SpotReport"]) | TEXT),
    ("journal_event", "data"): ("jsonb", JSON | st.fixed_dictionaries({"pressed": JSON, "device": JSON})),
    ("journal_event", "at"): ("timestamptz", TIMES),
}
_VICTIMS = itertools.count(1)


@settings(max_examples=200)
@given(value=JSON | st.fixed_dictionaries({"pressed": JSON, "device": JSON}))
def test_the_json_columns_strategy_draws_only_values_jsonb_holds(value: Any) -> None:
    text = json.dumps(value, allow_nan=False)  # NaN and Infinity are not JSON: jsonb refuses them
    assert "\\u0000" not in text


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(column=st.sampled_from(sorted(COLUMNS)), data=st.data())
def test_a_malformed_value_in_any_column_harms_only_its_own_table(
    pit: tuple[Any, Pit], column: tuple[str, str], data: st.DataObject
) -> None:
    conn, p = pit
    if not p.before:  # the floor before any harm, read once
        status, html = p.get("/")
        assert status == 200
        p.before = rows(html)
        p.api_before = {t["table_id"]: t for t in json.loads(p.get("/api/tables")[1])}
    before, api_before = p.before, p.api_before
    victim = f"bad-{next(_VICTIMS)}"
    seed(conn, victim, hold="door open", game="boston5")
    kind, strategy = COLUMNS[column]
    value = data.draw(strategy, label=f"{column[0]}.{column[1]}")
    try:
        conn.execute(
            f"UPDATE {column[0]} SET {column[1]} = %s::{kind} WHERE table_id = %s",
            (Jsonb(value) if kind == "jsonb" else value, victim),
        )
        status, html = p.get("/")
        assert status == 200
        after = rows(html)
        assert {t: after[t] for t in OK} == {t: before[t] for t in OK}  # every other table intact
        assert victim in after  # the table itself is still on the page
        status, text = p.get("/api/tables")
        assert status == 200
        api = {t["table_id"]: t for t in json.loads(text)}
        assert {t: api[t] for t in OK} == {t: api_before[t] for t in OK}
        for path in (f"/tables/{victim}", "/tables/ok-2", f"/api/tables/{victim}/rounds"):
            assert p.get(path)[0] == 200, path
        for path in (f"/tables/{victim}/rounds/1", f"/api/tables/{victim}/rounds/1"):
            assert p.get(path)[0] in (200, 404), path
    finally:
        wipe(conn, victim)
