"""What the ingest kept aside, read from the floor store: per table the records quarantined (never
stored as the table's), the messages rejected and the records waiting for a gap to fill, and each
table's place in its chain (``tablectl floor status``, the pit view's alerts, the metrics). Every
function takes an open psycopg connection and only reads. The rounds themselves are read through
the one floor read model, :mod:`controller.web.pit_store`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import psycopg
from psycopg.rows import TupleRow

__all__ = ["QuarantinedRecord", "floor_alerts", "quarantined", "TableStatus", "floor_status", "last_ingest_write"]


PENDING_PATIENCE_S = 120.0
"""A record waiting in ``floor_pending`` longer than this is an alert: its gap is not filling."""

SILENT_AFTER_S = 30.0
"""A table whose last heartbeat is older than this is silent (it beats every 5 s: NOT REPORTING)."""


@dataclass(frozen=True, slots=True)
class TableAlerts:
    """What the ingest kept aside for one table (by the table id its messages named): records
    quarantined (never stored as the table's), messages rejected, records waiting for a gap; of
    those, the quarantined ones that are forks (a different record at a stored seq) and the
    pending ones waiting longer than :data:`PENDING_PATIENCE_S` (the gap is not filling)."""

    table_id: str
    quarantined: int
    rejected: int
    pending: int
    last_alert_at: datetime | None
    forked: int = 0
    """Quarantined records that are a different record at a seq the floor stored (a fork)."""
    pending_stuck: int = 0
    """Records waiting for a gap longer than :data:`PENDING_PATIENCE_S`."""
    oldest_pending_at: datetime | None = None
    """When the oldest record still waiting arrived."""

    @property
    def alerting(self) -> bool:
        """Whether the pit should show this table in alert."""
        return bool(self.quarantined or self.rejected or self.pending_stuck)


@dataclass(frozen=True, slots=True)
class QuarantinedRecord:
    """One record the ingest would not store as its table's, and why."""

    table_id: str
    seq: int
    subject: str
    reason: str
    stored_at: datetime


def floor_alerts(conn: psycopg.Connection[TupleRow], patience_s: float = PENDING_PATIENCE_S) -> list[TableAlerts]:
    """Every table with something quarantined, rejected or pending, by id (for ``tablectl floor
    status`` and the pit view's alerts); pending records older than ``patience_s`` are not
    draining. Rejected messages whose subject names no table id are
    not listed (``ingest_reject`` keeps them)."""
    rows = conn.execute(
        """
        SELECT table_id, sum(q)::bigint, sum(r)::bigint, sum(p)::bigint, max(at), sum(f)::bigint, sum(s)::bigint,
               min(oldest) FROM (
            SELECT table_id, count(*) AS q, 0 AS r, 0 AS p, max(stored_at) AS at,
                   count(*) FILTER (WHERE reason LIKE '%%(fork)%%') AS f, 0 AS s, NULL::timestamptz AS oldest
            FROM floor_quarantine_open GROUP BY table_id
            UNION ALL
            SELECT table_id, 0, count(*), 0, max(stored_at), 0, 0, NULL
            FROM ingest_reject WHERE table_id IS NOT NULL GROUP BY table_id
            UNION ALL
            SELECT table_id, 0, 0, count(*), NULL, 0,
                   count(*) FILTER (WHERE received_at < clock_timestamp() - make_interval(secs => %s)),
                   min(received_at)
            FROM floor_pending GROUP BY table_id
        ) a GROUP BY table_id ORDER BY table_id
        """,
        (patience_s,),
    ).fetchall()
    return [TableAlerts(*row) for row in rows]


def quarantined(
    conn: psycopg.Connection[TupleRow], table_id: str | None = None, limit: int = 50
) -> list[QuarantinedRecord]:
    """The latest ``limit`` quarantined records (of ``table_id``, or of every table), newest first."""
    rows = conn.execute(
        "SELECT table_id, seq, subject, reason, stored_at FROM floor_quarantine "
        "WHERE %s::text IS NULL OR table_id = %s ORDER BY id DESC LIMIT %s",
        (table_id, table_id, limit),
    ).fetchall()
    return [QuarantinedRecord(*row) for row in rows]


@dataclass(frozen=True, slots=True)
class TableStatus:
    """One table as ``tablectl floor status`` shows it."""

    table_id: str
    last_seq: int | None
    """The last record stored in chain order (None: none yet)."""
    last_at: datetime | None
    """When the table wrote its latest stored record (its clock)."""
    last_stored_at: datetime | None
    """When the floor stored that record (the floor's clock): ``last_stored_at - last_at`` is the lag."""
    quarantined: int
    rejected: int
    pending: int
    forked: int = 0
    pending_stuck: int = 0
    """Records waiting for a gap longer than :data:`PENDING_PATIENCE_S`."""
    oldest_pending_at: datetime | None = None
    feed_held: str | None = None
    """The table's word (its latest heartbeat) that it holds its floor feed: the floor told it
    it holds a record the table never wrote."""
    settled: int = 0
    """Quarantined records a ``tablectl floor resolve`` closed: kept as evidence, no longer alerting."""
    throttled: str | None = None
    """The table's word (its latest heartbeat) that the broker refuses its records: its share of
    the stream is full (it floods the floor, or the floor is away: docs/floor.md, "One table, one feed")."""


def floor_status(conn: psycopg.Connection[TupleRow], patience_s: float = PENDING_PATIENCE_S) -> list[TableStatus]:
    """Every table the floor knows or has alerts for, by id."""
    alerts = {a.table_id: a for a in floor_alerts(conn, patience_s)}
    rows = conn.execute(
        """
        SELECT c.table_id, c.head_seq, t.last_at,
               (SELECT r.stored_at FROM floor_record r WHERE r.table_id = c.table_id ORDER BY r.seq DESC LIMIT 1),
               t.heartbeat->>'feed_held',
               (SELECT count(*) FROM floor_quarantine q WHERE q.table_id = c.table_id)
                 - (SELECT count(*) FROM floor_quarantine_open o WHERE o.table_id = c.table_id),
               t.heartbeat->>'throttled'
        FROM floor_chain c LEFT JOIN floor_table t USING (table_id)
        """
    ).fetchall()
    known = {row[0]: row for row in rows}
    out = []
    for table_id in sorted(set(known) | set(alerts)):
        row = known.get(table_id, (table_id, None, None, None, None, 0, None))
        a = alerts.get(table_id)
        out.append(
            TableStatus(
                table_id,
                row[1],
                row[2],
                row[3],
                a.quarantined if a else 0,
                a.rejected if a else 0,
                a.pending if a else 0,
                a.forked if a else 0,
                a.pending_stuck if a else 0,
                a.oldest_pending_at if a else None,
                str(row[4])[:300] if row[4] else None,
                int(row[5] or 0),
                str(row[6])[:300] if row[6] else None,
            )
        )
    return out


def last_ingest_write(conn: psycopg.Connection[TupleRow]) -> datetime | None:
    """When an ingest last wrote anything (a record, a reject, a quarantined or pending record)."""
    row = conn.execute(
        """
        SELECT greatest((SELECT max(stored_at) FROM floor_record), (SELECT max(stored_at) FROM ingest_reject),
                        (SELECT max(stored_at) FROM floor_quarantine), (SELECT max(received_at) FROM floor_pending))
        """
    ).fetchone()
    return row[0] if row else None


@dataclass(frozen=True, slots=True)
class TableHeartbeat:
    """A table's latest heartbeat as the floor stored it (controller.floor.channel.Heartbeat):
    when it came (the floor's clock) and the table's step, hold, round and backlog then. A value
    that is not of its type reads as None (one table's bad row harms only that table's line)."""

    table_id: str
    heartbeat_at: datetime | None
    step: str | None
    hold: str | None
    round: int | None
    backlog: int | None

    def silent(self, now: datetime) -> bool:
        """Whether the table has been silent beyond its heartbeat (NOT REPORTING)."""
        return self.heartbeat_at is None or (now - self.heartbeat_at).total_seconds() > SILENT_AFTER_S


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def table_heartbeats(conn: psycopg.Connection[TupleRow]) -> list[TableHeartbeat]:
    """Every table's latest heartbeat, by id (tables that never beat: no time, no state)."""
    rows = conn.execute("SELECT table_id, heartbeat_at, heartbeat FROM floor_table ORDER BY table_id").fetchall()
    out = []
    for table_id, at, beat in rows:
        beat = beat if isinstance(beat, dict) else {}
        out.append(
            TableHeartbeat(
                str(table_id),
                at if isinstance(at, datetime) else None,
                _text_or_none(beat.get("step")),
                _text_or_none(beat.get("hold")),
                _int_or_none(beat.get("round")),
                _int_or_none(beat.get("backlog")),
            )
        )
    return out
