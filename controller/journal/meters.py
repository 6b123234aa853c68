"""Meters: per seat and for the table, what the rounds in the journal add up to.

A finished round's ``RoundSettled`` record (its round record, settlement, late bets and faults)
gives the round's contribution (:func:`meters_for_round`); the journal keeps running totals
in the same transaction as each round record, and ``journal verify`` recomputes them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
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


COUNTS = ("rounds", "voids", "late_bets", "faults")
"""The meters that count (rounds, not cents), in the order shown."""
MONEY = ("paid", "collected", "commission", "bonus_paid", "envy_paid")
"""The money meters besides the wagers, in the order shown."""


def meter_order(layout: Sequence[str] = ()) -> Callable[[str], tuple[int, int, str]]:
    """The sort key of a meter's name as shown: the counts, then ``wagered:SPOT`` in the game's
    layout order (``layout``: its wager spots; others after, by name), then the money paid and
    collected, then anything else by name."""

    def key(name: str) -> tuple[int, int, str]:
        if name in COUNTS:
            return (0, COUNTS.index(name), "")
        kind, _, spot = name.partition(":")
        if kind == "wagered" and spot:
            return (1, layout.index(spot) if spot in layout else len(layout), spot)
        if name in MONEY:
            return (2, MONEY.index(name), "")
        return (3, 0, name)

    return key


def meters_table(meters: Mapping[tuple[str, str], int], layout: Sequence[str] = ()) -> list[str]:
    """Meters as text lines: the table first, then each seat in order; in each, the counts, the
    wagers in the game's layout order (``layout``: its wager spots), then the money."""
    scopes = sorted({s for s, _ in meters}, key=lambda s: (s != TABLE, int(s.split()[1]) if s != TABLE else 0))
    order = meter_order(layout)
    lines = []
    for scope in scopes:
        lines.append(f"{scope}:")
        for (s, name), value in sorted(meters.items(), key=lambda kv: (kv[0][0], order(kv[0][1]))):
            if s == scope:
                shown = str(value) if name in ("rounds", "voids", "late_bets", "faults") else f"{value / 100:,.2f}"
                lines.append(f"  {name:<22} {shown:>14}")
    return lines
