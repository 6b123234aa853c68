"""Times on the command line, in the table's local time (the time zone of the computer under the
table): ``14:05`` (today), ``2026-12-04T14:05`` or ``2026-12-04 14:05:30`` (local), or ISO 8601
with a zone (``2026-12-04T13:05Z``, ``2026-12-04T14:05+01:00``); shown back with the zone."""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable
from datetime import date, datetime

__all__ = ["local_time", "shown_time", "TIME_FORMS"]

TIME_FORMS = "HH:MM today, 2026-12-04T14:05, or ISO 8601 with a zone such as 2026-12-04T14:05+01:00"
"""The forms a time is accepted in, for help texts and messages."""

_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?")


def local_time(today: Callable[[], date] = date.today) -> Callable[[str], float]:
    """An argparse ``type``: the POSIX time of a time given in one of :data:`TIME_FORMS` (a time
    without a zone is the table's local time; ``HH:MM`` is on ``today()``)."""

    def parse(text: str) -> float:
        shown = repr(text[:40] + ("..." if len(text) > 40 else ""))
        clock = _CLOCK.fullmatch(text.strip())
        try:
            if clock:
                hour, minute, second = (int(g or 0) for g in clock.groups())
                moment = datetime.combine(today(), datetime.min.time()).replace(hour=hour, minute=minute, second=second)
            else:
                moment = datetime.fromisoformat(text.strip())
            return moment.timestamp()
        except (ValueError, OverflowError, OSError):
            raise argparse.ArgumentTypeError(f"{shown}: not a time (use {TIME_FORMS})") from None

    parse.__name__ = "time"
    return parse


def shown_time(at: float) -> str:
    """``at`` as the table's local time with its zone: ``2026-12-04 14:05:00 CET +0100``."""
    return time.strftime("%Y-%m-%d %H:%M:%S %Z %z", time.localtime(at))
