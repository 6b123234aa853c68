"""What a link's runner does with what its protocol returns (:data:`~drivers.link_events.Output`),
in order: a device event goes to the driver's reader and what it makes of it to the table, carried
(acknowledged once journaled) and shown to the driver's watch; a link report, a command result or
a state snapshot goes to the table; a report of how far the device has reported goes to the order.
The table is the order of several links' events when there is one (``order``), else ``emit``.
Pure: no thread, no port; the runner calls it right after the protocol's method, under the same
lock, so the protocol is in the state its outputs were made in."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from drivers.link_events import Deliver, EventReader, OrderFeed, Output, Received, Reported
from drivers.messages import BodyError, DeviceEvent
from drivers.protocol import LinkProtocol

__all__ = ["Delivery"]


class Delivery:
    """Delivers ``protocol``'s outputs: to ``emit`` (or the ``order``) and through ``read_event``."""

    __slots__ = ("order", "_protocol", "_emit", "_read_event")

    def __init__(self, protocol: LinkProtocol, emit: Callable[[DeviceEvent], None], read_event: EventReader) -> None:
        self._protocol, self._emit, self._read_event = protocol, emit, read_event
        self.order: OrderFeed | None = None
        """Where everything delivered goes with the time it happened, when the links' events are
        taken in that order (None: straight to ``emit``)."""

    def __call__(self, outputs: Iterable[Output]) -> None:
        """Deliver ``outputs``, in order."""
        for output in outputs:
            if isinstance(output, Reported):  # (the most frequent: every idle poll's answer)
                if self.order is not None:
                    self.order.reported(output.until, output.now)
            elif isinstance(output, Deliver):
                self._put(output.item, output.when, output.now)
            else:
                self._received(output)

    def _put(self, item: DeviceEvent, when: float | None, now: float) -> None:
        if self.order is None:
            self._emit(item)
        else:
            self.order.put(item, when, now)

    def _received(self, event: Received) -> None:
        """The driver reads the event; a value it cannot read is a fault in the event's place
        (one bad event never stops the link: the device moves on once it is journaled)."""
        protocol = self._protocol
        try:
            item = self._read_event(event.event_no, event.code, event.body, event.at)
        except BodyError as exc:
            fault = protocol.unreadable(event.event_no, event.code, str(exc))
            protocol.carry(fault)
            self._put(fault, event.when, event.now)
            return
        protocol.carry(item)
        self._put(item, event.when, event.now)
        protocol.watch_event(item)
