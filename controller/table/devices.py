"""What the table machine asks of its devices, as one narrow interface.

``DriverDevices`` sends the commands through the real drivers; ``RecordingDevices`` keeps them
in a list (replay checks, recovery, in-process benches). Both are non-blocking.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["RecordingDevices"]


class TableDevices(Protocol):
    """Commands the table sends: the dealer display, spot lamps, the spot lock, the shoe's stub count."""

    def display(self, line: int, text: str) -> None: ...

    def screen(self, lines: tuple[str, ...]) -> None:
        """Show ``lines`` as the whole screen, replacing the previous one."""
        ...

    def lamp(self, seat: int, spot: str, state: str) -> None: ...

    def lock_spots(self, locked: bool) -> None: ...

    def request_stub_count(self) -> None: ...

    def panel_lamp(self, button: str, on: bool) -> None: ...

    def draw_start(self) -> None:
        """Draw a random starting number 1-7; it comes back as a ``StartDrawn`` event."""
        ...


class RecordingDevices:
    """Keeps every command, in order, instead of sending it."""

    def __init__(self) -> None:
        self.commands: list[tuple[str, tuple[Any, ...]]] = []

    def display(self, line: int, text: str) -> None:
        self.commands.append(("display", (line, text)))

    def screen(self, lines: tuple[str, ...]) -> None:
        self.commands.append(("screen", (tuple(lines),)))

    def lamp(self, seat: int, spot: str, state: str) -> None:
        self.commands.append(("lamp", (seat, spot, state)))

    def lock_spots(self, locked: bool) -> None:
        self.commands.append(("lock", (locked,)))

    def request_stub_count(self) -> None:
        self.commands.append(("stub_count", ()))

    def panel_lamp(self, button: str, on: bool) -> None:
        self.commands.append(("panel_lamp", (button, on)))

    def draw_start(self) -> None:
        self.commands.append(("draw_start", ()))


class DriverDevices:
    """Sends the commands to the panel, bet-spot and shoe drivers (keeping nothing: what happened
    is in the journal)."""

    def __init__(self, panel: Any, spots: Any, shoe: Any, post: Any = None) -> None:
        self.panel, self.spots, self.shoe, self.post = panel, spots, shoe, post
        self.randbelow: Callable[[int], int] | None = None
        """Where the starting number is drawn from (None: the system's random source; a
        simulation seeded once gives its own)."""

    def display(self, line: int, text: str) -> None:
        self.panel.display(line, text)

    def screen(self, lines: tuple[str, ...]) -> None:
        """One ``screen`` command when the panel driver has it; else every line by ``display``
        (blank lines included, so nothing of the previous screen stays)."""
        whole = getattr(self.panel, "screen", None)
        if whole is not None:
            whole(list(lines))
            return
        for number, text in enumerate(lines, start=1):
            self.panel.display(number, text)

    def lamp(self, seat: int, spot: str, state: str) -> None:
        self.spots.set_lamp(seat, spot, state)

    def lock_spots(self, locked: bool) -> None:
        (self.spots.lock if locked else self.spots.unlock)()

    def request_stub_count(self) -> None:
        self.shoe.request_status()

    def panel_lamp(self, button: str, on: bool) -> None:
        self.panel.lamp(button, on)

    def draw_start(self) -> None:
        import secrets

        from controller.table.engine import StartDrawn

        draw = self.randbelow or secrets.randbelow
        self.post(StartDrawn(draw(7) + 1))


def resend_state(commands: list[tuple[str, tuple[Any, ...]]], devices: TableDevices) -> int:
    """Send ``devices`` the state that ``commands`` left: the last text of each display line,
    the last state of each lamp, the lock. Returns how many commands were sent."""
    last: dict[tuple[Any, ...], tuple[str, tuple[Any, ...]]] = {}
    for name, args in commands:
        if name == "display":
            last[("display", args[0])] = (name, args)
        elif name == "screen":
            last[("screen",)] = (name, args)
        elif name == "lamp":
            last[("lamp", args[0], args[1])] = (name, args)
        elif name == "panel_lamp":
            last[("panel_lamp", args[0])] = (name, args)
        elif name == "lock":
            last[("lock",)] = (name, args)
    send: dict[str, Callable[..., None]] = {
        "display": devices.display,
        "screen": devices.screen,
        "lamp": devices.lamp,
        "panel_lamp": devices.panel_lamp,
        "lock": devices.lock_spots,
    }
    for name, args in last.values():
        send[name](*args)
    return len(last)
