"""A running table: drivers from the config's ``devices:``, one engine, the game's machine.

The state machine is the only place rules and devices meet: this module wires the drivers'
events into the engine's queue and the machine's commands out to the drivers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from controller.table.base import RoundResult
from controller.table.boston5 import Boston5Table
from controller.table.devices import DriverDevices
from controller.table.engine import Engine
from controller.table.journal import Journal
from controller.table.mississippi_stud import MississippiTable
from controller.table.pai_gow import PaiGowTable
from controller.table_config import TableConfig
from drivers.link import LinkConfig
from drivers.registry import driver_class

__all__ = ["OpenTable", "TableRuntime", "GAME_TABLES"]

GAME_TABLES: dict[str, type] = {"mississippi_stud": MississippiTable, "boston5": Boston5Table, "pai_gow": PaiGowTable}
"""The games the controller can run at a table so far."""


@dataclass(frozen=True, slots=True)
class OpenTable:
    """Open the table for its first round."""


class TableRuntime:
    """Drivers, engine and table machine for one table config; ``urls`` overrides device ports."""

    def __init__(
        self,
        table: TableConfig,
        urls: Mapping[str, str] | None = None,
        journal: Journal | None = None,
        on_round: Callable[[RoundResult], None] | None = None,
    ) -> None:
        if table.game not in GAME_TABLES:
            raise ValueError(f"{table.path}: the {table.game} table is not available yet (available: {', '.join(GAME_TABLES)})")
        missing = [role for role in ("shoe", "bet_spots", "panel") if role not in table.devices]
        if missing:
            raise ValueError(f"{table.path}: devices: missing {', '.join(missing)}")
        self.latencies: list[float] = []
        self.engine = Engine(self._handle, journal)
        self.drivers: dict[str, Any] = {}
        for role, device in table.devices.items():
            url = (urls or {}).get(role, device.url)
            if url.startswith("sim://"):
                raise ValueError(f"{table.path}:{device.line}: devices.{role}: {url} is served by `tablectl bench`, not a port")
            config = LinkConfig(baudrate=device.baudrate, poll_interval_s=device.poll_interval_s)
            self.drivers[role] = driver_class(device.driver)(role, url, self.engine.queue, address=device.address, config=config)
        self.devices = DriverDevices(self.drivers["panel"], self.drivers["bet_spots"], self.drivers["shoe"], self.engine.post)
        self.table = GAME_TABLES[table.game](table, self.devices, on_round, self.engine.journal.append)

    def _handle(self, event: object) -> None:
        at = getattr(event, "at", None)
        if at is not None:
            self.latencies.append(time.time() - at)
        if isinstance(event, OpenTable):
            self.table.open_table()
        else:
            self.table.handle(event)

    def start(self) -> None:
        """Start the drivers and the controller, and open the table."""
        for driver in self.drivers.values():
            driver.start()
        self.engine.start()
        self.engine.post(OpenTable())

    def stop(self) -> None:
        """Stop the controller after the events already queued, then the drivers (idempotent)."""
        self.engine.stop()
        for driver in self.drivers.values():
            driver.close()
