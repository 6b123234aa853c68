"""Times a person types, in the table's local time (the time zone of the computer under the
table, or of the pit view's server): ``14:05`` (today), ``2026-12-04T14:05`` or
``2026-12-04 14:05:30`` (local), or ISO 8601 with a zone (``2026-12-04T13:05Z``,
``2026-12-04T14:05+01:00``); and a time shown back with its zone. Used by ``tablectl recall``
and the pit view's round search."""

from __future__ import annotations

import re
import time
from datetime import date, datetime

__all__ = ["TIME_FORMS", "NotATime", "parse_local_time", "shown_time"]

TIME_FORMS = "HH:MM today, 2026-12-04T14:05, or ISO 8601 with a zone such as 2026-12-04T14:05+01:00"
"""The forms a time is accepted in, for help texts and messages."""

_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?")


class NotATime(ValueError):
    """The text is not a time in one of :data:`TIME_FORMS` (the message quotes it, shortened)."""


def parse_local_time(text: str, today: date) -> float:
    """The POSIX time of ``text`` (one of :data:`TIME_FORMS`; without a zone, the local time;
    ``HH:MM`` on ``today``); raises :class:`NotATime` naming the text."""
    shown = repr(text[:40] + ("..." if len(text) > 40 else ""))
    clock = _CLOCK.fullmatch(text.strip())
    try:
        if clock:
            hour, minute, second = (int(g or 0) for g in clock.groups())
            moment = datetime.combine(today, datetime.min.time()).replace(hour=hour, minute=minute, second=second)
        else:
            moment = datetime.fromisoformat(text.strip())
        at = moment.timestamp()
    except (ValueError, OverflowError, OSError):
        raise NotATime(f"{shown}: not a time (use {TIME_FORMS})") from None
    try:  # a zone can take a time just inside the calendar outside it locally (year 0 or 10000)
        datetime.fromtimestamp(at)
    except (ValueError, OverflowError, OSError):
        raise NotATime(f"{shown}: out of range (in the local time it falls outside the years 1 to 9999)") from None
    return at


def shown_time(at: float) -> str:
    """``at`` as the local time with its zone: ``2026-12-04 14:05:00 CET +0100``."""
    return time.strftime("%Y-%m-%d %H:%M:%S %Z %z", time.localtime(at))
