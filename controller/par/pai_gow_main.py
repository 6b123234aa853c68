"""The pai gow main wager, house way against house way, by simulation: seven hands of seven from
a shuffled 53-card deck (as the table deals them), the dealer's hand and six players' hands each
set by the house way, the banker winning copies. Pure: the caller gives the seed and the count.

The result is counts, not money: how many player hands won both, split (a push) and lost, and
the per-round moments of the counts of wins and losses (the six players of one round share the
dealer's hand, so the round is the independent unit), from which the edge for any commission
and its 95% interval follow (:func:`main_edge`)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from controller.game.pai_gow import house_way
from controller.vocab import deck

__all__ = ["simulate_main", "main_edge"]


@dataclass(frozen=True)
class MainCounts:
    """Counts from :func:`simulate_main` (adding two runs adds their counts)."""

    rounds: int
    players: int
    win: int
    push: int
    lose: int
    sum_w2: int
    sum_l2: int
    sum_wl: int

    def __add__(self, other: MainCounts) -> MainCounts:
        assert self.players == other.players
        return MainCounts(
            self.rounds + other.rounds,
            self.players,
            self.win + other.win,
            self.push + other.push,
            self.lose + other.lose,
            self.sum_w2 + other.sum_w2,
            self.sum_l2 + other.sum_l2,
            self.sum_wl + other.sum_wl,
        )


def simulate_main(
    way: str, rounds: int, seed: int, players: int = 6, options: dict[str, object] | None = None
) -> MainCounts:
    """Deal ``rounds`` rounds and count each player hand's result against the dealer's."""
    setter = house_way(way)
    cards = list(deck(joker=True))
    rng = random.Random(seed)
    win = push = lose = w2 = l2 = wl = 0
    for _ in range(rounds):
        rng.shuffle(cards)
        dealer = setter.set(cards[:7], options).set
        w = lost = 0
        for p in range(1, players + 1):
            s = setter.set(cards[7 * p : 7 * p + 7], options).set
            high = s.high.strength > dealer.high.strength
            low = s.low.strength > dealer.low.strength
            if high and low:
                w += 1
            elif high or low:
                push += 1
            else:
                lost += 1
        win += w
        lose += lost
        w2 += w * w
        l2 += lost * lost
        wl += w * lost
    return MainCounts(rounds, players, win, push, lose, w2, l2, wl)


def main_edge(counts: MainCounts, commission_percent: float) -> tuple[float, float, tuple[float, float]]:
    """(house edge per unit wagered, variance per unit, 95% interval of the edge) for a commission.

    The variance per unit is the round's variance shared out over its player hands, so that it
    counts the six players' common dealer hand: the hold of ``H`` unit wagers at a full table has
    standard deviation ``sqrt(variance / H)``."""
    pay = 1 - commission_percent / 100
    n = counts.rounds
    ew, el = counts.win / n, counts.lose / n
    # per-round net of the players: pay * w - l
    mean_round = pay * ew - el
    var_round = pay * pay * counts.sum_w2 / n + counts.sum_l2 / n - 2 * pay * counts.sum_wl / n - mean_round**2
    edge = -mean_round / counts.players
    half = 1.96 * math.sqrt(max(var_round, 0.0) / n) / counts.players
    return edge, max(var_round, 0.0) / counts.players, (edge - half, edge + half)
