"""Boston 5 stud at its best play, exactly: the second wager or a fold after three cards, against
the dealer's five, with the ante bonus.

For every five-card player hand ``P`` the dealer's hands from the other 47 cards are counted
by rank class with card removal: a dealer hand of rank multiset ``R`` can be dealt in
``prod_r C(4 - p_r, k_r)`` ways (``p_r`` the player's cards of rank r); of those with five
distinct ranks, one per suit whose cards of those ranks the player does not hold is a flush
(or straight flush) instead of the rank multiset's own hand. So the dealer hands below and
equal to ``P`` are a sum over the 6,175 rank multisets plus a correction per suit, found by
binary search in sorted tables. Each three-card hand's value of playing is then the mean over
its 1,176 completions; the player plays when that beats the fold (ties play). Every figure
is exact. Pure: numpy, no I/O. The other players' cards are not seen (one player's view).

Money per unit of ante: the first wager is ``k`` antes (the table's ``first_to_ante``), the
second equals the first; a win pays the first and second at the table's odds and returns the
ante, a tie pushes all three, a loss takes all three; the ante bonus is paid on the player's
final hand whatever the comparison, and is lost with a fold.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from controller.configuration import Paytable
from controller.hands.batch import strengths
from controller.hands.fast import evaluator_for
from controller.hands.rules import Wheel
from controller.par._cache import Progress
from controller.par.combos import Array, colex_index, combinations_array
from controller.par.lines import LOSE, five_card_lines, line_name

__all__ = ["solve"]

DEALER_HANDS = comb(47, 5)
_BIN4 = np.array([[comb(n, k) for k in range(5)] for n in range(5)], dtype=np.float64)


@dataclass(frozen=True)
class Boston5Par:
    """The exact figures for one ante bonus paytable and wager sizes."""

    raise_: Array
    """Per three-card set (colex index): 1 to make the second wager, 0 to fold."""
    ev_play: Array
    """Per three-card set: the expected result of playing, per ante (folding is ``-(1 + k)``)."""
    ev_per_ante: float
    average_total_wager: float
    fold_rate: float
    win: float
    tie: float
    lose: float
    spot_moments: dict[str, tuple[float, float, float, float, float]]
    """Per spot: E[net], E[wagered], E[net^2], E[net*wagered], E[wagered^2], in ante units."""
    bonus_lines: tuple[tuple[str, float, float], ...]


_CHUNK = 400
SOLVE_STEPS = 6175 // _CHUNK + 1 + 2 + 1
"""How many steps :func:`solve` reports to its ``progress`` (most of them counting dealer hands)."""
_DEALER: list[tuple[Array, Array, Array]] = []


def dealer_counts(progress: Progress | None = None) -> tuple[Array, Array, Array]:
    """For every five-card set (colex order): its strength and the number of the dealer's
    five-card hands from the other 47 cards below it and equal to it (computed once per process;
    ``progress`` is told of each step)."""
    if not _DEALER:
        _DEALER.append(_dealer_counts(progress))
    elif progress is not None:
        progress.update(SOLVE_STEPS - 1)
    return _DEALER[0]


def _dealer_counts(progress: Progress | None) -> tuple[Array, Array, Array]:
    def step() -> None:
        if progress is not None:
            progress.update(1)

    hands = combinations_array(52, 5)
    strength = strengths(hands, Wheel.LOWEST)
    ranks = hands % 13
    suits = hands // 13
    rank_key = np.zeros(hands.shape[0], dtype=np.int64)
    for j in range(5):
        rank_key += np.int64(1) << (3 * ranks[:, j].astype(np.int64))
    keys, group = np.unique(rank_key, return_inverse=True)
    counts = np.stack([(keys >> (3 * r)) & 7 for r in range(13)], axis=1)  # (6175, 13)
    table = evaluator_for(Wheel.LOWEST).rank_table
    non_flush = np.array([table[int(k)] for k in keys.tolist()], dtype=np.int64)
    distinct = counts.max(axis=1) == 1
    masks = (counts[distinct] * (1 << np.arange(13))).sum(axis=1)
    flush_table = np.array(evaluator_for(Wheel.LOWEST).flush_table, dtype=np.int64)
    flush = flush_table[masks]
    # the multiset term, for each (player multiset, threshold) pair that occurs
    pairs, pair_of = np.unique(group.astype(np.int64) * (1 << 25) + strength, return_inverse=True)
    pair_group, pair_t = pairs >> 25, pairs & ((1 << 25) - 1)
    below = np.zeros(pairs.size)
    equal = np.zeros(pairs.size)
    order = np.argsort(pair_group, kind="stable")
    chunk = _CHUNK
    for start in range(0, keys.size, chunk):
        step()
        g = np.arange(start, min(start + chunk, keys.size))
        ways = np.ones((g.size, keys.size))
        for r in range(13):
            ways *= _BIN4[(4 - counts[g, r])[:, None], counts[None, :, r]]
        sel = order[(pair_group[order] >= g[0]) & (pair_group[order] <= g[-1])]
        rows = ways[pair_group[sel] - start]
        t = pair_t[sel][:, None]
        below[sel] = (rows * (non_flush[None, :] < t)).sum(axis=1)
        equal[sel] = (rows * (non_flush[None, :] == t)).sum(axis=1)
    win = below[pair_of]
    tie = equal[pair_of]
    # the flush correction, per suit: rank sets of five available in that suit
    sets = masks  # the 1,287 five-rank masks
    suit_masks = np.zeros((hands.shape[0], 4), dtype=np.int64)
    for j in range(5):
        np.add.at(suit_masks, (np.arange(hands.shape[0]), suits[:, j]), np.int64(1) << ranks[:, j].astype(np.int64))
    used = np.unique(suit_masks)
    avail = (used[:, None] & sets[None, :]) == 0  # (masks used, 1287)
    big = np.int64(1) << 25
    pos = np.searchsorted(used, suit_masks)  # index of each suit's mask in `used`
    for values, sign in ((non_flush[distinct], -1), (flush, 1)):
        mi, ri = np.nonzero(avail)
        flat = np.sort(mi.astype(np.int64) * big + values[ri])
        base = pos.astype(np.int64) * big
        t = strength[:, None]
        lo = np.searchsorted(flat, base + t, side="left")
        hi = np.searchsorted(flat, base + t, side="right")
        start_idx = np.searchsorted(flat, base, side="left")
        # dealer flushes below t are added back (sign +1); their non-flush form below t taken off (-1)
        win += sign * (lo - start_idx).sum(axis=1)
        tie += sign * (hi - lo).sum(axis=1)
        step()
    return strength, win, tie


def _three_subsets(hands: Array) -> Array:
    cols = [colex_index(hands[:, list(c)]) for c in _PICK3]
    return np.stack(cols, axis=1)


_PICK3 = [(a, b, c) for a in range(5) for b in range(a + 1, 5) for c in range(b + 1, 5)]


def solve(ante_bonus: Paytable, first_to_ante: int, pays: float, progress: Progress | None = None) -> Boston5Par:
    """The best second-wager decisions and the exact par for an ante bonus table, the first
    wager's multiple of the ante ``first_to_ante`` and the first and second wagers' odds ``pays``
    (``progress`` is told of each of the :data:`SOLVE_STEPS` steps)."""
    k = float(first_to_ante)
    strength, win, tie = dealer_counts(progress)
    hands = combinations_array(52, 5)
    pw, pt = win / DEALER_HANDS, tie / DEALER_HANDS
    pl = 1.0 - pw - pt
    line, bonus = five_card_lines(ante_bonus, strength)
    bonus = np.where(line == LOSE, 0.0, bonus)  # the ante bonus only pays; no line, no bonus
    play = 2 * k * pays * pw - (1 + 2 * k) * pl + bonus
    sub3 = _three_subsets(hands)
    n3 = comb(52, 3)
    ev_play = np.bincount(sub3.ravel(), weights=np.repeat(play, 10), minlength=n3) / 1176
    fold = -(1 + k)
    raise_ = (ev_play >= fold).astype(np.int8)
    ev = float(np.where(raise_ == 1, ev_play, fold).mean())
    # forward: the weight of each five-card hand that is played
    played = raise_[sub3].sum(axis=1)  # of its ten three-card subsets, how many play
    wp = played / (n3 * 1176)  # probability of reaching this final hand and playing
    fold_rate = 1.0 - float(raise_.mean())
    s = float(wp.sum())
    win_p, tie_p, lose_p = float((wp * pw).sum()), float((wp * pt).sum()), float((wp * pl).sum())
    moments = {
        "ante": (-(fold_rate + lose_p), 1.0, fold_rate + lose_p, -(fold_rate + lose_p), 1.0),
        "first": (
            k * (pays * win_p - lose_p - fold_rate),
            k,
            k * k * (pays * pays * win_p + lose_p + fold_rate),
            k * k * (pays * win_p - lose_p - fold_rate),
            k * k,
        ),
        "second": (
            k * (pays * win_p - lose_p),
            k * s,
            k * k * (pays * pays * win_p + lose_p),
            k * k * (pays * win_p - lose_p),
            k * k * s,
        ),
    }
    eb = float((wp * bonus).sum())
    moments["ante_bonus"] = (eb, 1.0, float((wp * bonus * bonus).sum()), eb, 1.0)
    n_lines = len(ante_bonus.rows)
    paid = line != LOSE
    prob = np.bincount(line[paid], weights=wp[paid], minlength=n_lines)
    ret = np.bincount(line[paid], weights=(wp * bonus)[paid], minlength=n_lines)
    bonus_lines = tuple((line_name(r), float(prob[i]), float(ret[i])) for i, r in enumerate(ante_bonus.rows))
    if progress is not None:
        progress.update(1)
    return Boston5Par(
        raise_=raise_,
        ev_play=ev_play,
        ev_per_ante=ev,
        average_total_wager=1 + k + k * s,
        fold_rate=fold_rate,
        win=win_p,
        tie=tie_p,
        lose=lose_p,
        spot_moments=moments,
        bonus_lines=bonus_lines,
    )
