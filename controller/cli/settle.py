"""``tablectl settle ROUND.json``: settle one round record and print the settlement as JSON.

The record format is docs/round-record.md. A record with any problem prints every problem
(by JSON path) on standard error and exits 2; nothing is partially settled.
"""

from __future__ import annotations

import argparse
import json
import sys

from controller.games import RecordError, settle_record
from controller.games.record import MAX_RECORD_BYTES, parse_record
from controller.yamlfile import ConfigError

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``settle`` sub-command to the ``tablectl`` parser."""
    p = sub.add_parser(
        "settle",
        help="settle a round record and print every wager's result as JSON",
        description="Settle one round record (docs/round-record.md) and print the settlement as JSON.",
    )
    p.add_argument("record", metavar="ROUND.json", help="the round record, or - for standard input")
    p.set_defaults(run=run)


def _read(name: str) -> bytes:
    """At most one byte more than a record may have, from the file or standard input."""
    if name == "-":
        return sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
    with open(name, "rb") as f:
        return f.read(MAX_RECORD_BYTES + 1)


def run(args: argparse.Namespace) -> int:
    """Run ``tablectl settle``; 0 when settled, 2 when the record or config has problems."""
    name = "<stdin>" if args.record == "-" else args.record
    try:
        raw = _read(args.record)
    except OSError as exc:
        print(f"tablectl settle: {name}: cannot read: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        data = parse_record(raw)
        settlement = settle_record(data)
    except (RecordError, ConfigError) as exc:
        problems = exc.problems
        for problem in problems:
            print(f"tablectl settle: {name}: {problem}", file=sys.stderr)
        return 2
    json.dump(settlement.to_json(), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0
