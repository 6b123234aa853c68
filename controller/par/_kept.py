"""Par results kept once: in this process, else in the shipped data or the user's cache folder
(controller.par._cache), else computed. The bottom of the par service: each solver's module asks
here with what it computes and how to read it back, and nothing here imports a solver."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from controller.configuration import Paytable
from controller.par._cache import Progress, cached, content_key, read_entry

__all__ = ["SOLVER_VERSIONS", "LOCK", "paytable_content", "kept", "is_kept", "forget"]

log = logging.getLogger("controller.par")

P = TypeVar("P")
"""A kept result's payload (its JSON shape)."""
T = TypeVar("T")
"""A kept result as read back from its payload."""

SOLVER_VERSIONS = {"mississippi": 1, "boston5": 1, "pai_gow_classes": 1, "three_card_counts": 1}
"""Bump a solver's version when it changes what it computes: its kept results are then not used
(tests/test_par_data.py fails on shipped data that no longer equals the solver's output)."""


def paytable_content(table: Paytable) -> dict[str, object]:
    """What a paytable pays, as canonical content: game, spot, kind and every row (category,
    ranks, odds, fixed amount), in order. Its name, source, approval, file and cap are left out:
    no par figure depends on them (the cap is not in the par math)."""
    return {
        "game": table.game,
        "spot": table.spot,
        "kind": table.kind.value,
        "rows": [
            [
                r.category.value,
                sorted(r.ranks) if r.ranks else None,
                "push" if r.odds.push else [r.odds.numerator, r.odds.denominator],
                r.amount,
            ]
            for r in table.rows
        ],
    }


_MEMO: dict[tuple[str, str], Any] = {}
"""Results by (kind, canonical inputs) in this process."""
LOCK = threading.RLock()
"""Held while a result (or a par sheet, controller.par.service) is looked for or made."""


def kept(
    kind: str,
    inputs: Mapping[str, object],
    build: Callable[[P], T],
    compute: Callable[[Progress | None], P],
    what: str,
    steps: int,
    unit: str,
) -> T:
    """The result for ``kind`` and ``inputs``: from the process, else kept, else computed."""
    memo_key = (kind, json.dumps(inputs, sort_keys=True))
    with LOCK:  # one thread computes; the others wait for it rather than computing again
        found = _MEMO.get(memo_key)
        if found is None:
            payload = cached(kind, inputs, compute, what=what, steps=steps, unit=unit)
            try:
                found = build(payload)
            except (KeyError, TypeError, ValueError) as exc:  # hash-valid but not what this version reads
                log.warning("tablectl: kept %s result unreadable (%s): computing it again", kind, exc)
                found = build(compute(None))
            _MEMO[memo_key] = found
        return found


def is_kept(kind: str, inputs: Mapping[str, object]) -> bool:
    """Whether the result for ``kind`` and ``inputs`` is at hand (in this process, shipped or cached)."""
    memo_key = (kind, json.dumps(inputs, sort_keys=True))
    return memo_key in _MEMO or read_entry(kind, content_key(kind, inputs)) is not None


def forget() -> None:
    """Forget every result this process holds."""
    with LOCK:
        _MEMO.clear()
