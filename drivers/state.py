"""Each device's whole current state, read after every link-up (the state request of docs/protocol.md).

A driver puts one of these on the controller's queue after each ``LinkUp``, once the device has
answered the state request, so that nothing that changed while the link was down is missed: the
table compares it with what it believes and acts on the difference.
"""

from __future__ import annotations

from dataclasses import dataclass

from drivers.messages import DeviceEvent

__all__ = ["DeviceState", "SpotsState", "PanelState", "ShoeState"]


@dataclass(frozen=True, kw_only=True)
class DeviceState(DeviceEvent):
    """Base of the state snapshots: a device's whole current state."""


@dataclass(frozen=True, kw_only=True)
class SpotsState(DeviceState):
    """Every occupied spot with its amount: ``(seat, spot, cents)`` triples, empty spots left out."""

    spots: tuple[tuple[int, str, int], ...] = ()


@dataclass(frozen=True, kw_only=True)
class PanelState(DeviceState):
    """The supervisor key switch and the buttons held down now (by name)."""

    key_on: bool = False
    held: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ShoeState(DeviceState):
    """The shoe's status (``ok``, ``jam``, ``door_open``, ``empty`` ...) and how many cards have left it
    since its count last started over."""

    status: str = "ok"
    cards_out: int = 0
