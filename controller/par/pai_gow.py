"""Pai gow's side wagers, exactly, over all 154,143,080 seven-card hands of the 53-card deck:
the seven-card bonus, the envy bonus and pai gow insurance; and the main wager from the stored
simulation (controller.par._pai_gow_data).

The hands are counted by class, not one by one. A class is a rank multiset (seven real cards,
or six and the joker) and, where one suit holds enough cards to matter (five or more; four or
more with the joker, which can complete a flush), exactly which ranks that suit holds. Whether
and how a hand is a flush, straight flush, royal or seven-card straight flush depends on that
set alone, everything else on the ranks, so the settlement's own classifier
(controller.hands.classify_bonus, is_pai_gow) is run on one hand of each class and its answer
counted as many times as the class has hands: ``4 * prod C(3, k_r - 1) * prod C(3, k_r)`` for
a suit holding exactly the ranks S (the products over the ranks in and out of S), and the rest
of ``prod C(4, k_r)`` for no such suit. The royal match (a suited king and queen beside a royal)
splits its class: one pair of suits in three is suited. The counts are computed once,
then kept (controller.par._kept).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from itertools import combinations
from math import comb, prod
from typing import Any, TypedDict

from controller.configuration import Paytable, PaytableRow, TableConfig, pai_gow_options
from controller.hands import PAI_GOW, classify_bonus, paying_line
from controller.hands.categories import Category
from controller.hands.paigow import is_pai_gow
from controller.par._cache import Progress
from controller.par._kept import SOLVER_VERSIONS, kept
from controller.par._pai_gow_data import MAIN_COUNTS, MAIN_SOURCE
from controller.par.lines import line_name, row_value
from controller.par.pai_gow_main import main_edge
from controller.par.sheet import Line, ParSheet, SpotPar
from controller.vocab import ALL_CARDS, JOKER, Card

__all__ = ["bonus_counts", "insurance_counts", "class_counts", "pai_gow_sheet"]

HANDS = comb(53, 7)
"""154,143,080: every seven-card hand of the 53-card deck."""

_KING, _QUEEN = 11, 10  # rank - 2
_ROYAL = frozenset(range(8, 13))
_X = 3  # the suit that holds the ranks S in a class's example hand (spades)


def _multisets(size: int) -> Iterator[tuple[int, ...]]:
    """Every rank multiset of ``size`` cards (counts per rank 0-12, each at most 4)."""
    counts = [0] * 13

    def fill(rank: int, left: int) -> Iterator[tuple[int, ...]]:
        if rank == 13:
            if left == 0:
                yield tuple(counts)
            return
        for n in range(min(4, left), -1, -1):
            counts[rank] = n
            yield from fill(rank + 1, left - n)
        counts[rank] = 0

    yield from fill(0, size)


def _card(rank: int, suit: int) -> Card:
    return ALL_CARDS[13 * suit + rank]


def _spread(outside: Mapping[int, int], suits: tuple[int, ...]) -> list[Card]:
    """Cards of the given ranks and counts, each rank in distinct suits, spread evenly over ``suits``."""
    load = dict.fromkeys(suits, 0)
    cards = []
    for rank in sorted(outside, key=lambda r: (-outside[r], r)):
        chosen = sorted(suits, key=lambda s: (load[s], s))[: outside[rank]]
        for s in chosen:
            load[s] += 1
            cards.append(_card(rank, s))
    return cards


def hand_classes() -> Iterator[tuple[tuple[Card, ...], int]]:
    """One example hand of every class and how many of the 154,143,080 hands it stands for."""
    for joker in (False, True):
        real = 6 if joker else 7
        need = 4 if joker else 5  # cards of one suit that can make a flush
        for counts in _multisets(real):
            ranks = [r for r in range(13) if counts[r]]
            total = prod(comb(4, k) for k in counts)
            extra = (JOKER,) if joker else ()
            suited_total = 0
            for size in range(need, len(ranks) + 1):
                for s in combinations(ranks, size):
                    n = (
                        4
                        * prod(comb(3, counts[r] - 1) for r in s)
                        * prod(comb(3, counts[r]) for r in ranks if r not in s)
                    )
                    if n == 0:
                        continue
                    suited_total += n
                    inside = [_card(r, _X) for r in s]
                    outside = {r: counts[r] - (r in s) for r in ranks if counts[r] - (r in s)}
                    if _royal_match_split(set(s), outside, joker):
                        for same, share in ((True, n // 3), (False, n - n // 3)):
                            k, q = _card(_KING, 0), _card(_QUEEN, 0 if same else 1)
                            yield (*inside, k, q, *extra), share
                        continue
                    yield (*inside, *_spread(outside, (0, 1, 2)), *extra), n
            rest = total - suited_total
            if rest:
                yield (*_spread(dict(zip(ranks, (counts[r] for r in ranks), strict=True)), (0, 1, 2, 3)), *extra), rest


def _royal_match_split(s: set[int], outside: Mapping[int, int], joker: bool) -> bool:
    """Whether the class's hands differ by the suits of an outside king and queen: a royal in
    the suit (the joker completing it) with exactly a king and a queen beside it."""
    if outside != {_KING: 1, _QUEEN: 1}:
        return False
    return s == _ROYAL if not joker else (len(s) == 4 and s <= _ROYAL)


CLASSES = 292_259
"""How many classes :func:`hand_classes` yields (the steps of :func:`class_counts`'s progress)."""


def class_counts(progress: Progress | None = None) -> tuple[dict[tuple[Category, ...], int], dict[int, int]]:
    """How many hands qualify for each set of bonus lines, and how many are a pai gow by top
    card, counted over the classes (``progress`` is told of every thousand classes)."""
    bonus: dict[tuple[Category, ...], int] = {}
    insurance: dict[int, int] = {}
    for i, (cards, n) in enumerate(hand_classes(), 1):
        key = classify_bonus(cards, PAI_GOW).qualifies
        bonus[key] = bonus.get(key, 0) + n
        gow, top = is_pai_gow(cards)
        if gow:
            insurance[top] = insurance.get(top, 0) + n
        if progress is not None and i % 1000 == 0:
            progress.update(1000)
    return bonus, insurance


class PgPayload(TypedDict):
    """Pai gow's kept class counts: ``[[category, ...], count]`` and ``[top card, count]`` rows."""

    bonus: list[list[Any]]
    insurance: list[list[int]]


def pg_payload(counts: tuple[Mapping[tuple[Category, ...], int], Mapping[int, int]]) -> PgPayload:
    """:func:`class_counts`'s result as a payload to keep."""
    bonus, insurance = counts
    return {
        "bonus": sorted([[c.value for c in k], int(n)] for k, n in bonus.items()),
        "insurance": sorted([int(k), int(n)] for k, n in insurance.items()),
    }


def _pg_from_payload(p: PgPayload) -> tuple[dict[tuple[Category, ...], int], dict[int, int]]:
    bonus = {tuple(Category(c) for c in k): int(n) for k, n in p["bonus"]}
    return bonus, {int(k): int(n) for k, n in p["insurance"]}


def pai_gow_classes() -> tuple[dict[tuple[Category, ...], int], dict[int, int]]:
    """Pai gow's hand counts over the 154,143,080 hands: by the set of bonus lines a hand
    qualifies for, and the pai gows by top card (:func:`class_counts`, computed once, then kept)."""

    def compute(bar: Progress | None) -> PgPayload:
        return pg_payload(class_counts(bar))

    result: tuple[dict[tuple[Category, ...], int], dict[int, int]] = kept(
        "pai_gow_classes",
        {"version": SOLVER_VERSIONS["pai_gow_classes"]},
        _pg_from_payload,
        compute,
        "pai gow hand classes",
        CLASSES,
        "class",
    )
    return result


def bonus_counts() -> dict[tuple[Category, ...], int]:
    """How many hands qualify for each set of bonus lines (``BonusValue.qualifies``): computed
    once, then kept (controller.par._kept)."""
    return dict(pai_gow_classes()[0])


def insurance_counts() -> dict[int, int]:
    """How many hands are a pai gow (the joker only an ace), by the rank (2-14) of the top card."""
    return dict(pai_gow_classes()[1])


def _paying(qualifies: tuple[Category, ...], table: Paytable) -> PaytableRow | None:
    rows = table.by_category()
    line = paying_line(qualifies, rows, key=lambda row: row.pays_more)
    return rows[line] if line is not None else None


def bonus_par(table: Paytable, counts: Mapping[tuple[Category, ...], int]) -> SpotPar:
    """The exact par of a seven-card bonus paytable (paid once, at its highest-paying line)."""
    by_row = dict.fromkeys(range(len(table.rows)), 0)
    losing = 0
    for qualifies, n in counts.items():
        row = _paying(qualifies, table)
        if row is None or row.odds.push:
            losing += n
        else:
            by_row[table.rows.index(row)] += n
    return _spot("bonus", table, by_row, losing)


def _spot(spot: str, table: Paytable, by_row: Mapping[int, int], losing: int, note: str = "") -> SpotPar:
    lines = []
    mean = -losing / HANDS
    square = losing / HANDS
    for i, row in enumerate(table.rows):
        p = by_row.get(i, 0) / HANDS
        v = row_value(row)
        lines.append((line_name(row), p, p * v))
        mean += p * v
        square += p * v * v
    lines.append(("no paying hand", losing / HANDS, -losing / HANDS))
    return SpotPar(spot, -mean, square - mean * mean, tuple(lines), True, None, note)


def insurance_par(table: Paytable, counts: Mapping[int, int]) -> SpotPar:
    """The exact par of a pai gow insurance paytable (lines by the pai gow's top card)."""
    by_row: dict[int, int] = {}
    paid = 0
    for top, n in counts.items():
        row = table.row_for_rank(Category.HIGH_CARD, top)
        if row is not None and not row.odds.push:
            i = table.rows.index(row)
            by_row[i] = by_row.get(i, 0) + n
            paid += n
    return _spot("insurance", table, by_row, HANDS - paid)


def envy_per_hand(table: Paytable, counts: Mapping[tuple[Category, ...], int]) -> tuple[float, float, tuple[Line, ...]]:
    """What one other hand pays an envy marker: (mean cents, mean square cents^2, lines as
    (line, probability, mean cents))."""
    mean = square = 0.0
    by_row: dict[int, int] = {}
    for qualifies, n in counts.items():
        row = _paying(qualifies, table)
        if row is not None and row.amount:
            i = table.rows.index(row)
            by_row[i] = by_row.get(i, 0) + n
    lines = []
    for i, row in enumerate(table.rows):
        p = by_row.get(i, 0) / HANDS
        amount = float(row.amount or 0)
        mean += p * amount
        square += p * amount * amount
        lines.append((line_name(row), p, p * amount))
    return mean, square, tuple(lines)


def pai_gow_sheet(table: TableConfig) -> ParSheet:
    """The par sheet of a pai gow table."""
    o = pai_gow_options(table)
    spots: dict[str, SpotPar] = {}
    notes = []
    way = str(o["house_way"])
    counts = MAIN_COUNTS.get(way)
    commission = float(o["commission_percent"])
    edge = push = math.nan
    if counts is None:
        notes.append(
            f"no stored simulation of the main wager for the {way} house way "
            f"(benchmarks/par_pai_gow_main.py --way {way}): no main-wager figures"
        )
    else:
        edge, variance, interval = main_edge(counts, commission)
        hands = counts.rounds * counts.players
        spots["pai_gow"] = SpotPar(
            "pai_gow",
            edge,
            variance,
            (
                ("player wins both hands", counts.win / hands, counts.win / hands * (1 - commission / 100)),
                ("one hand each (push)", counts.push / hands, 0.0),
                ("dealer wins both (copies to the banker)", counts.lose / hands, -counts.lose / hands),
            ),
            False,
            interval,
            f"simulated: {hands:,} player hands ({counts.rounds:,} rounds of {counts.players} players), {MAIN_SOURCE[way]}; "
            "the variance counts the players' shared dealer hand (a full table)",
        )
        notes.append(f"main wager simulated, {way} house way for both hands, {commission:g}% commission")
        push = counts.push / hands
    if o.get("house_way_deuces_exception"):
        notes.append("the stored simulation did not use the deuces exception")
    bonus_counts_ = bonus_counts() if {"bonus", "envy"} & set(table.paytables) else {}
    if "bonus" in table.paytables:
        spots["bonus"] = bonus_par(table.paytables["bonus"], bonus_counts_)
    if "insurance" in table.paytables:
        spots["insurance"] = insurance_par(table.paytables["insurance"], insurance_counts())
    tables: dict[str, tuple[tuple[str, float], ...]] = {}
    if "envy" in table.paytables:
        mean, square, lines = envy_per_hand(table.paytables["envy"], bonus_counts_)
        unit = float(o["envy_minimum"])
        others = table.seats - 1 + (1 if o.get("envy_includes_dealer") else 0)
        # n other hands, treated as independent for the variance (they share a deck: a close approximation)
        ret = others * mean / unit
        spots["envy"] = SpotPar(
            "envy",
            -ret,
            others * (square - mean * mean) / unit**2,
            tuple((n, p, c / unit) for n, p, c in lines),
            True,
            None,
            f"paid to a bonus wager of at least {unit / 100:.2f} with {others} other hands at the table, "
            "per unit of that minimum bonus wager; a negative edge: the envy bonus only pays",
        )
        tables["envy_cents_per_round_by_other_hands"] = tuple((str(n), n * mean) for n in range(1, 8))
    return ParSheet(
        game=table.game,
        spots=spots,
        edge_per_ante=edge,
        edge_per_action=edge,
        average_total_wager=1.0,
        push_rate=push,
        fold_rate=0.0,
        strategy=f"player and dealer both set by the {way} house way; dealer banks, copies to the banker",
        exact=False,
        paytables={k: v.name for k, v in table.paytables.items()},
        tables=tables,
        notes=tuple(notes),
    )
