"""``tablectl export``: a day or a range of a table's journal as a flat file for the regulator
(CSV, or JSON lines), one row per wager: table, round, seat, wager, amount, result, paid, time,
and who as far as the journal knows it: the round's dealer, and its supervisor acts with the
person who authorized each.

Rounds are chosen by when they were settled, in the table's time zone (the computer's own, or
``--zone``): ``--day 2026-12-04``, or ``--since``/``--until`` (a date alone: ``--since`` from its
midnight, ``--until`` through its end). The rounds exported are checked against the journal's
hash chain first, as ``recall`` checks them, unless ``--no-verify``: a round whose records do not
verify is left out, named on standard error, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from collections.abc import Iterable, Iterator
from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from controller.cli._args import positive_int
from controller.cli._export_window import BadWindow, Window, window
from controller.cli._journal import add_journal_args, open_journal_from_args, read_then_close
from controller.host import TIME_FORMS

if TYPE_CHECKING:
    from controller.journal import SqliteJournal
    from controller.journal.export import WagerRow

__all__ = ["options", "run"]


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl export``'s options to its parser ``p``."""
    add_journal_args(p, verify_option=True)
    p.add_argument("--day", metavar="DATE", help="the rounds settled on DATE (YYYY-MM-DD) in the table's time zone")
    p.add_argument(
        "--since",
        metavar="TIME",
        help=f"the rounds settled at or after TIME: a date (from its midnight), or {TIME_FORMS}",
    )
    p.add_argument(
        "--until",
        metavar="TIME",
        help="the rounds settled before TIME: a date (through its end), or a time as --since takes it",
    )
    p.add_argument(
        "--zone",
        metavar="NAME",
        help="the table's time zone, an IANA name such as Europe/Malta, for the days, times without a zone and "
        "the times written (default: this computer's, which on the table is the table's)",
    )
    p.add_argument("--seat", type=positive_int(99), metavar="N", help="only seat N's wagers")
    p.add_argument("--format", choices=("csv", "jsonl"), default="csv", help="CSV with a header, or JSON lines")
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE (default: standard output)")
    p.add_argument(
        "--table",
        metavar="NAME",
        help="the table's name in each row (default: the name in the table config the round was played under)",
    )


def run(args: argparse.Namespace) -> int:
    """Run ``tablectl export``: 0 when every round asked for was exported verified, 1 when some did
    not verify (left out), 2 on bad input."""
    try:
        chosen = window(args.day, args.since, args.until, args.zone)
        target = _target(args.output)
    except BadWindow as exc:
        print(f"tablectl export: {exc}", file=sys.stderr)
        return 2
    journal, _ = open_journal_from_args(args, "export")
    if target is not None and _is_the_journals(target, journal.path):
        journal.close()
        print(f"tablectl export: --output {args.output}: the journal's own file: name another file", file=sys.stderr)
        return 2

    def export() -> int:
        try:
            rounds = _Rounds(journal, args, chosen)  # checked first: the rows are then written as they are read
            _write(rounds.rows(), args.format, target, chosen.zone)
            return rounds.status
        except BrokenPipeError:
            raise
        except OSError as exc:
            print(f"tablectl export: --output {args.output}: cannot write: {exc.strerror or exc}", file=sys.stderr)
            return 2

    return read_then_close("export", journal, export)


def _is_the_journals(target: Path, journal: Path) -> bool:
    """Whether ``target`` is the journal or a file SQLite or its writer keeps beside it."""
    mine = journal.resolve()
    files = {mine, *(mine.with_name(mine.name + end) for end in ("-wal", "-shm", "-journal", ".lock"))}
    return target.resolve() in files


def _target(output: str | None) -> Path | None:
    """The file ``--output`` names, checked before the journal is read; raises :class:`BadWindow`."""
    if output is None:
        return None
    target = Path(output)
    try:
        if not output.strip():
            raise BadWindow("--output: empty: name the file to write")
        if target.is_dir():
            raise BadWindow(f"--output {output}: a folder, not a file")
        if not target.parent.is_dir():
            raise BadWindow(f"--output {output}: no such folder: {target.parent}")
    except OSError as exc:
        raise BadWindow(f"--output {output[:80]}: {exc.strerror or exc}") from None
    return target


class _Rounds:
    """The rounds settled in a window, checked against the hash chain as they are chosen (each
    problem named on standard error), then read one by one as rows: a year's export is never held
    in memory whole. ``status``: 1 once a round was left out or unreadable."""

    def __init__(self, journal: SqliteJournal, args: argparse.Namespace, when: Window) -> None:
        from controller.journal import verify_rounds
        from controller.journal.export import settled_between

        self.journal, self.seat = journal, args.seat
        self.chosen = settled_between(journal, when.since, when.until)
        self.bad_from: int | None = None
        self.status = 0
        if self.chosen and not args.no_verify:
            report = verify_rounds(journal, self.chosen)
            self.bad_from = report.bad_from
            for problem in report.problems:
                print(f"tablectl export: {journal.path}: {problem}", file=sys.stderr)
            self.status = 1 if report.problems else 0
        self.names = _TableNames(args.table or _config_name(args.config))

    def rows(self) -> Iterator[WagerRow]:
        """The rows of each verified round, oldest first."""
        from controller.game import wager_order
        from controller.journal.export import seat_played, wager_rows
        from controller.journal.people import round_people

        where = self.journal.path
        for number, seq in self.chosen:
            if self.bad_from is not None and seq >= self.bad_from:
                print(f"tablectl export: {where}: round {number}: left out: its records do not verify", file=sys.stderr)
                continue
            record = self.journal.record(seq)
            try:
                if record is None or not isinstance(record.data, dict):
                    raise ValueError(f"record {seq} is not readable")
                data = record.data
                if self.seat is not None and not seat_played(data, self.seat):
                    continue
                people = round_people(self.journal, number, seq, data)
                # whole before the first is written: an unreadable round leaves no half of itself
                rows = list(wager_rows(self.names(data), number, data, record.at, wager_order, self.seat, people))
            except (KeyError, TypeError, ValueError, AttributeError) as exc:  # only with --no-verify
                print(f"tablectl export: {where}: round {number}: unreadable: {exc!r}", file=sys.stderr)
                self.status = 1
                continue
            yield from rows


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


def _write(rows: Iterable[WagerRow], form: str, target: Path | None, zone: tzinfo | None) -> None:
    """The rows as CSV or JSON lines to ``target`` (written whole beside it, then moved into place),
    or to standard output; times in ``zone``."""
    if target is None:
        _emit(rows, form, sys.stdout, zone)
        return
    partial = target.with_name(f".{target.name}.partial")
    try:
        with open(partial, "w", encoding="utf-8", newline="") as f:
            _emit(rows, form, f, zone)
            f.flush()
            os.fsync(f.fileno())
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def _emit(rows: Iterable[WagerRow], form: str, out: TextIO, zone: tzinfo | None) -> None:
    from controller.journal.export import COLUMNS

    if form == "jsonl":
        for row in rows:
            out.write(json.dumps(row.json(zone)) + "\n")
        return
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    writer.writerows(row.csv_row(zone) for row in rows)
