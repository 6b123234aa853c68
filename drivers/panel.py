"""Dealer button panel: buttons pressed and released, display lines, lamps, beep."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from drivers.base import Driver
from drivers.messages import BUTTONS, DeviceEvent, MessageSpec

__all__ = ["ButtonChanged", "PanelDriver"]


@dataclass(frozen=True, kw_only=True)
class ButtonChanged(DeviceEvent):
    """A button went down (``pressed``) or up; ``button`` is its name (``no_more_bets``, ``seat_3`` ...)."""

    button: str
    pressed: bool
    spec: ClassVar[MessageSpec] = MessageSpec(0x40, "button", (("button", "u8"), ("pressed", "bool")))


class PanelDriver(Driver):
    """Driver for the dealer's button panel and display."""

    kind = "panel"
    EVENTS = {ButtonChanged.spec.code: ButtonChanged}
    COMMANDS = {
        "display": MessageSpec(0xC0, "display", (("line", "u8"), ("text", "str"))),
        "lamp": MessageSpec(0xC1, "lamp", (("button", "u8"), ("on", "bool"))),
        "beep": MessageSpec(0xC2, "beep", (("ms", "u16"),)),
    }

    def display(self, line: int, text: str) -> None:
        """Show ``text`` on display line ``line``."""
        self._command("display", line=line, text=text)

    def lamp(self, button: str, on: bool) -> None:
        self._command("lamp", button=BUTTONS.index(button) + 1, on=on)

    def beep(self, ms: int = 100) -> None:
        self._command("beep", ms=ms)

    def _convert(self, cls: type[DeviceEvent], values: dict[str, Any]) -> dict[str, Any]:
        button = values["button"]
        if not 1 <= button <= len(BUTTONS):
            raise ValueError(f"unknown button id {button}")
        values["button"] = BUTTONS[button - 1]
        return values
