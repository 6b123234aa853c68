"""Mississippi Stud's optimal strategy as ``tablectl par --strategy`` lists it."""

from __future__ import annotations

from collections.abc import Iterable

from controller.configuration import TableConfig

__all__ = ["strategy_rows"]


def strategy_rows(table: TableConfig) -> tuple[str, Iterable[dict[str, object]]]:
    """The head line and the rows of ``table``'s strategy."""
    from controller.par.strategy import mississippi_tables
    from controller.par.strategy_data import mississippi_rows

    head = (
        "Mississippi Stud optimal strategy: street, cards known (player's two and the community cards shown), "
        "street bets so far (antes), bet (0 = fold, else times the ante); one row per suit pattern"
    )
    return head, mississippi_rows(mississippi_tables(table.paytables["main"]))
