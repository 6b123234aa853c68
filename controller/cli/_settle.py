"""``tablectl settle``: settle one round record (docs/round-record.md) and print the settlement as
JSON.

The record format is docs/round-record.md. A record with any problem prints every problem
(by JSON path) on standard error and exits 2; nothing is partially settled. With ``--lines``
the input is one record per line (what `tablectl recall --json` writes) and the output one
settlement per line (``null`` for a line with problems, named on standard error by line).

With ``--check`` the record must carry what was paid (``recall.settlement``, as ``tablectl
recall --json`` writes it): the re-settlement is compared with it and each difference in what
was paid (money, results) is named by its JSON path with both values; the exit status is 1 when
any round differs. Differences in wording only (``why``, a step's ``text``) are named apart and
do not count; where the table config was read (``table``) is not compared.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from controller.configuration import TableConfig

__all__ = ["options", "run"]


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl settle``'s options to its parser ``p``."""
    p.add_argument("record", metavar="ROUND.json", help="the round record, or - for standard input")
    p.add_argument(
        "--lines",
        action="store_true",
        help="one record per line in (as `tablectl recall --json` writes), one settlement per line out",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="compare the re-settlement with what was paid (the record's recall.settlement): name each "
        "difference, exit 1 when any",
    )


def _read(name: str) -> bytes:
    """At most one byte more than a record may have, from the file or standard input."""
    from controller.game.record import MAX_RECORD_BYTES

    if name == "-":
        return sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
    with open(name, "rb") as f:
        return f.read(MAX_RECORD_BYTES + 1)


def run(args: argparse.Namespace) -> int:
    """Run ``tablectl settle``; 0 when settled, 2 when the record or config has problems."""
    from controller.configuration import ConfigError
    from controller.game.record import RecordError, parse_record, settle_json

    name = "<stdin>" if args.record == "-" else args.record
    if args.lines:
        try:
            if args.record == "-":
                return _settle_lines(sys.stdin.buffer, name, args.check)
            with open(args.record, "rb") as f:
                return _settle_lines(f, name, args.check)
        except OSError as exc:
            print(f"tablectl settle: {name}: cannot read: {exc.strerror or exc}", file=sys.stderr)
            return 2
    try:
        raw = _read(args.record)
    except OSError as exc:
        print(f"tablectl settle: {name}: cannot read: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        data = parse_record(raw)
        paid = _paid(data) if args.check else None
        settlement = settle_json(raw)
    except (RecordError, ConfigError) as exc:
        problems = exc.problems
        for problem in problems:
            print(f"tablectl settle: {name}: {problem}", file=sys.stderr)
        return 2
    if args.check:
        return _report(name, data, paid, settlement.to_json())
    json.dump(settlement.to_json(), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


_VOID = object()
"""What a void round paid: nothing (every wager was returned)."""


def _paid(data: object) -> object:
    """What the record says was paid (``recall.settlement``; :data:`_VOID` for a void round);
    raises ``RecordError`` when it carries none."""
    from controller.game.record import PAID_PATH, RecordError

    recall = data.get("recall") if isinstance(data, dict) else None
    if not isinstance(recall, dict) or "settlement" not in recall:
        raise RecordError(
            [
                f"{PAID_PATH}: missing: --check compares with what was paid, which a record from "
                "`tablectl recall --json` carries"
            ]
        )
    paid = recall["settlement"]
    if paid is None:
        return _VOID
    if not isinstance(paid, dict):
        raise RecordError([f"{PAID_PATH}: must be an object (or null for a void round)"])
    return paid


def _round_name(data: object, where: str) -> str:
    recall = data.get("recall") if isinstance(data, dict) else None
    number = recall.get("round") if isinstance(recall, dict) else None
    return f"{where}: round {number}" if isinstance(number, int) and not isinstance(number, bool) else where


def _report(where: str, data: object, paid: object, resettled: object) -> int:
    """Print how the re-settlement compares with what was paid; 1 when they differ."""
    from controller.game.record import differences, wording_differences

    round_name = _round_name(data, where)
    if paid is _VOID:
        print(f"{round_name}: void: every wager was returned; nothing paid to compare")
        return 0
    found = differences(paid, resettled)
    wording = wording_differences(paid, resettled)
    if not found:
        print(f"{round_name}: re-settled as paid")
    else:
        print(f"{round_name}: {_count(found, 'difference')} from what was paid:")
        _list(found)
    if wording:
        print(f"{round_name}: {_count(wording, 'difference')} in wording only (not in what was paid):")
        _list(wording)
    return 1 if found else 0


def _count(lines: list[str], what: str) -> str:
    return f"{len(lines)} {what}{'' if len(lines) == 1 else 's'}"


def _list(lines: list[str]) -> None:
    from controller.game.record import MAX_SHOWN

    for line in lines[:MAX_SHOWN]:
        print(f"  {line}")
    if len(lines) > MAX_SHOWN:
        print(f"  ... and {len(lines) - MAX_SHOWN} more")


def _settle_lines(stream: BinaryIO, name: str, check: bool = False) -> int:
    """Settle one record per line (each read as a whole record is, size and nesting bounded);
    each table config is loaded once. 2 if any line had problems; with ``check``, 1 if any round
    differs from what was paid (and none had problems)."""
    from controller.configuration import ConfigError
    from controller.game.record import MAX_RECORD_BYTES, RecordError, parse_record, settle_json

    tables: dict[str, TableConfig] = {}
    status = 0
    differ = False
    number = 0
    while line := stream.readline(MAX_RECORD_BYTES + 2):
        number += 1
        out: object = None
        try:
            if len(line) > MAX_RECORD_BYTES + 1:  # too long: the rest of the line is skipped unread
                while (more := stream.readline(MAX_RECORD_BYTES)) and not more.endswith(b"\n"):
                    pass
                raise RecordError([f"$: more than {MAX_RECORD_BYTES} bytes: a round record is at most that"])
            data = parse_record(line)
            paid = _paid(data) if check else None
            out = settle_json(line, tables=tables).to_json()
            if check:
                differ = _report(f"{name}: line {number}", data, paid, out) == 1 or differ
        except (RecordError, ConfigError) as exc:
            for problem in exc.problems:
                print(f"tablectl settle: {name}: line {number}: {problem}", file=sys.stderr)
            status = 2
        if not check:
            sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
    return status or (1 if differ else 0)
