"""Simulators for each device class: a shoe given a card order, bet spots given wagers, a panel
given button presses. Each also injects the device faults its class can have."""

from __future__ import annotations

import struct
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from drivers.bet_spots import BetSpotDriver, SpotFault, SpotReport
from drivers.messages import BUTTONS, LAMP_STATES
from drivers.panel import BadgeRead, ButtonChanged, PanelDriver, PinEntered, SignOff
from drivers.shoe import (
    CardDealt,
    CardUnreadable,
    DeckCheck,
    DoorChanged,
    Jam,
    SelfTest,
    ShoeDriver,
    ShoeEmpty,
    ShoeStatus,
    ShuffleComplete,
    ShuffleStarted,
)
from drivers.state import SHOE_STATUSES
from hil.device import HEARTBEAT_S, STATUS_BAD_BODY, STATUS_OK, SimDevice

__all__ = ["ShoeSim", "BetSpotSim", "PanelSim", "SIMULATORS", "card_code", "TABLE_STOPPED"]

_RANKS, _SUITS = "23456789TJQKA", "cdhs"


def card_code(text: str) -> int:
    """``"As"`` -> 51, ``"JK"`` -> 52 (the wire code of a card)."""
    if text.upper() == "JK":
        return 52
    return _SUITS.index(text[1]) * 13 + _RANKS.index(text[0])


class ShoeSim(SimDevice):
    """A card-reading shoe (and shuffler) that deals a given card order."""

    driver = ShoeDriver

    def __init__(
        self,
        cards: Sequence[str] = (),
        address: int = 1,
        state_file: Path | str | None = None,
        firmware: str = "sim-shoe 1.0",
    ) -> None:
        super().__init__(address, state_file)
        self.cards = list(cards)
        self.position = 0
        """Where the next card is in ``cards`` (the physical stub)."""
        self.count = 0
        """Cards out since the count started over (a shuffle, a load, a restart): the last ``index``."""
        self.last_read: int | None = None
        self.deck_size = 52
        self.firmware = firmware
        self.jammed = self.door_open = self.empty = False

    @property
    def dealt(self) -> int:
        """Cards out of ``cards`` so far (the position of the next one)."""
        return self.position

    @dealt.setter
    def dealt(self, n: int) -> None:
        """Put the shoe at card ``n`` of ``cards``, as a shoe that has dealt ``n`` cards since its
        count started over (a bench resuming a round)."""
        self.position = self.count = n

    def load(self, cards: Sequence[str]) -> None:
        """Put a new card order in the shoe."""
        self.cards, self.dealt, self.count, self.empty = list(cards), 0, 0, False

    def deal(self, n: int = 1) -> None:
        """Deal ``n`` cards (``ShoeEmpty`` when none are left)."""
        for _ in range(n):
            if self.position >= len(self.cards):
                self.empty = True
                self.emit(ShoeEmpty)
                return
            self.count += 1
            self.emit(CardDealt, card=card_code(self.cards[self.position]), index=self.count, quality=100)
            self.last_read = self.position
            self.position += 1

    def unreadable(self) -> None:
        """The next card leaves the shoe unread (a device fault)."""
        self.position += 1
        self.count += 1
        self.emit(CardUnreadable, index=self.count)

    def duplicate(self) -> None:
        """Report the last card read again as the next card (a duplicate-card fault)."""
        if self.last_read is not None:
            self.position += 1
            self.count += 1
            self.emit(CardDealt, card=card_code(self.cards[self.last_read]), index=self.count, quality=100)

    def jam(self, on: bool = True) -> None:
        """A card jams (``on``), or the jam is cleared (no event: the state request shows it)."""
        self.jammed = on
        if on:
            self.emit(Jam)

    def door(self, open: bool) -> None:
        self.door_open = open
        self.emit(DoorChanged, open=open)

    def self_test(self, ok: bool = True) -> None:
        self.emit(SelfTest, ok=ok, firmware=self.firmware)

    def on_command(self, name: str, values: dict[str, Any]) -> int:
        if name == "start_shuffle":
            self._emit_locked(ShuffleStarted)
            self._emit_locked(ShuffleComplete)
            self._emit_locked(DeckCheck, count=self.deck_size, missing=(), extra=(), duplicate=())
            self.dealt = self.count = 0
            self.empty = False
        elif name == "configure_deck":
            self.deck_size = values["size"]
        elif name == "request_status":
            self._emit_locked(ShoeStatus, stub_count=self.stub_count, deck_size=self.deck_size)
        return STATUS_OK

    @property
    def stub_count(self) -> int:
        """Cards left in the shoe."""
        return max(0, len(self.cards) - self.position)

    def forget(self) -> None:
        self.count, self.deck_size = 0, 52

    def state_body(self) -> tuple[bytes, list[bytes] | None]:
        status = "jam" if self.jammed else "door_open" if self.door_open else "empty" if self.empty else "ok"
        body = struct.pack(">BHBB", SHOE_STATUSES.index(status), self.count, min(self.stub_count, 255), self.deck_size)
        return body, None


class BetSpotSim(SimDevice):
    """Bet-spot sensors: wagers placed per seat and spot; lamps and the lock as commanded."""

    driver = BetSpotDriver

    def __init__(self, address: int = 2, state_file: Path | str | None = None) -> None:
        super().__init__(address, state_file)
        self.lamps: dict[tuple[int, str], str] = {}
        self.locked = False
        self.chips: dict[tuple[int, str], int] = {}
        """What is physically on each spot now (cents); a restart does not change it."""

    def place(self, seat: int, spot: str, cents: int) -> None:
        """Chips worth ``cents`` are now on ``spot`` at ``seat`` (0: removed)."""
        self.put(seat, spot, cents)
        self.emit(SpotReport, seat=seat, spot=spot, cents=cents)

    def put(self, seat: int, spot: str, cents: int) -> None:
        """Chips change on a spot without a report (as while the device is off or not talking)."""
        with self.lock:
            if cents:
                self.chips[(seat, spot)] = cents
            else:
                self.chips.pop((seat, spot), None)

    def forget(self) -> None:
        self.lamps, self.locked = {}, False

    def state_body(self) -> tuple[bytes, list[bytes] | None]:
        entries = []
        for (seat, spot), cents in sorted(self.chips.items()):
            raw = spot.encode()
            entries.append(struct.pack(">BB", seat, len(raw)) + raw + struct.pack(">I", cents))
        return bytes((self.locked,)), entries

    def fault(self, seat: int, spot: str, code: int = 1) -> None:
        self.emit(SpotFault, seat=seat, spot=spot, code=code)

    def on_command(self, name: str, values: dict[str, Any]) -> int:
        if name == "lamp":
            if values["state"] >= len(LAMP_STATES):
                return STATUS_BAD_BODY
            self.lamps[(values["seat"], values["spot"])] = LAMP_STATES[values["state"]]
        elif name in ("lock", "unlock"):
            self.locked = name == "lock"
        return STATUS_OK


TABLE_STOPPED = "table stopped"
"""What the panel shows once it has missed the controller's heartbeat (docs/protocol.md, 4.8)."""


class PanelSim(SimDevice):
    """The dealer's panel: button presses and the key switch; the display (``lines`` x ``columns``)
    and lamps as commanded. ``screen`` is what the display shows now: ``table stopped`` once the
    controller's heartbeat has been missed for a second, until the controller sends a screen
    again; ``screens`` every screen sent, with the time it appeared by the panel's own ``clock``
    (a simulation's is simulated: the same seed, the same history)."""

    driver = PanelDriver

    def __init__(
        self, address: int = 3, state_file: Path | str | None = None, lines: int = 4, columns: int = 40
    ) -> None:
        super().__init__(address, state_file)
        self.lines, self.columns = lines, columns
        self.display: dict[int, str] = {}
        self.lamps: dict[int, bool] = {}
        self.beeps = 0
        self.key_on = False
        self.held: set[str] = set()
        self.screens: deque[tuple[float, tuple[str, ...]]] = deque(maxlen=10_000)
        self.stopped = False
        """The heartbeat was missed and no screen has come since (``table stopped`` shows)."""
        self._sent_at: float | None = None
        """When (``clock``) the controller last sent a screen or a line."""

    @property
    def screen(self) -> tuple[str, ...]:
        """What the display shows now, one text per line (blank lines ``""``)."""
        with self.lock:
            if self._table_stopped():
                return (TABLE_STOPPED,) + ("",) * (self.lines - 1)
            return self._screen()

    def _table_stopped(self) -> bool:
        """The heartbeat, once heard, has been missed for :data:`~hil.device.HEARTBEAT_S`, and no
        screen has come since it was missed."""
        if self.heartbeat_at is None:
            return False  # never heard since power-up: nothing to stop
        return self.stopped or self.clock() - self.heartbeat_at > HEARTBEAT_S

    def heartbeat(self, now: float) -> None:
        last = self.heartbeat_at
        if (
            last is not None
            and now - last > HEARTBEAT_S
            and (self._sent_at is None or self._sent_at <= last + HEARTBEAT_S)
        ):
            self.stopped = True  # it was missed, and the screen shown dates from before
        super().heartbeat(now)

    def _sent(self) -> None:
        """The controller sent a screen (or a line): it shows instead of ``table stopped``."""
        self.stopped, self._sent_at = False, self.clock()

    def _screen(self) -> tuple[str, ...]:
        return tuple(self.display.get(n, "") for n in range(1, self.lines + 1))

    def press(self, button: str) -> None:
        """Press and release ``button``."""
        code = BUTTONS.index(button) + 1
        self.emit(ButtonChanged, button=code, pressed=True)
        self.emit(ButtonChanged, button=code, pressed=False)

    def enter_pin(self, person: str, pin: str) -> None:
        """Key in roster id ``person`` and ``pin`` to sign in (docs/protocol.md, event 0x41)."""
        self.emit(PinEntered, person=person, pin=pin)

    def read_badge(self, badge: str) -> None:
        """Hold badge ``badge`` to the panel's reader to sign in (event 0x42)."""
        self.emit(BadgeRead, badge=badge)

    def sign_off(self, person: str) -> None:
        """``person`` signs off at the panel (event 0x43)."""
        self.emit(SignOff, person=person)

    def key(self, on: bool, report: bool = True) -> None:
        """Turn the supervisor key on or off (``report=False``: as while the link is down and the
        report is lost, e.g. across a restart)."""
        with self.lock:
            self.key_on = on
        if report:
            self.emit(ButtonChanged, button=BUTTONS.index("supervisor_key") + 1, pressed=on)

    def hold(self, button: str, down: bool = True) -> None:
        """Hold ``button`` down (or let it go), reporting it."""
        with self.lock:
            (self.held.add if down else self.held.discard)(button)
        self.emit(ButtonChanged, button=BUTTONS.index(button) + 1, pressed=down)

    def forget(self) -> None:
        self.display, self.lamps = {}, {}
        self.screens.append((self.clock(), self._screen()))

    def state_body(self) -> tuple[bytes, list[bytes] | None]:
        held = [bytes((BUTTONS.index(b) + 1,)) for b in sorted(self.held)]
        return bytes((self.key_on, self.lines, self.columns)), held

    def on_command(self, name: str, values: dict[str, Any]) -> int:
        if name == "display":
            if not 1 <= values["line"] <= self.lines or len(values["text"]) > self.columns:
                return STATUS_BAD_BODY  # protocol.md section 9: nothing changes
            self.display[values["line"]] = values["text"]
            self._sent()
            self.screens.append((self.clock(), self._screen()))
        elif name == "screen":
            lines = values["lines"]
            if len(lines) > self.lines or any(len(text) > self.columns for text in lines):
                return STATUS_BAD_BODY
            self.display = {n: text for n, text in enumerate(lines, 1)}
            self._sent()
            self.screens.append((self.clock(), self._screen()))
        elif name == "lamp":
            self.lamps[values["button"]] = values["on"]
        elif name == "beep":
            self.beeps += 1
        return STATUS_OK


SIMULATORS: dict[str, type[SimDevice]] = {"shoe": ShoeSim, "bet_spots": BetSpotSim, "panel": PanelSim}
