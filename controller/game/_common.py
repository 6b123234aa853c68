"""What the games' definitions and machines write alike, made once: the usual dealing step (each
seat its cards, then the dealer as many), the transitions by which betting closes and the one by
which a decision step ends. A game's package (``controller.game.<name>``) calls these with its own
citations and phases."""

from __future__ import annotations

from enum import Enum

from controller.game.definition import CardPlan, DealStep, Holder

__all__ = ["seats_then_dealer", "no_more_bets", "betting_closes", "once_decided"]


def seats_then_dealer(step: str, count: int, to_seats: str, to_dealer: str, cite: str) -> DealStep:
    """The dealing step ``step`` (under rule ``cite``): ``count`` cards face down to each seat
    (``to_seats``: the rule saying so), then ``count`` to the dealer (``to_dealer``)."""
    return DealStep(step, (CardPlan(Holder.SEAT, count, to_seats), CardPlan(Holder.DEALER, count, to_dealer)), cite)


def no_more_bets(phase: type[Enum], after: str = "lock_bets") -> dict[str, object]:
    """The dealer's "no more bets": from betting to no more bets once the wagers are valid, then
    ``after`` (the callback's name, as ``transitions`` takes it)."""
    return {
        "trigger": "no_more_bets",
        "source": phase["BETTING"],
        "dest": phase["NO_MORE_BETS"],
        "conditions": "wagers_valid",
        "after": after,
    }


def betting_closes(phase: type[Enum], dealing: Enum) -> list[dict[str, object]]:
    """Betting closes (:func:`no_more_bets`), then the first card out of the shoe starts ``dealing``."""
    return [no_more_bets(phase), {"trigger": "deal_started", "source": phase["NO_MORE_BETS"], "dest": dealing}]


def once_decided(trigger: str, source: Enum, dest: Enum, decided: str, after: str) -> dict[str, object]:
    """The end of a decision step: ``trigger`` moves from ``source`` to ``dest`` only once every
    seat has decided (the condition ``decided``) and no settlement step is pending, then ``after``."""
    return {
        "trigger": trigger,
        "source": source,
        "dest": dest,
        "conditions": [decided, "no_steps_pending"],
        "after": after,
    }
