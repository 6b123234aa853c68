"""Times on the command line (:mod:`controller.host._local_time`: the table's local time, or ISO 8601
with a zone) as an argparse ``type``: a bad one is refused by argparse (the option, the value,
exit status 2); a ``--since`` after its ``--until`` is refused by the command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import date

from controller.host import TIME_FORMS, NotATime, parse_local_time, shown_time

__all__ = ["local_time", "shown_time", "since_after_until", "TIME_FORMS"]


def local_time(today: Callable[[], date] = date.today) -> Callable[[str], float]:
    """An argparse ``type``: the POSIX time of a time in one of :data:`TIME_FORMS` (``HH:MM`` on ``today()``)."""

    def parse(text: str) -> float:
        try:
            return parse_local_time(text, today())
        except NotATime as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = "time"
    return parse


def since_after_until(command: str, since: float | None, until: float | None) -> bool:
    """Whether ``--since`` is after ``--until`` (both given); if so ``tablectl COMMAND`` says so on
    standard error, and the command exits 2."""
    if since is None or until is None or since <= until:
        return False
    print(f"tablectl {command}: --since {shown_time(since)} is after --until {shown_time(until)}", file=sys.stderr)
    return True
