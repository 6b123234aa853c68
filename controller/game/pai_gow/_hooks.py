"""How the snapshot reads a running pai gow table: every position's seven cards are in the
table's ``hands`` by position (the dealer's at :data:`~controller.game.pai_gow._deal.DEALER`),
the seats the dealer has turned in ``turned`` (11.9); the dice, the setting order and the sets
are the game's view."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from controller.game.hooks import Holding, TableHooks
from controller.game.pai_gow._deal import DEALER

__all__ = ["HOOKS"]


def _holdings(table: Any) -> Holding:
    hands = getattr(table, "hands", {})  # none before the first round
    return [(n, hands.get(n, ()), False, False) for n in sorted(table.seats)], hands.get(DEALER, ())


def _turned(table: Any) -> Sequence[int]:
    turned: Sequence[int] = table.turned  # 11.9: each seat face up once the dealer turns it
    return turned


def _game_view(table: Any, make: Callable[..., object]) -> object:
    return make(
        dice=table.dice,
        setting_order=tuple(table.setting),
        set_seats=tuple(table.sets),
        turned=tuple(table.turned),
        option_index=table.option_index,
        all_listed=table.all_listed,
        remaining=table.remaining,
        markers=tuple(sorted(table.markers)),
    )


HOOKS = TableHooks(_holdings, _turned, _game_view)
"""Pai gow's table hooks."""
