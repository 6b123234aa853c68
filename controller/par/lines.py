"""Paytable lines as numbers: what each hand strength pays per unit, and which line pays it."""

from __future__ import annotations

import math

import numpy as np

from controller.configuration import Paytable, PaytableRow
from controller.hands.categories import FIVE_CARD_ORDER, unpack
from controller.par.combos import Array

__all__ = ["LOSE", "line_name", "row_value", "five_card_lines"]

LOSE = -1
"""The line id of a hand no paytable line pays (the wager loses)."""


def line_name(row: PaytableRow) -> str:
    """The name a par sheet gives a paytable line: ``one_pair (J, Q, K, A)``."""
    return row.describe().split(":")[0]


def row_value(row: PaytableRow | None) -> float:
    """What ``row`` returns per unit staked besides the stake: its odds, 0 for a push, -1 for no line."""
    if row is None:
        return -1.0
    return 0.0 if row.odds.push else row.odds.numerator / row.odds.denominator


def common_denominator(table: Paytable) -> int:
    """The least common multiple of the odds' denominators: payouts times it are whole numbers."""
    return math.lcm(*(r.odds.denominator for r in table.rows))


def five_card_lines(table: Paytable, strengths: Array, scale: int = 0) -> tuple[Array, Array]:
    """For an array of five-card strengths: the paytable line id of each (an index into
    ``table.rows``, or :data:`LOSE`) and what it pays per unit (-1 when it loses); with
    ``scale`` (a multiple of :func:`common_denominator`), what it pays times ``scale``, exactly."""
    unique, inverse = np.unique(strengths, return_inverse=True)
    ids = np.empty(unique.size, dtype=np.int64)
    for i, s in enumerate(unique.tolist()):
        index, fields = unpack(int(s))
        row = table.row_for_rank(FIVE_CARD_ORDER[index], fields[0] + 2)
        ids[i] = LOSE if row is None else table.rows.index(row)
    if scale:
        scaled = [0 if r.odds.push else r.odds.numerator * (scale // r.odds.denominator) for r in table.rows]
        values = np.array([*scaled, -scale], dtype=np.float64)
    else:
        values = np.array([row_value(r) for r in table.rows] + [-1.0])
    line = ids[inverse]
    return line, values[line]
