"""Three-card bonus wagers, exactly: every one of the 22,100 three-card hands (Mississippi Stud's
bonus on the community cards, Boston 5's on the player's first three cards)."""

from __future__ import annotations

from itertools import combinations

from controller.configuration import Paytable
from controller.hands import HandRules, evaluate_three
from controller.hands.categories import Category, unpack
from controller.par._cache import Progress
from controller.par._kept import SOLVER_VERSIONS, kept
from controller.par.lines import line_name, row_value
from controller.par.sheet import SpotPar
from controller.vocab import ALL_CARDS

__all__ = ["three_card_inputs", "count_three_card", "three_card_par", "HANDS"]

HANDS = 22_100
"""C(52, 3): every three-card hand."""


def three_card_inputs(rules: HandRules) -> dict[str, object]:
    """What the three-card hand counts depend on: the game's three-card ranking (its order)."""
    order = [c.value for c in rules.three_card] if rules.three_card else None
    return {"version": SOLVER_VERSIONS["three_card_counts"], "wheel": rules.wheel.value, "three_card": order}


def three_card_counts(rules: HandRules) -> dict[tuple[Category, int], int]:
    """How many of the 22,100 hands fall in each (category, naming rank 2-14) under ``rules``
    (:func:`count_three_card`: a second of CPU, so it is kept too: controller.par._kept)."""

    def compute(bar: Progress | None) -> list[list[str | int]]:
        counts = count_three_card(rules)
        if bar is not None:
            bar.update(1)
        return sorted([c.value, r, n] for (c, r), n in counts.items())

    def build(payload: list[list[str | int]]) -> dict[tuple[Category, int], int]:
        return {(Category(c), int(r)): int(n) for c, r, n in payload}

    result: dict[tuple[Category, int], int] = kept(
        "three_card_counts", three_card_inputs(rules), build, compute, "three-card hand counts", 1, "step"
    )
    return result


def count_three_card(rules: HandRules) -> dict[tuple[Category, int], int]:
    """:func:`three_card_counts`, counted over every hand."""
    counts: dict[tuple[Category, int], int] = {}
    for cards in combinations(ALL_CARDS[:52], 3):
        value = evaluate_three(cards, rules)
        key = (value.category, unpack(value.strength)[1][0] + 2)
        counts[key] = counts.get(key, 0) + 1
    return counts


def three_card_par(spot: str, table: Paytable, rules: HandRules, *, exposed_only_paying: bool = False) -> SpotPar:
    """The exact par of a three-card bonus ``table`` on wager ``spot`` (a win pays its odds, a
    hand with no line loses the wager). ``exposed_only_paying`` notes Boston 5's rule that only
    an exposed hand is paid (the par assumes every paying hand is exposed)."""
    by_row = [0] * len(table.rows)
    losing = 0
    for (category, rank), n in three_card_counts(rules).items():
        row = table.row_for_rank(category, rank)
        if row is None:
            losing += n
        else:
            by_row[table.rows.index(row)] += n
    lines = []
    mean = -losing / HANDS
    square = losing / HANDS
    for row, n in zip(table.rows, by_row, strict=True):
        p = n / HANDS
        v = row_value(row)
        lines.append((line_name(row), p, p * v))
        mean += p * v
        square += p * v * v
    lines.append(("no paying hand", losing / HANDS, -losing / HANDS))
    note = "assumes every paying hand is exposed (24.10(a))" if exposed_only_paying else ""
    return SpotPar(spot, -mean, square - mean * mean, tuple(lines), True, None, note)
