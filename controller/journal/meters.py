"""Meters: per seat and for the table, what the rounds in the journal add up to.

A finished round's ``RoundSettled`` record (its round record, settlement, late bets and faults)
gives the round's contribution (:func:`meters_for_round`); the journal keeps running totals
in the same transaction as each round record, and ``journal verify`` recomputes them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["meters_for_round", "add_meters", "meters_table"]

TABLE = "table"


def meters_for_round(round_data: Mapping[str, Any]) -> dict[tuple[str, str], int]:
    """One finished round's meters, keyed by (scope, name): scope ``table`` or ``seat N``.

    Names: ``rounds``, ``voids``, ``late_bets``, ``faults``, ``wagered:SPOT`` (stakes by spot),
    ``paid`` and ``collected`` (cents the dealer paid out and took in), ``commission``,
    ``bonus_paid``, ``envy_paid``; per seat the same money figures and ``rounds``.
    """
    out: dict[tuple[str, str], int] = defaultdict(int)
    out[(TABLE, "rounds")] += 1
    out[(TABLE, "late_bets")] += len(round_data.get("late_bets", ()))
    out[(TABLE, "faults")] += int(round_data.get("faults", 0))
    settlement = round_data.get("settlement")
    if settlement is None:
        out[(TABLE, "voids")] += 1
    for seat, entry in round_data["record"]["seats"].items():
        scope = f"seat {seat}"
        out[(scope, "rounds")] += 1
        for spot, cents in entry["wagers"].items():
            for s in (scope, TABLE):
                out[(s, f"wagered:{spot}")] += cents
        if settlement is None:
            continue
        for spot, w in settlement["seats"][seat]["wagers"].items():
            net = w["net"]
            for s in (scope, TABLE):
                if net > 0:
                    out[(s, "paid")] += net
                    if spot in ("bonus", "ante_bonus"):
                        out[(s, "bonus_paid")] += net
                    elif spot == "envy":
                        out[(s, "envy_paid")] += net
                elif net < 0:
                    out[(s, "collected")] += -net
                out[(s, "commission")] += w.get("commission", 0)
    return {k: v for k, v in out.items() if v or k[1] == "rounds"}


def add_meters(rounds: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], int]:
    """The meters of all ``rounds`` together."""
    total: dict[tuple[str, str], int] = defaultdict(int)
    for r in rounds:
        for key, value in meters_for_round(r).items():
            total[key] += value
    return dict(total)


def meters_table(meters: Mapping[tuple[str, str], int]) -> list[str]:
    """Meters as text lines: the table first, then each seat in order."""
    scopes = sorted({s for s, _ in meters}, key=lambda s: (s != TABLE, int(s.split()[1]) if s != TABLE else 0))
    lines = []
    for scope in scopes:
        lines.append(f"{scope}:")
        for (s, name), value in sorted(meters.items()):
            if s == scope:
                shown = str(value) if name in ("rounds", "voids", "late_bets", "faults") else f"{value / 100:,.2f}"
                lines.append(f"  {name:<22} {shown:>14}")
    return lines
