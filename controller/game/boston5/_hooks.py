"""How the snapshot reads a running Boston 5 table: the seats and the dealer hold their cards;
the bonus settlement step being done is the game's view."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.game.hooks import TableHooks, seat_holdings, turned_at_settlement

__all__ = ["HOOKS"]

_VIEWS: dict[int, object] = {}
"""One view per bonus step (a view is a value: made once per step)."""


def _game_view(table: Any, make: Callable[..., object]) -> object:
    step = table.bonus_index
    view = _VIEWS.get(step)
    if view is None:
        view = _VIEWS[step] = make(bonus_step=step)
    return view


HOOKS = TableHooks(seat_holdings("dealer"), turned_at_settlement, _game_view)
"""Boston 5's table hooks."""
