"""Helpers for the HIL tests: waiting for events on a driver queue."""

from __future__ import annotations

import queue
import time
from collections.abc import Callable

import pytest
from deadlines import STATE_TIMEOUT_S


def wait_for(q: queue.Queue, match: Callable[[object], bool], timeout: float = STATE_TIMEOUT_S) -> list:
    """Events taken from ``q`` until one matches (returned last); fails after ``timeout``."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            event = q.get(timeout=0.05)
        except queue.Empty:
            continue
        seen.append(event)
        if match(event):
            return seen
    pytest.fail(f"timed out; saw {seen}")


def of(kind: type) -> Callable[[object], bool]:
    return lambda e: isinstance(e, kind)


def collect_event_numbers(q: queue.Queue, kind: type, count: int, timeout: float = STATE_TIMEOUT_S) -> list[int]:
    """The event numbers of the first ``count`` events of ``kind`` taken from ``q``."""
    return [event.event_no for event in collect_events(q, kind, count, timeout)]


def collect_events(
    q: queue.Queue,
    kind: type,
    count: int,
    timeout: float = STATE_TIMEOUT_S,
    also: list | None = None,
    other: type | None = None,
) -> list:
    """The first ``count`` events of ``kind`` taken from ``q``; events of ``other`` go to ``also``."""
    got: list = []
    deadline = time.monotonic() + timeout
    while len(got) < count and time.monotonic() < deadline:
        try:
            event = q.get(timeout=0.1)
        except queue.Empty:
            continue
        if isinstance(event, kind):
            got.append(event)
        elif other is not None and also is not None and isinstance(event, other):
            also.append(event)
    return got
