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
from typing import TYPE_CHECKING, Any, Protocol

from controller.par.service import PAID_ON

if TYPE_CHECKING:
    from hil.verdict import Combined

__all__ = [
    "SpotParLike",
    "ParSheetLike",
    "SpotTally",
    "HoldTally",
    "SpotRow",
    "spot_rows",
    "summary_lines",
    "par_for",
    "combined",
    "verdict_line",
    "MIN_ROUNDS",
]

MIN_ROUNDS = 100
"""Settled rounds below which the combined test is not made (its chi-square is a large-sample law)."""

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
    pairs: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    """Per pair of spots ``(s, t)``, ``s < t``, the sums over rounds of ``house_s * house_t``,
    ``house_s * handle_t``, ``handle_s * house_t`` and ``handle_s * handle_t``: with each spot's own
    sums, the covariance of the spots' deviations from par (:func:`combined`)."""

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
        played = []
        for spot in sorted(stakes.keys() | house.keys()):
            spot_stakes = stakes.get(spot, ())
            win = house.get(spot, 0)
            self.spots.setdefault(spot, SpotTally()).add_round(spot_stakes, win)
            played.append((spot, win, sum(spot_stakes)))
        pairs = self.pairs
        for i, (s, hs, ws) in enumerate(played):
            for t, ht, wt in played[i + 1 :]:
                sums = pairs.get((s, t))
                if sums is None:
                    sums = pairs[(s, t)] = [0, 0, 0, 0]
                sums[0] += hs * ht
                sums[1] += hs * wt
                sums[2] += ws * ht
                sums[3] += ws * wt

    def merge(self, other: HoldTally) -> None:
        self.rounds += other.rounds
        self.voids += other.voids
        for spot, t in other.spots.items():
            self.spots.setdefault(spot, SpotTally()).merge(t)
        for pair, sums in other.pairs.items():
            mine = self.pairs.setdefault(pair, [0, 0, 0, 0])
            for i, v in enumerate(sums):
                mine[i] += v

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


def combined(tally: HoldTally, sheet: ParSheetLike | None) -> Combined | None:
    """Every spot with a par figure tested against par together (:mod:`hil.verdict`), or ``None``
    without a sheet, a spot with par, or :data:`MIN_ROUNDS` settled rounds.

    ``D_s = house_s - edge_s * handle_s``; its covariance is the spread between rounds (centred,
    times ``n / (n - 1)``), each spot's variance never below the par sheet's
    (``variance_per_unit * sum(stake^2)``, as for its interval; a run that has not met a rare big
    payout shows less spread than there is) with the correlations observed, plus a simulated par
    figure's own variance."""
    import numpy as np  # only when the verdict is made (meters and the bench start without it)

    from hil.verdict import combined_test

    n = tally.rounds - tally.voids
    if sheet is None or n < MIN_ROUNDS:
        return None
    names = [s for s in sorted(tally.spots) if s in sheet.spots and tally.spots[s].handle]
    if not names:
        return None
    k = len(names)
    edge = np.array([float(sheet.spots[s].edge_per_unit) for s in names])
    t = [tally.spots[s] for s in names]
    dev = np.array([x.house - e * x.handle for x, e in zip(t, edge, strict=True)])
    raw = np.zeros((k, k))
    for i, (x, e) in enumerate(zip(t, edge, strict=True)):
        raw[i, i] = x.round_house_sq - 2 * e * x.round_cross + e * e * x.round_handle_sq
        for j in range(i + 1, k):
            hh, hw, wh, ww = tally.pairs.get((names[i], names[j]), (0, 0, 0, 0))
            f = edge[j]
            raw[i, j] = raw[j, i] = hh - f * hw - e * wh + e * f * ww
    cov = (raw - np.outer(dev, dev) / n) * (n / (n - 1))
    observed = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    theory = np.array(
        [
            math.sqrt(max(float(sheet.spots[s].variance_per_unit), 0.0) * x.stake_sq)
            for s, x in zip(names, t, strict=True)
        ]
    )
    sd = np.maximum(observed, theory)
    safe = np.where(observed > 0, observed, 1.0)
    corr = cov / np.outer(safe, safe)
    zero = observed == 0
    corr[zero, :] = 0.0
    corr[:, zero] = 0.0
    np.fill_diagonal(corr, np.where(sd > 0, 1.0, 0.0))
    par_sd = np.array([_par_half_width(sheet.spots[s]) / Z95 * x.handle for s, x in zip(names, t, strict=True)])
    sigma = corr * np.outer(sd, sd) + np.diag(par_sd**2)
    return combined_test(dev, sigma)


def verdict_line(result: Combined | None, tally: HoldTally) -> str:
    """The combined test's line of the summary: pass or FAIL, the statistic and the stated
    false-alarm rate."""
    if result is None:
        n = tally.rounds - tally.voids
        why = f"fewer than {MIN_ROUNDS} settled rounds ({n})" if n < MIN_ROUNDS else "no spot with a par figure"
        return f"verdict: not tested: {why}"
    rate = f"1 run in {round(1 / result.alpha):,}"
    return (
        f"verdict: {'FAIL' if result.failed else 'pass'}: every spot against par together, "
        f"chi-square {result.statistic:.2f} on {result.dof} degrees of freedom (correlations from the rounds), "
        f"p = {result.p_value:.3g}; fails above {result.limit:.2f} (p < {result.alpha:g}): "
        f"a table whose par is right fails {rate} by chance"
    )


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
        if compare:
            out.append(verdict_line(combined(tally, sheet), tally))
    return out
