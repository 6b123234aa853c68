"""Boston 5's second-wager strategy as ``tablectl par --strategy`` lists it."""

from __future__ import annotations

from collections.abc import Iterable

from controller.configuration import TableConfig

__all__ = ["strategy_rows"]


def strategy_rows(table: TableConfig) -> tuple[str, Iterable[dict[str, object]]]:
    """The head line and the rows of ``table``'s strategy."""
    from controller.configuration import boston5_options
    from controller.par.service import boston5_par_for
    from controller.par.strategy_data import boston5_rows

    par = boston5_par_for(table)
    k = float(boston5_options(table)["first_to_ante"])
    head = (
        "Boston 5 second wager after three cards (one row per suit pattern); values per ante; "
        "expose the bonus hand exactly when it pays"
    )
    return head, boston5_rows(par.raise_, par.ev_play, -(1 + k))
