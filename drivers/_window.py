"""The device's event window and what each POLL acknowledges (private to :mod:`drivers.protocol`;
docs/protocol.md, section 5): which events are new, resets and gaps, and the event in flight
until the table has journaled it."""

from __future__ import annotations

from collections import deque

from drivers._outbox import Outbox
from drivers.link_events import EventsOfBoot

__all__ = ["EventWindow"]

_UNREAD = object()
"""What the event in flight is until its runner says what the driver made of it (:meth:`EventWindow.carry`)."""


class EventWindow:
    """The last event received (``boot``, ``last_no``), the last journaled (``ack_boot``,
    ``ack_no``), the boots left behind and the boot the journal takes the next events to be of."""

    __slots__ = (
        "boot",
        "last_no",
        "ack_boot",
        "ack_no",
        "ack_when_journaled",
        "polled",
        "_left",
        "_named",
        "_inflight",
        "_out",
    )

    def __init__(self, out: Outbox, boot: int | None, last_no: int) -> None:
        self._out = out
        self.boot = boot
        """The boot whose event numbering ``last_no`` counts (None: not known yet)."""
        self.last_no = last_no
        self.ack_boot = boot
        self.ack_no = last_no
        """The last event journaled (its boot and number): what each POLL acknowledges."""
        self.ack_when_journaled = False
        """Acknowledge an event only once the table has journaled it (:meth:`journaled`)."""
        self.polled = (0, 0)
        """What the last POLL acknowledged."""
        self._left: deque[int] = deque(maxlen=16)
        self._named = boot
        """The boot the journal takes the events delivered next to be of: the last ``LinkUp``'s, or
        the last :class:`EventsOfBoot`'s (the window's when given from the journal)."""
        self._inflight: tuple[object, int, int] | None = None
        """The item carrying the event received last, not yet journaled (its boot and number)."""

    def set(self, boot: int | None, last_no: int) -> None:
        """Start from event ``last_no`` of boot ``boot``, received and journaled."""
        self.boot, self.last_no = boot, last_no
        self.ack_boot, self.ack_no = boot, last_no
        self._named = boot

    def linked(self, boot: int) -> None:
        """A ``LinkUp`` named ``boot``: the journal takes the next events to be of it."""
        self._named = boot

    def name_boot(self, boot: int) -> None:
        """The event about to be delivered is of ``boot``: say so first when the journal takes another."""
        if boot != self._named:
            self._named = boot
            self._out.put(EventsOfBoot(device=self._out.name, at=self._out.at, boot_id=boot))

    def poll(self) -> tuple[int, int]:
        """What a POLL acknowledges now: the last event journaled (or, not waiting for the journal,
        received); remembered as :attr:`polled`."""
        if self.ack_when_journaled:
            self.polled = (self.ack_boot or 0, self.ack_no)
        else:
            self.polled = (self.boot or 0, self.last_no)
        return self.polled

    def restart(self, boot: int) -> None:
        """The device numbers from 1 again under boot ``boot``: nothing of it is acknowledged any more."""
        self.last_no = 0
        if self.ack_boot == boot:
            self.ack_no = 0

    # --- the event in flight --------------------------------------------------------------------

    def unread(self) -> None:
        """The event received last is in flight; its driver has not read it yet."""
        self.carry(_UNREAD)

    def carry(self, item: object) -> None:
        """``item``, about to be queued, carries the event received last."""
        if self.boot is not None:
            self._inflight = (item, self.boot, self.last_no)

    def awaiting(self) -> bool:
        """An event received is not journaled yet: the device is not asked for the next one."""
        return self.ack_when_journaled and self._inflight is not None

    def journaled(self, item: object) -> bool:
        """The table journaled ``item``: True when it carries the event received last, which the
        next POLL acknowledges."""
        if self._inflight is None or self._inflight[0] is not item:
            return False
        _, self.ack_boot, self.ack_no = self._inflight
        self._inflight = None
        return True

    def refused(self, item: object) -> bool:
        """The table could not journal ``item``: when it carries the event received last, the
        window goes back to the last event journaled, so the device, which still holds the event
        (it was never acknowledged), sends it again and it is taken as new. True when it will."""
        if self._inflight is None or self._inflight[0] is not item:
            return False
        _, boot, _ = self._inflight
        self._inflight = None
        if boot == self.ack_boot:
            self.last_no = self.ack_no
        else:  # the first event taken of a new boot: that boot's numbering from the start
            self.boot, self.last_no = boot, 0
        return True

    # --- which events are new -------------------------------------------------------------------

    def accept(self, event_boot: int, event_no: int, device_boot: int | None) -> bool:
        """Whether event (``event_boot``, ``event_no``) is new (the device runs ``device_boot``);
        moves the window and reports resets and gaps."""
        if event_boot == self.boot:
            if not self._same_boot(event_boot, event_no):
                return False
        elif event_boot in self._left:
            self._out.count("duplicates")  # an event of a boot already left behind: received before
            return False
        elif self.boot is not None and self.boot == device_boot:
            # An event of another boot than the one the device runs now is one it kept across a
            # power cycle: older than anything of the boot it runs, whose events come after it.
            # The window was that boot's (given from the journal, which names a device's boot by
            # its last link-up): it is not left behind, and its numbering starts from the start.
            self.boot, self.last_no = event_boot, event_no
            return True
        else:
            self._new_boot(event_boot, event_no)
            return True
        if event_no != self.last_no + 1 and self.last_no:
            self._out.count("gaps")
            self._out.fault("events_gap", f"events {self.last_no + 1} to {event_no - 1} never arrived", event_no)
        self.last_no = event_no
        return True

    def _same_boot(self, event_boot: int, event_no: int) -> bool:
        """An event of the window's boot: False for the one received last (a duplicate); one
        numbered before it is a reset of the window."""
        if event_no == self.last_no:
            polled_boot, polled_no = self.polled
            if not self.ack_when_journaled or (polled_boot == event_boot and polled_no >= event_no):
                self._out.count("duplicates")  # (not acknowledged by the poll: the device was right to send it again)
            return False
        if event_no < self.last_no:
            # Only a device that started again under the same boot id numbers backwards.
            self._out.count("resets")
            self._out.fault(
                "events_reset",
                f"event numbers went back from {self.last_no} to {event_no} under the same boot id "
                f"{event_boot:08x} (a restart without a new boot id); the window starts over",
                event_no,
            )
            self.restart(event_boot)
        return True

    def _new_boot(self, event_boot: int, event_no: int) -> None:
        """The first event of a boot not seen before: the window moves to it."""
        if self.boot is not None:
            self._left.append(self.boot)
            self._out.count("resets")
            self._out.fault(
                "events_reset",
                f"event numbering started over: boot {event_boot:08x} after boot {self.boot:08x} "
                f"(last event {self.last_no})",
                event_no,
            )
            self.last_no = 0
        elif self.last_no:
            self.last_no = 0  # a window given without its boot: the numbering is this boot's
        self.boot = event_boot
        if self.last_no == 0 and event_no != 1 and self._left:
            self._out.count("gaps")
            self._out.fault(
                "events_gap", f"events 1 to {event_no - 1} of boot {event_boot:08x} never arrived", event_no
            )
        self.last_no = event_no

    def newest_is(self, boot: int, newest: int) -> None:
        """The device (boot ``boot``) says its newest event is ``newest``: one before the last
        received under the same boot is a restart without a new boot id (the window starts over)."""
        if boot == self.boot and newest < self.last_no:
            self._out.count("resets")
            self._out.fault(
                "events_reset",
                f"the device's newest event is {newest}, before {self.last_no} received, under the "
                f"same boot id {boot:08x} (a restart without a new boot id); the window starts over",
            )
            self.restart(boot)

    def holds(self, boot: int, newest: int) -> bool:
        """Whether event ``newest`` of ``boot`` (or an earlier one) has been received."""
        return self.boot == boot and self.last_no >= newest
