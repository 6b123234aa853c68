"""Pai gow's strategy as ``tablectl par --strategy`` states it: the table's house way."""

from __future__ import annotations

from collections.abc import Iterable

from controller.configuration import TableConfig

__all__ = ["strategy_rows"]


def strategy_rows(table: TableConfig) -> tuple[str, Iterable[dict[str, object]]]:
    """The head line (every hand set by the house way) and no rows."""
    way = str(table.options["house_way"])
    return f"pai gow: every hand set by the {way} house way (tablectl houseway)", iter(())
