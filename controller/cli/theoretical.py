"""Theoretical win beside actual win per wager spot, for ``tablectl meters``: the par sheet's
house edge times the handle, so a pit sees a table running hot or cold.

Both figures come from the same rounds (those kept in the journal, or from ``--since``), and the
par sheet is the one of the table config the rounds were played under (or ``--config``), with
the strategy it assumes stated beside it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from controller.games import resolve_table_path
from controller.table_config import TableConfig, load_table
from controller.yamlfile import ConfigError
from hil.hold_summary import HoldTally, ParSheetLike, par_for

__all__ = ["theoretical_rows", "theoretical_lines", "table_for"]


def table_for(config: str | None, rounds: Sequence[Mapping[str, Any]]) -> tuple[TableConfig | None, str]:
    """The table config for the par sheet: ``config``, else the one the last round was played
    under; with a note when there is none."""
    path = config or next((r.get("table") for r in reversed(rounds) if r.get("table")), None)
    if not path:
        return None, "no table config recorded with the rounds (give --config)"
    try:
        return load_table(resolve_table_path(str(path))), ""
    except ConfigError as exc:
        return None, f"cannot load {path}: {exc.problems[0] if exc.problems else exc}"


def theoretical_rows(
    rounds: Iterable[Mapping[str, Any]], sheet: ParSheetLike | None, order: Iterable[str] = ()
) -> list[tuple[str, int, int, float | None, float | None]]:
    """(spot, handle, actual win, theoretical win or None, par edge or None) per spot, in cents."""
    tally = HoldTally()
    for r in rounds:
        tally.add(r["record"], r["settlement"])
    known = list(order)
    rows = []
    for spot in sorted(tally.spots, key=lambda s: (known.index(s) if s in known else len(known), s)):
        t = tally.spots[spot]
        sp = sheet.spots.get(spot) if sheet is not None else None
        edge = float(sp.edge_per_unit) if sp is not None else None
        rows.append((spot, t.handle, t.house, edge * t.handle if edge is not None else None, edge))
    return rows


def theoretical_lines(rounds: Sequence[Mapping[str, Any]], config: str | None) -> tuple[list[str], list[list[Any]]]:
    """Text lines and JSON entries (``["theoretical", NAME, VALUE]``) of theoretical beside
    actual win per spot over ``rounds`` (``RoundSettled`` data)."""
    table, problem = table_for(config, rounds)
    sheet = par_for(table) if table is not None else None
    if table is not None and sheet is None:
        problem = "no par sheet for this table (controller.par not available)"
    rows = theoretical_rows(rounds, sheet, table.catalog.wager_spots if table is not None else ())
    assumption = f"par: {sheet.strategy}" if sheet is not None else problem
    lines = [
        f"theoretical beside actual win, the {len(rounds)} rounds kept in the journal ({assumption}):",
        f"  {'spot':<12} {'handle':>14} {'actual win':>14} {'theoretical':>14} {'par edge':>9}",
    ]
    entries: list[list[Any]] = [["theoretical", "assumption", assumption], ["theoretical", "rounds", len(rounds)]]
    for spot, handle, actual, theo, edge in rows:
        shown = f"{theo / 100:,.2f}" if theo is not None else "—"
        edge_text = f"{100 * edge:.2f}%" if edge is not None else "—"
        lines.append(f"  {spot:<12} {handle / 100:>14,.2f} {actual / 100:>14,.2f} {shown:>14} {edge_text:>9}")
        entries.append(["theoretical", f"won:{spot}", actual])
        if theo is not None:
            entries.append(["theoretical", f"theoretical_win:{spot}", round(theo)])
    return lines, entries
