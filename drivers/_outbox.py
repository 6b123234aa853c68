"""What one call of the link protocol produced, in order, and the times of that call (private to
:mod:`drivers.protocol`: its parts put their reports here instead of calling anyone)."""

from __future__ import annotations

from drivers.link_events import Deliver, DeviceFault, LinkCounters, Output, Received, Reported
from drivers.messages import DeviceEvent

__all__ = ["Outbox"]


class Outbox:
    """The outputs of the call being handled (taken by :meth:`take`), the link's counters and the
    call's times: ``now`` the runner's clock, ``at`` the wall-clock time the link's own reports
    are stamped with."""

    __slots__ = ("name", "counters", "now", "at", "_items")

    def __init__(self, name: str, counters: LinkCounters) -> None:
        self.name = name
        self.counters = counters
        self.now = 0.0
        """The runner's time at the call being handled."""
        self.at = 0.0
        """The wall-clock time given with the call (events are stamped with it)."""
        self._items: list[Output] = []

    def stamp(self, now: float | None, at: float | None) -> None:
        """The call being handled is at ``now`` (the runner's clock) and ``at`` (wall clock); None: unchanged."""
        if now is not None:
            self.now = now
        if at is not None:
            self.at = at

    def put(self, item: DeviceEvent, when: float | None = None) -> None:
        """Deliver ``item`` (``when``: the time it happened; None for the link's own reports)."""
        self._items.append(Deliver(item, when, self.now))

    def received(self, event_no: int, code: int, body: bytes, at: float, when: float | None) -> None:
        """A new device event for the driver to read."""
        self._items.append(Received(event_no, code, body, at, when, self.now))

    def reported(self, until: float) -> None:
        """The device has delivered every event it made before ``until``."""
        self._items.append(Reported(until, self.now))

    def fault(self, kind: str, error: str, event_no: int = 0, command: str = "") -> None:
        """Report a :class:`DeviceFault` of ``kind`` (counted by the caller where it counts)."""
        self.put(DeviceFault(device=self.name, at=self.at, event_no=event_no, kind=kind, error=error, command=command))

    def count(self, name: str) -> None:
        """One more of counter ``name``."""
        self.counters.add(name)

    def take(self) -> list[Output]:
        """What was produced since the last call, in order (the outbox is then empty)."""
        items, self._items = self._items, []
        return items
