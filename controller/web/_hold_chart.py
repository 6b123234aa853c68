"""The hold chart of a table, drawn on the server as SVG: cumulative hold against the
theoretical over the rounds, with the 95% band the hold should fall in if the game plays to its
par. Nothing is loaded from anywhere; the template draws the shapes this module lays out.

After round ``k`` (void rounds left out): hold ``W_k / H_k`` (win over handle), theoretical
``E_k / H_k`` (par's expected win of the wagers made), band ``E_k / H_k +- 1.96 sqrt(V_k) / H_k``
(``V_k`` the summed variance of each wager's result, wagers taken as independent). A hold
outside the band is a signal; inside it, it is the noise of a few rounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from controller.web.pit_store import RoundHold

__all__ = ["cumulative", "hold_chart", "outside_band"]

Z95 = 1.96
WIDTH, HEIGHT = 720, 240
LEFT, RIGHT, TOP, BOTTOM = 56, 12, 14, 30


@dataclass(frozen=True, slots=True)
class HoldPoint:
    """The cumulative figures after one round, in percent of the handle."""

    round_no: int
    hold: float
    theoretical: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True, slots=True)
class HoldChart:
    """A chart laid out for the template: SVG point lists, the band's polygon, the axis ticks."""

    width: int
    height: int
    hold_points: str
    theoretical_points: str
    band_points: str
    y_ticks: tuple[tuple[float, str], ...]
    x_ticks: tuple[tuple[float, str], ...]
    last: HoldPoint
    rounds: int
    outside: bool
    """The latest hold is outside the band."""


def cumulative(rounds: Sequence[RoundHold]) -> list[HoldPoint]:
    """The cumulative hold after each non-void round with a handle."""
    handle = win = 0
    expected = variance = 0.0
    par_known = True
    out: list[HoldPoint] = []
    for r in rounds:
        if r.void or r.handle <= 0:
            continue
        handle += r.handle
        win += r.win
        if r.theoretical is None or r.variance is None:
            par_known = False
        else:
            expected += r.theoretical
            variance += r.variance
        hold = 100.0 * win / handle
        if par_known:
            theo = 100.0 * expected / handle
            half = 100.0 * Z95 * math.sqrt(max(variance, 0.0)) / handle
            out.append(HoldPoint(r.round_no, hold, theo, theo - half, theo + half))
        else:
            out.append(HoldPoint(r.round_no, hold, None, None, None))
    return out


def outside_band(point: HoldPoint | None) -> bool:
    """Whether the hold at ``point`` is outside its 95% band (``False`` without a band)."""
    if point is None or point.low is None or point.high is None:
        return False
    return not point.low <= point.hold <= point.high


def _ticks(low: float, high: float) -> list[float]:
    span = high - low
    raw = span / 5 if span > 0 else 1.0
    step = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * step:
            step *= m
            break
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step) + 1)]


def hold_chart(rounds: Sequence[RoundHold]) -> HoldChart | None:
    """The chart of ``rounds`` (oldest first), or ``None`` when no round has a handle."""
    points = cumulative(rounds)
    if not points:
        return None
    with_band = [p for p in points if p.low is not None and p.high is not None]
    # the y range, fitted: the hold line after its first tenth of rounds (the first few rounds'
    # hold swings wildly), the theoretical and the band where it ends (the band of the first
    # rounds is hundreds of points wide: drawn clipped, not fitted)
    settled = points[len(points) // 10 :]
    values = [p.hold for p in settled]
    if with_band:
        last = with_band[-1]
        values += [v for v in (last.low, last.high, last.theoretical) if v is not None]
    low, high = min(values), max(values)
    if high - low < 1.0:
        mid = (high + low) / 2
        low, high = mid - 0.5, mid + 0.5
    pad = (high - low) * 0.05
    low, high = low - pad, high + pad
    n = len(points)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (plot_w * i / (n - 1) if n > 1 else plot_w / 2)

    def y(v: float) -> float:
        v = min(max(v, low), high)
        return TOP + plot_h * (high - v) / (high - low)

    def pts(pairs: list[tuple[float, float]]) -> str:
        return " ".join(f"{a:.1f},{b:.1f}" for a, b in pairs)

    index = {id(p): i for i, p in enumerate(points)}
    hold = pts([(x(i), y(p.hold)) for i, p in enumerate(points)])
    theo = pts([(x(index[id(p)]), y(p.theoretical)) for p in with_band if p.theoretical is not None])
    upper = [(x(index[id(p)]), y(p.high)) for p in with_band if p.high is not None]
    lower = [(x(index[id(p)]), y(p.low)) for p in with_band if p.low is not None]
    band = pts(upper + lower[::-1]) if len(upper) > 1 else ""
    y_ticks = tuple((y(v), f"{v:g}%") for v in _ticks(low, high))
    step = max(1, math.ceil(n / 8))
    x_ticks = tuple((x(i), str(points[i].round_no)) for i in range(0, n, step))
    return HoldChart(WIDTH, HEIGHT, hold, theo, band, y_ticks, x_ticks, points[-1], n, outside_band(points[-1]))
