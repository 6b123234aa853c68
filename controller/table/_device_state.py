"""What each device must be given again on every link-up, and whether each device is back.

:class:`ShownState` stands between the table and its devices: every command goes through it to
the devices and it keeps what the commands leave (the panel's screen lines and lamps, every
bet-spot lamp, the spot lock, a stub count asked for and not answered yet), so that a device that
comes back after an outage or a restart is sent its whole current state, never an old prompt.

:class:`DeviceLinks` follows each device's link: after a link-down a device is back only once
its link is up again *and* its whole state has been read again (the state snapshot of
docs/protocol.md); until then a hold for it cannot end.

Devices are named by their role, as the runtime names their drivers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.table.devices import TableDevices

__all__ = ["PANEL", "BET_SPOTS", "SHOE", "ShownState", "DeviceLinks"]

PANEL, BET_SPOTS, SHOE = "panel", "bet_spots", "shoe"


class ShownState:
    """A :class:`TableDevices` that sends each command on to ``target`` and keeps the state it leaves."""

    def __init__(self, target: TableDevices) -> None:
        self.target = target
        """Where the commands go (the runtime swaps it while replaying the journal)."""
        self._lines: dict[int, str] = {}
        self._screen: tuple[str, ...] | None = None
        """The whole screen last sent, not yet made into :attr:`lines` (most are replaced unread)."""
        self.whole_screen = False
        """The panel was last sent a whole screen (sent again as one)."""
        self.panel_lamps: dict[str, bool] = {}
        self.spot_lamps: dict[tuple[int, str], str] = {}
        self.lamps_set = 0
        """Counts the lamp commands (spot and panel): the lamps change only with one."""
        self.locked: bool | None = None
        self.stub_count_asked = False

    @property
    def lines(self) -> dict[int, str]:
        """The panel's lines as last sent, by line number (from 1)."""
        if self._screen is not None:
            self._lines, self._screen = dict(enumerate(self._screen, start=1)), None
        return self._lines

    # --- the TableDevices commands --------------------------------------------------------------

    def display(self, line: int, text: str) -> None:
        self.lines[line] = text
        self.target.display(line, text)

    def screen(self, lines: tuple[str, ...]) -> None:
        self._screen = tuple(lines)
        self.whole_screen = True
        self.target.screen(lines)

    def lamp(self, seat: int, spot: str, state: str) -> None:
        self.spot_lamps[(seat, spot)] = state
        self.lamps_set += 1
        self.target.lamp(seat, spot, state)

    def lock_spots(self, locked: bool) -> None:
        self.locked = locked
        self.target.lock_spots(locked)

    def request_stub_count(self) -> None:
        self.stub_count_asked = True
        self.target.request_stub_count()

    def panel_lamp(self, button: str, on: bool) -> None:
        self.panel_lamps[button] = on
        self.lamps_set += 1
        self.target.panel_lamp(button, on)

    def draw_start(self) -> None:
        self.target.draw_start()

    # --- state ----------------------------------------------------------------------------------

    def stub_count_answered(self) -> None:
        """The shoe answered the stub-count request (nothing to ask again)."""
        self.stub_count_asked = False

    def resend(self, device: str) -> int:
        """Send ``device`` its whole current state again; returns how many commands were sent.
        The panel: every screen line and lamp; the bet spots: every lamp and the lock; the shoe:
        a request it has not answered."""
        sent: list[tuple[Any, tuple[Any, ...]]] = []
        if device == PANEL and self.whole_screen:
            sent.append((self.target.screen, (tuple(text for _, text in sorted(self.lines.items())),)))
        elif device == PANEL:
            sent += [(self.target.display, (line, text)) for line, text in sorted(self.lines.items())]
        if device == PANEL:
            sent += [(self.target.panel_lamp, (b, on)) for b, on in sorted(self.panel_lamps.items())]
        elif device == BET_SPOTS:
            if self.locked is not None:
                sent.append((self.target.lock_spots, (self.locked,)))
            sent += [(self.target.lamp, (s, spot, st)) for (s, spot), st in sorted(self.spot_lamps.items())]
        elif device == SHOE and self.stub_count_asked:
            sent.append((self.target.request_stub_count, ()))
        for send, args in sent:
            send(*args)
        return len(sent)


class DeviceLinks:
    """Each device's link: never connected since start, down, up but its state not read again
    yet, or back."""

    NEVER = "never connected"
    DOWN = "link down"
    UNREAD = "back, its state not read yet"
    REREAD = "its state to be read again after the journal outage"
    """The journal could not be written: every device counts as out meanwhile (what it sent was
    neither acknowledged nor acted on); its events are taken again, then its state is read."""

    STOPPED = "while the controller was stopped"
    JOURNAL = "while the journal could not be written"

    def __init__(self, changed: Callable[[], None] = lambda: None) -> None:
        self._changed = changed
        """Says that a device's link changed (the dealer's screen names the devices not back)."""
        self.pending: dict[str, str] = {}
        """The devices not back yet (never connected since start, or after a link-down), and why."""
        self.rereads: set[str] = set()
        """The devices whose state is read again after a restart of the controller with a round
        open: until then, what they report that happened before ``stopped_until`` was done while
        the table was stopped, and is not acted on."""
        self.stopped_until = 0.0

    def expect(self, devices: tuple[str, ...]) -> None:
        """The controller started: each of ``devices`` is never connected until its link is up."""
        for device in devices:
            self.pending[device] = self.NEVER
        self._changed()

    def never_connected(self) -> list[str]:
        """The devices that have not connected since start, in name order."""
        return sorted(d for d, why in self.pending.items() if why.startswith(self.NEVER))

    def cannot_connect(self, device: str, why: str) -> bool:
        """``device``'s link reports why it cannot come up: True when the device has never
        connected since start (its reason is kept)."""
        if not self.pending.get(device, "").startswith(self.NEVER):
            return False
        self.pending[device] = f"{self.NEVER}: {why}"
        self._changed()
        return True

    def down(self, device: str) -> None:
        self.pending[device] = self.DOWN
        self._changed()

    def journal_outage(self, devices: tuple[str, ...]) -> None:
        """The journal takes records again after an outage: each of ``devices`` is back once its
        state is read again (a device already out stays as it is)."""
        for device in devices:
            self.pending.setdefault(device, self.REREAD)
        self._changed()

    def restarted(self, devices: tuple[str, ...], since: float) -> None:
        """The controller started again at ``since`` with a round open: each of ``devices`` (never
        connected since this start) is read again; until then, what it reports that happened
        before ``since`` was done while the table was stopped."""
        self.rereads, self.stopped_until = set(devices), since

    def rereading(self, device: str, at: float) -> str | None:
        """An event of ``device`` that happened at ``at`` was made while its state is to be read
        again, after a journal outage or while the controller was stopped (journaled, not acted
        on: the state read says what such events left): while what, or None when it was not."""
        if device in self.rereads and at < self.stopped_until:
            return self.STOPPED
        return self.JOURNAL if self.pending.get(device) == self.REREAD else None

    def up(self, device: str) -> None:
        """The link is up: the device is back once its state is read (only after a link-down)."""
        if device in self.pending:
            self.pending[device] = self.UNREAD
            self._changed()

    def state_read(self, device: str) -> None:
        """The device's whole state arrived: it is back unless its link went down again since."""
        if self.pending.get(device) in (self.UNREAD, self.REREAD):
            del self.pending[device]
            self._changed()
        if device not in self.pending:
            self.rereads.discard(device)

    def out(self) -> list[str]:
        """The devices whose link is down or has never come up since start, in name order."""
        return sorted(d for d, why in self.pending.items() if why == self.DOWN or why.startswith(self.NEVER))

    def why_not_back(self) -> str | None:
        """The devices not back, as text, or None when every device is back."""
        if not self.pending:
            return None
        return "; ".join(f"{device}: {why}" for device, why in sorted(self.pending.items()))
