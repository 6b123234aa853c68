"""``tablectl settle ROUND.json``: settle one round record and print the settlement as JSON.

The record format is docs/round-record.md. A record with any problem prints every problem
(by JSON path) on standard error and exits 2; nothing is partially settled. With ``--lines``
the input is one record per line (what `tablectl recall --json` writes) and the output one
settlement per line (``null`` for a line with problems, named on standard error by line).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    from controller.table_config import TableConfig

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``settle`` sub-command to the ``tablectl`` parser."""
    p = sub.add_parser(
        "settle",
        help="settle a round record and print every wager's result as JSON",
        description="Settle one round record (docs/round-record.md) and print the settlement as JSON.",
    )
    p.add_argument("record", metavar="ROUND.json", help="the round record, or - for standard input")
    p.add_argument(
        "--lines",
        action="store_true",
        help="one record per line in (as `tablectl recall --json` writes), one settlement per line out",
    )
    p.set_defaults(run=run)


def _read(name: str) -> bytes:
    """At most one byte more than a record may have, from the file or standard input."""
    from controller.games.record import MAX_RECORD_BYTES

    if name == "-":
        return sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
    with open(name, "rb") as f:
        return f.read(MAX_RECORD_BYTES + 1)


def run(args: argparse.Namespace) -> int:
    """Run ``tablectl settle``; 0 when settled, 2 when the record or config has problems."""
    from controller.games import RecordError, settle_json
    from controller.yamlfile import ConfigError

    name = "<stdin>" if args.record == "-" else args.record
    if args.lines:
        try:
            if args.record == "-":
                return _settle_lines(sys.stdin.buffer, name)
            with open(args.record, "rb") as f:
                return _settle_lines(f, name)
        except OSError as exc:
            print(f"tablectl settle: {name}: cannot read: {exc.strerror or exc}", file=sys.stderr)
            return 2
    try:
        raw = _read(args.record)
    except OSError as exc:
        print(f"tablectl settle: {name}: cannot read: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        settlement = settle_json(raw)
    except (RecordError, ConfigError) as exc:
        problems = exc.problems
        for problem in problems:
            print(f"tablectl settle: {name}: {problem}", file=sys.stderr)
        return 2
    json.dump(settlement.to_json(), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def _settle_lines(stream: BinaryIO, name: str) -> int:
    """Settle one record per line (each read as a whole record is, size and nesting bounded);
    each table config is loaded once. 2 if any line had problems."""
    from controller.games import RecordError, settle_json
    from controller.games.record import MAX_RECORD_BYTES
    from controller.yamlfile import ConfigError

    tables: dict[str, TableConfig] = {}
    status = 0
    number = 0
    while line := stream.readline(MAX_RECORD_BYTES + 2):
        number += 1
        out: Any = None
        try:
            if len(line) > MAX_RECORD_BYTES + 1:  # too long: the rest of the line is skipped unread
                while (more := stream.readline(MAX_RECORD_BYTES)) and not more.endswith(b"\n"):
                    pass
                raise RecordError([f"$: more than {MAX_RECORD_BYTES} bytes: a round record is at most that"])
            out = settle_json(line, tables=tables).to_json()
        except (RecordError, ConfigError) as exc:
            for problem in exc.problems:
                print(f"tablectl settle: {name}: line {number}: {problem}", file=sys.stderr)
            status = 2
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
    return status
