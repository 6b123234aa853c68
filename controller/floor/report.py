"""The floor report: per table and for the whole floor, rounds, handle, win, hold % beside the
theoretical hold (when par figures exist), voids, faults and supervisor actions.

The figures mean what ``tablectl meters`` means for the same rounds: ``handle`` is the cents
wagered in settled rounds (a void round's wagers were returned); the theoretical win is the par
service's one rule (controller.par.service.theoretical_win: Boston 5's ante bonus against the
ante's handle); ``faults`` is the sum of each round's faults (docs/journal.md: device faults, link
losses, unreadable cards and journal faults journaled during the round), the meter of that name.
The SQL only adds up rows; :func:`report_from_rows` makes the report from them (tests give it
rows made by the ingest from a journal, without a database).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from controller.par.service import theoretical_win

if TYPE_CHECKING:
    import psycopg
    from psycopg.rows import TupleRow

    from controller.par.sheet import ParSheet

__all__ = [
    "floor_report",
    "hold_percent_of",
    "report_lines",
    "report_json",
    "group_theoretical",
    "groups_from_rows",
    "SheetSource",
    "ROUNDS_SQL",
    "WAGERS_SQL",
]


def hold_percent_of(win: int | None, handle: int) -> float | None:
    """The hold: ``win`` (the actual or the theoretical, cents) in percent of ``handle``; None
    without a handle or without the win figure (no par sheet for the theoretical)."""
    if win is None or not handle:
        return None
    return 100.0 * win / handle


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
        return hold_percent_of(self.win, self.handle)

    @property
    def theoretical_hold_percent(self) -> float | None:
        return hold_percent_of(self.theoretical_win, self.handle)


@dataclass(frozen=True, slots=True)
class Report:
    """The report: its window, each table, the floor, and a note on the theoretical hold."""

    since: datetime | None
    tables: list[ReportLine]
    floor: ReportLine
    note: str | None


@dataclass(frozen=True, slots=True)
class RoundGroup:
    """A table's rounds under one (game, table config): their sums, and the cents wagered per
    spot in the settled ones."""

    table_id: str
    game: str
    config: str | None
    rounds: int
    handle: int
    """Cents wagered in the settled rounds."""
    win: int
    voids: int
    faults: int
    wagered: Mapping[str, int]


ROUNDS_SQL = (
    "SELECT r.table_id, r.game, r.config, count(*), coalesce(sum(r.handle) FILTER (WHERE NOT r.void), 0), "
    "coalesce(sum(r.win), 0), count(*) FILTER (WHERE r.void), coalesce(sum(r.faults), 0) "
    "FROM round r WHERE {where} GROUP BY 1, 2, 3"
)
"""Each (table, game, config)'s rounds: count, settled handle, win, voids, faults."""

WAGERS_SQL = (
    "SELECT r.table_id, r.game, r.config, w.spot, sum(w.cents) FROM wager w JOIN round r USING (table_id, seq) "
    "WHERE {where} AND NOT r.void GROUP BY 1, 2, 3, 4"
)
"""Each (table, game, config)'s cents wagered per spot in settled rounds."""


def groups_from_rows(round_rows: Iterable[Iterable[Any]], wager_rows: Iterable[Iterable[Any]]) -> list[RoundGroup]:
    """:class:`RoundGroup` s from the rows of :data:`ROUNDS_SQL` and :data:`WAGERS_SQL`."""
    wagered: dict[tuple[str, str, str | None], dict[str, int]] = {}
    for table_id, game, config, spot, cents in wager_rows:
        wagered.setdefault((table_id, game, config), {})[spot] = int(cents)
    return [
        RoundGroup(t, g, c, int(n), int(h), int(w), int(v), int(f), wagered.get((t, g, c), {}))
        for t, g, c, n, h, w, v, f in round_rows
    ]


SheetSource = Callable[[str, str | None], "ParSheet | None"]
"""(game, table config path) -> the par sheet, or None when there is none here."""


def group_theoretical(groups: Iterable[RoundGroup], sheets: SheetSource) -> int | None:
    """The theoretical win of ``groups`` (one table's): the par service's rule per group, added;
    ``None`` when a group with wagers has no sheet or a spot without a par figure."""
    total = 0
    for g in groups:
        if not g.wagered:
            continue
        theo = theoretical_win(sheets(g.game, g.config), g.game, g.wagered)
        if theo.total is None:
            return None
        total += theo.total
    return total


def report_from_rows(
    since: datetime | None, groups: Iterable[RoundGroup], actions: Mapping[str, int], sheets: SheetSource
) -> Report:
    """The report from each table's round groups and supervisor action counts."""
    by_table: dict[str, list[RoundGroup]] = {}
    for g in groups:
        by_table.setdefault(g.table_id, []).append(g)
    lines = []
    for table_id in sorted(set(by_table) | set(actions)):
        gs = by_table.get(table_id, [])
        n = sum(g.rounds for g in gs)
        lines.append(
            ReportLine(
                table_id,
                min((g.game for g in gs), default=None),
                n,
                sum(g.handle for g in gs),
                sum(g.win for g in gs),
                sum(g.voids for g in gs),
                sum(g.faults for g in gs),
                int(actions.get(table_id, 0)),
                group_theoretical(gs, sheets) if n else None,
            )
        )
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
    if any(line.rounds and line.theoretical_win is None for line in lines):
        note = "theoretical hold: empty where the table's config or its par figures are not available here"
    return Report(since, lines, floor, note)


def sheet_for_config(game: str, config: str | None) -> ParSheet | None:
    """The par sheet of the table config at ``config`` (the path the table recorded), from the
    par service (computed once, with a progress bar, when not kept); ``None`` when the config is
    not on this machine or has no par figures (no figure rather than a wrong one)."""
    if not config:
        return None
    from controller.configuration import ConfigError, load_table
    from controller.game.record import resolve_table_path
    from controller.par import service

    try:
        table = load_table(resolve_table_path(config))
        return service.sheet_for(table) if table.game == game else None
    except (ConfigError, OSError, ValueError, KeyError, TypeError):
        return None


def floor_report(
    conn: psycopg.Connection[TupleRow],
    since: datetime | None = None,
    tables: list[str] | None = None,
    sheets: SheetSource = sheet_for_config,
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
    groups = groups_from_rows(
        conn.execute(ROUNDS_SQL.format(where=clause), args).fetchall(),
        conn.execute(WAGERS_SQL.format(where=clause), args).fetchall(),
    )
    actions = {
        row[0]: int(row[1])
        for row in conn.execute(
            f"SELECT e.table_id, count(*) FROM journal_event e WHERE {ev_where} AND e.kind = 'SupervisorAction' "
            "GROUP BY e.table_id",
            args,
        )
    }
    return report_from_rows(since, groups, actions, _memo(sheets))


def _memo(sheets: SheetSource) -> SheetSource:
    """``sheets`` asked once per (game, config) in a report."""
    found: dict[tuple[str, str | None], ParSheet | None] = {}

    def get(game: str, config: str | None) -> ParSheet | None:
        if (game, config) not in found:
            found[(game, config)] = sheets(game, config)
        return found[(game, config)]

    return get


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
