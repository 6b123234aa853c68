"""Three Card Poker's exact par sheet: the ante and play under the best strategy, the ante bonus
and the pair plus, over every deal.

Every player hand (22,100) meets every dealer hand of the other 49 cards (18,424): 407 million
deals, too many to walk. They are counted instead: the dealer hands are sorted by strength once,
and for each player hand the dealer hands below, equal to and above it that share none of its
cards come by inclusion and exclusion over the hands that hold one, two or all three of its
cards (each a sorted list, searched by bisection). The player plays when playing loses less than
the ante a fold gives up (the strategy found is queen-six-four, :data:`STRATEGY`).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from math import lcm

from controller.configuration import Paytable, TableConfig
from controller.hands import THREE_CARD_POKER, HandValue, evaluate_three
from controller.par._three_card import HANDS, three_card_par
from controller.par.lines import line_name
from controller.par.sheet import ParSheet, SpotPar
from controller.vocab import ALL_CARDS, Card

__all__ = ["STRATEGY", "table_sheet"]

DEALER_HANDS = 18_424
"""C(49, 3): the dealer hands against one player hand."""

STRATEGY = "play queen-six-four or better, fold the rest"
"""The best strategy for the ante and play (found by :func:`ante_play`, checked by a test)."""


@dataclass(frozen=True, slots=True)
class AntePlay:
    """The ante and play, exactly: ``total`` the player's return summed over every deal in units
    of the ante (divide by ``deals``); ``square`` the sum of its squares; ``plays`` the deals
    played; ``weakest_played`` the weakest hand the player plays."""

    total: int
    square: int
    scale: int
    """``total`` is in 1/``scale`` antes and ``square`` in 1/``scale`` squared (exact for odds
    with a denominator)."""
    plays: int
    ties: int
    deals: int
    weakest_played: HandValue
    bonus_lines: tuple[tuple[str, int, int], ...]
    """Each ante bonus line: (name, deals played with it, what it returns over them, in antes)."""
    play_total: int = 0
    """The play wager's own share of ``total`` (in 1/``scale`` antes): even money when the dealer
    qualifies and the player wins, lost when the dealer wins, back otherwise."""
    play_square: int = 0
    """The sum of squares of the play wager's own result (1/``scale`` squared)."""
    ante_square: int = 0
    """The sum of squares of the ante's own result, ante bonus included (1/``scale`` squared)."""

    @property
    def edge_per_ante(self) -> float:
        """The house edge per unit of ante."""
        return -self.total / (self.scale * self.deals)

    @property
    def average_total_wager(self) -> float:
        """Ante and play wagered on average, in antes."""
        return 1 + self.plays / self.deals

    @property
    def element_of_risk(self) -> float:
        """The house edge per unit of everything wagered (ante and play)."""
        return self.edge_per_ante / self.average_total_wager


def _all_hands() -> tuple[list[tuple[int, int, int]], list[HandValue]]:
    cards = ALL_CARDS[:52]
    hands = list(combinations(range(52), 3))
    return hands, [evaluate_three([cards[i] for i in h], THREE_CARD_POKER) for h in hands]


def _odds(table: Paytable, value: HandValue) -> tuple[int, int]:
    """What ``table`` pays for ``value`` as a fraction (numerator, denominator); (0, 1) for none."""
    row = table.row_for(value)
    if row is None or row.odds.push:
        return (0, 1)
    return (row.odds.numerator, row.odds.denominator)


@dataclass(frozen=True, slots=True)
class Versus:
    """A player hand against the 18,424 dealer hands of the other 49 cards: how many do not
    qualify, qualify and are lower (the player wins), equal (a tie), qualify and are higher."""

    not_qualifying: int
    lower: int
    equal: int
    higher: int


class _Dealers:
    """Every three-card hand's strength rank, sorted once, and the same for the hands holding
    each card and each pair of cards: the counting tables of :func:`versus`."""

    def __init__(self, qualifier: HandValue) -> None:
        self.hands, self.values = _all_hands()
        ranks = sorted({v.strength for v in self.values})
        index = {s: i for i, s in enumerate(ranks)}
        self.rank_of = [index[v.strength] for v in self.values]
        self.hand_index = {h: i for i, h in enumerate(self.hands)}
        self.q = bisect_left(ranks, qualifier.strength)
        self.one: list[list[int]] = [[] for _ in range(52)]
        self.two: dict[tuple[int, int], list[int]] = {}
        for hand, r in zip(self.hands, self.rank_of, strict=True):
            for c in hand:
                self.one[c].append(r)
            for pair in combinations(hand, 2):
                self.two.setdefault(pair, []).append(r)
        self.every = sorted(self.rank_of)
        for lst in self.one:
            lst.sort()
        for lst in self.two.values():
            lst.sort()

    def versus(self, hand: tuple[int, int, int], r: int) -> Versus:
        """The dealer hands sharing no card with ``hand`` (card indices, ascending) of rank ``r``."""
        groups: list[tuple[int, Sequence[int]]] = [(1, self.every)]
        groups += [(-1, self.one[c]) for c in hand]
        groups += [(1, self.two[p]) for p in combinations(hand, 2)]
        below_q = lower = equal = 0
        for sign, group in groups:
            below_q += sign * bisect_left(group, self.q)
            lower += sign * bisect_left(group, r)
            equal += sign * (bisect_right(group, r) - bisect_left(group, r))
        below_q -= 1 if r < self.q else 0  # the player's own hand: the last term (all three cards)
        equal -= 1
        win, tie = (0, 0) if r < self.q else (lower - below_q, equal)  # below the qualifier: every qualifier wins
        return Versus(below_q, win, tie, DEALER_HANDS - below_q - win - tie)


@cache
def _dealers(qualifier: HandValue) -> _Dealers:
    return _Dealers(qualifier)


def versus(cards: Sequence[Card], qualifier: HandValue) -> Versus:
    """How the player's three ``cards`` fare against every dealer hand of the other 49 cards,
    the dealer qualifying on ``qualifier`` or better."""
    d = _dealers(qualifier)
    key = tuple(sorted(ALL_CARDS.index(c) for c in cards))
    i = d.hand_index[(key[0], key[1], key[2])]
    return d.versus(d.hands[i], d.rank_of[i])


def ante_play(ante_bonus: Paytable, qualifier: HandValue) -> AntePlay:
    """The ante and play over every deal with ``ante_bonus`` paid on the ante of a played hand
    and the dealer qualifying on ``qualifier`` or better; the player plays exactly when playing
    returns more than the folded ante."""
    d = _dealers(qualifier)
    scale = _common_denominator(ante_bonus)
    total = square = plays = ties = play_total = play_square = ante_square = 0
    weakest: HandValue | None = None
    bonus: dict[str, list[int]] = {}
    for hand, r, value in zip(d.hands, d.rank_of, d.values, strict=True):
        v = d.versus(hand, r)
        num, den = _odds(ante_bonus, value)
        b = num * scale // den
        outcomes = ((scale + b, v.not_qualifying), (2 * scale + b, v.lower), (b, v.equal), (b - 2 * scale, v.higher))
        play = sum(x * n for x, n in outcomes)
        if play > -scale * DEALER_HANDS:
            plays += DEALER_HANDS
            ties += v.equal
            total += play
            square += sum(x * x * n for x, n in outcomes)
            play_total += scale * (v.lower - v.higher)
            play_square += scale * scale * (v.lower + v.higher)
            ante = ((scale + b, v.not_qualifying + v.lower), (b, v.equal), (b - scale, v.higher))
            ante_square += sum(x * x * n for x, n in ante)
            if weakest is None or value.strength < weakest.strength:
                weakest = value
            row = ante_bonus.row_for(value)
            if b and row is not None:
                entry = bonus.setdefault(line_name(row), [0, 0])
                entry[0] += DEALER_HANDS
                entry[1] += b * DEALER_HANDS
        else:
            total += -scale * DEALER_HANDS
            square += scale * scale * DEALER_HANDS
            ante_square += scale * scale * DEALER_HANDS
    assert weakest is not None
    lines = tuple((name, n, x) for name, (n, x) in bonus.items())
    deals = HANDS * DEALER_HANDS
    return AntePlay(total, square, scale, plays, ties, deals, weakest, lines, play_total, play_square, ante_square)


def _common_denominator(table: Paytable) -> int:
    """The least common multiple of ``table``'s odds denominators (1 for whole odds)."""
    return lcm(1, *(r.odds.denominator for r in table.rows))


def three_card_poker_sheet(ante_bonus: Paytable, pair_plus: Paytable | None, qualifier: HandValue) -> ParSheet:
    """The par sheet of a Three Card Poker table: ``ante`` (ante and play with the ante bonus, per
    unit of ante) and, when offered, ``pair_plus``."""
    ap = ante_play(ante_bonus, qualifier)
    deals = ap.deals
    ante_mean = (ap.total - ap.play_total) / (ap.scale * deals)
    play_mean = ap.play_total / (ap.scale * ap.plays)
    lines = tuple((name, n / deals, v / (ap.scale * deals)) for name, n, v in ap.bonus_lines)
    spots = {
        "ante": SpotPar(
            "ante",
            -ante_mean,
            ap.ante_square / (ap.scale * ap.scale * deals) - ante_mean * ante_mean,
            lines,
            True,
            None,
            f"the ante alone, per unit of ante, folds and the ante bonus included; with the play: "
            f"{ap.edge_per_ante:.4%} per ante (the main game line above)",
        ),
        "play": SpotPar(
            "play",
            -play_mean,
            ap.play_square / (ap.scale * ap.scale * ap.plays) - play_mean * play_mean,
            (),
            True,
            None,
            f"per unit of play wagered ({ap.plays / deals:.4%} of hands play): even money when the dealer "
            f"qualifies and the player's hand is higher, lost when lower, back otherwise; its share of the "
            f"main game: {-ap.play_total / (ap.scale * deals):.4%} of the ante",
        ),
    }
    if pair_plus is not None:
        spots["pair_plus"] = three_card_par("pair_plus", pair_plus, THREE_CARD_POKER)
    paytables = {"ante_bonus": ante_bonus.name, **({"pair_plus": pair_plus.name} if pair_plus else {})}
    return ParSheet(
        game="three_card_poker",
        spots=spots,
        edge_per_ante=ap.edge_per_ante,
        edge_per_action=ap.element_of_risk,
        average_total_wager=ap.average_total_wager,
        push_rate=ap.ties / deals,
        fold_rate=1 - ap.plays / deals,
        strategy=STRATEGY,
        exact=True,
        paytables=paytables,
    )


def table_sheet(table: TableConfig) -> ParSheet:
    """The par sheet of a Three Card Poker table (its :class:`GameSpec`'s ``par``)."""
    from controller.game.three_card_poker import QUALIFIER

    return three_card_poker_sheet(table.paytables["ante_bonus"], table.paytables.get("pair_plus"), QUALIFIER)


def strategy_rows() -> list[dict[str, object]]:
    """The ante and play strategy as data (``tablectl par --strategy``): one row per decision."""
    return [
        {"hand": "pair or better, straight, flush", "decision": "play"},
        {"hand": "high card queen-six-four or better", "decision": "play"},
        {"hand": "high card below queen-six-four", "decision": "fold"},
    ]
