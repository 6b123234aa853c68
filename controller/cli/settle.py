"""``tablectl settle ROUND.json``: settle one round record and print the settlement as JSON.

The record format is docs/round-record.md. A record with any problem prints every problem
(by JSON path) on standard error and exits 2; nothing is partially settled.
"""

from __future__ import annotations

import argparse
import json
import sys

from controller.games import RecordError, settle_record
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


def run(args: argparse.Namespace) -> int:
    """Run ``tablectl settle``; 0 when settled, 2 when the record or config has problems."""
    name = "<stdin>" if args.record == "-" else args.record
    try:
        text = sys.stdin.read() if args.record == "-" else open(args.record, encoding="utf-8").read()
    except OSError as exc:
        print(f"tablectl settle: {name}: cannot read: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        print(f"tablectl settle: {name}: line {exc.lineno} column {exc.colno}: not JSON: {exc.msg}", file=sys.stderr)
        return 2
    try:
        settlement = settle_record(data)
    except (RecordError, ConfigError) as exc:
        problems = exc.problems
        for problem in problems:
            print(f"tablectl settle: {name}: {problem}", file=sys.stderr)
        return 2
    json.dump(settlement.to_json(), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0
