"""Bet-spot sensors: the amount on each spot (RFID-style chip reading), spot faults, lamps, lock."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from drivers.base import Driver
from drivers.messages import LAMP_STATES, DeviceEvent, MessageSpec
from drivers.state import DeviceState, SpotsState

__all__ = ["SpotReport", "SpotFault", "BetSpotDriver"]


@dataclass(frozen=True, kw_only=True)
class SpotReport(DeviceEvent):
    """The amount now on one spot, in cents (0: the spot is empty)."""

    seat: int
    spot: str
    cents: int
    spec: ClassVar[MessageSpec] = MessageSpec(0x20, "spot_report", (("seat", "u8"), ("spot", "str"), ("cents", "u32")))


@dataclass(frozen=True, kw_only=True)
class SpotFault(DeviceEvent):
    """A spot's sensor failed (``code`` per docs/protocol.md: 1 no reading, 2 unreadable chip, 3 covered)."""

    seat: int
    spot: str
    code: int
    spec: ClassVar[MessageSpec] = MessageSpec(0x21, "spot_fault", (("seat", "u8"), ("spot", "str"), ("code", "u8")))


class BetSpotDriver(Driver):
    """Driver for a table's bet-spot sensors and lamps."""

    kind = "bet_spots"
    EVENTS = {c.spec.code: c for c in (SpotReport, SpotFault)}
    COMMANDS = {
        "lamp": MessageSpec(0xA0, "lamp", (("seat", "u8"), ("spot", "str"), ("state", "u8"))),
        "lock": MessageSpec(0xA1, "lock"),
        "unlock": MessageSpec(0xA2, "unlock"),
    }

    STATE = MessageSpec(0, "spots_state", (("locked", "bool"), ("spots", "spots")))

    def set_lamp(self, seat: int, spot: str, state: str) -> None:
        """Set one spot's lamp: one of ``LAMP_STATES``."""
        self._command("lamp", seat=seat, spot=spot, state=LAMP_STATES.index(state))

    def lock(self) -> None:
        """Lock the spots: later changes are reported but flagged by the device as late."""
        self._command("lock")

    def unlock(self) -> None:
        """Unlock the spots."""
        self._command("unlock")

    def _state_event(self, values: dict[str, Any], at: float) -> DeviceState:
        spots = tuple(spot for spot in values["spots"] if spot[2])
        return SpotsState(device=self.name, at=at, boot_id=self.link.boot_id or 0, locked=values["locked"], spots=spots)
