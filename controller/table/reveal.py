"""When a card is face up: the reveal rules, from the regulations in the seeds (N.J.A.C. 13:69F).

A pure function of plain facts (no table is read here): the snapshot builder
(:mod:`controller.table.snapshot`) gives it the step whose reveals apply and each hand's cards,
and it returns each card face up or ``None`` (face down: only that a card is there).

- Mississippi Stud: the players' two cards are face down (35.9(d)); the community cards are
  turned one by one: the first on 4th street (35.10(d)), the second on 5th (35.10(f)), the third
  at settlement (35.10(h)), when the hands still in play are turned for settlement (35.10(i)).
  A folded hand is collected unexposed (35.10(a)).
- Boston 5: every card is dealt face down (24.8(c), 24.10(d)); a bonus hand the player chose to
  expose is face up from then (24.10(a)); at settlement the dealer reveals all five of his cards
  at once (24.10(e)), only when a player is still in play, and turns each hand in play (24.10(f)).
  A folded hand is collected unexposed (24.10(b)).
- Pai gow: every hand is dealt face down (31.8); the players set their hands and place them face
  down ("set_hands": nothing is face up); once the dealer confirms all are set he exposes and sets
  his own hand ("setting": the dealer's cards face up), then turns each player's hand
  counterclockwise from his right, one by one (11.9, 11.15(d) defers to it): a seat is face up
  from its turn (``turned``: the table turns a seat only once the step before it is confirmed).
  11.9's NJ text is not in the seeds (11.15(d) defers to it): the order is inferred, see
  :mod:`controller.table.pai_gow`.
  Hands at positions without a wager are collected unexposed (31.8).

The stub is counted after a round ends: what that round turned stays face up while the stub is
counted (and while a stub-count mismatch holds), but only when the round was settled: a void
turns nothing (:func:`reveal_step`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

__all__ = ["HandFacts", "Shown", "HIDDEN", "SETTLED_STEPS", "reveal_step", "face_up", "mask_cards", "card_tokens"]

HIDDEN = "\u25a0\u25a0"
"""What a masked card looks like in a line of text."""

SETTLED_STEPS = frozenset({"settlement", "round_complete"})
"""Steps in which every hand still in play has been turned."""

_NOTHING_SHOWN = frozenset({"closed", "betting", "no_more_bets", "void"})

_CARD = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][cdhs]|JK)(?![A-Za-z0-9])")


class HandFacts(NamedTuple):
    """One seat's hand as the reveal rules need it (a named tuple: the snapshot builder makes one
    per seat each time the cards placed or the step change)."""

    number: int
    cards: tuple[str, ...]
    folded: bool = False
    exposed: bool = False
    """Boston 5: the player chose to expose the bonus hand (24.10(a))."""


@dataclass(frozen=True, slots=True)
class Shown:
    """The face-up cards now: each seat's cards and the dealer's (or community) cards, ``None``
    for a card face down; an empty tuple where a hand was collected unexposed."""

    seats: tuple[tuple[int, tuple[str | None, ...]], ...]
    dealer: tuple[str | None, ...]
    dealer_label: str

    def face_up(self) -> frozenset[str]:
        """Every card face up now (what a line of text may name)."""
        up = {c for _, hand in self.seats for c in hand if c is not None}
        up.update(c for c in self.dealer if c is not None)
        return frozenset(up)


def reveal_step(step: str, held_from: str | None, last_round_settled: bool) -> str:
    """The step whose reveals apply: where a hold was entered from, else the current one; while
    the stub is counted, "settlement" when the round that just ended was settled, else "void"."""
    if step == "hold" and held_from is not None:
        step = held_from
    if step == "count_stub":
        return "settlement" if last_round_settled else "void"
    return step


def _cards(hand: Sequence[str], shown: int) -> tuple[str | None, ...]:
    return tuple(c if i < shown else None for i, c in enumerate(hand))


def face_up(
    game: str,
    step: str,
    seats: Iterable[HandFacts],
    dealer: Sequence[str] = (),
    turned: Iterable[int] = (),
) -> Shown:
    """The cards face up in ``step`` (from :func:`reveal_step`) of ``game``. ``dealer``: the
    dealer's cards (Mississippi Stud: the community cards); ``turned``: pai gow seats whose hands
    the dealer has turned (the one being recorded in "setting" included)."""
    label = "community" if game == "mississippi_stud" else "dealer"
    if step in _NOTHING_SHOWN:
        return Shown((), (), label)
    hands = list(seats)
    settled = step in SETTLED_STEPS
    out: list[tuple[int, tuple[str | None, ...]]] = []
    if game == "mississippi_stud":
        shown = {"fourth_street": 1, "fifth_street": 2}.get(step, 3 if settled else 0)
        dealer_shown = _cards(dealer, shown)
        for h in hands:
            out.append((h.number, () if h.folded else _cards(h.cards, len(h.cards) if settled else 0)))
    elif game == "boston5":
        in_play = any(not h.folded for h in hands)
        dealer_shown = _cards(dealer, len(dealer) if settled and in_play else 0)
        for h in hands:
            if h.folded:
                out.append((h.number, ()))
                continue
            out.append((h.number, _cards(h.cards, len(h.cards) if settled else (3 if h.exposed else 0))))
    elif game == "pai_gow":
        face = set(turned)
        dealer_shown = _cards(dealer, len(dealer) if step == "setting" or settled else 0)
        for h in hands:
            out.append((h.number, _cards(h.cards, len(h.cards) if settled or h.number in face else 0)))
    else:  # a game without rules here shows nothing
        return Shown((), (), label)
    return Shown(tuple(out), dealer_shown, label)


def card_tokens(text: str) -> tuple[str, ...]:
    """Every card ``text`` names (what :func:`mask_cards` would mask unless face up)."""
    return tuple(_CARD.findall(text))


def mask_cards(text: str, face_up: Iterable[str] | Mapping[str, object]) -> str:
    """``text`` with every card not in ``face_up`` replaced by :data:`HIDDEN`."""
    up = face_up if isinstance(face_up, (set, frozenset)) else set(face_up)
    if not up:  # every card masked (a new round's view of the last one's texts): no choice per card
        return _CARD.sub(HIDDEN, text)
    return _CARD.sub(lambda m: m.group(0) if m.group(0) in up else HIDDEN, text)
