"""``tablectl settle --check``: a round's re-settlement beside what was paid at the table (the
settlement its round record carries under ``recall.settlement``, as ``tablectl recall --json``
writes it), every difference named by its JSON path with both values."""

from __future__ import annotations

import json

__all__ = ["PAID_PATH", "MAX_SHOWN", "differences"]

PAID_PATH = "$.recall.settlement"
"""Where a round record carries what was paid."""
MAX_SHOWN = 200
"""At most this many differences are named for one round (then how many more there are)."""


def _shown(value: object) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."


def differences(paid: object, resettled: object, path: str = PAID_PATH) -> list[str]:
    """Each place where ``resettled`` differs from ``paid`` (JSON values), by JSON path:
    ``$.recall.settlement.seats.4.wagers.ante.net: paid 2500, re-settled 5000``."""
    found: list[str] = []
    _walk(paid, resettled, path, found)
    return found


def _walk(paid: object, resettled: object, path: str, found: list[str]) -> None:
    if isinstance(paid, dict) and isinstance(resettled, dict):
        for key in sorted(paid.keys() | resettled.keys(), key=str):
            where = f"{path}.{key}"
            if key not in resettled:
                found.append(f"{where}: paid {_shown(paid[key])}, the re-settlement has none")
            elif key not in paid:
                found.append(f"{where}: the record paid none, re-settled {_shown(resettled[key])}")
            else:
                _walk(paid[key], resettled[key], where, found)
        return
    if isinstance(paid, list) and isinstance(resettled, list):
        if len(paid) != len(resettled):
            found.append(f"{path}: paid {len(paid)} entries, re-settled {len(resettled)}")
        for i, (a, b) in enumerate(zip(paid, resettled, strict=False)):
            _walk(a, b, f"{path}[{i}]", found)
        return
    if paid != resettled or type(paid) is not type(resettled):
        found.append(f"{path}: paid {_shown(paid)}, re-settled {_shown(resettled)}")
