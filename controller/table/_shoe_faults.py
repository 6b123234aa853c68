"""The shoe's own faults: a jammed shoe and an open shoe door hold the round, with the reason on
the dealer's screen, until the shoe reports ok again.

The shoe says so by its events (``Jam``; ``DoorChanged`` open or closed) and by the status of its
whole state (``ShoeState``: read after every link-up, so also after a controller restart, and
again by the shoe's driver while the shoe is jammed or its door open: the protocol has no event for
a jam cleared). A card that leaves the shoe meanwhile waits for the supervisor, like any card
dealt while held (:mod:`._card_intake`). When the shoe reports ok the hold ends by itself, unless
a link is still down (then it is a link hold again) or cards waited (then the supervisor decides
on them). A fault reported between rounds holds the next round as it opens.
"""

from __future__ import annotations

from controller.table._device_state import DeviceLinks
from controller.table._holds import HoldKind, Holds
from drivers.shoe import DoorChanged, Jam

__all__ = ["ShoeFaults", "JAMMED", "DOOR_OPEN"]

JAMMED = "shoe jammed: clear the jam"
DOOR_OPEN = "shoe door open"


class ShoeFaults:
    """Whether the shoe is jammed or its door open now, and the hold that follows (``holds``);
    with ``device_links``, whether play may resume."""

    def __init__(self, holds: Holds, device_links: DeviceLinks) -> None:
        self._holds, self._device_links = holds, device_links
        self.jammed = False
        self.door_open = False

    def reason(self) -> str | None:
        """The shoe's faults now, as the hold's reason (None: the shoe is ok)."""
        faults = [text for on, text in ((self.jammed, JAMMED), (self.door_open, DOOR_OPEN)) if on]
        return "; ".join(faults) or None

    def why_not_resume(self) -> str | None:
        """Why play cannot resume now: a device not back yet, or the shoe jammed or its door open
        (the supervisor may still void)."""
        gone = self._device_links.why_not_back()
        return f"a device is not back: {gone}" if gone else self.reason()

    # --- reports from the shoe ------------------------------------------------------------------

    def jam(self, e: Jam) -> None:
        """A ``Jam`` event."""
        self.jammed = True
        self.hold()

    def door(self, e: DoorChanged) -> None:
        """A ``DoorChanged`` event: open holds, closed may end the hold."""
        self.door_open = bool(e.open)
        if self.door_open:
            self.hold()
        else:
            self.cleared()

    def status(self, status: str) -> bool:
        """The status of the shoe's whole state (``ShoeState``) says whether it is jammed or its
        door open now; the rest of that state is the link's to reconcile
        (:meth:`._links.LinkReconciler.shoe_state_read`: a fault holds before the link's part, so
        a link hold does not end in between). True when a fault is on now."""
        if status == "jam":
            self.jammed = True
        elif status == "door_open":
            self.door_open = True
        else:  # ok, shuffling or empty: neither jammed nor open
            self.jammed = self.door_open = False
        return self.reason() is not None

    # --- the hold ---------------------------------------------------------------------------------

    def hold(self) -> None:
        """Hold for the shoe's faults (a round in play; on a table already held, as the hold rule says)."""
        reason = self.reason()
        if reason is not None:
            self._holds.hold(reason, HoldKind.SHOE)

    def cleared(self) -> None:
        """The shoe reported one of its faults gone: the hold ends once none is left."""
        if self.reason() is not None:
            self.hold()  # the other fault stays: its reason alone
            return
        self._holds.shoe_ok()

    def round_opened(self) -> None:
        """A round opened: a fault reported between rounds holds it."""
        self.hold()
