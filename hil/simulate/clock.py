"""Simulated time: the table's timers fire when the simulation's clock passes them."""

from __future__ import annotations

import heapq
from collections.abc import Callable

__all__ = ["EPOCH", "SimTimers"]

EPOCH = 1_800_000_000.0
"""The wall-clock time (seconds since 1970) at which every simulation starts."""


class SimTimers:
    """The engine's timers (an :data:`~controller.table.engine.TimerStart`) on the simulated clock."""

    def __init__(self) -> None:
        self.now = 0.0
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._n = 0
        self._cancelled: set[int] = set()

    def start(self, delay_s: float, call: Callable[[], None]) -> Callable[[], None]:
        """Call ``call`` once the clock reaches ``delay_s`` from now; returns what cancels it."""
        self._n += 1
        n = self._n
        heapq.heappush(self._heap, (self.now + delay_s, n, call))
        return lambda: self._cancelled.add(n)

    def due(self) -> float | None:
        """When the next timer (cancelled or not) is due; None when there is none."""
        return self._heap[0][0] if self._heap else None

    def fire(self) -> int:
        """Call every timer due by now, in order; how many fired."""
        fired = 0
        while self._heap and self._heap[0][0] <= self.now:
            _, n, call = heapq.heappop(self._heap)
            if n in self._cancelled:
                self._cancelled.discard(n)
                continue
            call()
            fired += 1
        return fired
