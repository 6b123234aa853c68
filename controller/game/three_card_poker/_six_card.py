"""The 6 Card Bonus beside Three Card Poker: the best five-card hand of the player's three cards
and the dealer's three, its pay tables (configuration: ``config/side_bets/six_card_bonus.yaml``)
and its exact par.

Source (the N.J.A.C. 13:69F-20 text was not found: inferred from published rule sheets): the
wager pays on the best five-card poker hand made of the player's and the dealer's six cards,
three of a kind or better, whatever the dealer holds (table-games-online.com "Three Card Poker
rules"; Two Kings casino and Lady Luck Nemacolin house rule pages). It is a bet of its own: a
folded hand's 6 Card Bonus is still settled (table-games-online.com names three independent bets
and forfeits only the pair plus on a fold; the table keeps the folded cards face down for it:
:mod:`._table_rules`). The par counts every one of the C(52, 6) = 20,358,520 six-card sets, by rank
multiset and suit assignment (no sampling)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction
from functools import cache
from itertools import combinations, combinations_with_replacement
from math import comb, prod
from pathlib import Path

import yaml

from controller.vocab import Card

__all__ = [
    "SixCardHand",
    "SixCardError",
    "SIX_CARD_SETS",
    "rank_six",
    "six_card_counts",
    "six_card_par",
    "load_paytables",
    "shipped_paytables",
]

SOURCE = (
    "13:69F-20 (text not found: inferred from published 6 Card Bonus rule sheets: "
    "table-games-online.com, Two Kings casino, Lady Luck Nemacolin)"
)
"""The citation of every 6 Card Bonus rule here."""

SIX_CARD_SETS = comb(52, 6)
"""Every six-card set of one 52-card deck: 20,358,520."""


class SixCardHand(IntEnum):
    """The 6 Card Bonus hands, lowest to highest (``NOTHING``: less than three of a kind)."""

    NOTHING = 0
    THREE_OF_A_KIND = 1
    STRAIGHT = 2
    FLUSH = 3
    FULL_HOUSE = 4
    FOUR_OF_A_KIND = 5
    STRAIGHT_FLUSH = 6
    ROYAL_FLUSH = 7


class SixCardError(ValueError):
    """Cards or a pay table the 6 Card Bonus cannot take; the message names what and where."""


_ROYAL = frozenset({10, 11, 12, 13, 14})


def _straight(ranks: frozenset[int]) -> bool:
    """Five distinct ranks in sequence, the ace high (10-A) or low (A-2-3-4-5)."""
    if len(ranks) != 5:
        return False
    low = {1 if r == 14 else r for r in ranks}
    return max(ranks) - min(ranks) == 4 or (len(low) == 5 and max(low) - min(low) == 4)


def _rank_five(ranks: Sequence[int], suits: Sequence[str]) -> SixCardHand:
    """The category of exactly five cards given as ranks (2-14) and suits."""
    shape = sorted(Counter(ranks).values(), reverse=True)
    distinct = frozenset(ranks)
    flush = len(set(suits)) == 1
    straight = _straight(distinct)
    if flush and straight:
        return SixCardHand.ROYAL_FLUSH if distinct == _ROYAL else SixCardHand.STRAIGHT_FLUSH
    found = SixCardHand.NOTHING
    if shape[0] == 4:
        found = SixCardHand.FOUR_OF_A_KIND
    elif shape[:2] == [3, 2]:
        found = SixCardHand.FULL_HOUSE
    elif flush:
        found = SixCardHand.FLUSH
    elif straight:
        found = SixCardHand.STRAIGHT
    elif shape[0] == 3:
        found = SixCardHand.THREE_OF_A_KIND
    return found


def rank_six(player: Sequence[Card], dealer: Sequence[Card]) -> SixCardHand:
    """The best five-card hand of the player's three cards and the dealer's three."""
    cards = (*player, *dealer)
    if len(player) != 3 or len(dealer) != 3:
        raise SixCardError(f"6 Card Bonus: three cards each, got {len(player)} and {len(dealer)}")
    if len(set(cards)) != 6 or any(c.rank is None or c.suit is None for c in cards):
        raise SixCardError("6 Card Bonus: six distinct cards of a 52-card deck (no joker)")
    ranks = [int(c.rank) for c in cards if c.rank is not None]
    suits = [c.suit.value for c in cards if c.suit is not None]
    return max(_rank_five([ranks[i] for i in five], [suits[i] for i in five]) for five in combinations(range(6), 5))


def _suited_best(suited: frozenset[int]) -> SixCardHand:
    """The best hand five or six cards of one suit (distinct ranks) make."""
    best = SixCardHand.FLUSH
    for five in combinations(sorted(suited), 5):
        if _straight(frozenset(five)):
            best = max(best, SixCardHand.ROYAL_FLUSH if frozenset(five) == _ROYAL else SixCardHand.STRAIGHT_FLUSH)
    return best


def _unsuited_best(counts: Mapping[int, int]) -> SixCardHand:
    """The best hand of a six-card rank multiset without a flush."""
    shape = sorted(counts.values(), reverse=True)
    if shape[0] == 4:
        return SixCardHand.FOUR_OF_A_KIND
    if shape[0] == 3 and shape[1] >= 2:
        return SixCardHand.FULL_HOUSE
    ranks = sorted(counts)
    if any(_straight(frozenset(five)) for five in combinations(ranks, 5)):
        return SixCardHand.STRAIGHT
    return SixCardHand.THREE_OF_A_KIND if shape[0] == 3 else SixCardHand.NOTHING


def _flush_ways(counts: Mapping[int, int]) -> list[tuple[frozenset[int], int]]:
    """The suit assignments of a rank multiset that hold five or more cards of one suit: each
    as (the suited ranks, how many assignments). Only six distinct ranks or one pair can."""
    ranks = sorted(counts)
    if len(ranks) == 6:
        # all six of one suit (4 ways); exactly five of one suit, the sixth of another (4 x 3)
        ways = [(frozenset(ranks), 4)]
        ways += [(frozenset(five), 12) for five in combinations(ranks, 5)]
        return ways
    if len(ranks) == 5:
        # the four single ranks and one card of the pair in one suit (4), the pair's other card
        # in any of the three other suits (3)
        return [(frozenset(ranks), 12)]
    return []


@cache
def six_card_counts() -> dict[SixCardHand, int]:
    """How many of the 20,358,520 six-card sets make each hand: every rank multiset (at most
    four of a rank), weighted by its suit assignments, the flushing ones counted apart."""
    counts: Counter[SixCardHand] = Counter()
    for multiset in combinations_with_replacement(range(2, 15), 6):
        by_rank = Counter(multiset)
        if max(by_rank.values()) > 4:
            continue
        total = prod(comb(4, n) for n in by_rank.values())
        plain = _unsuited_best(by_rank)
        flushing = 0
        for suited, ways in _flush_ways(by_rank):
            counts[max(plain, _suited_best(suited))] += ways
            flushing += ways
        counts[plain] += total - flushing
    if sum(counts.values()) != SIX_CARD_SETS:
        raise AssertionError(f"6 Card Bonus counts sum to {sum(counts.values())}, not {SIX_CARD_SETS}")
    return {hand: counts.get(hand, 0) for hand in SixCardHand}


@dataclass(frozen=True)
class SixCardPaytable:
    """One published 6 Card Bonus pay table: odds (to 1) by hand, and its source."""

    name: str
    source: str
    pays: Mapping[SixCardHand, int]
    published_edge: float | None = None
    """The house edge the source states (percent of the wager), when it states one."""


@dataclass(frozen=True)
class SixCardPar:
    """The exact par of one pay table: expected return per unit wagered and the house edge."""

    paytable: str
    expected: Fraction
    house_edge: Fraction

    @property
    def percent(self) -> float:
        """The house edge in percent of the wager."""
        return float(self.house_edge * 100)


def six_card_par(table: SixCardPaytable) -> SixCardPar:
    """The exact par of ``table``: a win pays its odds and keeps the wager, anything less loses it."""
    counts = six_card_counts()
    total = Fraction(0)
    for hand, n in counts.items():
        odds = table.pays.get(hand)
        total += n * (odds if odds is not None else -1)
    expected = total / SIX_CARD_SETS
    return SixCardPar(table.name, expected, -expected)


_HANDS = {h.name.lower(): h for h in SixCardHand if h is not SixCardHand.NOTHING}


def _read_table(raw: object, where: str) -> SixCardPaytable:
    if not isinstance(raw, dict):
        raise SixCardError(f"{where}: a pay table is a mapping")
    name, source, rows = raw.get("name"), raw.get("source"), raw.get("rows")
    if not isinstance(name, str) or not isinstance(source, str) or not isinstance(rows, dict):
        raise SixCardError(f"{where}: needs name, source (text) and rows (hand: odds)")
    pays: dict[SixCardHand, int] = {}
    for hand, odds in rows.items():
        if hand not in _HANDS:
            raise SixCardError(f"{where}.rows.{hand}: unknown hand (known: {', '.join(_HANDS)})")
        if not isinstance(odds, int) or isinstance(odds, bool) or odds < 1:
            raise SixCardError(f"{where}.rows.{hand}: odds are a whole number to 1, at least 1")
        pays[_HANDS[hand]] = odds
    edge = raw.get("published_edge")
    if edge is not None and not isinstance(edge, int | float):
        raise SixCardError(f"{where}.published_edge: a number (percent)")
    return SixCardPaytable(name, source, pays, None if edge is None else float(edge))


def load_paytables(path: Path) -> tuple[SixCardPaytable, ...]:
    """The pay tables of ``path`` (``paytables:`` a list), each checked; errors name file and key."""
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise SixCardError(f"{path.name}: {exc}") from None
    tables = doc.get("paytables") if isinstance(doc, dict) else None
    if not isinstance(tables, list):
        raise SixCardError(f"{path.name}: needs a list 'paytables'")
    return tuple(_read_table(raw, f"{path.name}: paytables[{i}]") for i, raw in enumerate(tables))


def shipped_paytables() -> tuple[SixCardPaytable, ...]:
    """The shipped pay tables (``side_bets/six_card_bonus.yaml`` in the config folder)."""
    from controller.configuration import config_dir

    return load_paytables(config_dir() / "side_bets" / "six_card_bonus.yaml")


def summary(tables: Iterable[SixCardPaytable]) -> list[str]:
    """One line a table: its name, exact edge and the published one."""
    lines = []
    for table in tables:
        par = six_card_par(table)
        published = "" if table.published_edge is None else f" (published {table.published_edge:.2f}%)"
        lines.append(f"{table.name}: house edge {par.percent:.4f}%{published}")
    return lines
