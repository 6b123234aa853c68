"""The floor report: per table and for the whole floor, rounds, handle, win, hold % beside the
theoretical hold (when par figures exist), voids, faults and supervisor actions."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

import psycopg

__all__ = ["ReportLine", "Report", "floor_report", "report_lines", "report_json", "theoretical_win"]


@dataclass(frozen=True, slots=True)
class ReportLine:
    """One table's figures (or the floor's, ``table_id`` "FLOOR"); money in cents."""

    table_id: str
    game: str | None
    rounds: int
    handle: int
    win: int
    voids: int
    faults: int
    supervisor_actions: int
    theoretical_win: int | None = None

    @property
    def hold_percent(self) -> float | None:
        return 100.0 * self.win / self.handle if self.handle else None

    @property
    def theoretical_hold_percent(self) -> float | None:
        if self.theoretical_win is None or not self.handle:
            return None
        return 100.0 * self.theoretical_win / self.handle


@dataclass(frozen=True, slots=True)
class Report:
    """The report: its window, each table, the floor, and a note on the theoretical hold."""

    since: datetime | None
    tables: list[ReportLine]
    floor: ReportLine
    note: str | None


def _par() -> Any:
    """``controller.par.par_sheet``, or None when this tablectl has no par figures (or numpy)."""
    try:
        from controller.par import par_sheet
    except ImportError:
        return None
    return par_sheet


_SHEETS: dict[tuple[str, str], Any] = {}
"""Par sheets by (game, table config path): computing one can take a while."""


def theoretical_win(conn: psycopg.Connection[Any], table_id: str, where: str, args: list[Any]) -> int | None:
    """The house edge of each spot (``controller.par``) times what was wagered on it, for the
    table's rounds in the window; None when par figures or the table's config are not available."""
    par_sheet = _par()
    if par_sheet is None:
        return None
    from controller.table_config import load_table

    row = conn.execute("SELECT game, config FROM floor_table WHERE table_id = %s", (table_id,)).fetchone()
    if row is None or not row[1]:
        return None
    key = (row[0], row[1])
    if key not in _SHEETS:
        try:
            _SHEETS[key] = par_sheet(row[0], load_table(row[1]))
        except Exception:  # the config is not on this machine, or has no par: no figure rather than a wrong one
            _SHEETS[key] = None
    sheet = _SHEETS[key]
    if sheet is None:
        return None
    total = 0.0
    for spot, cents in conn.execute(
        f"SELECT w.spot, sum(w.cents) FROM wager w JOIN round r USING (table_id, seq) WHERE {where} "
        "AND NOT r.void GROUP BY w.spot",
        args,
    ):
        par = sheet.spots.get(spot)
        if par is None:
            return None
        total += float(par.edge_per_unit) * int(cents)
    return round(total)


def floor_report(
    conn: psycopg.Connection[Any], since: datetime | None = None, tables: list[str] | None = None
) -> Report:
    """The report over the rounds that ended at or after ``since`` at ``tables`` (default all)."""
    where: list[str] = ["TRUE"]
    args: list[Any] = []
    if since is not None:
        where.append("r.ended_at >= %s")
        args.append(since)
    if tables:
        where.append("r.table_id = ANY(%s)")
        args.append(tables)
    clause = " AND ".join(where)
    ev_where = clause.replace("r.ended_at", "e.at").replace("r.table_id", "e.table_id")
    rounds = {
        row[0]: row[1:]
        for row in conn.execute(
            f"SELECT r.table_id, min(r.game), count(*), sum(r.handle), sum(r.win), count(*) FILTER (WHERE r.void) "
            f"FROM round r WHERE {clause} GROUP BY r.table_id",
            args,
        )
    }
    events = {
        row[0]: row[1:]
        for row in conn.execute(
            f"SELECT e.table_id, count(*) FILTER (WHERE e.class = 'fault' AND e.kind <> 'LinkUp'), "
            f"count(*) FILTER (WHERE e.kind = 'SupervisorAction') FROM journal_event e "
            f"WHERE {ev_where} AND e.class <> 'event' GROUP BY e.table_id",
            args,
        )
    }
    lines = []
    for table_id in sorted(set(rounds) | set(events)):
        game, n, handle, win, voids = rounds.get(table_id, (None, 0, 0, 0, 0))
        faults, actions = events.get(table_id, (0, 0))
        theo = theoretical_win(conn, table_id, clause + " AND r.table_id = %s", [*args, table_id]) if n else None
        lines.append(ReportLine(table_id, game, n, int(handle or 0), int(win or 0), voids, faults, actions, theo))
    theos = [line.theoretical_win for line in lines if line.rounds]
    floor = ReportLine(
        "FLOOR",
        None,
        sum(x.rounds for x in lines),
        sum(x.handle for x in lines),
        sum(x.win for x in lines),
        sum(x.voids for x in lines),
        sum(x.faults for x in lines),
        sum(x.supervisor_actions for x in lines),
        sum(t for t in theos if t is not None) if theos and all(t is not None for t in theos) else None,
    )
    note = None
    if _par() is None:
        note = "theoretical hold: no par figures in this tablectl (controller.par), so the column is empty"
    elif any(line.rounds and line.theoretical_win is None for line in lines):
        note = "theoretical hold: empty where the table's config or its par figures are not available here"
    return Report(since, lines, floor, note)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}%"


def report_lines(report: Report) -> list[str]:
    """The report as a text table."""
    head = f"{'table':<16} {'game':<17} {'rounds':>7} {'handle':>14} {'win':>13} {'hold':>8} {'theo':>8} {'voids':>6} {'faults':>7} {'superv.':>8}"
    out = [f"floor report{' since ' + report.since.isoformat() if report.since else ''}", head, "-" * len(head)]
    for line in [*report.tables, report.floor]:
        if line is report.floor:
            out.append("-" * len(head))
        out.append(
            f"{line.table_id:<16} {line.game or '':<17} {line.rounds:>7} {line.handle / 100:>14,.2f} "
            f"{line.win / 100:>13,.2f} {_pct(line.hold_percent):>8} {_pct(line.theoretical_hold_percent):>8} "
            f"{line.voids:>6} {line.faults:>7} {line.supervisor_actions:>8}"
        )
    if report.note:
        out.append(report.note)
    return out


def report_json(report: Report) -> dict[str, Any]:
    """The report as JSON (money in cents)."""

    def one(line: ReportLine) -> dict[str, Any]:
        return {
            **asdict(line),
            "hold_percent": line.hold_percent,
            "theoretical_hold_percent": line.theoretical_hold_percent,
        }

    return {
        "since": report.since.isoformat() if report.since else None,
        "tables": [one(x) for x in report.tables],
        "floor": one(report.floor),
        "note": report.note,
    }
