"""``tablectl journal verify|prune``: check a journal's hash chain and meters; prune old rounds.

Shared by ``recall`` and ``meters``: which journal (``--journal PATH``, or the one a table
config names with ``--config``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from controller.journal import JournalError, SqliteJournal, verify_journal
from controller.journal.retention import KEEP_LAST, prune
from controller.table_config import load_table
from controller.yamlfile import ConfigError

__all__ = ["register", "add_journal_args", "open_journal_from_args", "RUN_JOURNAL_DIR", "BENCH_JOURNAL_DIR"]

RUN_JOURNAL_DIR = Path("/var/lib/tablectl")
"""Where ``tablectl run`` keeps a table's journal unless its config says otherwise."""
BENCH_JOURNAL_DIR = Path("tablectl-journal")
"""Where ``tablectl bench`` keeps it: under the working directory."""


def add_journal_args(p: argparse.ArgumentParser) -> None:
    """``--journal PATH`` and ``--config FILE`` (its ``journal:``, else the ``run`` default)."""
    p.add_argument("--journal", help="the journal file (e.g. tablectl-journal/mississippi_stud.db)")
    p.add_argument(
        "--config",
        help="a table config: its journal (journal.path, else /var/lib/tablectl/GAME.db), signed with its key",
    )


def open_journal_from_args(args: argparse.Namespace, command: str) -> tuple[SqliteJournal, int]:
    """The journal the arguments name (existing only) and the retention days; raises ``SystemExit(2)``
    with a clear message when it cannot be opened."""
    key, days, path = None, 90, args.journal
    try:
        if args.config:
            table = load_table(args.config)
            days = table.journal.retention_days
            if table.journal.hmac_key_file:
                key = Path(table.journal.hmac_key_file).read_bytes().strip()
            path = path or table.journal.path or str(RUN_JOURNAL_DIR / f"{table.game}.db")
        if not path:
            print(f"tablectl {command}: name the journal: --journal PATH or --config FILE", file=sys.stderr)
            raise SystemExit(2)
        return SqliteJournal(path, key, create=False), days
    except (ConfigError, JournalError, OSError) as exc:
        print(f"tablectl {command}: {exc}", file=sys.stderr)
        raise SystemExit(2) from exc


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``journal`` sub-command (``verify``, ``prune``) to the ``tablectl`` parser."""
    p = sub.add_parser(
        "journal", help="check a table's journal, or prune its old rounds", description=__doc__.splitlines()[0]
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    v = actions.add_parser(
        "verify", help="check the hash chain record by record, and the meters; name the first bad record"
    )
    add_journal_args(v)
    v.set_defaults(run=run_verify)
    pr = actions.add_parser(
        "prune",
        help=f"remove rounds older than the retention (journal.retention_days, default 90; never the last {KEEP_LAST})",
    )
    add_journal_args(pr)
    pr.add_argument("--days", type=int, help="retention in days (default: the config's, else 90)")
    pr.set_defaults(run=run_prune)


def run_verify(args: argparse.Namespace) -> int:
    """0 when the chain and meters are intact, 1 when not (each problem printed), 2 when unreadable."""
    journal, _ = open_journal_from_args(args, "journal verify")
    try:
        report = verify_journal(journal)
    finally:
        journal.close()
    for problem in report.problems:
        print(f"tablectl journal verify: {journal.path}: {problem}", file=sys.stderr)
    if report.ok:
        print(
            f"{journal.path}: ok: records {report.first_seq}-{report.last_seq} chained, {report.rounds} rounds, meters agree"
        )
    return 0 if report.ok else 1


def run_prune(args: argparse.Namespace) -> int:
    journal, days = open_journal_from_args(args, "journal prune")
    days = args.days or days
    if days < 1:
        print("tablectl journal prune: --days must be at least 1", file=sys.stderr)
        return 2
    try:
        n = prune(journal, days)
    except JournalError as exc:
        print(f"tablectl journal prune: {exc}", file=sys.stderr)
        return 2
    finally:
        journal.close()
    print(f"{journal.path}: pruned {n} rounds older than {days} days")
    return 0
