"""The bench's (and the simulation's) simulated Three Card Poker players and dealer: antes, some
with a pair plus and a 6 Card Bonus, now and then a pair plus alone; three cards to each seat and
three to the dealer; each seat plays or folds, then the dealer reveals.

The play decision is the published optimal one (Wizard of Odds "Three Card Poker": play
queen-six-four or better, fold below): :data:`PLAY_FROM`. ``random`` strategy: the same, and now
and then (one decision in ten) the other way, so the folds of good hands are dealt too."""

from __future__ import annotations

import random

from controller.hands import THREE_CARD_POKER, evaluate_three
from controller.table.snapshot import TableSnapshot
from controller.vocab import Card, parse_cards
from hil.bench import Player

__all__ = ["PLAY_FROM", "plays", "ThreeCardPlayer"]

PLAY_FROM = evaluate_three(parse_cards("Qs 6h 4d"), THREE_CARD_POKER).strength
"""The least hand the optimal strategy plays: queen-six-four."""


def plays(cards: list[Card]) -> bool:
    """The optimal decision: play queen-six-four or better."""
    return evaluate_three(cards, THREE_CARD_POKER).strength >= PLAY_FROM


def _decides(s: TableSnapshot, number: int) -> bool:
    seat = s.seat(number)
    return seat is not None and seat.folded_at is None and seat.wager("play") is None


class ThreeCardPlayer(Player):
    """Antes (some with a pair plus and a 6 Card Bonus), a play wager or a fold, the reveal."""

    def wagers(self, rng: random.Random) -> dict[str, int]:
        if rng.random() < 0.05:
            return {"pair_plus": 500}  # a pair plus alone: no decision to make
        w = {"ante": rng.choice([500, 1000, 2500])}
        if rng.random() < 0.3:
            w["pair_plus"] = rng.choice([100, 500])
        if rng.random() < 0.3 and self.table.offers("six_card_bonus"):
            w["six_card_bonus"] = 500
        return w

    def on_no_more_bets(self, s: TableSnapshot) -> None:
        self.deal_to(s, 3 * len(s.seats) + 3)

    on_dealing = on_no_more_bets

    def on_play(self, s: TableSnapshot) -> None:
        """Each seat with an ante plays or folds; then one wait for them all; then the reveal."""
        deciding = [seat for seat in s.seats if seat.wager("ante") is not None and _decides(s, seat.number)]
        hands = self.own_hands()
        for seat in deciding:
            n = seat.number
            play = plays(self.own_cards(n, hands))
            if not self.par and self.rng(s, n, "play").random() < 0.1:
                play = not play
            if play:
                ante = seat.wager("ante")
                assert ante is not None
                self.spots.place(n, "play", ante)
            else:
                self.panel.press(f"seat_{n}")  # the panel's presses arrive in order: one wait for all
                self.panel.press("fold")
        numbers = [seat.number for seat in deciding]
        self.wait(lambda x: not any(_decides(x, n) for n in numbers), "the play wagers and folds")
        self.confirm_notices()
        self.press("reveal", lambda x: x.step != "play")
