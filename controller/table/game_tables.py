"""The games a table can run: each game's name in a table config and the model of its machine."""

from __future__ import annotations

from controller.table.boston5 import Boston5Table
from controller.table.mississippi_stud import MississippiTable
from controller.table.pai_gow import PaiGowTable
from controller.table.round import RoundTable

__all__ = ["GAME_TABLES"]

GAME_TABLES: dict[str, type[RoundTable]] = {
    "mississippi_stud": MississippiTable,
    "boston5": Boston5Table,
    "pai_gow": PaiGowTable,
}
"""The games the controller can run at a table so far."""
