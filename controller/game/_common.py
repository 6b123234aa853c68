"""What the games' definitions write alike, made once: the usual dealing step (each seat its
cards, then the dealer as many). A game's package (``controller.game.<name>``) calls it with its
own citations; what the games' machines write alike is in :mod:`controller.table.phases`."""

from __future__ import annotations

from controller.game.definition import CardPlan, DealStep, Holder

__all__ = ["seats_then_dealer"]


def seats_then_dealer(step: str, count: int, to_seats: str, to_dealer: str, cite: str) -> DealStep:
    """The dealing step ``step`` (under rule ``cite``): ``count`` cards face down to each seat
    (``to_seats``: the rule saying so), then ``count`` to the dealer (``to_dealer``)."""
    return DealStep(step, (CardPlan(Holder.SEAT, count, to_seats), CardPlan(Holder.DEALER, count, to_dealer)), cite)
