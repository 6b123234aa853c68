"""How the long-running commands (``run``, ``floor serve``, ``floor ingest``) log: stdlib logging
to standard error, as text or JSON lines, in a form systemd's journal reads.

Every line has the time in ISO 8601 with the zone (``2026-12-04T14:05:09.123+01:00``). Under
journald (``$JOURNAL_STREAM`` names the device and inode of standard error, as systemd sets it for
a unit's output) each line starts with its syslog priority, ``<4>`` for a warning (sd-daemon(3)):
journald takes it off the line and files the line at that priority, so
``journalctl -p warning -u tablectl`` shows the warnings and errors. A JSON line keeps its level
as ``level`` and ``priority`` fields (``journalctl -o json`` shows the line as ``MESSAGE`` and the
priority as ``PRIORITY``).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TextIO

__all__ = [
    "LEVELS",
    "FORMATS",
    "LIBRARY_LOGGERS",
    "add_log_arguments",
    "configure_logging",
    "priority",
    "under_journald",
    "TextFormatter",
    "JsonFormatter",
]

LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}
"""``--log-level``: the least severe level logged."""
FORMATS = ("text", "json")
"""``--log-format``."""
LIBRARY_LOGGERS = ("uvicorn",)
"""The libraries' loggers whose records go the same way as tablectl's (uvicorn's errors in the web
views: its own handlers, without time or priority, are not installed)."""
EXTRAS = ("device", "counters")
"""A record's extras that become fields of a JSON line (and ``key=value`` nowhere in text: the
message already names them)."""


def priority(levelno: int) -> int:
    """The syslog priority of a logging level: 2 critical, 3 error, 4 warning, 6 info, 7 debug."""
    if levelno >= logging.CRITICAL:
        return 2
    if levelno >= logging.ERROR:
        return 3
    if levelno >= logging.WARNING:
        return 4
    if levelno >= logging.INFO:
        return 6
    return 7


def under_journald(stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``stream`` is connected to systemd's journal: ``$JOURNAL_STREAM`` (``DEVICE:INODE``)
    names the file ``stream`` writes to (systemd.exec(5): a child whose standard error was
    redirected elsewhere inherits the variable but not the stream)."""
    value = (os.environ if environ is None else environ).get("JOURNAL_STREAM", "")
    device, sep, inode = value.partition(":")
    if not sep or not device.isdigit() or not inode.isdigit():
        return False
    try:
        st = os.fstat(stream.fileno())
    except (OSError, AttributeError, ValueError):  # no file under it (a test's StringIO), or closed
        return False
    return (st.st_dev, st.st_ino) == (int(device), int(inode))


def _iso(created: float) -> str:
    return datetime.fromtimestamp(created).astimezone().isoformat(timespec="milliseconds")


class TextFormatter(logging.Formatter):
    """``2026-12-04T14:05:09.123+01:00 WARNING tablectl.link: link panel down``; with
    ``prefix``, the line (each line of a multi-line message) starts with its priority, ``<4>``."""

    def __init__(self, prefix: bool = False) -> None:
        super().__init__()
        self.prefix = prefix

    def format(self, record: logging.LogRecord) -> str:
        text = f"{_iso(record.created)} {record.levelname} {record.name}: {record.getMessage()}"
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        if not self.prefix:
            return text
        mark = f"<{priority(record.levelno)}>"
        return "\n".join(mark + line for line in text.split("\n"))


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``time`` (ISO 8601 with the zone), ``at`` (POSIX seconds),
    ``level``, ``priority`` (syslog's), ``logger``, ``message``, and the ``device`` and
    ``counters`` extras; with ``prefix``, the line starts with ``<N>`` for journald."""

    def __init__(self, prefix: bool = False) -> None:
        super().__init__()
        self.prefix = prefix

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": _iso(record.created),
            "at": record.created,
            "level": record.levelname,
            "priority": priority(record.levelno),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        for key in EXTRAS:
            if key in record.__dict__:
                line[key] = record.__dict__[key]
        text = json.dumps(line, default=str)
        return f"<{priority(record.levelno)}>{text}" if self.prefix else text


def add_log_arguments(p: argparse.ArgumentParser, default_format: str = "text") -> None:
    """``--log-level`` and ``--log-format``."""
    p.add_argument(
        "--log-level",
        choices=list(LEVELS),
        default="info",
        help="the least severe messages logged",
    )
    p.add_argument(
        "--log-format",
        choices=list(FORMATS),
        default=default_format,
        help="text: a line for people; json: one JSON object a line. Under systemd's journal each line "
        "starts with its priority (<4> a warning), so journalctl -p warning finds the warnings",
    )


class _Handler(logging.StreamHandler[TextIO]):
    """The handler :func:`configure_logging` installs (replaced, not added to, when called again)."""


def configure_logging(
    level: str = "info",
    form: str = "text",
    stream: TextIO | None = None,
    environ: Mapping[str, str] | None = None,
    name: str = "tablectl",
    libraries: Sequence[str] = LIBRARY_LOGGERS,
) -> logging.Handler:
    """Send logger ``name``'s records (and the ``libraries``' loggers') at ``level`` or above to
    ``stream`` (default: standard error) in ``form``, with journald's priority prefix when the
    stream is journald's; returns the handler."""
    out = stream if stream is not None else sys.stderr
    prefix = under_journald(out, environ)
    handler = _Handler(out)
    handler.setFormatter(JsonFormatter(prefix) if form == "json" else TextFormatter(prefix))
    for logger_name in (name, *libraries):
        log = logging.getLogger(logger_name)
        for old in [h for h in log.handlers if isinstance(h, _Handler)]:
            log.removeHandler(old)
        log.addHandler(handler)
        log.setLevel(LEVELS[level])
    return handler
