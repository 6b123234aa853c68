"""The batch path: strengths of many hands per call, vectorised with numpy (optional extra).

``strengths(hands, wheel)`` takes an ``(n, k)`` integer array of deck indices (``k`` = 5, 6
or 7) and returns the ``n`` strengths, equal to :meth:`Evaluator.strength` hand by hand. It
uses the same tables as the scalar path, so the two cannot drift apart: card codes are
summed per row, the suit counts pick out flushes, the flush suit's rank mask indexes the
flush table and the rank counts are looked up (by binary search) in the sorted keys of the
rank-multiset table. Rows holding the joker (index 52) use the scalar path's joker tables
the same way.

numpy is a dependency of tablectl; the ``batch`` extra names it again for installs that list extras.
"""

from __future__ import annotations

from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

from controller.hands.fast import (
    FLUSH_SUIT,
    FOUR_SUIT,
    JOKER_INDEX,
    MASK_SHIFT,
    RANK_BITS,
    SUIT_SHIFT,
    card_code,
    evaluator_for,
)
from controller.hands.rules import Wheel

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from numpy import ndarray

__all__ = ["strengths"]


class BatchUnavailable(ImportError):
    """numpy is not installed; the batch path needs the ``batch`` extra."""


def _numpy() -> ModuleType:
    try:
        import numpy
    except ImportError as exc:  # pragma: no cover - exercised only without numpy
        from controller.host import install_hint

        raise BatchUnavailable(f"the batch evaluator needs numpy: {install_hint('batch')}") from exc
    return numpy


@cache
def _tables(wheel: Wheel) -> tuple[ndarray, ...]:
    np = _numpy()
    ev = evaluator_for(wheel)
    codes = [card_code(i) for i in range(52)]
    low = np.array([c & ((1 << MASK_SHIFT) - 1) for c in codes] + [0], dtype=np.int64)
    masks = np.array([c >> MASK_SHIFT for c in codes] + [0], dtype=np.int64)
    table = ev.rank_table
    keys = np.array(sorted(table), dtype=np.int64)
    values = np.array([table[k] for k in keys.tolist()], dtype=np.int64)
    flush_suit = np.array(FLUSH_SUIT, dtype=np.int64)
    flush = np.array(ev.flush_table, dtype=np.int64)
    return low, masks, keys, values, flush_suit, flush


@cache
def _joker_tables(wheel: Wheel) -> tuple[ndarray, ...]:
    np = _numpy()
    rank_table, flush_table = evaluator_for(wheel).complete_joker_tables()
    keys = np.array(sorted(rank_table), dtype=np.int64)
    values = np.array([rank_table[k] for k in keys.tolist()], dtype=np.int64)
    return keys, values, np.array(FOUR_SUIT, dtype=np.int64), np.array(flush_table, dtype=np.int64)


def strengths(hands: np.ndarray | Any, wheel: Wheel = Wheel.LOWEST) -> np.ndarray:
    """The best-five strength of each row of ``hands`` (deck indices), as an int64 array."""
    np = _numpy()
    hands = np.asarray(hands, dtype=np.intp)
    if hands.ndim != 2 or not 5 <= hands.shape[1] <= 7:
        raise ValueError(f"hands must be an (n, 5..7) array of card indices, got shape {hands.shape}")
    if hands.size and (hands.min() < 0 or hands.max() > JOKER_INDEX):
        raise ValueError("card indices must be 0-51, or 52 for the joker")
    low, masks, keys, values, flush_suit, flush = _tables(wheel)
    total = low[hands].sum(axis=1)
    ranks = total & RANK_BITS
    suit = flush_suit[(total >> SUIT_SHIFT) & 0xFFFF]
    out: ndarray = values[np.searchsorted(keys, ranks)]
    flushed = np.nonzero(suit >= 0)[0]
    if flushed.size:
        mask = masks[hands[flushed]].sum(axis=1)
        out[flushed] = flush[(mask >> (13 * suit[flushed])) & 0x1FFF]
    jokers = np.nonzero((hands == JOKER_INDEX).any(axis=1))[0]
    if jokers.size:  # the joker's code is 0, so `total` holds the real cards only
        j_keys, j_values, four_suit, j_flush = _joker_tables(wheel)
        best = j_values[np.searchsorted(j_keys, ranks[jokers])]
        suit4 = four_suit[(total[jokers] >> SUIT_SHIFT) & 0xFFFF]
        has = np.nonzero(suit4 >= 0)[0]
        if has.size:
            rows = jokers[has]
            mask = masks[hands[rows]].sum(axis=1)
            best[has] = np.maximum(best[has], j_flush[(mask >> (13 * suit4[has])) & 0x1FFF])
        out[jokers] = best
    return out
