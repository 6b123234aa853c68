"""Dealer button panel: buttons pressed and released, the display (a line at a time or a whole
screen), lamps, beep."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from drivers.base import Driver
from drivers.messages import BUTTONS, BodyError, DeviceEvent, MessageSpec
from drivers.state import DeviceState, PanelState

__all__ = ["ButtonChanged", "PinEntered", "BadgeRead", "SignOff", "PanelDriver", "SECRET"]

SECRET = {"secret": True}
"""A field's metadata for what must never be journaled, logged or shown (a PIN, a badge id): the
journal's record of an event leaves such fields out (``controller.journal.records.event_record``)."""


@dataclass(frozen=True, kw_only=True)
class ButtonChanged(DeviceEvent):
    """A button went down (``pressed``) or up; ``button`` is its name (``no_more_bets``, ``seat_3`` ...)."""

    button: str
    pressed: bool
    spec: ClassVar[MessageSpec] = MessageSpec(0x40, "button", (("button", "u8"), ("pressed", "bool")))


@dataclass(frozen=True, kw_only=True)
class PinEntered(DeviceEvent):
    """Someone keyed in their roster ``person`` id and ``pin`` at the panel to sign in. The table
    checks the PIN before the event is journaled and journals only who and whether it matched."""

    person: str
    pin: str = field(repr=False, metadata=SECRET)
    spec: ClassVar[MessageSpec] = MessageSpec(0x41, "pin", (("person", "str"), ("pin", "str")))


@dataclass(frozen=True, kw_only=True)
class BadgeRead(DeviceEvent):
    """The panel's badge reader read ``badge`` (to sign in its holder); journaled as the person it
    names, never as the badge id."""

    badge: str = field(repr=False, metadata=SECRET)
    spec: ClassVar[MessageSpec] = MessageSpec(0x42, "badge", (("badge", "str"),))


@dataclass(frozen=True, kw_only=True)
class SignOff(DeviceEvent):
    """``person`` signs off at the panel (the dealer leaving the table, or the supervisor)."""

    person: str
    spec: ClassVar[MessageSpec] = MessageSpec(0x43, "sign_off", (("person", "str"),))


class PanelDriver(Driver):
    """Driver for the dealer's button panel and display."""

    kind = "panel"
    EVENTS: ClassVar[dict[int, type[DeviceEvent]]] = {
        cls.spec.code: cls for cls in (ButtonChanged, PinEntered, BadgeRead, SignOff)
    }
    COMMANDS = {
        "display": MessageSpec(0xC0, "display", (("line", "u8"), ("text", "str"))),
        "lamp": MessageSpec(0xC1, "lamp", (("button", "u8"), ("on", "bool"))),
        "beep": MessageSpec(0xC2, "beep", (("ms", "u16"),)),
        "screen": MessageSpec(0xC3, "screen", (("lines", "strs"),)),
    }
    STATE = MessageSpec(0, "panel_state", (("key_on", "bool"), ("lines", "u8"), ("columns", "u8"), ("held", "u8s")))

    def display(self, line: int, text: str) -> None:
        """Show ``text`` on display line ``line`` (1 first), leaving the other lines as they are."""
        self._command("display", line=line, text=text)

    def screen(self, lines: tuple[str, ...]) -> None:
        """Show a whole screen: ``lines[0]`` on line 1 and so on; it replaces everything shown
        before (lines not given are blank). At most the display's ``lines`` lines of at most
        ``columns`` characters (``PanelState``); the device refuses a bigger screen (status 2)."""
        self._command("screen", lines=tuple(lines))

    def lamp(self, button: str, on: bool) -> None:
        """Light (or put out) the lamp of ``button``."""
        self._command("lamp", button=BUTTONS.index(button) + 1, on=on)

    def beep(self, ms: int = 100) -> None:
        """Sound the buzzer for ``ms`` milliseconds."""
        self._command("beep", ms=ms)

    def _state_event(self, values: dict[str, Any], at: float) -> DeviceState:
        held = []
        for button in values["held"]:
            if not 1 <= button <= len(BUTTONS):
                raise BodyError(f"unknown button id {button}")
            held.append(BUTTONS[button - 1])
        return PanelState(
            device=self.name,
            at=at,
            boot_id=self.link.boot_id or 0,
            key_on=values["key_on"],
            held=tuple(b for b in held if b != "supervisor_key"),
            lines=values["lines"],
            columns=values["columns"],
        )

    def _convert(self, cls: type[DeviceEvent], values: dict[str, Any]) -> dict[str, Any]:
        if cls is not ButtonChanged:
            return values
        button = values["button"]
        if not 1 <= button <= len(BUTTONS):
            raise BodyError(f"unknown button id {button}")
        values["button"] = BUTTONS[button - 1]
        return values
