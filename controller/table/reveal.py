"""When a card is face up: each game's deal plan answers it (``controller.game.<name>``'s
:class:`~controller.game.definition.DealPlan`: the cards each holder gets, face down, and the
steps and conditions that turn them face up, each with its rule); this module applies it.

A pure function of plain facts (no table is read here): the snapshot builder
(:mod:`controller.table.snapshot`) gives it the step whose reveals apply and each hand's cards,
and it returns each card face up or ``None`` (face down: only that a card is there).

The stub is counted after a round ends: what that round turned stays face up while the stub is
counted (and while a stub-count mismatch holds), but only when the round was settled: a void
turns nothing (:func:`reveal_step`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from controller.game.definition import NOTHING_SHOWN, DealPlan, Shown

__all__ = ["Shown", "HIDDEN", "NOTHING_SHOWN", "face_up", "mask_cards"]

HIDDEN = "\u25a0\u25a0"
"""What a masked card looks like in a line of text."""

_CARD = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][cdhs]|JK)(?![A-Za-z0-9])")


class HandFacts(NamedTuple):
    """One seat's hand as the reveal rules need it (a named tuple: the snapshot builder makes one
    per seat each time the cards placed or the step change)."""

    number: int
    cards: tuple[str, ...]
    folded: bool = False
    exposed: bool = False
    """Boston 5: the player chose to expose the bonus hand (24.10(a))."""


def reveal_step(step: str, held_from: str | None, last_round_settled: bool) -> str:
    """The step whose reveals apply: where a hold was entered from, else the current one; while
    the stub is counted, "settlement" when the round that just ended was settled, else "void"."""
    if step == "hold" and held_from is not None:
        step = held_from
    if step == "count_stub":
        return "settlement" if last_round_settled else "void"
    return step


def face_up(
    plan: DealPlan,
    step: str,
    seats: Iterable[HandFacts | tuple[int, tuple[str, ...], bool, bool]],
    dealer: Sequence[str] = (),
    turned: Iterable[int] = (),
) -> Shown:
    """The cards face up in ``step`` (from :func:`reveal_step`) of the game dealt by ``plan``;
    ``seats``: each hand's facts (a :class:`HandFacts`, or a plain tuple in its fields' order).
    ``dealer``: the dealer's cards (or the community cards: the plan's shared hand);
    ``turned``: seats whose hands the dealer has turned (the one being recorded included)."""
    return plan.shown(step, seats, dealer, turned)


def card_tokens(text: str) -> tuple[str, ...]:
    """Every card ``text`` names (what :func:`mask_cards` would mask unless face up)."""
    return tuple(_CARD.findall(text))


def mask_cards(text: str, face_up: Iterable[str] | Mapping[str, object]) -> str:
    """``text`` with every card not in ``face_up`` replaced by :data:`HIDDEN`."""
    up = face_up if isinstance(face_up, (set, frozenset)) else set(face_up)
    if not up:  # every card masked (a new round's view of the last one's texts): no choice per card
        return _CARD.sub(HIDDEN, text)
    return _CARD.sub(lambda m: m.group(0) if m.group(0) in up else HIDDEN, text)
