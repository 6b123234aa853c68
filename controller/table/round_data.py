"""The data of a round: each seat's wagers, cards and decisions, and the finished round."""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.vocab import Card
from controller.wagers import Settlement

__all__ = ["Seat", "RoundResult"]


@dataclass
class Seat:
    """One seat's round so far: wagers, cards, decisions."""

    number: int
    wagers: dict[str, int] = field(default_factory=dict)
    cards: list[Card] = field(default_factory=list)
    folded_at: str | None = None
    acted: set[str] = field(default_factory=set)
    exposed: bool = False
    violation: bool = False
    """35.10(c): the supervisor found a communication violation: every wager forfeit."""
    violation_at: str | None = None
    """The street of a violation marked after the seat had folded (its bonus still in play)."""


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A finished round: its record (docs/round-record.md) and its settlement (``None`` when void)."""

    number: int
    record: dict[str, object]
    settlement: Settlement | None
    late_bets: tuple[str, ...] = ()
