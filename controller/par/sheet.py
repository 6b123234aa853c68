"""What a par sheet says: the house edge of each wager, its paytable lines, and the main game's figures."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ParError", "Line", "SpotPar", "ParSheet"]


class ParError(ValueError):
    """A par sheet cannot be made as asked (an unknown game or paytable)."""


def _number(x: float) -> float | None:
    """``x`` for JSON: ``None`` for a figure that is not known (NaN)."""
    return None if math.isnan(x) else x


Line = tuple[str, float, float]
"""A paytable line: (name, probability, contribution to the return per unit wagered)."""


@dataclass(frozen=True, slots=True)
class SpotPar:
    """The par of one wager spot.

    ``edge_per_unit`` is the house edge per unit wagered on the spot (the expected hold of its
    handle); ``variance_per_unit`` is such that the hold of a handle of ``H`` units has standard
    deviation ``sqrt(variance_per_unit / H)`` (for a spot whose wager is a fixed unit, the plain
    variance of the result per unit). ``lines``: each paytable line's probability and
    contribution to the player's return (per unit wagered on the spot). ``interval95``: the
    95% interval of ``edge_per_unit`` when it was simulated (``None`` when exact).
    """

    spot: str
    edge_per_unit: float
    variance_per_unit: float
    lines: tuple[Line, ...] = ()
    exact: bool = True
    interval95: tuple[float, float] | None = None
    note: str = ""

    def hold_interval(self, handle_units: float) -> tuple[float, float]:
        """The 95% range of the actual hold for a handle of ``handle_units`` units of this wager
        (par uncertainty, for a simulated figure, added in quadrature)."""
        if handle_units <= 0:
            return (-math.inf, math.inf)
        sd = math.sqrt(self.variance_per_unit / handle_units)
        if self.interval95 is not None:
            sd = math.hypot(sd, (self.interval95[1] - self.interval95[0]) / (2 * 1.96))
        return (self.edge_per_unit - 1.96 * sd, self.edge_per_unit + 1.96 * sd)

    def hold_interval_for_stakes(self, handle: float, stakes: float, stakes_squared: float) -> tuple[float, float]:
        """The 95% range of the actual hold when the base stakes differ: ``handle`` is the total
        wagered on the spot, ``stakes`` the sum over seat-rounds of each one's base stake (the
        ante, or the wager itself for a fixed wager) and ``stakes_squared`` the sum of their
        squares, all in the same money unit. With every base stake 1 this is :meth:`hold_interval`."""
        if handle <= 0 or stakes <= 0:
            return (-math.inf, math.inf)
        sd = math.sqrt(self.variance_per_unit * stakes_squared / (handle * stakes))
        if self.interval95 is not None:
            sd = math.hypot(sd, (self.interval95[1] - self.interval95[0]) / (2 * 1.96))
        return (self.edge_per_unit - 1.96 * sd, self.edge_per_unit + 1.96 * sd)

    def to_json(self) -> dict[str, object]:
        """The JSON form printed by ``tablectl par --json``."""
        return {
            "spot": self.spot,
            "edge_per_unit": self.edge_per_unit,
            "variance_per_unit": self.variance_per_unit,
            "exact": self.exact,
            "interval95": list(self.interval95) if self.interval95 else None,
            "lines": [{"line": n, "probability": p, "contribution": c} for n, p, c in self.lines],
            **({"note": self.note} if self.note else {}),
        }


@dataclass(frozen=True, slots=True)
class ParSheet:
    """The par sheet of one table: every wager spot it offers, and the main game's figures.

    Main-game figures are per unit of the main wager (the ante; pai gow's wager): the house
    edge per ante, per unit of total action (the element of risk), the average total wager,
    the push rate (the main hand neither wins nor loses) and the fold rate (``fold_rates`` by
    street). ``strategy`` states the player strategy assumed; ``exact`` is true when every
    figure is an exact enumeration.
    """

    game: str
    spots: dict[str, SpotPar]
    edge_per_ante: float
    edge_per_action: float
    average_total_wager: float
    push_rate: float
    fold_rate: float
    strategy: str
    exact: bool
    fold_rates: dict[str, float] = field(default_factory=dict)
    paytables: dict[str, str] = field(default_factory=dict)
    tables: dict[str, tuple[tuple[str, float], ...]] = field(default_factory=dict)
    """Further figures by name, such as the envy bonus by the number of other players."""
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """The JSON form printed by ``tablectl par --json``."""
        return {
            "game": self.game,
            "strategy": self.strategy,
            "exact": self.exact,
            "paytables": dict(self.paytables),
            "edge_per_ante": _number(self.edge_per_ante),
            "edge_per_action": _number(self.edge_per_action),
            "average_total_wager": _number(self.average_total_wager),
            "push_rate": _number(self.push_rate),
            "fold_rate": self.fold_rate,
            "fold_rates": dict(self.fold_rates),
            "spots": {name: spot.to_json() for name, spot in self.spots.items()},
            "tables": {k: [list(row) for row in v] for k, v in self.tables.items()},
            "notes": list(self.notes),
        }


def _float(x: Any) -> float:
    return math.nan if x is None else float(x)


def spot_from_json(data: Mapping[str, Any]) -> SpotPar:
    """A :class:`SpotPar` from its :meth:`SpotPar.to_json` form."""
    iv = data.get("interval95")
    return SpotPar(
        str(data["spot"]),
        float(data["edge_per_unit"]),
        float(data["variance_per_unit"]),
        tuple((str(x["line"]), float(x["probability"]), float(x["contribution"])) for x in data.get("lines", ())),
        bool(data.get("exact", True)),
        (float(iv[0]), float(iv[1])) if iv else None,
        str(data.get("note", "")),
    )


def sheet_from_json(data: Mapping[str, Any]) -> ParSheet:
    """A :class:`ParSheet` from its :meth:`ParSheet.to_json` form (``tablectl par --json``)."""
    return ParSheet(
        game=str(data["game"]),
        spots={str(k): spot_from_json(v) for k, v in data["spots"].items()},
        edge_per_ante=_float(data["edge_per_ante"]),
        edge_per_action=_float(data["edge_per_action"]),
        average_total_wager=_float(data["average_total_wager"]),
        push_rate=_float(data["push_rate"]),
        fold_rate=float(data["fold_rate"]),
        strategy=str(data["strategy"]),
        exact=bool(data["exact"]),
        fold_rates={str(k): float(v) for k, v in data.get("fold_rates", {}).items()},
        paytables={str(k): str(v) for k, v in data.get("paytables", {}).items()},
        tables={str(k): tuple((str(n), float(v)) for n, v in rows) for k, rows in data.get("tables", {}).items()},
        notes=tuple(str(n) for n in data.get("notes", ())),
    )
