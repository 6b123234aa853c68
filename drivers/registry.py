"""Drivers by name, as config names them (python-can's interface registry in spirit).

Our own drivers are listed here; others plug in through the ``tablectl.drivers`` entry-point
group (``name = "package.module:Class"``) and are loaded only when named.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from drivers.base import Driver
from drivers.errors import DriverError

__all__ = ["DRIVERS", "DriverNotAvailable", "driver_class"]

DRIVERS: dict[str, str] = {
    "shoe": "drivers.shoe:ShoeDriver",
    "shuffler": "drivers.shoe:ShoeDriver",
    "bet_spots": "drivers.bet_spots:BetSpotDriver",
    "panel": "drivers.panel:PanelDriver",
}


class DriverNotAvailable(DriverError, LookupError):
    """No driver of that name (neither built in nor an installed entry point)."""


def driver_class(name: str) -> type[Driver]:
    """The driver class called ``name``; what it names must be a :class:`~drivers.base.Driver`."""
    target = DRIVERS.get(name)
    if target is None:
        found = [ep for ep in entry_points(group="tablectl.drivers") if ep.name == name]
        if not found:
            known = ", ".join(sorted(DRIVERS))
            raise DriverNotAvailable(
                f"no driver '{name}' (built in: {known}; or install one in the tablectl.drivers entry points)"
            )
        return _checked(name, found[0].value, found[0].load())
    module, _, attr = target.partition(":")
    return _checked(name, target, getattr(importlib.import_module(module), attr))


def _checked(name: str, target: str, loaded: object) -> type[Driver]:
    if not (isinstance(loaded, type) and issubclass(loaded, Driver)):
        raise DriverNotAvailable(
            f"driver '{name}' ({target}) is not a driver class (a subclass of drivers.base.Driver)"
        )
    return loaded
