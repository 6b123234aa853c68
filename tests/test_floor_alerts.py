"""The alert data per table the pit and ``tablectl floor status`` read (controller/floor/alerts.py):
quarantined, rejected, forked and pending-not-draining counts, and each table's latest heartbeat,
a malformed one read as unknown for that table only. On the session's PostgreSQL
(tests/floor_fixtures.py); the patience is given, never waited for."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

psycopg = pytest.importorskip("psycopg")

from floor_helpers import floor_command  # noqa: E402
from test_floor_hostile import body_of, forged, journal, real_messages, store  # noqa: E402

from controller.floor.alerts import floor_alerts, table_heartbeats  # noqa: E402


@pytest.fixture
def db(floor_db: Any) -> str:
    return str(floor_db.owner)


def _status(db: str, *extra: str) -> tuple[int, str]:
    return floor_command("status", "--db", db, *extra)


def test_each_alert_is_counted_for_its_own_table(db: str, tmp_path: Path) -> None:
    """ms-01: a fork at a stored seq; ms-02: records waiting behind a gap that does not fill
    (an alert once older than the patience, not before); ms-03: clean."""
    for name in ("a", "b", "c"):
        journal(tmp_path / f"{name}.db", 2).close()
    one = real_messages(tmp_path / "a.db", "ms-01")
    store(db, one)
    fork = forged("ms-01", 3, "SpotReport", {"seat": 1, "spot": "ante", "cents": 900}, body_of(one[1])["hash"])
    store(db, [fork])  # a different record 3, chained right
    two = real_messages(tmp_path / "b.db", "ms-02")
    store(db, two[3:])  # record 1 to 3 never come
    store(db, real_messages(tmp_path / "c.db", "ms-03"))
    with psycopg.connect(db, autocommit=True) as conn:
        patient = {a.table_id: a for a in floor_alerts(conn)}
        at_once = {a.table_id: a for a in floor_alerts(conn, patience_s=0)}
    assert set(at_once) == {"ms-01", "ms-02"}  # ms-03 has nothing to say
    assert (at_once["ms-01"].quarantined, at_once["ms-01"].forked, at_once["ms-01"].pending_stuck) == (1, 1, 0)
    assert at_once["ms-02"].pending == len(two) - 3  # every message after the gap waits
    assert at_once["ms-02"].pending_stuck == at_once["ms-02"].pending and at_once["ms-02"].alerting
    assert patient["ms-02"].pending_stuck == 0 and not patient["ms-02"].alerting
    code, out = _status(db, "--pending-alert-after", "0")
    assert code == 0 and "ALERT ms-01: 1 quarantined records are forks" in out, out
    assert "ALERT ms-02: " in out and "records waiting for a gap for more than 0 s" in out, out
    code, out = _status(db)
    assert code == 0 and "ALERT ms-02" not in out, out
    assert _status(db, "--pending-alert-after", "-1")[0] == 2


def test_a_malformed_heartbeat_row_reads_as_unknown_for_its_table_only(db: str) -> None:
    now = datetime.now(UTC)
    good = '{"step": "betting", "hold": "shoe jammed", "round": 4, "backlog": 0}'
    bad = ['{"step": 5, "hold": [], "round": "x", "backlog": true}', "[1, 2]", '"text"', "null", "{}"]
    with psycopg.connect(db, autocommit=True) as conn:
        for n, beat in enumerate([good, *bad]):
            conn.execute(
                "INSERT INTO floor_table (table_id, first_at, last_at, last_seq, heartbeat_at, heartbeat) "
                "VALUES (%s, now(), now(), 0, %s, %s::jsonb)",
                (f"hb-{n}", now - timedelta(seconds=5 if n == 0 else 300), beat),
            )
        conn.execute("INSERT INTO floor_table (table_id, first_at, last_at, last_seq) VALUES ('hb-9', now(), now(), 0)")
        beats = {b.table_id: b for b in table_heartbeats(conn)}
    assert (beats["hb-0"].step, beats["hb-0"].hold, beats["hb-0"].round, beats["hb-0"].backlog) == (
        "betting",
        "shoe jammed",
        4,
        0,
    )
    assert not beats["hb-0"].silent(now)
    for n in range(1, len(bad) + 1):
        b = beats[f"hb-{n}"]
        assert (b.step, b.hold, b.round, b.backlog) == (None, None, None, None) and b.silent(now)
    assert beats["hb-9"].heartbeat_at is None and beats["hb-9"].silent(now)
