"""The pai gow deal: seven hands of seven cards to every position, and the misdeal check.

Sources (digest 3.4; pai gow's own 11.8 was not found, so the NJ Asia poker sections that use
the same mechanics stand in): the starting position is drawn with three dice (a total of 3 to
18) or a random number from 1 to 7, and counted with **the dealer as 1**, then each betting
position in turn, wagered or not (31.11): counterclockwise by default, so a total of 8 gives the
dealer the first hand and 14 the sixth betting position counted. Cards then go one at a time to
every position, dealer included, until each has seven (31.8), or as seven-card stacks from an
automated shoe (31.10), in the configured direction (clockwise in 31.8; some pai gow pages say
counterclockwise). Exactly four cards remain; any other count, a hand of more or fewer than
seven cards, or a card dealt twice is a misdeal: every hand is void (31.8, 31.14).

Positions: ``0`` is the dealer; seats are numbered 1 (farthest to the dealer's left) to 6 (the
dealer's right), so clockwise order is 1, 2, ..., 6, dealer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain

from controller.vocab import Card

__all__ = [
    "DEALER",
    "Deal",
    "StartError",
    "counting_order",
    "start_position",
    "deal",
    "misdeal_reasons",
    "position_name",
]

DEALER = 0
HAND_SIZE = 7
REMAINING = 4


class StartError(ValueError):
    """A dice total or random number outside its range."""


def position_name(position: int) -> str:
    """``"dealer"`` or ``"seat N"``."""
    return "dealer" if position == DEALER else f"seat {position}"


def _clockwise(seats: int) -> list[int]:
    return list(range(1, seats + 1)) + [DEALER]


def counting_order(direction: str, seats: int = 6) -> list[int]:
    """The positions in counting order, the dealer first (31.11)."""
    clockwise = _clockwise(seats)
    if direction == "clockwise":
        return [DEALER] + clockwise[:-1]
    return [DEALER] + list(reversed(clockwise[:-1]))


def start_position(method: str, value: int, count_direction: str = "counterclockwise", seats: int = 6) -> int:
    """The position that gets the first card: ``method`` ``dice`` (total 3-18) or ``rng`` (1 to seats + 1)."""
    positions = seats + 1
    low, high = (3, 18) if method == "dice" else (1, positions)
    if method not in ("dice", "rng"):
        raise StartError(f"start method must be dice or rng, got {method!r}")
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise StartError(f"a {method} start must be a whole number from {low} to {high}, got {value!r}")
    return counting_order(count_direction, seats)[(value - 1) % positions]


def dealing_order(start: int, direction: str = "clockwise", seats: int = 6) -> list[int]:
    """Every position once, from ``start`` round the table in ``direction``."""
    ring = _clockwise(seats)
    if direction == "counterclockwise":
        ring.reverse()
    i = ring.index(start)
    return ring[i:] + ring[:i]


@dataclass(frozen=True, slots=True)
class Deal:
    """The hands dealt to each position and the cards left in the shoe."""

    hands: Mapping[int, tuple[Card, ...]]
    remaining: tuple[Card, ...]


def deal(
    shoe: Sequence[Card], start: int, direction: str = "clockwise", method: str = "one_at_a_time", seats: int = 6
) -> Deal:
    """Deal seven cards to every position from ``shoe`` (top card first)."""
    order = dealing_order(start, direction, seats)
    hands: dict[int, list[Card]] = {p: [] for p in order}
    dealt = len(order) * HAND_SIZE
    if method == "stacks":
        for k, position in enumerate(order):
            hands[position] = list(shoe[k * HAND_SIZE : (k + 1) * HAND_SIZE])
    else:
        for i, c in enumerate(shoe[:dealt]):
            hands[order[i % len(order)]].append(c)
    return Deal({p: tuple(h) for p, h in hands.items()}, tuple(shoe[dealt:]))


def misdeal_reasons(hands: Mapping[str, Sequence[Card]]) -> list[str]:
    """Why a deal is a misdeal (nothing when it is good): ``hands`` by a name for each position.
    A stub of other than four is not one by itself: the dealer then checks the hands, and only a
    hand of more or fewer than seven voids them (digest 3.4 item 5, 31.14)."""
    reasons = [
        f"{name} has {len(cards)} cards, not {HAND_SIZE}" for name, cards in hands.items() if len(cards) != HAND_SIZE
    ]
    dealt = [c.index for c in chain.from_iterable(hands.values())]
    if len(set(dealt)) == len(dealt):  # no card dealt twice: nothing more to name
        return reasons
    seen: dict[int, str] = {}
    for name, cards in hands.items():
        for c in cards:
            if c.index in seen:
                reasons.append(f"{c} dealt to {seen[c.index]} and to {name}")
            else:
                seen[c.index] = name
    return reasons
