"""``tablectl meters``: per seat and for the table, what the journal's rounds add up to."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime

from controller.cli.journal import add_journal_args, open_journal_from_args
from controller.cli.theoretical import theoretical_lines
from controller.journal.meters import add_meters, meters_table

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``meters`` sub-command to the ``tablectl`` parser."""
    p = sub.add_parser(
        "meters",
        help="rounds, wagers by spot, paid, collected, commission, bonus and envy paid, voids, late bets, faults",
        description="Meters per seat and for the table. Without --since: the running totals kept with the rounds "
        "(pruned rounds included); with --since: the rounds kept in the journal from that time on.",
    )
    add_journal_args(p)
    p.add_argument("--since", help="local date or time, e.g. 2026-12-01 or 2026-12-01T14:00")
    p.add_argument("--json", action="store_true", help="[[scope, name, value], ...] instead of text")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    since = None
    if args.since:
        try:
            since = datetime.fromisoformat(args.since).timestamp()
        except ValueError:
            print(
                f"tablectl meters: --since {args.since!r}: not a date or time (use 2026-12-01 or 2026-12-01T14:00)",
                file=sys.stderr,
            )
            return 2
    journal, _ = open_journal_from_args(args, "meters")
    try:
        rounds = [journal.record(seq) for _, seq in journal.round_seqs()]
        kept = [r.data for r in rounds if r is not None and (since is None or r.at >= since)]
        meters = journal.meters() if since is None else add_meters(kept)
    finally:
        journal.close()
    theo_lines, theo_entries = theoretical_lines(kept, args.config) if kept and meters else ([], [])
    if args.json:
        print(json.dumps([[scope, name, value] for (scope, name), value in sorted(meters.items())] + theo_entries))
    else:
        print("\n".join(meters_table(meters) + theo_lines) if meters else "no rounds")
    return 0
