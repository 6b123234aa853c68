"""``tablectl export``: a day or a range of a table's journal as a flat file for the regulator,
one row per wager: table, round, seat, wager, amount, result, paid, time (CSV, or JSON lines).

Rounds are chosen by when they were settled, in the table's local time: ``--day 2026-12-04``,
or ``--since``/``--until`` (a date alone: ``--since`` from its midnight, ``--until`` through its
end). The rounds exported are checked against the journal's hash chain first, as ``recall``
checks them, unless ``--no-verify``: a round whose records do not verify is left out, named on
standard error, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import sqlite3
import sys
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from controller.cli._args import description, positive_int
from controller.cli._journal import add_journal_args, open_journal_from_args
from controller.host import TIME_FORMS, NotATime, parse_local_time, shown_time

if TYPE_CHECKING:
    from controller.journal import SqliteJournal
    from controller.journal.export import WagerRow

__all__ = ["register", "run"]

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _day(text: str) -> date:
    if not _DATE.fullmatch(text.strip()):
        raise argparse.ArgumentTypeError(f"{text[:40]!r}: not a date (use YYYY-MM-DD, e.g. 2026-12-04)")
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r}: not a date on the calendar") from None


_day.__name__ = "date"


def _midnight(day: date) -> float:
    """The POSIX time of ``day``'s local midnight."""
    return datetime.combine(day, datetime.min.time()).timestamp()


def _bound(end: bool) -> Callable[[str], float]:
    """An argparse ``type``: a time in :data:`TIME_FORMS` or a date alone (its midnight; with
    ``end``, the next day's: the date is taken whole)."""

    def parse(text: str) -> float:
        try:
            if _DATE.fullmatch(text.strip()):
                day = _day(text)
                return _midnight(day + timedelta(days=1) if end else day)
            return parse_local_time(text, date.today())
        except (NotATime, OverflowError, ValueError, OSError) as exc:
            raise argparse.ArgumentTypeError(str(exc) or f"{text[:40]!r}: out of range") from None

    parse.__name__ = "time"
    return parse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``export`` sub-command to the ``tablectl`` parser."""
    p = sub.add_parser(
        "export",
        help="a day or a range of rounds as CSV or JSON lines, one row per wager, for the regulator",
        description=description(__doc__, 2),
    )
    add_journal_args(p, verify_option=True)
    p.add_argument(
        "--day", type=_day, metavar="DATE", help="the rounds settled on DATE (YYYY-MM-DD) in the table's local time"
    )
    p.add_argument(
        "--since",
        type=_bound(end=False),
        metavar="TIME",
        help=f"the rounds settled at or after TIME: a date (from its midnight), or {TIME_FORMS}",
    )
    p.add_argument(
        "--until",
        type=_bound(end=True),
        metavar="TIME",
        help="the rounds settled before TIME: a date (through its end), or a time as --since takes it",
    )
    p.add_argument("--seat", type=positive_int(99), metavar="N", help="only seat N's wagers")
    p.add_argument("--format", choices=("csv", "jsonl"), default="csv", help="CSV with a header, or JSON lines")
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE (default: standard output)")
    p.add_argument(
        "--table",
        metavar="NAME",
        help="the table's name in each row (default: the name in the table config the round was played under)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``tablectl export``: 0 when every round asked for was exported verified, 1 when some did
    not verify (left out), 2 on bad input."""
    from controller.journal import JournalDamaged

    since, until = args.since, args.until
    if args.day is not None:
        if since is not None or until is not None:
            print("tablectl export: --day chooses a whole day: not with --since or --until", file=sys.stderr)
            return 2
        since, until = _midnight(args.day), _midnight(args.day + timedelta(days=1))
    if since is not None and until is not None and since >= until:
        print(
            f"tablectl export: no time between --since and --until: from {shown_time(since)} to before "
            f"{shown_time(until)} (a date alone as --until is taken through its end)",
            file=sys.stderr,
        )
        return 2
    if args.output is not None and Path(args.output).is_dir():
        print(f"tablectl export: --output {args.output}: a folder, not a file", file=sys.stderr)
        return 2
    journal, _ = open_journal_from_args(args, "export")
    try:
        rows, status = _rows(journal, args, since, until)
    except JournalDamaged as exc:
        print(f"tablectl export: {exc}", file=sys.stderr)
        return 1
    except sqlite3.DatabaseError as exc:
        print(f"tablectl export: {journal.path}: cannot read the journal: {exc}: damaged", file=sys.stderr)
        return 1
    finally:
        journal.close()
    try:
        _write(rows, args.format, args.output)
    except BrokenPipeError:
        raise
    except OSError as exc:
        print(f"tablectl export: {args.output}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return status


def _rows(
    journal: SqliteJournal, args: argparse.Namespace, since: float | None, until: float | None
) -> tuple[list[WagerRow], int]:
    """The rows of the verified rounds settled from ``since`` to ``until``, and the exit status."""
    from controller.game import wager_order
    from controller.journal import verify_rounds
    from controller.journal.export import seat_played, settled_between, wager_rows

    chosen = settled_between(journal, since, until)
    bad_from: int | None = None
    status = 0
    if chosen and not args.no_verify:
        report = verify_rounds(journal, chosen)
        bad_from = report.bad_from
        for problem in report.problems:
            print(f"tablectl export: {journal.path}: {problem}", file=sys.stderr)
        status = 1 if report.problems else 0
    names = _TableNames(args.table or _config_name(args.config))
    rows: list[WagerRow] = []
    for number, seq in chosen:
        if bad_from is not None and seq >= bad_from:
            print(
                f"tablectl export: {journal.path}: round {number}: left out: its records do not verify", file=sys.stderr
            )
            continue
        record = journal.record(seq)
        try:
            if record is None or not isinstance(record.data, dict):
                raise ValueError(f"record {seq} is not readable")
            data = record.data
            if args.seat is not None and not seat_played(data, args.seat):
                continue
            rows += list(wager_rows(names(data), number, data, record.at, wager_order, args.seat))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:  # only with --no-verify
            print(f"tablectl export: {journal.path}: round {number}: unreadable: {exc!r}", file=sys.stderr)
            status = 1
    return rows, status


def _config_name(config: str | None) -> str | None:
    from controller.configuration import load_table

    return load_table(config).name if config else None  # already loaded once: it loads


class _TableNames:
    """The table's name for a round: the one given, else the name in the config the round was
    played under (each config loaded once), else that config's file name."""

    def __init__(self, given: str | None) -> None:
        self.given = given
        self.by_path: dict[str, str] = {}

    def __call__(self, data: dict[str, object]) -> str:
        if self.given:
            return self.given
        path = str(data.get("table") or "")
        if path not in self.by_path:
            self.by_path[path] = self._load(path)
        return self.by_path[path]

    @staticmethod
    def _load(path: str) -> str:
        from controller.configuration import ConfigError, load_table
        from controller.game.record import resolve_table_path

        if not path:
            return ""
        try:
            return load_table(resolve_table_path(path)).name
        except (ConfigError, OSError):
            return Path(path).stem


def _write(rows: list[WagerRow], form: str, output: str | None) -> None:
    """The rows as CSV or JSON lines to ``output`` (written whole beside it, then moved into place),
    or to standard output."""
    if output is None:
        _emit(rows, form, sys.stdout)
        return
    target = Path(output)
    partial = target.with_name(f".{target.name}.partial")
    try:
        with open(partial, "w", encoding="utf-8", newline="") as f:
            _emit(rows, form, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def _emit(rows: list[WagerRow], form: str, out: TextIO) -> None:
    from controller.journal.export import COLUMNS

    wagers = rows
    if form == "jsonl":
        for row in wagers:
            out.write(json.dumps(row.json()) + "\n")
        return
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    writer.writerows(row.csv_row() for row in wagers)
