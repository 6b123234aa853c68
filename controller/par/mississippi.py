"""Mississippi Stud at optimal play, exactly: fold, 1x or 3x at each street by backward induction.

Every deal of 2 player and 3 community cards (52*51/2 * 50*49*48 = 155,937,600 ordered deals,
equally likely) is covered through tables keyed by *sets* of cards: what a player knows at a
street is a set (2 cards at third street; those and the first community card at fourth; and
the second at fifth), and the final hand pays by its set of five, so the value of each
decision depends only on that set and the bets already made. Backward:

* fifth street (4 cards known, bets ``S`` so far): ``max(-S, (S+1) M, (S+3) M)``, ``M`` the
  mean payout per unit over the 48 last cards;
* fourth street (3 known): the better of folding and each bet, averaged over the 49 next cards;
* third street (2 known): the same over the 50 next cards.

Then forward: the probability of every (set, bets) state under that strategy, so the edge per
ante, the element of risk, each spot's hold, every paytable line's probability and
contribution, and the push and fold rates come out of the same pass. Pure: numpy, no I/O.
Values are kept as whole numbers (payouts times the odds' common denominator, sums over the
cards still to come), so equal choices compare exactly equal; a tie goes to the larger wager
(1x over folding, 3x over 1x), which is how the published average total wager (3.59 antes) is
reached.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from controller.configuration import Paytable
from controller.hands.batch import strengths
from controller.hands.rules import Wheel
from controller.par._cache import Progress
from controller.par.combos import Array, colex_index, combinations_array
from controller.par.lines import LOSE, common_denominator, five_card_lines, line_name

__all__ = ["solve"]

STREET_SPOTS = ("third", "fourth", "fifth")
_BETS = (1, 3)


@dataclass(frozen=True)
class MississippiStrategy:
    """The optimal decisions, as arrays of 0 (fold), 1 or 3 (times the ante) indexed by the colex
    index of the sorted card set (controller.par.combos):

    ``third[i2]``; ``fourth[k, i3]`` with ``k`` = 0 after a 1x third-street bet, 1 after 3x;
    ``fifth[j, i4]`` with ``j`` = 0, 1, 2 for bets so far (street bets, ante not counted) of
    2, 4 or 6 units.
    """

    third: Array
    fourth: Array
    fifth: Array


@dataclass(frozen=True)
class MississippiPar:
    """The exact figures of one main paytable under :class:`MississippiStrategy`."""

    strategy: MississippiStrategy
    ev_per_ante: float
    average_total_wager: float
    fold_rates: dict[str, float]
    push_rate: float
    lines: tuple[tuple[str, float, float], ...]
    """(line, probability of reaching showdown with it, contribution per ante of all main wagers)."""
    spot_moments: dict[str, tuple[float, float, float, float, float]]
    """Per spot: E[net], E[wagered], E[net^2], E[net*wagered], E[wagered^2], in ante units."""
    spot_lines: dict[str, tuple[tuple[str, float, float], ...]]
    third_value: Array | None = None
    """Per two-card set (colex index): the expected result per ante of the best play from there."""


def _choose(fold: Array, bet1: Array, bet3: Array) -> tuple[Array, Array]:
    """The best of fold / 1x / 3x values, ties to the larger wager: (value, decision 0|1|3)."""
    value = np.maximum(fold, np.maximum(bet1, bet3))
    decision = np.where(bet3 >= value, 3, np.where(bet1 >= value, 1, 0)).astype(np.int8)
    return value, decision


def _subset_indices(rows: Array) -> Array:
    """For each row of k ascending cards, the colex index of each (k-1)-subset (column j drops card j)."""
    k = rows.shape[1]
    return np.stack([colex_index(np.delete(rows, j, axis=1)) for j in range(k)], axis=1).astype(np.int32)


SOLVE_STEPS = 11
"""How many steps :func:`solve` reports to its ``progress``."""


def solve(table: Paytable, progress: Progress | None = None) -> MississippiPar:
    """The optimal strategy and the exact par of the main paytable ``table``; ``progress``
    (a tqdm bar, say) is told of each of the :data:`SOLVE_STEPS` steps as it is done."""

    def step() -> None:
        if progress is not None:
            progress.update(1)

    h5 = combinations_array(52, 5)
    strength5 = strengths(h5, Wheel.LOWEST)
    unit = common_denominator(table)
    line5, pay5 = five_card_lines(table, strength5)
    _, whole5 = five_card_lines(table, strength5, unit)
    sub5 = _subset_indices(h5)  # 5-set -> its 4-subsets
    sub4 = _subset_indices(combinations_array(52, 4))
    sub3 = _subset_indices(combinations_array(52, 3))
    n4, n3, n2 = sub4.shape[0], sub3.shape[0], sub2_count()
    step()

    # Whole numbers throughout: v5 in units of 1 / (48 unit), v4 of 1 / (48 49 unit), v3 of 1 / (48 49 50 unit).
    sum4 = np.bincount(sub5.ravel(), weights=np.repeat(whole5, 5), minlength=n4)
    # fifth street: bets so far (third + fourth) 2, 4, 6 -> S = 3, 5, 7 with the ante
    v5, d5 = {}, {}
    for so_far in (2, 4, 6):
        s = 1 + so_far
        v5[so_far], d5[so_far] = _choose(np.full(n4, -float(s * 48 * unit)), (s + 1) * sum4, (s + 3) * sum4)
        step()
    # fourth street: third bet b3 -> S = 1 + b3
    v4, d4 = {}, {}
    for b3 in _BETS:
        s = 1 + b3
        total = {b: np.bincount(sub4.ravel(), weights=np.repeat(v5[b3 + b], 4), minlength=n3) for b in _BETS}
        v4[b3], d4[b3] = _choose(np.full(n3, -float(s * 48 * 49 * unit)), total[1], total[3])
        step()
    total = {b: np.bincount(sub3.ravel(), weights=np.repeat(v4[b], 3), minlength=n2) for b in _BETS}
    v3, d3 = _choose(np.full(n2, -float(48 * 49 * 50 * unit)), total[1], total[3])
    strategy = MississippiStrategy(third=d3, fourth=np.stack([d4[1], d4[3]]), fifth=np.stack([d5[2], d5[4], d5[6]]))
    ev = float(v3.sum()) / (n2 * 48 * 49 * 50 * unit)
    step()
    par = _forward(table, strategy, ev, sub5, sub4, sub3, line5, pay5, step)
    return replace(par, third_value=v3 / (48 * 49 * 50 * unit))


def sub2_count() -> int:
    """The number of two-card sets."""
    return 52 * 51 // 2


class _Moments:
    """Running sums of a spot's net and wager under the state weights."""

    def __init__(self) -> None:
        self.sums = np.zeros(5)

    def add(self, weight: Array, net: Array | float, wager: float) -> None:
        w = float(np.sum(weight))
        wn = float(np.sum(weight * net))
        wnn = float(np.sum(weight * net * net))
        self.sums += (wn, wager * w, wnn, wager * wn, wager * wager * w)

    def totals(self) -> tuple[float, float, float, float, float]:
        """The five sums, as floats."""
        a, b, c, d, e = (float(x) for x in self.sums)
        return a, b, c, d, e


def _forward(
    table: Paytable,
    st: MississippiStrategy,
    ev: float,
    sub5: Array,
    sub4: Array,
    sub3: Array,
    line5: Array,
    pay5: Array,
    step: Callable[[], None] = lambda: None,
) -> MississippiPar:
    spots = ("ante", *STREET_SPOTS)
    moments = {s: _Moments() for s in spots}
    folds = dict.fromkeys(STREET_SPOTS, 0.0)
    n_lines = len(table.rows) + 1
    line_prob = np.zeros(n_lines)
    line_ret = {s: np.zeros(n_lines) for s in (*spots, "all")}
    total_wager = 0.0

    def fold(street: str, weight: Array, bets: dict[str, int]) -> None:
        nonlocal total_wager
        w = float(np.sum(weight))
        folds[street] += w
        for spot, b in bets.items():
            moments[spot].add(np.array([w]), -float(b), b)
            total_wager += w * b

    w2 = np.full(1326, 1 / 1326)
    fold("third", w2[st.third == 0], {"ante": 1})
    # fourth street states: weight of each 3-set after third bet b3
    w3 = {}
    for b3 in _BETS:
        w3[b3] = sum((st.third[sub3[:, j]] == b3) * w2[sub3[:, j]] for j in range(3)) / 50
    w4: dict[tuple[int, int], Array] = {}
    for k, b3 in enumerate(_BETS):
        d = st.fourth[k]
        fold("fourth", w3[b3][d == 0], {"ante": 1, "third": b3})
        for b4 in _BETS:
            w4[b3, b4] = sum((d[sub4[:, j]] == b4) * w3[b3][sub4[:, j]] for j in range(4)) / 49
    for (b3, b4), w in w4.items():
        step()
        d = st.fifth[(b3 + b4) // 2 - 1]
        fold("fifth", w[d == 0], {"ante": 1, "third": b3, "fourth": b4})
        for b5 in _BETS:
            wf = sum((d[sub5[:, j]] == b5) * w[sub5[:, j]] for j in range(5)) / 48
            bets = {"ante": 1, "third": b3, "fourth": b4, "fifth": b5}
            total = sum(bets.values())
            total_wager += float(np.sum(wf)) * total
            line_prob += _by_line(line5, wf, n_lines)
            paid = _by_line(line5, wf * pay5, n_lines)
            line_ret["all"] += total * paid
            for spot, b in bets.items():
                moments[spot].add(wf, b * pay5, b)
                line_ret[spot] += b * paid
    names = [line_name(r) for r in table.rows] + ["no paying hand"]
    order = [*range(len(table.rows)), n_lines - 1]
    lines = tuple((names[i], float(line_prob[i]), float(line_ret["all"][i])) for i in order)
    spot_lines = {
        s: tuple((names[i], float(line_prob[i]), float(line_ret[s][i]) / moments[s].sums[1]) for i in order)
        for s in spots
    }
    push = sum(float(line_prob[i]) for i, r in enumerate(table.rows) if r.odds.push)
    return MississippiPar(
        strategy=st,
        ev_per_ante=ev,
        average_total_wager=total_wager,
        fold_rates=folds,
        push_rate=push,
        lines=lines,
        spot_moments={s: m.totals() for s, m in moments.items()},
        spot_lines=spot_lines,
    )


def _by_line(line: Array, weight: Array, n: int) -> Array:
    """Weights summed by paytable line (the LOSE line last)."""
    return np.bincount(np.where(line == LOSE, n - 1, line), weights=weight, minlength=n)
