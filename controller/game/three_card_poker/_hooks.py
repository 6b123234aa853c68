"""How the snapshot reads a running Three Card Poker table: the seats hold their cards, the
dealer's are the table's ``dealer``; no hand is turned seat by seat, and the game shows no
decisions of its own beyond each seat's play wager or fold (on the seats)."""

from __future__ import annotations

from controller.game.hooks import TableHooks, no_turns, plain_view, seat_holdings

__all__ = ["HOOKS"]

HOOKS = TableHooks(seat_holdings("dealer"), no_turns, plain_view)
"""Three Card Poker's table hooks."""
