"""Where the engine thread publishes the table's latest snapshot for readers on other threads.

Publishing is a single reference swap under a condition variable: a reader gets a whole
:class:`~controller.table.snapshot.TableSnapshot` (never one half made), and a waiter is woken at
each new one. Readers wait for a state (a predicate on the snapshot) with a timeout; they never
read the table itself.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from controller.table.snapshot import PlayerHands, TableSnapshot
from controller.table.snapshot_build import build_hands, build_snapshot

if TYPE_CHECKING:
    from controller.table.round import RoundTable

__all__ = ["LatestSnapshot", "OnDemandSnapshot", "SnapshotSource", "SnapshotTimeout"]


class SnapshotTimeout(TimeoutError):
    """The table did not reach the state waited for in time (names what was waited for and the last step)."""


class SnapshotSource(Protocol):
    """What a reader of the table (a simulated player) needs: the latest snapshot, a wait for a
    state, and (at the bench only) the players' own hands."""

    def get(self) -> TableSnapshot: ...

    def wait(self, cond: Callable[[TableSnapshot], bool], what: str, timeout: float = 60.0) -> TableSnapshot: ...

    def hands(self) -> PlayerHands | None: ...


class LatestSnapshot:
    """The latest snapshot of one table (and, when asked for, the players' own hands at the bench)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._waiting = 0
        """How many readers wait in :meth:`wait` (none: a snapshot published wakes nobody)."""
        self._snapshot: TableSnapshot | None = None
        self._hands: PlayerHands | None = None
        self.share_hands = False
        """Whether the engine thread also publishes :class:`PlayerHands` (the bench's players only)."""

    def publish(self, snapshot: TableSnapshot, hands: PlayerHands | None = None) -> None:
        """Make ``snapshot`` the latest (the engine thread) and wake every waiter."""
        with self._cond:
            self._snapshot = snapshot
            if hands is not None:
                self._hands = hands
            if self._waiting:
                self._cond.notify_all()

    def current(self) -> TableSnapshot | None:
        """The latest snapshot (None before the first)."""
        return self._snapshot

    def get(self) -> TableSnapshot:
        """The latest snapshot (raises when none was published yet)."""
        snapshot = self._snapshot
        if snapshot is None:
            raise LookupError("no snapshot of the table yet")
        return snapshot

    def hands(self) -> PlayerHands | None:
        """The players' own cards as of the latest snapshot (only when ``share_hands``)."""
        return self._hands

    def wait(self, cond: Callable[[TableSnapshot], bool], what: str, timeout: float = 60.0) -> TableSnapshot:
        """The first snapshot (the latest, or a later one) for which ``cond`` holds; raises
        :class:`SnapshotTimeout` naming ``what`` after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                snapshot = self._snapshot
                if snapshot is not None and cond(snapshot):
                    return snapshot
                left = deadline - time.monotonic()
                if left <= 0:
                    step = snapshot.step if snapshot is not None else "no snapshot"
                    raise SnapshotTimeout(f"timed out after {timeout:.0f} s waiting for {what} (table in {step})")
                self._waiting += 1
                try:
                    self._cond.wait(left)
                finally:
                    self._waiting -= 1


class OnDemandSnapshot:
    """Snapshots of a table run on the reader's own thread (the soak: the players step the engine
    themselves), built only when read and only once per event handled (``version()`` counts them).
    With ``texts=False`` they carry none of the dealer's texts (see :func:`build_snapshot`): for
    readers that never read them (the soak's players)."""

    def __init__(self, table: RoundTable, version: Callable[[], int], texts: bool = True) -> None:
        self._table = table
        self._version = version
        self._texts = texts
        self._snapshot: TableSnapshot | None = None
        self._hands: PlayerHands | None = None

    def get(self) -> TableSnapshot:
        """The snapshot as of the last event handled."""
        version = self._version()
        snapshot = self._snapshot
        if snapshot is None or snapshot.version != version:
            snapshot = self._snapshot = build_snapshot(self._table, version, self._texts)
        return snapshot

    def hands(self) -> PlayerHands:
        version = self._version()
        hands = self._hands
        if hands is None or hands.version != version:
            hands = self._hands = build_hands(self._table, version)
        return hands

    def wait(self, cond: Callable[[TableSnapshot], bool], what: str, timeout: float = 60.0) -> TableSnapshot:
        """The snapshot now (built for the check, so reads after it cost nothing), when ``cond`` holds: nothing else runs the table, so a state not
        reached now is never reached (raises :class:`SnapshotTimeout` at once)."""
        snapshot = self.get()
        if not cond(snapshot):
            raise SnapshotTimeout(f"waiting for {what}: the table is in {snapshot.step} and nothing else will happen")
        return snapshot
