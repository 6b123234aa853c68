"""``tablectl holds``: the table's holds from its journal, for a shift: when each began, the step
it was held in and why, what was tried, how it cleared, by whom, and how long it lasted.

Holds are chosen by when they began, in the table's local time (``--since``, ``--until``: the
forms of ``recall --at``). The records read are checked against the hash chain first, as
``recall`` checks them, unless ``--no-verify`` (exit 1 when they do not verify).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import date, datetime
from typing import TYPE_CHECKING

from controller.cli._journal import add_journal_args, open_journal_from_args, read_then_close
from controller.cli._when import TIME_FORMS, local_time, shown_time, since_after_until

__all__ = ["options", "run"]

if TYPE_CHECKING:
    from controller.journal import SqliteJournal


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl holds``'s options to its parser ``p``."""
    add_journal_args(p, verify_option=True)
    p.add_argument(
        "--since",
        type=local_time(),
        metavar="TIME",
        help=f"holds begun at or after TIME: {TIME_FORMS} (default: today, from midnight)",
    )
    p.add_argument("--until", type=local_time(), metavar="TIME", help="holds begun at or before TIME (default: now)")
    p.add_argument("--story", action="store_true", help="each hold's story: every change of reason and thing tried")
    p.add_argument("--json", action="store_true", help="one JSON object per hold, one a line")


def _tries(ended: dict[str, object] | None) -> str:
    """``2 supervisor tries (1 refused), ``: what the hold's end lists the supervisor tried."""
    if ended is None or not isinstance(tried := ended.get("tried"), list) or not tried:
        return ""
    more = ended.get("tried_more")
    count = len(tried) + (more if isinstance(more, int) else 0)
    refused = sum(1 for t in tried if isinstance(t, dict) and "refused" in t)
    return f"{count} supervisor tr{'ies' if count > 1 else 'y'}" + (f" ({refused} refused)" if refused else "") + ", "


def run(args: argparse.Namespace) -> int:
    """0 when the holds shown verify, 1 when not (or the journal is damaged), 2 on bad input."""
    if args.since is None:  # a shift, not the year: the journal is read from here on
        args.since = datetime.combine(date.today(), datetime.min.time()).timestamp()
    if since_after_until("holds", args.since, args.until):
        return 2
    journal, _ = open_journal_from_args(args, "holds")
    return read_then_close("holds", journal, lambda: _show(journal, args))


def _show(journal: SqliteJournal, args: argparse.Namespace) -> int:
    """Check, then print, the holds asked for; the exit status."""
    from controller.journal import verify_reader
    from controller.journal.holds import duration_text, holds_between, story_lines
    from controller.journal.recall import describe_event

    found, (first, last) = holds_between(journal, args.since, args.until)
    if not args.no_verify and last >= first:
        report = verify_reader(journal, [(first, last)])
        for problem in report.problems:
            print(f"tablectl holds: {journal.path}: {problem}", file=sys.stderr)
        if report.problems:
            print(f"tablectl holds: {journal.path}: not shown: the records do not verify", file=sys.stderr)
            return 1
    if args.json:
        for story in found:
            print(json.dumps(story.json()))
        return 0
    since = shown_time(args.since)
    until = shown_time(args.until) if args.until is not None else "now"
    held = sum(s.duration or 0.0 for s in found)
    print(f"holds from {since} to {until}: {len(found)}, held {duration_text(held) if found else '0 s'} in all")
    for story in found:
        began = story.began.data if story.began is not None else {}
        ended = story.ended.data if story.ended is not None else None
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(story.at))
        how = f"{ended.get('cleared', '?')}, {ended.get('by', '?')}" if ended is not None else "no end recorded"
        print(
            f"  {when} round {story.round}: {duration_text(story.duration, story.ended is not None)} in {began.get('step', '?')}: "
            f"{began.get('reason', '(begin not recorded)')}; {how}; {_tries(ended)}{len(story.tried)} events meanwhile"
        )
        if args.story:
            print("\n".join(story_lines(story, describe_event, indent="      ")))
    return 0
