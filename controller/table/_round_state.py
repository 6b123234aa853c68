"""What the round's collaborators share, each given it by constructor (never the round itself):
the round's state now (:class:`RoundState`, owned by the round, read by reference), the game's
shape (:class:`GameShape`, fixed for a table) and the ports they send through (device commands,
the audit journal, a machine trigger)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from controller.table._hold_ways import Ways
from controller.table.phases import CommonPhases
from controller.table.round_data import Seat

__all__ = ["RoundState", "GameShape", "DeviceCommands", "Audit", "Fire"]

Audit = Callable[[str, dict[str, object]], object]
"""``audit(kind, data)``: a record journaled beside the events (supervisor actions, refusals)."""

Fire = Callable[[], object]
"""A bound trigger of the round's machine (``hold``, ``resume``, ``next_round`` ...)."""


@dataclass(slots=True, eq=False)
class RoundState:
    """The round as it stands: one object, owned by the round and read (some parts written) by the
    collaborators whose concern they are. The machine's state is :attr:`phase`."""

    phase: Enum
    """The machine's state (a common one, :class:`~controller.table.phases.Common`, or one of the game's ``Phase``)."""
    round_no: int = 0
    dealt: int = 0
    """Cards placed in the deal this round."""
    seats: dict[int, Seat] = field(default_factory=dict)
    """The round's seats (the wagering seats, once the bets are locked)."""
    held_from: Enum | None = None
    """The state the last hold was entered from (:mod:`._holds` writes it)."""
    hold_reason: Ways = Ways("")
    """Why the table holds, as parts (the last hold's reason; shown only while held: :mod:`._holds`)."""
    screen_version: int = 0
    """Counts the changes of what the dealer's screen is made of: every field above but
    :attr:`dealt` counts itself when set; a collaborator that changes something else the screen
    shows (its texts, a device's link, the key, a late bet, the wagers' problems, a game's
    details) says so with :meth:`screen_changed`. The same count as when the screen was last
    made: the screen is the same (:meth:`._dealer_screen.DealerScreen.show`)."""

    def __setattr__(self, name: str, value: object) -> None:
        object.__setattr__(self, name, value)
        if name in _SHOWN:  # before the count itself is made (``__init__``): from 0
            object.__setattr__(self, "screen_version", getattr(self, "screen_version", 0) + 1)

    def screen_changed(self) -> None:
        """Something the dealer's screen is made of changed (:attr:`screen_version`)."""
        object.__setattr__(self, "screen_version", self.screen_version + 1)


_SHOWN = frozenset({"phase", "round_no", "seats", "held_from", "hold_reason"})
"""The fields of :class:`RoundState` the screen is made of (the cards placed are not: a card
placed in the deal changes no screen unless a collaborator says so)."""


@dataclass(frozen=True, slots=True)
class GameShape:
    """What a game's round is made of, as its table class declares it (fixed for a table)."""

    common: CommonPhases
    playing: tuple[Enum, ...]
    """The states a round is played in (where a hold or a void can happen)."""
    deck: int
    bet_spots: tuple[str, ...]
    wager_steps: tuple[str, ...]
    required_spots: tuple[str, ...]
    confirm_phases: tuple[str, ...]
    dealing_states: tuple[str, ...]
    card_starts_deal: bool
    seats: int
    """How many seats the table has."""


class DeviceCommands(Protocol):
    """The device commands the collaborators send (through :class:`~.device_state.ShownState`)."""

    def lamp(self, seat: int, spot: str, state: str) -> None: ...

    def panel_lamp(self, button: str, on: bool) -> None: ...

    def lock_spots(self, locked: bool) -> None: ...

    def request_stub_count(self) -> None: ...

    def stub_count_answered(self) -> None: ...

    def resend(self, device: str) -> int: ...
