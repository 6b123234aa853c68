"""Hold by wager spot beside the par sheet: what `tablectl bench` and `tablectl soak` end with.

Rounds are tallied spot by spot (handle, house win, and the sums the intervals need) in whole
cents, so tallies of parts of a run merge into exactly the tally of the whole, whatever the order.
Each spot's actual hold (house win / handle) is set beside the par sheet's expected hold (its
``edge_per_unit``) and a 95% interval for the wagers actually played:

    edge +- 1.96 * sd / handle,   sd^2 = variance_per_unit * sum(stake^2)

(each wager of ``s`` cents has variance ``s^2`` per unit variance). Wagers settled on the same
cards in one round are not independent (Mississippi Stud's bonus is paid on the community
cards, so six seats' bonus wagers win or lose together), so ``sd`` is never taken below the
spread observed between rounds (the round-clustered standard error of the hold); a par figure
that is itself a simulation widens the interval by its own 95% half-width.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.par.service import PAID_ON

__all__ = [
    "SpotParLike",
    "ParSheetLike",
    "SpotTally",
    "HoldTally",
    "SpotRow",
    "spot_rows",
    "summary_lines",
    "par_for",
]

Z95 = 1.959963984540054
"""The two-sided 95% point of the standard normal distribution."""


class SpotParLike(Protocol):
    """What the summary reads of one spot of a par sheet (``controller.par.SpotPar``)."""

    @property
    def edge_per_unit(self) -> float: ...

    @property
    def variance_per_unit(self) -> float: ...

    @property
    def exact(self) -> bool: ...

    @property
    def interval95(self) -> Any: ...


class ParSheetLike(Protocol):
    """What the summary reads of a par sheet (``controller.par.ParSheet``)."""

    @property
    def strategy(self) -> str: ...

    @property
    def spots(self) -> Mapping[str, Any]: ...


def par_for(table: Any) -> ParSheetLike | None:
    """The par sheet of ``table`` (a TableConfig) with its configured paytables, from the par
    service (controller.par.service: one cache for every command), or ``None`` when there is none.

    Results that are kept (shipped for the shipped paytables, or in the user's cache folder) are
    read here; one that is not is computed once in a separate process, with a progress bar on
    stderr (solving a new paytable takes seconds and hundreds of MiB, which a bench table should
    not carry), and kept for every later run."""
    from controller.par import service

    try:
        return service.sheet_apart(table)
    except (ValueError, KeyError, TypeError) as exc:
        print(f"tablectl: no par sheet for {table.path}: {exc}", file=sys.stderr)
        return None


@dataclass
class SpotTally:
    """One wager spot's sums over the rounds tallied (whole cents, so merging is exact)."""

    rounds: int = 0
    """Rounds in which the spot had a wager or a payout."""
    wagers: int = 0
    handle: int = 0
    stake_sq: int = 0
    house: int = 0
    round_house_sq: int = 0
    round_cross: int = 0
    round_handle_sq: int = 0

    def add_round(self, stakes: Iterable[int], house: int) -> None:
        """One round's wagers at this spot (every seat) and the house's win from them."""
        handle = 0
        for s in stakes:
            self.wagers += 1
            handle += s
            self.stake_sq += s * s
        self.rounds += 1
        self.handle += handle
        self.house += house
        self.round_house_sq += house * house
        self.round_cross += house * handle
        self.round_handle_sq += handle * handle

    def merge(self, other: SpotTally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def hold(self) -> float | None:
        return self.house / self.handle if self.handle else None

    def observed_sd(self) -> float:
        """The round-clustered standard error of the hold, times the handle (0 with < 2 rounds)."""
        if self.rounds < 2 or not self.handle:
            return 0.0
        h = self.house / self.handle
        ss = self.round_house_sq - 2 * h * self.round_cross + h * h * self.round_handle_sq
        return math.sqrt(max(ss, 0.0) * self.rounds / (self.rounds - 1))


@dataclass
class HoldTally:
    """A run's rounds, voids and per-spot tallies; ``add`` one settled round, ``merge`` parts."""

    rounds: int = 0
    voids: int = 0
    spots: dict[str, SpotTally] = field(default_factory=dict)

    def add(self, record: Mapping[str, Any], settlement: Any) -> None:
        """One finished round: its record and its settlement (a ``Settlement``, its JSON, or
        ``None`` for a void round, whose wagers were returned and are not counted as handle)."""
        self.rounds += 1
        if settlement is None:
            self.voids += 1
            return
        stakes: dict[str, list[int]] = {}
        for seat in record["seats"].values():
            for spot, cents in seat["wagers"].items():
                stakes.setdefault(spot, []).append(cents)
        house: dict[str, int] = {}
        for spot, net in _nets(settlement):
            house[spot] = house.get(spot, 0) - net
        for line, base in PAID_ON.get(record.get("game", ""), {}).items():  # every round: all of its base's handle
            if base in stakes:
                stakes[line] = stakes[base]
        for spot in sorted(stakes.keys() | house.keys()):
            self.spots.setdefault(spot, SpotTally()).add_round(stakes.get(spot, ()), house.get(spot, 0))

    def merge(self, other: HoldTally) -> None:
        self.rounds += other.rounds
        self.voids += other.voids
        for spot, t in other.spots.items():
            self.spots.setdefault(spot, SpotTally()).merge(t)

    @property
    def handle(self) -> int:
        """Everything wagered (a payout line paid on another wager adds nothing)."""
        lines = {line for paid in PAID_ON.values() for line in paid}
        return sum(t.handle for spot, t in self.spots.items() if spot not in lines)

    @property
    def house(self) -> int:
        return sum(t.house for t in self.spots.values())


def _nets(settlement: Any) -> Iterable[tuple[str, int]]:
    """(spot, player's net) of every wager result of a settlement object or its JSON."""
    if isinstance(settlement, Mapping):
        for seat in settlement["seats"].values():
            for spot, w in seat["wagers"].items():
                yield spot, w["net"]
    else:
        for seat in settlement.seats:
            for w in seat.wagers:
                yield w.spot, w.net


@dataclass(frozen=True, slots=True)
class SpotRow:
    """One line of the summary: a spot's figures and, when the par sheet has it, its par."""

    spot: str
    wagers: int
    handle: int
    house: int
    hold: float | None
    par: float | None = None
    low: float | None = None
    high: float | None = None

    @property
    def outside(self) -> bool:
        """The actual hold is outside the par interval."""
        return (
            self.hold is not None
            and self.low is not None
            and self.high is not None
            and not (self.low <= self.hold <= self.high)
        )


def _par_half_width(spot: Any) -> float:
    """The par figure's own 95% half-width (0 when exact)."""
    if getattr(spot, "exact", True):
        return 0.0
    iv = getattr(spot, "interval95", None)
    if iv is None:
        return 0.0
    if isinstance(iv, int | float):
        return float(iv)
    low, high = iv
    return (float(high) - float(low)) / 2


def spot_rows(tally: HoldTally, sheet: ParSheetLike | None, order: Sequence[str] = ()) -> list[SpotRow]:
    """Every spot's row: those in ``order`` (the game's wager spots) first, then the par
    sheet's order, then by name."""
    known = list(order) + [s for s in (sheet.spots if sheet is not None else ()) if s not in order]
    order = sorted(tally.spots, key=lambda s: (known.index(s) if s in known else len(known), s))
    rows = []
    for name in order:
        t = tally.spots[name]
        sp = sheet.spots.get(name) if sheet is not None else None
        if sp is None or not t.handle:
            rows.append(SpotRow(name, t.wagers, t.handle, t.house, t.hold))
            continue
        edge = float(sp.edge_per_unit)
        sd = max(math.sqrt(max(float(sp.variance_per_unit), 0.0) * t.stake_sq), t.observed_sd())
        half = math.hypot(Z95 * sd / t.handle, _par_half_width(sp))
        rows.append(SpotRow(name, t.wagers, t.handle, t.house, t.hold, edge, edge - half, edge + half))
    return rows


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.2f}%"


def summary_lines(
    tally: HoldTally, sheet: ParSheetLike | None, played: str | None = None, order: Sequence[str] = ()
) -> list[str]:
    """The per-spot table of handle, hold, par and interval, with its notes.

    ``played``: the strategy the players played; when the sheet assumes another, the holds
    are shown beside par but not flagged (a par figure holds only for its strategy)."""
    compare = sheet is not None and (played is None or played == sheet.strategy)
    rows = spot_rows(tally, sheet, order)
    out = [f"{'spot':<12} {'wagers':>9} {'handle':>16} {'house win':>14} {'hold':>8} {'par':>8}   95% interval"]
    for r in rows:
        interval = f"{_pct(r.low)} to {_pct(r.high)}" if r.low is not None else "—"
        flag = "   OUTSIDE" if compare and r.outside else ""
        out.append(
            f"{r.spot:<12} {r.wagers:>9,} {r.handle / 100:>16,.2f} {r.house / 100:>14,.2f} "
            f"{_pct(r.hold):>8} {_pct(r.par):>8}   {interval}{flag}"
        )
    hold = tally.house / tally.handle if tally.handle else None
    out.append(f"{'all':<12} {'':>9} {tally.handle / 100:>16,.2f} {tally.house / 100:>14,.2f} {_pct(hold):>8}")
    if sheet is None:
        out.append("par: no par sheet for this table (controller.par not available)")
    else:
        outside = [r.spot for r in rows if r.outside]
        note = f"par: {sheet.strategy}"
        if not compare:
            note += f"; the players played {played}, so holds are not checked against it"
        elif outside:
            note += f"; OUTSIDE the 95% interval: {', '.join(outside)}"
        else:
            note += "; every spot with a par figure is inside its 95% interval"
        out.append(note)
    return out
