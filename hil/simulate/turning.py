"""How far the dealer has got turning the players' hands at the showdown, as the reference model
reads it from what the table tells the dealer (the table's step and the step it asks for are the
clock, as the pai gow model's "hands set" is: what may be seen then is the model's).

The rules: the dealer reveals his own hand (Boston 5 24.10(e); Mississippi Stud's third community
card, 35.10(h); Three Card Poker by the published rule sheets), then turns each player's cards
"starting with the player farthest to his or her right and continuing counterclockwise around the
table" (24.10(f); 35.10(i): resolved "one player at a time"). So at the settlement no hand is face
up before the dealer's own step; once he is told to settle seat N, every hand in play from the
dealer's right down to seat N is (:func:`hil.reference.visible_cards`' ``turning``). A seat's step
before the dealer's (a fold, a communication violation, a bonus collected) turns nothing.
"""

from __future__ import annotations

import math
import re

__all__ = ["TurningClock", "TURNED_GAMES"]

TURNED_GAMES = frozenset({"boston5", "mississippi_stud", "three_card_poker"})
"""The games whose hands the model follows being turned one by one at the settlement (pai gow's
are turned before it, while the dealer sets them: the model shows them once the hands are set)."""

_SEAT = re.compile(r"seat (\d+):")

_AFTER = frozenset({"round_complete", "count_stub"})
"""Steps after the settlement: every hand in play was turned."""


class TurningClock:
    """The seat the dealer has reached turning the hands of the round shown last."""

    def __init__(self) -> None:
        self._round = -1
        self._revealed = False
        """The dealer's own step was asked this round (his hand revealed)."""
        self._reached = math.inf
        """The lowest seat the dealer was asked to settle since (his right is the highest seat)."""

    def turning(self, round_no: int, step: str, asked: str | None) -> float | None:
        """For :func:`hil.reference.visible_cards`: ``math.inf`` before any hand is turned, the
        seat reached at the settlement, ``None`` (every hand in play) once it is over. ``step``:
        the table's step (a hold's: the step held from); ``asked``: what the table asks the
        dealer now (read only at the settlement itself, not while held: a hold asks for the fault)."""
        if round_no != self._round:
            self._round, self._revealed, self._reached = round_no, False, math.inf
        if step in _AFTER:
            return None
        if step != "settlement":
            return math.inf
        text = asked or ""
        if text.startswith("dealer:"):
            self._revealed = True
        elif self._revealed:
            seat = _SEAT.match(text)
            if seat is not None:
                self._reached = min(self._reached, int(seat.group(1)))
        return self._reached
