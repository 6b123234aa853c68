"""Drivers by name, as config names them (python-can's interface registry in spirit).

Our own drivers are listed here; others plug in through the ``tablectl.drivers`` entry-point
group (``name = "package.module:Class"``) and are loaded only when named.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from drivers.base import Driver

__all__ = ["DRIVERS", "DriverNotAvailable", "driver_class"]

DRIVERS: dict[str, str] = {
    "shoe": "drivers.shoe:ShoeDriver",
    "shuffler": "drivers.shoe:ShoeDriver",
    "bet_spots": "drivers.bet_spots:BetSpotDriver",
    "panel": "drivers.panel:PanelDriver",
}


class DriverNotAvailable(LookupError):
    """No driver of that name (neither built in nor an installed entry point)."""


def driver_class(name: str) -> type[Driver]:
    """The driver class called ``name``."""
    target = DRIVERS.get(name)
    if target is None:
        found = [ep for ep in entry_points(group="tablectl.drivers") if ep.name == name]
        if not found:
            known = ", ".join(sorted(DRIVERS))
            raise DriverNotAvailable(
                f"no driver '{name}' (built in: {known}; or install one in the tablectl.drivers entry points)"
            )
        return found[0].load()  # type: ignore[no-any-return]
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)  # type: ignore[no-any-return]
