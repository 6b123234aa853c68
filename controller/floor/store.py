"""Reading the floor store (for pit views and reports): the tables, a table's recent rounds, one
round as recalled. Every function takes an open psycopg connection and only reads."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

__all__ = ["TableOverview", "RoundSummary", "connect", "tables_overview", "recent_rounds", "round_recall"]


def connect(url: str) -> psycopg.Connection[Any]:
    """A read connection to the floor store at ``url``."""
    return psycopg.connect(url, autocommit=True)


@dataclass(frozen=True, slots=True)
class TableOverview:
    """One table as the floor has it: what it plays, how far it has reported, its totals."""

    table_id: str
    game: str | None
    last_at: datetime
    last_seq: int
    last_round: int | None
    rounds: int
    handle: int
    win: int
    voids: int
    faults: int


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """One finished round, without its detail (:func:`round_recall` has that)."""

    table_id: str
    round_no: int
    seq: int
    started_at: datetime
    ended_at: datetime
    void: bool
    seats: int
    handle: int
    win: int
    faults: int


def tables_overview(conn: psycopg.Connection[Any]) -> list[TableOverview]:
    """Every table that has reported, by id."""
    rows = conn.execute(
        """
        SELECT t.table_id, t.game, t.last_at, t.last_seq, t.last_round,
               coalesce(r.rounds, 0), coalesce(r.handle, 0), coalesce(r.win, 0), coalesce(r.voids, 0),
               coalesce(f.faults, 0)
        FROM floor_table t
        LEFT JOIN (SELECT table_id, count(*) AS rounds, sum(handle) AS handle, sum(win) AS win,
                          count(*) FILTER (WHERE void) AS voids
                   FROM round GROUP BY table_id) r USING (table_id)
        LEFT JOIN (SELECT table_id, count(*) AS faults FROM journal_event
                   WHERE class = 'fault' AND kind <> 'LinkUp' GROUP BY table_id) f USING (table_id)
        ORDER BY t.table_id
        """
    ).fetchall()
    return [TableOverview(*row) for row in rows]


def recent_rounds(conn: psycopg.Connection[Any], table_id: str, limit: int = 20) -> list[RoundSummary]:
    """The table's last ``limit`` finished rounds, newest first."""
    rows = conn.execute(
        "SELECT table_id, round_no, seq, started_at, ended_at, void, seats, handle, win, faults FROM round "
        "WHERE table_id = %s ORDER BY seq DESC LIMIT %s",
        (table_id, limit),
    ).fetchall()
    return [RoundSummary(*row) for row in rows]


def round_recall(conn: psycopg.Connection[Any], table_id: str, round_no: int) -> dict[str, Any] | None:
    """The round as ``tablectl recall --json`` writes it at the table (None when the floor does not have it)."""
    row = conn.execute(
        "SELECT recall FROM round WHERE table_id = %s AND round_no = %s ORDER BY seq DESC LIMIT 1", (table_id, round_no)
    ).fetchone()
    return dict(row[0]) if row else None
