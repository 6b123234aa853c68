"""Theoretical win beside actual win per wager spot, for ``tablectl meters``: the par sheet's
house edge times the handle, and the hold (actual win over handle) beside the par edge, so a pit
sees a table running hot or cold.

Both figures come from the same rounds (those kept in the journal, or from ``--since``), and the
par sheet is the one of the table config the rounds were played under (or ``--config``), with
the strategy it assumes stated beside it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from controller.configuration import ConfigError, TableConfig, load_table
from controller.game.record import resolve_table_path
from controller.journal.checkpoint import SpotSums, spot_sums
from controller.par.service import PAID_ON, Theoretical, theoretical_win
from hil.hold_summary import ParSheetLike, par_for

__all__ = ["theoretical_lines"]


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


Row = tuple[str, int, int, float | None, float | None]
"""(spot, handle, actual win, theoretical win or None, par edge or None), money in cents."""


def theoretical_rows(
    rounds: Sequence[Mapping[str, Any]] | SpotSums,
    sheet: ParSheetLike | None,
    order: Iterable[str] = (),
    game: str = "",
) -> tuple[list[Row], Theoretical]:
    """A row per spot and the total, by the par service's one rule (controller.par.service:
    the floor report and the pit view use the same): handle and theoretical win of the settled
    rounds' wagers, a payout line paid on another wager (Boston 5's ante bonus) with that wager's
    handle; the actual win of every round. ``rounds``: the rounds, or their sums (a meters
    checkpoint's plus the rounds after it) with their ``game``."""
    if isinstance(rounds, SpotSums):
        sums = rounds
    else:
        sums = spot_sums(rounds, 0)
        game = next((str(r["record"].get("game", "")) for r in rounds), "")
    theo = theoretical_win(sheet, game, {s: c for s, c in sums.wagered.items() if c})
    known = list(order)
    rows: list[Row] = []
    for spot in sorted(
        sums.won.keys() | {s for s, c in sums.wagered.items() if c} | theo.by_spot.keys(),
        key=lambda s: (known.index(s) if s in known else len(known), s),
    ):
        handle, edge, win = theo.by_spot.get(spot, (0, None, None))
        rows.append((spot, handle, sums.won.get(spot, 0), win, edge))
    return rows, theo


def _hold(actual: int, handle: int) -> str:
    """The hold percentage: the actual win as a share of the handle (``—`` without a handle)."""
    return f"{100 * actual / handle:.2f}%" if handle else "—"


def theoretical_lines(
    rounds: Sequence[Mapping[str, Any]],
    config: str | None,
    sums: SpotSums | None = None,
    label: str = "",
) -> tuple[list[str], list[list[object]]]:
    """Text lines and JSON entries (``["theoretical", NAME, VALUE]``) of theoretical beside
    actual win per spot over ``rounds`` (``RoundSettled`` data), and for the table (``all``: the
    figure the floor report shows for the same rounds). With ``sums`` the figures are those sums'
    (``rounds``: the last rounds, for the table config they were played under; ``label`` says
    which rounds the sums cover)."""
    table, problem = table_for(config, rounds)
    sheet = par_for(table) if table is not None else None
    if table is not None and sheet is None:
        problem = "no par sheet for this table (controller.par not available)"
    order = table.catalog.wager_spots if table is not None else ()
    if sums is not None:
        game = next((str(r["record"].get("game", "")) for r in rounds), "")
        rows, theo = theoretical_rows(sums, sheet, order, game)
        count = sums.rounds
    else:
        rows, theo = theoretical_rows(rounds, sheet, order)
        count = len(rounds)
        label = label or f"the {count} rounds kept in the journal"
    assumption = f"par: {sheet.strategy}" if sheet is not None else problem
    lines = [
        f"theoretical beside actual win, {label} ({assumption}):",
        f"  {'spot':<12} {'handle':>14} {'actual win':>14} {'hold':>9} {'theoretical':>14} {'par edge':>9}",
    ]
    entries: list[list[object]] = [["theoretical", "assumption", assumption], ["theoretical", "rounds", count]]
    for spot, handle, actual, win, edge in rows:
        shown = f"{win / 100:,.2f}" if win is not None else "—"
        edge_text = f"{100 * edge:.2f}%" if edge is not None else "—"
        lines.append(
            f"  {spot:<12} {handle / 100:>14,.2f} {actual / 100:>14,.2f} {_hold(actual, handle):>9} "
            f"{shown:>14} {edge_text:>9}"
        )
        entries.append(["theoretical", f"won:{spot}", actual])
        if handle:
            entries.append(["theoretical", f"hold_bp:{spot}", round(10_000 * actual / handle)])
        if win is not None:
            entries.append(["theoretical", f"theoretical_win:{spot}", round(win)])
    paid_on = {line for lines_ in PAID_ON.values() for line in lines_}
    handle = sum(h for spot, (h, _, _) in theo.by_spot.items() if spot not in paid_on)
    actual = sum(r[2] for r in rows)
    hold = f"{100 * theo.total / handle:.2f}%" if theo.total is not None and handle else "—"
    total = f"{theo.total / 100:,.2f}" if theo.total is not None else "—"
    lines.append(
        f"  {'all':<12} {handle / 100:>14,.2f} {actual / 100:>14,.2f} {_hold(actual, handle):>9} {total:>14} {hold:>9}"
    )
    if theo.missing:
        lines.append(f"  no theoretical total: no par figure for {', '.join(theo.missing)}")
    entries.append(["theoretical", "won:all", actual])
    entries.append(["theoretical", "handle:all", handle])
    if handle:
        entries.append(["theoretical", "hold_bp:all", round(10_000 * actual / handle)])
    if theo.total is not None:
        entries.append(["theoretical", "theoretical_win:all", theo.total])
    return lines, entries
