"""How the snapshot reads a running Mississippi Stud table: the seats hold their cards, the
community cards are the table's ``community``; the street being bet is the game's view."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.game.hooks import TableHooks, seat_holdings, turned_at_settlement

__all__ = ["HOOKS"]

_VIEWS: dict[str | None, object] = {}
"""One view per street (a view is a value: made once per street)."""


def _game_view(table: Any, make: Callable[..., object]) -> object:
    street = table.current_street()
    view = _VIEWS.get(street)
    if view is None:
        view = _VIEWS[street] = make(street=street)
    return view


HOOKS = TableHooks(seat_holdings("community"), turned_at_settlement, _game_view)
"""Mississippi Stud's table hooks."""
