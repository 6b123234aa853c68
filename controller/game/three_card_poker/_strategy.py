"""Three Card Poker's ante and play strategy as ``tablectl par --strategy`` lists it."""

from __future__ import annotations

from collections.abc import Iterable

from controller.configuration import TableConfig

__all__ = ["strategy_rows"]


def strategy_rows(table: TableConfig) -> tuple[str, Iterable[dict[str, object]]]:
    """The head line and the rows of the strategy (the same at every table)."""
    from controller.par.three_card_poker import STRATEGY
    from controller.par.three_card_poker import strategy_rows as rows

    return f"Three Card Poker ante and play: {STRATEGY}", rows()
