"""Every k-card combination of a deck as a numpy array, and its index (the combinatorial number
system), so a table keyed by a set of cards is one array indexed by that number."""

from __future__ import annotations

from functools import cache
from math import comb
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

__all__ = ["combinations_array", "colex_index", "Array"]

Array: TypeAlias = npt.NDArray[np.integer | np.floating]
"""A numeric numpy array (card indices, counts, weights, values)."""

BINOM = np.array([[comb(n, k) for k in range(8)] for n in range(54)], dtype=np.int64)
"""``BINOM[n, k]`` = C(n, k) for n < 54, k < 8."""


@cache
def combinations_array(n: int, k: int) -> npt.NDArray[np.int16]:
    """All k-subsets of ``range(n)``, ascending within each row, rows in colex order (row i has
    :func:`colex_index` i), as a read-only ``(C(n, k), k)`` int16 array."""
    if k == 0:
        out = np.zeros((1, 0), dtype=np.int16)
    else:
        parts = []
        for top in range(k - 1, n):  # colex: grouped by the largest element
            smaller = combinations_array(top, k - 1)
            parts.append(np.hstack([smaller, np.full((smaller.shape[0], 1), top, dtype=np.int16)]))
        out = np.vstack(parts)
    out.setflags(write=False)
    return out


def colex_index(rows: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """The colex index of each row of ascending card indices: sum of C(c_i, i + 1)."""
    cards = np.asarray(rows, dtype=np.int64)
    out = np.zeros(cards.shape[0], dtype=np.int64)
    for i in range(cards.shape[1]):
        out += BINOM[cards[:, i], i + 1]
    return out
