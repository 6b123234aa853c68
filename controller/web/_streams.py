"""Event-stream slots of one view, shared fairly between client addresses.

A view serves at most ``capacity`` live streams. Where it has no token (anyone on loopback may
watch), each client address may hold at most ``per_client``; and when every slot is taken, a
newcomer whose address holds fewer streams than the address holding most takes the place of that
address's oldest stream (which ends at its next beat). So four or five addresses can no longer take
every stream: the operator's page always gets one. Kept on the server's event loop (no lock).
"""

from __future__ import annotations

import itertools

__all__ = ["StreamSlot", "StreamSlots"]

MAX_CLIENT_STREAMS = 8
"""Live streams one client address may hold on a view without a token."""


class StreamSlot:
    """One stream's place: ``ended`` once it was given back or taken for a fairer newcomer."""

    __slots__ = ("key", "order", "ended")

    def __init__(self, key: str, order: int) -> None:
        self.key, self.order, self.ended = key, order, False


class StreamSlots:
    """The live streams of one view (see the module)."""

    def __init__(self, capacity: int, per_client: int | None = MAX_CLIENT_STREAMS) -> None:
        self.capacity, self.per_client = capacity, per_client
        self._held: dict[str, list[StreamSlot]] = {}
        self._order = itertools.count()
        self.evicted = 0
        """Streams ended to make room for a fairer newcomer, so far."""

    def __len__(self) -> int:
        return sum(len(v) for v in self._held.values())

    def held(self, key: str) -> int:
        """Streams ``key`` holds."""
        return len(self._held.get(key, ()))

    def take(self, key: str, limit_client: bool = True) -> StreamSlot | None:
        """A slot for a stream of ``key``, or ``None`` when it holds its share (``limit_client``:
        held to ``per_client``) or the view is full and ``key`` holds no less than any other."""
        mine = self.held(key)
        if limit_client and self.per_client is not None and mine >= self.per_client:
            return None
        if len(self) >= self.capacity:
            heaviest = max(self._held, key=lambda k: len(self._held[k]), default=None)
            if heaviest is None or mine + 1 >= len(self._held[heaviest]):
                return None
            oldest = min(self._held[heaviest], key=lambda s: s.order)
            self.give_back(oldest)
            self.evicted += 1
        slot = StreamSlot(key, next(self._order))
        self._held.setdefault(key, []).append(slot)
        return slot

    def give_back(self, slot: StreamSlot) -> None:
        """The stream ended (idempotent)."""
        if slot.ended:
            return
        slot.ended = True
        held = self._held.get(slot.key, [])
        if slot in held:
            held.remove(slot)
        if not held:
            self._held.pop(slot.key, None)
