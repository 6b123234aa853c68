"""Simulators for each device class: a shoe given a card order, bet spots given wagers, a panel
given button presses. Each also injects the device faults its class can have."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from drivers.bet_spots import BetSpotDriver, SpotFault, SpotReport
from drivers.messages import BUTTONS, LAMP_STATES
from drivers.panel import ButtonChanged, PanelDriver
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
from hil.device import SimDevice

__all__ = ["ShoeSim", "BetSpotSim", "PanelSim", "SIMULATORS", "card_code"]

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
        self.dealt = 0
        self.last_read: int | None = None
        self.deck_size = 52
        self.firmware = firmware

    def load(self, cards: Sequence[str]) -> None:
        """Put a new card order in the shoe."""
        self.cards, self.dealt = list(cards), 0

    def deal(self, n: int = 1) -> None:
        """Deal ``n`` cards (``ShoeEmpty`` when none are left)."""
        for _ in range(n):
            if self.dealt >= len(self.cards):
                self.emit(ShoeEmpty)
                return
            self.emit(CardDealt, card=card_code(self.cards[self.dealt]), index=self.dealt + 1, quality=100)
            self.last_read = self.dealt
            self.dealt += 1

    def unreadable(self) -> None:
        """The next card leaves the shoe unread (a device fault)."""
        self.dealt += 1
        self.emit(CardUnreadable, index=self.dealt)

    def duplicate(self) -> None:
        """Report the last card read again as the next card (a duplicate-card fault)."""
        if self.last_read is not None:
            self.dealt += 1
            self.emit(CardDealt, card=card_code(self.cards[self.last_read]), index=self.dealt, quality=100)

    def jam(self) -> None:
        self.emit(Jam)

    def door(self, open: bool) -> None:
        self.emit(DoorChanged, open=open)

    def self_test(self, ok: bool = True) -> None:
        self.emit(SelfTest, ok=ok, firmware=self.firmware)

    def on_command(self, name: str, values: dict[str, Any]) -> None:
        if name == "start_shuffle":
            self._emit_locked(ShuffleStarted)
            self._emit_locked(ShuffleComplete)
            self._emit_locked(DeckCheck, count=self.deck_size, missing=(), extra=(), duplicate=())
            self.dealt = 0
        elif name == "configure_deck":
            self.deck_size = values["size"]
        elif name == "request_status":
            self._emit_locked(ShoeStatus, stub_count=max(0, len(self.cards) - self.dealt), deck_size=self.deck_size)


class BetSpotSim(SimDevice):
    """Bet-spot sensors: wagers placed per seat and spot; lamps and the lock as commanded."""

    driver = BetSpotDriver

    def __init__(self, address: int = 2, state_file: Path | str | None = None) -> None:
        super().__init__(address, state_file)
        self.lamps: dict[tuple[int, str], str] = {}
        self.locked = False

    def place(self, seat: int, spot: str, cents: int) -> None:
        """Chips worth ``cents`` are now on ``spot`` at ``seat`` (0: removed)."""
        self.emit(SpotReport, seat=seat, spot=spot, cents=cents)

    def fault(self, seat: int, spot: str, code: int = 1) -> None:
        self.emit(SpotFault, seat=seat, spot=spot, code=code)

    def on_command(self, name: str, values: dict[str, Any]) -> None:
        if name == "lamp":
            self.lamps[(values["seat"], values["spot"])] = LAMP_STATES[values["state"]]
        elif name in ("lock", "unlock"):
            self.locked = name == "lock"


class PanelSim(SimDevice):
    """The dealer's panel: button presses; the display and lamps as commanded."""

    driver = PanelDriver

    def __init__(self, address: int = 3, state_file: Path | str | None = None) -> None:
        super().__init__(address, state_file)
        self.display: dict[int, str] = {}
        self.lamps: dict[int, bool] = {}
        self.beeps = 0

    def press(self, button: str) -> None:
        """Press and release ``button``."""
        code = BUTTONS.index(button) + 1
        self.emit(ButtonChanged, button=code, pressed=True)
        self.emit(ButtonChanged, button=code, pressed=False)

    def on_command(self, name: str, values: dict[str, Any]) -> None:
        if name == "display":
            self.display[values["line"]] = values["text"]
        elif name == "lamp":
            self.lamps[values["button"]] = values["on"]
        elif name == "beep":
            self.beeps += 1


SIMULATORS: dict[str, type[SimDevice]] = {"shoe": ShoeSim, "bet_spots": BetSpotSim, "panel": PanelSim}
