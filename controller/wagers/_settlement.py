"""What a settled round looks like: every wager's result (:mod:`._results`), each seat's net, the
dealer's steps (:mod:`._procedure`).

Game modules (``controller.game.*``) produce a :class:`Settlement`; the state machine, game
recall and ``tablectl settle`` all read it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from controller.wagers._procedure import Step
from controller.wagers._quick import quick_init
from controller.wagers._results import CapReport, WagerResult

__all__ = ["SeatSettlement", "Settlement", "settlement_for"]


@quick_init
@dataclass(frozen=True, slots=True)
class SeatSettlement:
    """Everything settled at one seat."""

    seat: int
    wagers: tuple[WagerResult, ...]
    hands: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    caps: tuple[CapReport, ...] = ()

    @property
    def net(self) -> int:
        return sum(w.net for w in self.wagers)

    def wager(self, spot: str) -> WagerResult | None:
        """The result of ``spot`` at this seat, if it had one."""
        return next((w for w in self.wagers if w.spot == spot), None)

    def to_json(self) -> dict[str, object]:
        return {
            "wagers": {w.spot: w.to_json() for w in self.wagers},
            "net": self.net,
            "hands": {k: dict(v) for k, v in self.hands.items()},
            "caps": [c.to_json() for c in self.caps],
        }


@quick_init
@dataclass(frozen=True, slots=True)
class Settlement:
    """A whole round settled: per seat, the dealer's hand, and the dealer's procedure."""

    game: str
    table: str
    paytables: Mapping[str, str]
    seats: tuple[SeatSettlement, ...]
    procedure: tuple[Step, ...]
    dealer: Mapping[str, object] = field(default_factory=dict)

    @property
    def house_net(self) -> int:
        """What the house gains: the negated sum of the seats' nets."""
        return -sum(s.net for s in self.seats)

    def seat(self, number: int) -> SeatSettlement:
        """The settlement of seat ``number``."""
        return next(s for s in self.seats if s.seat == number)

    def to_json(self) -> dict[str, object]:
        return {
            "game": self.game,
            "table": self.table,
            "paytables": dict(self.paytables),
            "dealer": dict(self.dealer),
            "seats": {str(s.seat): s.to_json() for s in self.seats},
            "house_net": self.house_net,
            "procedure": [step.to_json() for step in self.procedure],
        }


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class TableFacts(Protocol):
    """What a settlement reads of its table (a ``TableConfig``): its file and its paytables' names."""

    @property
    def path(self) -> str: ...

    @property
    def paytables(self) -> Mapping[str, _Named]: ...


_NAMES: dict[int, tuple[Mapping[str, _Named], dict[str, str]]] = {}
"""Each table's paytables' names by spot, by the paytables' mapping (its identity), made once while
it lives: a table settles every round under the same paytables."""


def settlement_for(
    game: str,
    table: TableFacts,
    seats: Mapping[int, SeatSettlement],
    procedure: Iterable[Step],
    dealer: Mapping[str, object],
) -> Settlement:
    """A :class:`Settlement` for ``table`` (a TableConfig): seats in seat order, the paytables by name."""
    paytables = table.paytables
    kept = _NAMES.get(id(paytables))
    if kept is None or kept[0] is not paytables:
        if len(_NAMES) > 64:
            _NAMES.clear()
        kept = _NAMES[id(paytables)] = (paytables, {spot: p.name for spot, p in paytables.items()})
    return Settlement(
        game=game,
        table=table.path,
        paytables=dict(kept[1]),
        seats=tuple([seats[n] for n in sorted(seats)]),
        procedure=tuple(procedure),
        dealer=dealer,
    )
