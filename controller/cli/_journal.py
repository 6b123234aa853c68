"""``tablectl journal verify|prune|change-game|backup``: check a journal's hash chain and meters;
prune old rounds; bind a journal to another game between rounds; copy a live journal safely and
verify the copy.

Shared by ``recall``, ``meters`` and ``export``: which journal (``--journal PATH``, or the one a table
config names with ``--config``), opened read-only for every command but ``prune``.

Exit status of the readers: 0 when what they show is verified, 1 when the journal is damaged or
was changed (each problem named), 2 when it cannot be read at all or is not a tablectl journal.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from controller.cli._args import positive_int
from controller.cli._choices import KEEP_LAST

if TYPE_CHECKING:
    from controller.journal import SqliteJournal

__all__ = [
    "options",
    "add_journal_args",
    "open_journal_from_args",
    "RUN_JOURNAL_DIR",
    "BENCH_JOURNAL_DIR",
]

RUN_JOURNAL_DIR = Path("/var/lib/tablectl")
"""Where ``tablectl run`` keeps a table's journal unless its config says otherwise."""
BENCH_JOURNAL_DIR = Path("tablectl-journal")
"""Where ``tablectl bench`` keeps it: under the working directory."""


def unreadable(command: str, journal: SqliteJournal, exc: Exception) -> int:
    """Say on standard error why ``journal`` could not be read for ``tablectl command`` (its records
    do not verify: ``JournalDamaged``; SQLite found the file damaged: any other error) and give the
    exit status, 1."""
    from controller.journal import JournalDamaged

    if isinstance(exc, JournalDamaged):
        print(f"tablectl {command}: {exc}", file=sys.stderr)
    else:
        print(f"tablectl {command}: {journal.path}: cannot read the journal: {exc}: damaged", file=sys.stderr)
    return 1


def read_then_close(command: str, journal: SqliteJournal, read: Callable[[], int]) -> int:
    """``read()``'s exit status for ``tablectl command``, ``journal`` closed after; 1, and why
    (:func:`unreadable`), when the journal turns out damaged while it is read."""
    import sqlite3

    from controller.journal import JournalDamaged

    try:
        return read()
    except (JournalDamaged, sqlite3.DatabaseError) as exc:
        return unreadable(command, journal, exc)
    finally:
        journal.close()


def add_journal_args(p: argparse.ArgumentParser, verify_option: bool = False) -> None:
    """``--journal PATH`` and ``--config FILE`` (its ``journal:``, else the ``run`` default);
    with ``verify_option``, ``--no-verify``."""
    p.add_argument("--journal", help="the journal file (e.g. tablectl-journal/mississippi_stud.db)")
    p.add_argument(
        "--config",
        help="a table config: its journal (journal.path, else /var/lib/tablectl/GAME.db), signed with its key",
    )
    if verify_option:
        p.add_argument(
            "--no-verify",
            action="store_true",
            help="skip checking the hash chain over what is shown (faster; shows a changed journal as it is)",
        )


def open_journal_from_args(args: argparse.Namespace, command: str, write: bool = False) -> tuple[SqliteJournal, int]:
    """The journal the arguments name (existing only; read-only unless ``write``) and the retention
    days; raises ``SystemExit`` (2, or 1 for a damaged journal) with a clear message when it
    cannot be opened."""
    from controller.configuration import ConfigError, load_table
    from controller.journal import JournalDamaged, JournalError, SqliteJournal, read_hmac_key

    key, days, path = None, 90, args.journal
    try:
        if args.config:
            table = load_table(args.config)
            days = table.journal.retention_days
            if table.journal.hmac_key_file:
                key = read_hmac_key(table.journal.hmac_key_file)
            path = path or table.journal.path or str(RUN_JOURNAL_DIR / f"{table.game}.db")
        if not path:
            print(f"tablectl {command}: name the journal: --journal PATH or --config FILE", file=sys.stderr)
            raise SystemExit(2)
        if write:
            return SqliteJournal(path, key, create=False), days
        journal = SqliteJournal.open_readonly(path, key)
        try:
            journal.read_as_of_now()  # a table may be writing it: one state of it is read, not a mix
        except BaseException:
            journal.close()
            raise
        return journal, days
    except JournalDamaged as exc:
        print(f"tablectl {command}: {exc}", file=sys.stderr)
        raise SystemExit(1) from exc
    except (ConfigError, JournalError, OSError) as exc:
        print(f"tablectl {command}: {exc}", file=sys.stderr)
        raise SystemExit(2) from exc


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl journal``'s actions (``verify``, ``prune``, ``change-game``, ``backup``) to its parser ``p``."""
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
    pr.add_argument(
        "--days", type=positive_int(36_500), help="retention in days, 1 to 36500 (default: the config's, else 90)"
    )
    pr.add_argument(
        "--force-unacknowledged",
        metavar="REASON",
        help="also prune rounds the floor has not acknowledged; REASON is journaled (a PruneForced record)",
    )
    pr.set_defaults(run=run_prune)
    cg = actions.add_parser(
        "change-game",
        help="bind the journal to the game of another table config, between rounds (a GameChanged record)",
        description="A journal belongs to one game: `run` and `bench` refuse a journal of another game. This binds "
        "it to the game of --config, journaled with the reason, only between rounds and with no table writing it.",
    )
    cg.add_argument("--journal", required=True, help="the journal file")
    cg.add_argument("--config", required=True, help="the table config of the new game (its journal key signs it)")
    cg.add_argument("--reason", required=True, help="why the game changes (journaled)")
    cg.set_defaults(run=run_change_game)
    b = actions.add_parser(
        "backup",
        help="copy the journal with SQLite's online backup (safe while the table runs), then verify the copy",
        description="Copy the journal with SQLite's online backup, safe while the table writes it: every page from "
        "one read transaction, one self-contained file of mode 0600, never over an existing file; then the copy is "
        "verified as `journal verify` does (with the key of --config). Exit 0: a verified copy; 1: written, but it "
        "does not verify (each problem named); 2: nothing written (why named).",
    )
    add_journal_args(b)
    b.add_argument("--to", required=True, metavar="COPY", help="the copy to write (a new file; never replaced)")
    b.set_defaults(run=run_backup)


def run_verify(args: argparse.Namespace) -> int:
    """0 when the chain and meters are intact, 1 when not (each problem printed), 2 when unreadable."""
    from controller.journal import verify_journal

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
    import time

    from controller.journal import JournalError
    from controller.journal.retention import floor_acknowledged, mark_verified, prune_rounds, rounds_to_prune
    from controller.journal.verify import verify_prune

    journal, days = open_journal_from_args(args, "journal prune", write=True)
    days = args.days or days
    if days < 1:
        print("tablectl journal prune: --days must be at least 1", file=sys.stderr)
        return 2
    try:
        forced = getattr(args, "force_unacknowledged", None)
        if forced is not None and not forced.strip():
            print("tablectl journal prune: --force-unacknowledged needs a reason", file=sys.stderr)
            return 2
        acked = floor_acknowledged(journal)
        keep_after = None if forced else acked
        now = time.time()
        run = rounds_to_prune(journal, days, now, keep_after)
        report, mark = verify_prune(journal, run)
        if not report.ok:
            for problem in report.problems:
                print(f"tablectl journal prune: {journal.path}: {problem}", file=sys.stderr)
            print(f"tablectl journal prune: {journal.path}: not pruned: the journal does not verify", file=sys.stderr)
            return 1
        if forced and acked is not None:
            journal.append("PruneForced", {"reason": forced.strip()[:500], "floor_acked_seq": acked, "days": days})
        n = prune_rounds(journal, run)
        mark_verified(journal, *mark)
        held = len(rounds_to_prune(journal, days, now)) if keep_after is not None else 0
    except JournalError as exc:
        print(f"tablectl journal prune: {exc}", file=sys.stderr)
        return 2
    finally:
        journal.close()
    print(f"{journal.path}: pruned {n} rounds older than {days} days")
    if held:
        print(
            f"tablectl journal prune: {journal.path}: {held} older rounds kept: the floor store holds only up to "
            f"record {acked} (tablectl status shows the floor link; --force-unacknowledged REASON prunes them anyway)",
            file=sys.stderr,
        )
        return 1
    return 0


def run_change_game(args: argparse.Namespace) -> int:
    """0 when the journal is bound to the new game; 2 when refused (a round in play, another
    writer, the game it already has, a config or journal that cannot be read), nothing written."""
    from controller.configuration import ConfigError, load_table
    from controller.journal import JournalError
    from controller.table.journal_files import change_game

    reason = " ".join(args.reason.split())[:500]
    if not reason:
        print("tablectl journal change-game: --reason: say why the game changes", file=sys.stderr)
        return 2
    try:
        table = load_table(args.config)
        before, first = change_game(table, Path(args.journal), reason)
    except (ConfigError, JournalError, OSError) as exc:
        print(f"tablectl journal change-game: {exc}", file=sys.stderr)
        return 2
    print(f"{args.journal}: the game is {table.game} from round {first} on (was {before or 'none yet'})")
    return 0


def run_backup(args: argparse.Namespace) -> int:
    """0 when the copy is written and verifies, 1 when it was written but does not verify (each
    problem printed), 2 when it cannot be written."""
    from controller.journal import JournalError
    from controller.journal.backup import backup_journal

    if not args.to.strip():
        print("tablectl journal backup: --to: empty: name the copy's file", file=sys.stderr)
        return 2
    journal, _ = open_journal_from_args(args, "journal backup")
    try:
        result = backup_journal(journal, Path(args.to), journal.key)
    except JournalError as exc:
        print(f"tablectl journal backup: {exc}", file=sys.stderr)
        return 2
    finally:
        journal.close()
    report = result.report
    for note in report.notes:
        print(f"tablectl journal backup: {result.path}: {note}", file=sys.stderr)
    for problem in report.problems:
        print(f"tablectl journal backup: {result.path}: {problem}", file=sys.stderr)
    if not report.ok:
        print(
            f"tablectl journal backup: {result.path}: written, but the copy does not verify "
            f"(run `tablectl journal verify` on {journal.path})",
            file=sys.stderr,
        )
        return 1
    if not result.whole:
        print(
            f"{result.path}: a copy of {journal.path} up to record {result.last_seq}; checked without the journal's "
            "key: the chain's links and the head only (give --config with the key file to verify it whole)"
        )
        return 0
    print(
        f"{result.path}: a copy of {journal.path} up to record {result.last_seq}; verified: records "
        f"{report.first_seq}-{report.last_seq} chained, {report.rounds} rounds, meters agree"
    )
    return 0
