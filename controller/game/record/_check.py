"""``tablectl settle --check``: a round's re-settlement beside what was paid at the table (the
settlement its round record carries under ``recall.settlement``, as ``tablectl recall --json``
writes it), every difference named by its JSON path with both values.

What was paid is the money and the results. Where the table config was read (the settlement's
``table``: a record recalled with ``--table`` to re-settle it in another folder names another
path) is not compared, and a difference in the words that explain a result (``why``, a dealer
step's ``text``) is named apart, as wording: neither is a difference from what was paid."""

from __future__ import annotations

import json

__all__ = ["PAID_PATH", "MAX_SHOWN", "WORDING", "differences", "wording_differences"]

PAID_PATH = "$.recall.settlement"
"""Where a round record carries what was paid."""
MAX_SHOWN = 200
"""At most this many differences are named for one round (then how many more there are)."""


def _shown(value: object) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."


WORDING = frozenset({"why", "text"})
"""Keys whose values are words explaining a result or a dealer's step, not what was paid."""
_NOT_COMPARED = frozenset({"table"})
"""Keys of the settlement itself that say where it was computed, not what was paid."""


def differences(paid: object, resettled: object, path: str = PAID_PATH) -> list[str]:
    """Each place where ``resettled`` differs from ``paid`` (JSON values) in what was paid, by JSON
    path: ``$.recall.settlement.seats.4.wagers.ante.net: paid 2500, re-settled 5000``."""
    found: list[str] = []
    _walk(_compared(paid), _compared(resettled), path, found, [])
    return found


def wording_differences(paid: object, resettled: object, path: str = PAID_PATH) -> list[str]:
    """Each place where only the words differ (:data:`WORDING`), by JSON path, as :func:`differences`."""
    wording: list[str] = []
    _walk(_compared(paid), _compared(resettled), path, [], wording)
    return wording


def _compared(settlement: object) -> object:
    if isinstance(settlement, dict):
        return {k: v for k, v in settlement.items() if k not in _NOT_COMPARED}
    return settlement


def _walk(paid: object, resettled: object, path: str, found: list[str], wording: list[str]) -> None:
    if isinstance(paid, dict) and isinstance(resettled, dict):
        for key in sorted(paid.keys() | resettled.keys(), key=str):
            where = f"{path}.{key}"
            if key in WORDING and key in paid and key in resettled:
                if paid[key] != resettled[key]:
                    wording.append(f"{where}: paid {_shown(paid[key])}, re-settled {_shown(resettled[key])}")
                continue
            if key not in resettled:
                found.append(f"{where}: paid {_shown(paid[key])}, the re-settlement has none")
            elif key not in paid:
                found.append(f"{where}: the record paid none, re-settled {_shown(resettled[key])}")
            else:
                _walk(paid[key], resettled[key], where, found, wording)
        return
    if isinstance(paid, list) and isinstance(resettled, list):
        if len(paid) != len(resettled):
            found.append(f"{path}: paid {len(paid)} entries, re-settled {len(resettled)}")
        for i, (a, b) in enumerate(zip(paid, resettled, strict=False)):
            _walk(a, b, f"{path}[{i}]", found, wording)
        return
    if paid != resettled or type(paid) is not type(resettled):
        found.append(f"{path}: paid {_shown(paid)}, re-settled {_shown(resettled)}")
