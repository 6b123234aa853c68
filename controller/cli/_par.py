"""``tablectl par``: the theoretical hold of every wager a table offers with its configured paytables:
exact wherever the game allows (Mississippi Stud, Boston 5, Three Card Poker, the bonuses, envy,
insurance); the pai gow main wager from a stored simulation, with its 95% interval. The results for
the shipped paytables are shipped; for another paytable they are computed once (a progress bar on
stderr) and kept in the user's cache folder ($XDG_CACHE_HOME/tablectl/par, ~/.cache/tablectl/par)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from controller.cli._choices import RULES_GAMES

if TYPE_CHECKING:
    from controller.configuration import TableConfig
    from controller.par.sheet import ParSheet

__all__ = ["options", "run", "sheet_lines"]


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl par``'s options to its parser ``p``."""
    p.add_argument("--game", required=True, choices=RULES_GAMES, help="the game")
    p.add_argument("--config", help="table config (default: the shipped config/<game>.yaml)")
    p.add_argument("--paytable", help="use this paytable (by name) in place of the table's own for its spot")
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")
    p.add_argument("--strategy", action="store_true", help="print the strategy the figures assume, as data")


def _pct(x: float) -> str:
    return f"{100 * x:.4f}%"


def sheet_lines(sheet: ParSheet, table: TableConfig) -> list[str]:
    """The par sheet as text lines for people."""
    kind = "exact" if sheet.exact else "exact where stated; simulated figures with their 95% interval"
    out = [
        f"par sheet: {table.name} ({sheet.game}), {kind}",
        f"strategy: {sheet.strategy}",
        "paytables: " + ", ".join(f"{k}={v}" for k, v in sorted(sheet.paytables.items())),
        "main game: no figures (see the notes)"
        if math.isnan(sheet.edge_per_ante)
        else f"main game: house edge {_pct(sheet.edge_per_ante)} per ante, {_pct(sheet.edge_per_action)} per unit of "
        f"total action; average total wager {sheet.average_total_wager:.4f} antes; push {_pct(sheet.push_rate)}; "
        f"fold {_pct(sheet.fold_rate)}"
        + (" (" + ", ".join(f"{k} {_pct(v)}" for k, v in sheet.fold_rates.items()) + ")" if sheet.fold_rates else ""),
    ]
    for name, spot in sheet.spots.items():
        how = (
            "exact"
            if spot.exact
            else f"simulated, 95% interval {_pct(spot.interval95[0])} to {_pct(spot.interval95[1])}"
            if spot.interval95
            else "simulated"
        )
        out.append("")
        out.append(
            f"{name}: house edge {_pct(spot.edge_per_unit)} per unit wagered ({how}); "
            f"variance {spot.variance_per_unit:.4f} per unit"
        )
        if spot.note:
            out.append(f"  {spot.note}")
        if spot.lines:
            out.append(f"  {'line':<44} {'probability':>14} {'contribution':>14}")
            for line, p, c in spot.lines:
                out.append(f"  {line:<44} {p:>14.10f} {c:>+14.10f}")
    for name, rows in sheet.tables.items():
        out.append("")
        out.append(f"{name}:")
        out.extend(f"  {k:<44} {v:>14.10f}" for k, v in rows)
    for note in sheet.notes:
        out.append(f"note: {note}")
    return out


def _strategy_rows(game: str, table: TableConfig) -> tuple[str, Iterable[dict[str, object]]]:
    from controller.game.definition import load
    from controller.game.registry import definition

    rows: Callable[[TableConfig], tuple[str, Iterable[dict[str, object]]]] = load(definition(game).strategy)
    return rows(table)


def run(args: argparse.Namespace) -> int:
    """Run ``tablectl par``; 0 on success, 2 for a bad config or paytable."""
    from controller.configuration import ConfigError, default_table_path, load_table
    from controller.par import par_sheet
    from controller.par.sheets import ParError, with_paytable

    path = args.config or default_table_path(args.game)
    try:
        table = load_table(path)
        if table.game != args.game:
            raise ParError(f"{path}: the table config is for {table.game}, not {args.game}")
        if args.paytable:
            table = with_paytable(table, args.paytable)
    except (ConfigError, ParError) as exc:
        print(f"tablectl par: {exc}", file=sys.stderr)
        return 2
    if args.strategy:
        head, rows = _strategy_rows(args.game, table)
        if args.json:
            print(json.dumps({"game": args.game, "strategy": head, "rows": list(rows)}))
        else:
            print(f"# {head}")
            for i, row in enumerate(rows):
                if i == 0:
                    print("\t".join(row))
                print("\t".join(str(v) for v in row.values()))
        return 0
    sheet = par_sheet(args.game, table)
    if args.json:
        print(json.dumps(sheet.to_json()))
    else:
        print("\n".join(sheet_lines(sheet, table)))
    return 0
