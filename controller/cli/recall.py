"""``tablectl recall``: finished rounds from a table's journal, as text or round records."""

from __future__ import annotations

import argparse
import json
import sys

from controller.cli.journal import add_journal_args, open_journal_from_args
from controller.journal.recall import RecallError, recall, recall_json, recall_lines

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``recall`` sub-command to the ``tablectl`` parser."""
    p = sub.add_parser(
        "recall",
        help="show finished rounds: seats, wagers, cards in dealt order, inputs, faults, settlement",
        description="Show finished rounds from a table's journal. With --json each round is written in the round "
        "record format (docs/round-record.md), one JSON object per line, which `tablectl settle` re-settles.",
    )
    add_journal_args(p)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--last", type=int, metavar="N", help="the last N rounds (default 10)")
    which.add_argument("--round", type=int, metavar="ID", help="one round, by its number")
    p.add_argument("--json", action="store_true", help="round records, one per line")
    p.add_argument("--table", help="the table config path written into each record (default: the --config given)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.last is not None and args.last < 1:
        print("tablectl recall: --last must be at least 1", file=sys.stderr)
        return 2
    journal, _ = open_journal_from_args(args, "recall")
    try:
        rounds = recall(journal, last=args.last, round_no=args.round)
    except RecallError as exc:
        print(f"tablectl recall: {exc}", file=sys.stderr)
        return 2
    finally:
        journal.close()
    table = args.table or args.config
    for r in rounds:
        if args.json:
            print(json.dumps(recall_json(r, table)))
        else:
            print("\n".join(recall_lines(r)))
            print()
    if not rounds and not args.json:
        print(f"{journal.path}: no finished rounds")
    return 0
