"""What a game's deal plan cannot say: where a running table keeps the round's cards, and the
game's own decisions the snapshot shows (its ``GameView``). Each game's package gives one
:class:`TableHooks` (named by its definition, imported on first use); the table's snapshot
builder calls them with the table it builds from, on the thread that runs it.

The hooks read a table as plain attributes (``seats``, ``dealer`` ...): this module and the
games' hooks import nothing of ``controller.table``; the view is made by the constructor the
snapshot builder hands in."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from controller.vocab import Card

__all__ = ["TableHooks"]

Holding = tuple[Sequence[tuple[int, Sequence[Card], bool, bool]], Sequence[Card]]
"""Each seat's number, cards, whether it folded and whether it exposed its hand, in seat order;
and the dealer's (or the community) cards."""


@dataclass(frozen=True, slots=True)
class TableHooks:
    """How the snapshot reads a game's running table."""

    holdings: Callable[[Any], Holding]
    """The round's cards where they went (see :data:`Holding`)."""
    turned: Callable[[Any], Sequence[int]]
    """The seats whose hands the dealer has turned, in order (empty: the game turns none one by one)."""
    game_view: Callable[[Any, Callable[..., object]], object]
    """The game's own decisions so far, made with the view constructor given."""


def seat_holdings(shared: str) -> Callable[[Any], Holding]:
    """Holdings of a game whose seats hold their cards, the shared hand in the table's ``shared``
    attribute (``dealer``, ``community``)."""

    def holdings(table: Any) -> Holding:
        seats = [(n, s.cards, s.folded_at is not None, s.exposed) for n, s in sorted(table.seats.items())]
        return seats, getattr(table, shared, ())

    return holdings


def no_turns(table: object) -> Sequence[int]:
    """A game whose hands are not turned seat by seat."""
    return ()


def turned_at_settlement(table: Any) -> Sequence[int]:
    """The seats whose hands the dealer has turned at the settlement, in order: after his own
    hand is revealed (the procedure's ``dealer`` step), each seat's hand is turned when the dealer
    is told to settle it (24.10(e), (f); 35.10(i); Three Card Poker inferred), so the seats of the
    steps shown since that step, the one shown now included. Read from the table's settlement walk
    (``walk``: its steps and the one shown); none before the round is settled, and none when the
    dealer's hand is not revealed (every hand folded). A seat's step before the dealer's (a fold, a
    bonus or a violation collected) turns nothing: such hands are collected face down."""
    walk = table.walk
    if walk.settlement is None:
        return ()
    turned: list[int] = []
    revealed = False
    for step in walk.steps[: walk.step_index + 1]:
        if step.seat is None:
            revealed = revealed or step.phase == "dealer"
        elif revealed and step.seat not in turned:
            turned.append(step.seat)
    return turned


def plain_view(table: object, make: Callable[..., object]) -> object:
    """A game with no decisions of its own to show."""
    return make()
