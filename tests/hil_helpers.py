"""Helpers for the HIL tests: waiting for events on a driver queue; a simulated shoe that deals the
second shoe it is loaded with its own way."""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from typing import Any

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


def second_shoe_dealt(m: pytest.MonkeyPatch, deal: Callable[[Any, int, Callable[[Any, int], None]], None]) -> None:
    """Patch (with ``m``) ``hil.devices.ShoeSim`` to deal its second shoe (the bench's second round)
    by ``deal(shoe, n, dealt)``, where ``dealt(shoe, n)`` is the simulator's own deal; every other
    shoe as the simulator deals it."""
    from hil.devices import ShoeSim

    loads = [0]
    load, dealt = ShoeSim.load, ShoeSim.deal

    def counted_load(self: ShoeSim, cards: Any) -> None:
        loads[0] += 1
        load(self, cards)

    def second_deal(self: ShoeSim, n: int = 1) -> None:
        if loads[0] == 2:
            deal(self, n, dealt)
        else:
            dealt(self, n)

    m.setattr(ShoeSim, "load", counted_load)
    m.setattr(ShoeSim, "deal", second_deal)
