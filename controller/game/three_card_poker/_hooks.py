"""How the snapshot reads a running Three Card Poker table: the seats hold their cards, the
dealer's are the table's ``dealer``; each hand is turned at its own settlement step; the game shows
no decisions of its own beyond each seat's play wager or fold (on the seats)."""

from __future__ import annotations

from controller.game.hooks import TableHooks, plain_view, seat_holdings, turned_at_settlement

__all__ = ["HOOKS"]

HOOKS = TableHooks(seat_holdings("dealer"), turned_at_settlement, plain_view)
"""Three Card Poker's table hooks."""
