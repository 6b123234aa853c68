"""Each device's whole current state, read after every link-up (the state request of docs/protocol.md).

A driver puts one of these on the controller's queue after each ``LinkUp``, once the device has
answered the state request, so that nothing that changed while the link was down is missed: the
table compares it with what it believes and acts on the difference.
"""

from __future__ import annotations

from dataclasses import dataclass

from drivers.messages import DeviceEvent

__all__ = ["DeviceState", "SpotsState", "PanelState", "ShoeState", "SHOE_STATUSES"]

SHOE_STATUSES: tuple[str, ...] = ("ok", "shuffling", "empty", "jam", "door_open")
"""The shoe's status in its state answer, in wire order (id = position)."""


@dataclass(frozen=True, kw_only=True)
class DeviceState(DeviceEvent):
    """Base of the state snapshots: a device's whole current state. ``boot_id`` is the boot the
    device was running when it answered; ``event_no`` stays 0 (a snapshot is not a numbered event)."""

    boot_id: int = 0


@dataclass(frozen=True, kw_only=True)
class SpotsState(DeviceState):
    """Every occupied spot with its amount: ``(seat, spot, cents)`` triples, empty spots left out."""

    spots: tuple[tuple[int, str, int], ...] = ()
    locked: bool = False
    """Whether the spots are locked (the lock command's state)."""


@dataclass(frozen=True, kw_only=True)
class PanelState(DeviceState):
    """The supervisor key switch and the buttons held down now (by name)."""

    key_on: bool = False
    held: tuple[str, ...] = ()
    lines: int = 0
    """How many lines the display has."""
    columns: int = 0
    """How many characters fit on one display line."""


@dataclass(frozen=True, kw_only=True)
class ShoeState(DeviceState):
    """The shoe's status (``ok``, ``jam``, ``door_open``, ``empty`` ...) and how many cards have left it
    since its count last started over."""

    status: str = "ok"
    cards_out: int = 0
    stub_count: int = 0
    """Cards left in the shoe."""
    deck_size: int = 52
