"""``tablectl meters``: meters per seat and for the table. Without --since: the running totals kept
with the rounds (pruned rounds included); with --since: the rounds kept in the journal from that
time on. The journal is verified first (exit 1 when it does not verify).

The journal is opened read-only and checked whole first (chain, round index, meters against the
round records) unless ``--no-verify``: meters of a journal that does not verify are not shown
(exit 1, each problem named).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from typing import TYPE_CHECKING, Any

from controller.cli._journal import add_journal_args, open_journal_from_args, read_then_close
from controller.host import NotATime, parse_local_time

if TYPE_CHECKING:
    from controller.journal import SqliteJournal

__all__ = ["options", "run"]


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl meters``'s options to its parser ``p``."""
    add_journal_args(p, verify_option=True)
    p.add_argument(
        "--since",
        help="the rounds from this time on, in the table's local time as recall's --at takes it: a date "
        "(2026-12-01, from its midnight), HH:MM today, 2026-12-01T14:00, or ISO 8601 with a zone "
        "(default: the running totals)",
    )
    p.add_argument("--json", action="store_true", help="[[scope, name, value], ...] instead of text")


def _refused(path: object, problems: list[str]) -> int:
    for problem in problems:
        print(f"tablectl meters: {path}: {problem}", file=sys.stderr)
    print(f"tablectl meters: {path}: not shown: the journal does not verify", file=sys.stderr)
    return 1


def _last_round(journal: SqliteJournal) -> list[Any]:
    """The last round's data (the table config it was played under names the par sheet)."""
    last = journal.last_round()
    record = journal.record(last[1]) if last is not None else None
    return [record.data] if record is not None else []


def _layout(rounds: list[object]) -> tuple[str, ...]:
    """The wager spots of the game the last of ``rounds`` was played, in its layout order."""
    from controller.game.registry import GAMES, definition

    for data in reversed(rounds):
        record = data.get("record") if isinstance(data, dict) else None
        game = data.get("game") if isinstance(data, dict) else None
        game = game or (record.get("game") if isinstance(record, dict) else None)
        if isinstance(game, str) and game in GAMES:
            return definition(game).catalog.wager_spots
    return ()


def run(args: argparse.Namespace) -> int:
    since = None
    if args.since is not None:
        try:
            since = parse_local_time(args.since, date.today())
        except NotATime as exc:
            print(f"tablectl meters: --since {exc}", file=sys.stderr)
            return 2
    journal, _ = open_journal_from_args(args, "meters")
    return read_then_close("meters", journal, lambda: _show(journal, args, since))


def _show(journal: SqliteJournal, args: argparse.Namespace, since: float | None) -> int:
    """Check, then print, the meters asked for; the exit status."""
    from controller.cli._theoretical import theoretical_lines
    from controller.journal import verify_journal, verify_meters
    from controller.journal.checkpoint import spot_sums
    from controller.journal.meters import add_meters, meters_table

    try:
        check = verify_meters(journal) if since is None else None
        if check is not None and check.checkpoint is not None:
            # incremental: the last checkpoint, the rounds after it, checked against the chain
            if not args.no_verify and not check.report.ok:
                return _refused(journal.path, check.report.problems)
            meters = journal.meters()
            last = [check.after[-1][2]] if check.after else _last_round(journal)
            sums = spot_sums([d for _, _, d in check.after], 0, check.checkpoint.spots)
            label = f"the {sums.rounds:,} rounds from round {sums.from_round}"
            theo_lines, theo_entries = (
                theoretical_lines(last, args.config, sums, label) if last and meters else ([], [])
            )
        else:
            if not args.no_verify:
                report = verify_journal(journal)
                if not report.ok:
                    return _refused(journal.path, report.problems)
            rounds = [journal.record(seq) for _, seq in journal.round_seqs()]
            kept = [r.data for r in rounds if r is not None and (since is None or r.at >= since)]
            meters = journal.meters() if since is None else add_meters(kept)
            theo_lines, theo_entries = theoretical_lines(kept, args.config) if kept and meters else ([], [])
            last = kept[-1:]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # only with --no-verify
        print(
            f"tablectl meters: {journal.path}: unreadable round data ({exc!r}): run without --no-verify",
            file=sys.stderr,
        )
        return 1
    if args.json:
        print(json.dumps([[scope, name, value] for (scope, name), value in sorted(meters.items())] + theo_entries))
    else:
        print("\n".join(meters_table(meters, _layout(last)) + theo_lines) if meters else "no rounds")
    return 0
