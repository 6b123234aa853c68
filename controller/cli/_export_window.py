"""Which rounds ``tablectl export`` takes, in the table's time zone: ``--day DATE``, or
``--since``/``--until`` (a date alone: ``--since`` from its midnight, ``--until`` through its
end; or a time in :data:`controller.host._local_time.TIME_FORMS`).

The table's zone is the zone of the computer under the table (its local time) unless ``--zone``
names one (an IANA name such as ``Europe/Malta``): a copy of the journal read in another zone
gives the table's days, and each time is written in that zone with its offset, daylight saving
included (a day may have 23 or 25 hours).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from controller.host import TIME_FORMS

__all__ = ["BadWindow", "Window", "parse_zone", "window"]

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?")


class BadWindow(ValueError):
    """An option of the window is not what it takes (the message names the option and the text)."""


@dataclass(frozen=True, slots=True)
class Window:
    """Rounds settled at or after ``since`` and before ``until`` (POSIX times; None: open), and
    the zone their times are shown in (None: the local time)."""

    since: float | None
    until: float | None
    zone: tzinfo | None


def _quoted(text: str) -> str:
    return repr(text[:40] + ("..." if len(text) > 40 else ""))


def parse_zone(text: str | None) -> tzinfo | None:
    """The zone ``text`` names (None: the local time); raises :class:`BadWindow`."""
    if text is None:
        return None
    name = text.strip()
    try:
        if not name or name.startswith(("/", ".")) or ".." in name:
            raise ValueError(name)
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise BadWindow(
            f"--zone {_quoted(text)}: no such time zone (an IANA name such as Europe/Malta or UTC; "
            "default: the computer's own)"
        ) from None


def _midnight(day: date, zone: tzinfo | None) -> float:
    """The POSIX time of ``day``'s midnight in ``zone`` (None: local)."""
    return datetime.combine(day, datetime.min.time(), tzinfo=zone).timestamp()


def _date(option: str, text: str) -> date:
    if not _DATE.fullmatch(text.strip()):
        raise BadWindow(f"{option} {_quoted(text)}: not a date (use YYYY-MM-DD, e.g. 2026-12-04)")
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise BadWindow(f"{option} {_quoted(text)}: not a date on the calendar") from None


def _moment(option: str, text: str, zone: tzinfo | None, today: date, end: bool) -> float:
    """``text`` as a bound: a date (its midnight; with ``end``, the next day's) or a time (without
    a zone, in ``zone``; ``HH:MM`` on ``today``)."""
    stripped = text.strip()
    try:
        if _DATE.fullmatch(stripped):
            day = _date(option, text)
            return _midnight(day + timedelta(days=1) if end else day, zone)
        clock = _CLOCK.fullmatch(stripped)
        if clock:
            hour, minute, second = (int(g or 0) for g in clock.groups())
            moment = datetime.combine(today, datetime.min.time()).replace(hour=hour, minute=minute, second=second)
        else:
            moment = datetime.fromisoformat(stripped)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=zone)
        return moment.timestamp()
    except (ValueError, OverflowError, OSError):
        raise BadWindow(
            f"{option} {_quoted(text)}: not a time in the years 1 to 9999 (use a date, {TIME_FORMS})"
        ) from None


def window(
    day: str | None, since: str | None, until: str | None, zone_name: str | None, today: date | None = None
) -> Window:
    """The window the options choose (``today``: the day an ``HH:MM`` falls on, default the
    zone's today); raises :class:`BadWindow` naming the option."""
    zone = parse_zone(zone_name)
    if today is None:
        today = datetime.now(zone).date()
    if day is not None:
        if since is not None or until is not None:
            raise BadWindow("--day chooses a whole day: not with --since or --until")
        chosen = _date("--day", day)
        try:
            return Window(_midnight(chosen, zone), _midnight(chosen + timedelta(days=1), zone), zone)
        except (ValueError, OverflowError, OSError):
            raise BadWindow(
                f"--day {_quoted(day)}: out of range (the day and the next in the years 1 to 9999)"
            ) from None
    low = _moment("--since", since, zone, today, end=False) if since is not None else None
    high = _moment("--until", until, zone, today, end=True) if until is not None else None
    if low is not None and high is not None and low >= high:
        raise BadWindow(
            f"no time between --since {_quoted(since or '')} and --until {_quoted(until or '')} "
            "(a date alone as --until is taken through its end)"
        )
    return Window(low, high, zone)
