"""``tablectl recall``: show finished rounds from a table's journal. With --json each round is written
in the round record format (docs/round-record.md), one JSON object per line, which `tablectl settle`
re-settles from any folder. The hash chain is checked over the rounds shown (exit 1 when it breaks).

The journal is opened read-only and checked where it can be cheaply, at any size, unless
``--no-verify`` (:func:`controller.journal.verify_reader`: the signed meta, the head, the last
snapshot, and the chain around each round shown): a round whose records cannot be
trusted is marked loudly in text, left out of ``--json``, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from controller.cli._args import positive_int
from controller.cli._journal import add_journal_args, open_journal_from_args, read_then_close
from controller.cli._when import TIME_FORMS, local_time, shown_time, since_after_until

if TYPE_CHECKING:
    from controller.journal import SqliteJournal
    from controller.journal.holds import HoldStory

__all__ = ["options", "run"]

_SHOW_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError)
"""What showing an unverified (``--no-verify``) record that is not what the journal writes can raise."""


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl recall``'s options to its parser ``p``."""
    add_journal_args(p, verify_option=True)
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--last",
        type=positive_int(1_000_000),
        metavar="N",
        help="the last N rounds (default 10; with --since or --until, the last N of those, default all)",
    )
    which.add_argument("--round", type=positive_int(2**62), metavar="ID", help="one round, by its number")
    which.add_argument(
        "--at",
        type=local_time(),
        metavar="TIME",
        help="the round in play at TIME, with the one before and the one after; TIME in the table's local "
        f"time: {TIME_FORMS}",
    )
    p.add_argument(
        "--since",
        type=local_time(),
        metavar="TIME",
        help="the rounds in play at or after TIME (same forms as --at; default: from the first kept)",
    )
    p.add_argument(
        "--until",
        type=local_time(),
        metavar="TIME",
        help="the rounds in play at or before TIME (same forms as --at; default: to the last)",
    )
    p.add_argument(
        "--seat",
        type=positive_int(99),
        metavar="N",
        help="only rounds in which seat N had a wager (with --last: the last N of those)",
    )
    p.add_argument("--json", action="store_true", help="round records, one per line")
    p.add_argument("--table", help="the table config path written into each record (default: the one played under)")


def run(args: argparse.Namespace) -> int:
    from controller.journal.recall import RecallError

    window = args.since is not None or args.until is not None
    if window and (args.round is not None or args.at is not None):
        print("tablectl recall: --since and --until choose rounds by time: not with --round or --at", file=sys.stderr)
        return 2
    if since_after_until("recall", args.since, args.until):
        return 2
    journal, _ = open_journal_from_args(args, "recall")

    def show() -> int:
        try:
            return _show(journal, args)
        except RecallError as exc:
            print(f"tablectl recall: {exc}", file=sys.stderr)
            return 2

    return read_then_close("recall", journal, show)


def _show(journal: SqliteJournal, args: argparse.Namespace) -> int:
    """Check, then print, the rounds asked for; the exit status."""
    from controller.game import wager_order
    from controller.journal import JournalDamaged, verify_rounds
    from controller.journal.holds import round_holds
    from controller.journal.recall import recall_json, recall_lines, recall_round

    chosen = _chosen(journal, args)
    if args.seat is not None:
        by_window = args.since is not None or args.until is not None
        one = args.round is not None or args.at is not None
        chosen = _at_seat(journal, chosen, args.seat, None if one else args.last if by_window else args.last or 10)
        if by_window:
            _heading(args, f"with a wager at seat {args.seat}: {len(chosen)} of those")
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
            if args.json:
                text = json.dumps(recall_json(r, args.table or args.config))
            else:
                holds = round_holds(journal, number, r.events, seq)
                text = "\n".join(recall_lines(r, wager_order) + _hold_lines(holds))
        except (JournalDamaged, *_SHOW_ERRORS) as exc:
            print(f"tablectl recall: {journal.path}: round {number}: unreadable: {exc}", file=sys.stderr)
            status = 1
            continue
        if not trusted:
            print(_banner(number, problems[0] if problems else "not verified"))
        print(text)
        if not args.json:
            print()
    by_time = args.at is not None or args.since is not None or args.until is not None
    if not chosen and not args.json and not by_time:  # by time: the heading said so
        at_seat = f" with a wager at seat {args.seat}" if args.seat is not None else ""
        print(f"{journal.path}: no finished rounds{at_seat}")
    return status


def _chosen(journal: SqliteJournal, args: argparse.Namespace) -> list[tuple[int, int]]:
    """(round number, seq of its record) of the rounds asked for, oldest first; by time, a line
    saying which (the time shown in the table's local time with its zone)."""
    from controller.journal.by_time import rounds_at, rounds_between
    from controller.journal.recall import choose

    if args.at is not None:
        found = rounds_at(journal, args.at)
        when = shown_time(args.at)
        if found.in_play is not None:
            head = f"at {when}: round {found.in_play} was in play (shown with the one before and the one after)"
        elif found.chosen:
            shown = " and ".join(str(n) for n, _ in found.chosen)
            head = f"at {when}: no round was in play (the table between rounds); the nearest, round {shown}"
        else:
            head = f"at {when}: no finished rounds"
        _heading(args, head)
        return found.chosen
    if args.since is not None or args.until is not None:
        chosen = rounds_between(journal, args.since, args.until)
        if args.last and args.seat is None:
            chosen = chosen[-args.last :]
        since = shown_time(args.since) if args.since is not None else "the first round kept"
        until = shown_time(args.until) if args.until is not None else "the last"
        _heading(args, f"from {since} to {until}: {len(chosen)} round{'' if len(chosen) == 1 else 's'} in play")
        return chosen
    if args.seat is not None and args.round is None:
        return journal.round_seqs()  # the last N of those at the seat: chosen by _at_seat
    return choose(journal, last=args.last, round_no=args.round)


def _at_seat(
    journal: SqliteJournal, chosen: list[tuple[int, int]], seat: int, last: int | None
) -> list[tuple[int, int]]:
    """Of ``chosen``, the rounds in which ``seat`` had a wager (the last ``last`` of them, all when
    ``None``), read newest first from their round records."""
    from controller.journal.export import seat_played

    found: list[tuple[int, int]] = []
    for number, seq in reversed(chosen):
        record = journal.record(seq)
        if record is not None and isinstance(record.data, dict) and seat_played(record.data, seat):
            found.append((number, seq))
            if last is not None and len(found) >= last:
                break
    return found[::-1]


def _heading(args: argparse.Namespace, text: str) -> None:
    """Which rounds were chosen by time: a line of the text (on stderr with --json, whose output is only records)."""
    print(
        f"rounds {text}" if not args.json else f"tablectl recall: rounds {text}",
        file=sys.stderr if args.json else sys.stdout,
    )
    if not args.json:
        print()


def _hold_lines(holds: list[HoldStory]) -> list[str]:
    """Each hold of the round told: held, what was tried, how and when it cleared."""
    from controller.journal.holds import story_lines
    from controller.journal.recall import describe_event

    if not holds:
        return []
    return ["  holds:"] + [line for h in holds for line in story_lines(h, describe_event)]


def _banner(number: int, problem: str) -> str:
    line = "!" * 78
    return (
        f"{line}\n!! ROUND {number}: NOT VERIFIED: the journal was changed or damaged at or before this round.\n"
        f"!! {problem}\n!! What follows is what the file holds now, not necessarily what happened.\n{line}"
    )
