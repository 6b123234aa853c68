"""``tablectl recall``: finished rounds from a table's journal, as text or round records.

The journal is opened read-only and checked where it can be cheaply, at any size, unless
``--no-verify`` (:func:`controller.journal.verify_reader`: the signed meta, the head, the last
snapshot, and the chain around each round shown): a round whose records cannot be
trusted is marked loudly in text, left out of ``--json``, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from typing import TYPE_CHECKING

from controller.cli.args import positive_int
from controller.cli.journal import add_journal_args, open_journal_from_args

if TYPE_CHECKING:
    from controller.journal import SqliteJournal

__all__ = ["register", "run"]

_SHOW_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError)
"""What showing an unverified (``--no-verify``) record that is not what the journal writes can raise."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``recall`` sub-command to the ``tablectl`` parser."""
    p = sub.add_parser(
        "recall",
        help="show finished rounds: seats, wagers, cards in dealt order, inputs, faults, settlement",
        description="Show finished rounds from a table's journal. With --json each round is written in the round "
        "record format (docs/round-record.md), one JSON object per line, which `tablectl settle` re-settles "
        "from any folder. The hash chain is checked over the rounds shown (exit 1 when it breaks).",
    )
    add_journal_args(p, verify_option=True)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--last", type=positive_int(1_000_000), metavar="N", help="the last N rounds (default 10)")
    which.add_argument("--round", type=positive_int(2**62), metavar="ID", help="one round, by its number")
    p.add_argument("--json", action="store_true", help="round records, one per line")
    p.add_argument("--table", help="the table config path written into each record (default: the one played under)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from controller.journal import JournalDamaged
    from controller.journal.recall import RecallError

    journal, _ = open_journal_from_args(args, "recall")
    try:
        return _show(journal, args)
    except RecallError as exc:
        print(f"tablectl recall: {exc}", file=sys.stderr)
        return 2
    except JournalDamaged as exc:
        print(f"tablectl recall: {exc}", file=sys.stderr)
        return 1
    except sqlite3.DatabaseError as exc:
        print(f"tablectl recall: {journal.path}: cannot read the journal: {exc}: damaged", file=sys.stderr)
        return 1
    finally:
        journal.close()


def _show(journal: SqliteJournal, args: argparse.Namespace) -> int:
    """Check, then print, the rounds asked for; the exit status."""
    from controller.journal import JournalDamaged, verify_rounds
    from controller.journal.recall import choose, recall_json, recall_lines, recall_round
    from controller.names import wager_order

    chosen = choose(journal, last=args.last, round_no=args.round)
    problems: list[str] = []
    bad_from: int | None = None
    if chosen and not args.no_verify:
        report = verify_rounds(journal, chosen)
        problems, bad_from = report.problems, report.bad_from
        for note in report.notes:
            print(f"tablectl recall: {journal.path}: {note}", file=sys.stderr)
    for problem in problems:
        print(f"tablectl recall: {journal.path}: {problem}", file=sys.stderr)
    status = 1 if problems else 0
    for number, seq in chosen:
        trusted = bad_from is None or seq < bad_from
        if args.json and not trusted:
            print(
                f"tablectl recall: {journal.path}: round {number}: left out: its records do not verify", file=sys.stderr
            )
            continue
        try:
            r = recall_round(journal, number, seq)
            text = (
                json.dumps(recall_json(r, args.table or args.config))
                if args.json
                else "\n".join(recall_lines(r, wager_order))
            )
        except (JournalDamaged, *_SHOW_ERRORS) as exc:
            print(f"tablectl recall: {journal.path}: round {number}: unreadable: {exc}", file=sys.stderr)
            status = 1
            continue
        if not trusted:
            print(_banner(number, problems[0] if problems else "not verified"))
        print(text)
        if not args.json:
            print()
    if not chosen and not args.json:
        print(f"{journal.path}: no finished rounds")
    return status


def _banner(number: int, problem: str) -> str:
    line = "!" * 78
    return (
        f"{line}\n!! ROUND {number}: NOT VERIFIED: the journal was changed or damaged at or before this round.\n"
        f"!! {problem}\n!! What follows is what the file holds now, not necessarily what happened.\n{line}"
    )
