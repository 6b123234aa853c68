"""The page's controls on a bench table: they drive the simulated devices, so every action reaches
the controller as the same wire event a real device would send (never a call into the table).

Each method checks its input and raises :class:`ControlError` naming the field that is wrong.
"""

from __future__ import annotations

import random
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from controller.vocab import deck
from drivers.messages import BUTTONS
from drivers.panel import ButtonChanged

__all__ = ["BenchControls", "ControlError", "ControlBusy", "FAULTS"]

FAULTS: dict[str, str] = {
    "shoe_jam": "the shoe jams",
    "shoe_jam_cleared": "the shoe's jam is cleared",
    "shoe_door_open": "the shoe's door opens",
    "shoe_door_closed": "the shoe's door closes",
    "card_unreadable": "the next card leaves the shoe unread",
    "card_duplicate": "the shoe reports the last card again",
    "spot_fault": "a bet-spot sensor fails (seat and spot given)",
    "shoe_unplug": "the shoe's cable is pulled (link lost)",
    "shoe_plug": "the shoe's cable is put back",
}
"""The device faults the page can inject, by name."""

MAX_CENTS = 10_000_000
MAX_WAITING_PRESSES = 8
"""Presses sent to the panel that the controller has not handled yet; one more is refused."""
PRESS_EXPIRES_S = 10.0
"""A press the controller never reports handling (a frame lost with its link) stops counting."""


class ControlError(ValueError):
    """A control request that cannot be carried out; the message names the field."""


class ControlBusy(ControlError):
    """Too many presses are waiting for the controller: this one is refused (429), not queued."""


class BenchControls:
    """Place and take chips, press panel buttons, turn the supervisor key, deal cards, inject faults.

    ``round_no`` tells which round the table is in: a new round gets a freshly shuffled shoe
    (seeded from ``seed`` and the round, so a bench run can be repeated)."""

    def __init__(
        self,
        sims: Mapping[str, Any],
        servers: Mapping[str, Any],
        seats: int,
        spots: tuple[str, ...],
        joker: bool,
        seed: int,
        round_no: Callable[[], int],
        max_waiting: int = MAX_WAITING_PRESSES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.sims, self.servers = sims, servers
        self.seats, self.spots, self.joker, self.seed = seats, spots, joker, seed
        self.round_no = round_no
        self.loaded_round: int | None = None
        self.unplugged = False
        self._lock = threading.Lock()
        self.max_waiting, self.clock = max_waiting, clock
        self._waiting: deque[float] = deque()
        """When each press not yet handled by the controller was sent."""

    def _seat(self, value: object, field: str = "seat") -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= self.seats:
            raise ControlError(f"{field}: {value!r} is not a seat 1-{self.seats}")
        return value

    def spot(self, seat: object, spot: object, cents: object) -> None:
        """The chips on ``seat``'s ``spot`` are now worth ``cents`` (0: taken off)."""
        n = self._seat(seat)
        if spot not in self.spots:
            raise ControlError(f"spot: {spot!r} is not one of {', '.join(self.spots)}")
        if not isinstance(cents, int) or isinstance(cents, bool) or not 0 <= cents <= MAX_CENTS:
            raise ControlError(f"cents: {cents!r} is not a whole number of cents 0-{MAX_CENTS}")
        self.sims["bet_spots"].place(n, spot, cents)

    def press(self, button: object) -> None:
        """Press and release a panel button, unless :data:`MAX_WAITING_PRESSES` presses are
        still waiting for the controller (then :class:`ControlBusy`)."""
        if button not in BUTTONS or button == "supervisor_key":
            raise ControlError(f"button: {button!r} is not a panel button (the key is turned, not pressed)")
        with self._lock:
            now = self.clock()
            while self._waiting and self._waiting[0] <= now - PRESS_EXPIRES_S:
                self._waiting.popleft()
            if len(self._waiting) >= self.max_waiting:
                raise ControlBusy(f"{len(self._waiting)} presses are still waiting for the table; press again shortly")
            self._waiting.append(now)
        self.sims["panel"].press(button)

    def handled(self, event: object) -> None:
        """An observer of the runtime: a press the controller has handled stops waiting."""
        if isinstance(event, ButtonChanged) and event.pressed and event.button != "supervisor_key":
            with self._lock:
                if self._waiting:
                    self._waiting.popleft()

    @property
    def waiting(self) -> int:
        """Presses sent and not yet handled."""
        with self._lock:
            return len(self._waiting)

    def key(self, on: object) -> None:
        """Turn the supervisor key on or off."""
        if not isinstance(on, bool):
            raise ControlError(f"on: {on!r} is not true or false")
        self.sims["panel"].emit(ButtonChanged, button=BUTTONS.index("supervisor_key") + 1, pressed=on)

    def _shoe_for_round(self) -> Any:
        shoe = self.sims["shoe"]
        current = self.round_no()
        if self.loaded_round != current:
            cards = [str(c) for c in deck(joker=self.joker)]
            random.Random(f"{self.seed}/{current}/web-shoe").shuffle(cards)
            shoe.load(cards)
            self.loaded_round = current
        return shoe

    def deal(self, count: object) -> None:
        """Deal ``count`` cards (1-7) from this round's shoe."""
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 7:
            raise ControlError(f"count: {count!r} is not 1-7")
        with self._lock:
            self._shoe_for_round().deal(count)

    def fault(self, kind: object, seat: object = 1, spot: object = None) -> None:
        """Inject the device fault ``kind`` (one of :data:`FAULTS`)."""
        if kind not in FAULTS:
            raise ControlError(f"kind: {kind!r} is not one of {', '.join(FAULTS)}")
        shoe = self.sims["shoe"]
        if kind in ("shoe_jam", "shoe_jam_cleared"):
            shoe.jam(kind == "shoe_jam")
        elif kind in ("shoe_door_open", "shoe_door_closed"):
            shoe.door(kind == "shoe_door_open")
        elif kind == "card_unreadable":
            with self._lock:
                self._shoe_for_round().unreadable()
        elif kind == "card_duplicate":
            with self._lock:
                self._shoe_for_round().duplicate()
        elif kind == "spot_fault":
            n = self._seat(seat)
            where = spot if spot is not None else self.spots[0]
            if where not in self.spots:
                raise ControlError(f"spot: {where!r} is not one of {', '.join(self.spots)}")
            self.sims["bet_spots"].fault(n, where, 1)
        elif kind == "shoe_unplug" and not self.unplugged:
            self.servers["shoe"].disconnect()
            self.unplugged = True
        elif kind == "shoe_plug" and self.unplugged:
            self.servers["shoe"].reconnect()
            self.unplugged = False
