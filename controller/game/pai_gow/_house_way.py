"""Pai gow house ways: how the dealer's seven cards are set, as data-driven rules.

Each rule of ../shared/rules/house-ways.md is one function here that looks at the hand and
either sets it or passes (``None``). A :class:`HouseWay` is an ordered table of named rules;
the first rule that applies decides, and its name and text are reported with the set. Ways
are selected by name in config (``house_way: foxwoods``).

Conventions for every way:

* The joker counts as an ace, unless it completes a straight or flush (house-ways.md).
* Cards are chosen by rank and suit, never by the order they were dealt, so the same seven
  cards always give the same set. Where a rule leaves a choice of equal cards, real cards go
  to the low hand before the joker (which can only help the high hand).
* "The two highest cards in front" means the best two-card low hand those cards can make
  (a pair beats no pair).
* Where a rule asks for "the highest possible" low hand that still leaves a straight or flush
  in the high hand, every legal set is tried and the best low hand taken (ties: the better
  high hand).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from types import MappingProxyType

from controller.hands import Category, HandError
from controller.hands.fast import FLUSH_SUIT, FOUR_SUIT, JOKER_INDEX, MASK_SHIFT, REAL_CODES, SUIT_SHIFT
from controller.hands.paigow import HandSet, set_dealt, sets_with_high
from controller.vocab import ALL_CARDS, Card, format_cards

__all__ = ["Decision", "HouseWay", "HOUSE_WAYS", "house_way", "set_by_house_way"]

ACE, KING, QUEEN, JACK, TEN = 14, 13, 12, 11, 10
_STRAIGHT_OR_FLUSH = frozenset({Category.STRAIGHT, Category.FLUSH, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH})


@dataclass(frozen=True, slots=True)
class Decision:
    """A house-way set and why: the rule that decided (``way.rule``) and its text."""

    set: HandSet
    rule: str
    text: str

    def to_json(self) -> dict[str, object]:
        return {**self.set.to_json(), "rule": self.rule, "text": self.text}


_RANK: tuple[int, ...] = tuple(ACE if c.rank is None else int(c.rank) for c in ALL_CARDS)
"""Each card's rank as the rules see it (the joker with the aces), by the card's index."""
_ORDER: tuple[int, ...] = tuple(-64 * _RANK[c.index] + 8 * c.is_joker - c.index // 13 for c in ALL_CARDS)
"""Each card's place in a hand's order (:attr:`Hand.cards`), by the card's index: highest rank
first, among equal ranks real cards before the joker, then the later suit; one integer (the
rank's step of 64 outweighs the joker's 8, which outweighs the suit's 0-4), no two cards alike."""


_STRAIGHT_WINDOWS: tuple[int, ...] = (0b1_0000_0000_1111, *(0b11111 << low for low in range(9)))
"""The five ranks of each straight as rank bits (2 is bit 0): A-2-3-4-5 (the ace low), then 2-6 to 10-A."""
_MOST_OF_A_STRAIGHT: tuple[int, ...] = tuple(
    max((mask & window).bit_count() for window in _STRAIGHT_WINDOWS) for mask in range(1 << 13)
)
"""For each 13-bit rank mask, the most ranks of one straight it holds (5: a straight)."""


class Hand:
    """The seven cards as the rules see them: rank groups (the joker with the aces) and every legal set."""

    def __init__(self, cards: Sequence[Card], options: Mapping[str, object]) -> None:
        if len(cards) != 7 or len({c.index for c in cards}) != 7:
            raise HandError(f"a pai gow hand is 7 distinct cards, got {format_cards(cards)!r}")
        self.options = options
        """The table's options, read only (never copied: a hand lives while one set is made)."""
        # Highest rank first; among equal ranks real cards before the joker, then by suit.
        order, rank_of = _ORDER, _RANK
        keyed = sorted([(order[c.index], c) for c in cards])  # keys unique: no card compared
        self.cards = tuple([c for _, c in keyed])
        groups: dict[int, list[Card]] = {}
        for c in self.cards:
            rank = rank_of[c.index]
            group = groups.get(rank)
            if group is None:
                groups[rank] = [c]
            else:
                group.append(c)
        self.groups = groups
        by_count: dict[int, list[int]] = {n: [] for n in range(1, 6)}
        for r, cs in groups.items():  # the ranks come highest first (the cards' order)
            by_count[len(cs)].append(r)
        self.by_count = by_count
        self._sets: list[HandSet] | None = None

    @staticmethod
    def rank(c: Card) -> int:
        return _RANK[c.index]

    def count(self, rank: int) -> int:
        return len(self.groups.get(rank, ()))

    @property
    def pairs(self) -> list[int]:
        return self.by_count[2]

    @property
    def trips(self) -> list[int]:
        return self.by_count[3]

    @property
    def singles(self) -> list[int]:
        return self.by_count[1]

    def of_rank(self, rank: int, n: int) -> list[Card]:
        """``n`` cards of ``rank``: real cards first."""
        return self.groups[rank][:n]

    def best_two(self, cards: Sequence[Card]) -> list[Card]:
        """The best two-card low hand among ``cards``."""
        pool = list(cards)
        ranks = [_RANK[c.index] for c in pool]
        if ranks == sorted(ranks, reverse=True):
            # highest rank first (the hand's own order, as every rule passes them): the first pair
            # is the highest, else the first two cards; the earliest positions win ties, as below
            for k in range(len(ranks) - 1):
                if ranks[k] == ranks[k + 1]:
                    return [pool[k], pool[k + 1]]
            return pool[:2]
        # ties go to the earlier cards (positions compared, not the cards: no ``__eq__`` per card)
        i, j = max(
            combinations(range(len(pool)), 2),
            key=lambda ij: (make_low_key((pool[ij[0]], pool[ij[1]])), [-ij[0], -ij[1]]),
        )
        return [pool[i], pool[j]]

    def front(self, low: Sequence[Card], rule: str, text: str) -> Decision:
        """The decision that puts ``low`` in the low hand and the rest in the high hand."""
        placed = {c.index for c in low}  # a card is its index
        high = [c for c in self.cards if c.index not in placed]
        return Decision(set_dealt(high, low), rule, text)  # seven distinct cards: checked when the hand was made

    def others(self, *exclude: Sequence[Card]) -> list[Card]:
        used = {c.index for group in exclude for c in group}
        return [c for c in self.cards if c.index not in used]

    def may_hold_straight_or_flush(self) -> bool:
        """Whether any five of the seven cards could be a straight or a flush (a quick test
        that spares most hands the enumeration of every set)."""
        codes = REAL_CODES
        total = 0
        for c in self.cards:
            total += codes[c.index]  # the joker (index 52) adds nothing
        aces = self.groups.get(ACE)
        jokers = 1 if aces and aces[-1].index == JOKER_INDEX else 0  # the joker sorts after the real aces
        if (FOUR_SUIT if jokers else FLUSH_SUIT)[(total >> SUIT_SHIFT) & 0xFFFF] >= 0:
            return True  # five of a suit, or four and the joker
        masks = total >> MASK_SHIFT
        ranks = (masks | masks >> 13 | masks >> 26 | masks >> 39) & 0x1FFF  # one bit per rank, 2 (bit 0) to the ace
        return _MOST_OF_A_STRAIGHT[ranks] + jokers >= 5

    def straight_or_flush_sets(self) -> list[HandSet]:
        """The legal sets with a straight or flush (or better) in the high hand (never a foul)."""
        if self._sets is None:
            self._sets = sets_with_high(self.cards, _STRAIGHT_OR_FLUSH)
        return self._sets

    def best_straight_or_flush(self, only: Callable[[HandSet], bool] = lambda s: True) -> HandSet | None:
        """The legal set with a straight or flush in the high hand whose low hand is best."""
        if not self.may_hold_straight_or_flush():
            return None
        options = [s for s in self.straight_or_flush_sets() if only(s)]
        if not options:
            return None
        return max(options, key=lambda s: (s.low.strength, s.high.strength, _canonical(s)))


def make_low_key(cards: Sequence[Card]) -> tuple[int, ...]:
    ranks = sorted((Hand.rank(c) for c in cards), reverse=True)
    return (int(ranks[0] == ranks[1]), *ranks)


def _canonical(s: HandSet) -> tuple[int, ...]:
    return tuple(sorted(c.index for c in s.low.cards))


Rule = Callable[[Hand], Decision | None]


# --- rules shared by the ways (house-ways.md, and digest 3.5 for the generic way) ------------------


def five_aces(h: Hand) -> Decision | None:
    """Five aces: a pair of aces in front, unless a pair of kings can go in front."""
    if h.count(ACE) != 5:
        return None
    if h.count(KING) >= 2:
        return h.front(h.of_rank(KING, 2), "five_aces", "five aces with a pair of kings: kings in front")
    return h.front(h.of_rank(ACE, 2), "five_aces", "five aces: a pair of aces in front")


def two_trips(h: Hand) -> Decision | None:
    """Two sets of three of a kind: a pair from the higher set in front."""
    if len(h.trips) < 2:
        return None
    return h.front(h.of_rank(h.trips[0], 2), "two_trips", "two sets of trips: a pair from the higher set in front")


def full_house(h: Hand) -> Decision | None:
    """Full house: the highest pair in front (Bally's: optionally keep a pair of twos together
    when an ace and a king can go in front, house-ways.md)."""
    if len(h.trips) != 1 or not h.pairs:
        return None
    pair = h.pairs[0]
    if (
        h.options.get("house_way_deuces_exception")
        and pair == 2
        and len(h.pairs) == 1
        and ACE in h.singles
        and KING in h.singles
    ):
        return h.front(
            h.of_rank(ACE, 1) + h.of_rank(KING, 1),
            "full_house",
            "full house with twos and A-K: kept together, A-K in front",
        )
    return h.front(h.of_rank(pair, 2), "full_house", "full house: the highest pair in front")


def three_pair(h: Hand) -> Decision | None:
    """Three pair: the highest pair in front."""
    if len(h.pairs) < 3:
        return None
    return h.front(h.of_rank(h.pairs[0], 2), "three_pair", "three pair: the highest pair in front")


def three_of_a_kind(h: Hand) -> Decision | None:
    """Three of a kind: aces: an ace and the next highest card in front; kings and below: trips
    in back, the two highest other cards in front."""
    if len(h.trips) != 1 or h.pairs:
        return None
    t = h.trips[0]
    if t == ACE:
        ace = h.of_rank(ACE, 3)
        next_best = h.others(ace)[0]
        return h.front([ace[0], next_best], "three_of_a_kind", "three aces: an ace and the next highest card in front")
    return h.front(
        h.best_two(h.others(h.of_rank(t, 3))),
        "three_of_a_kind",
        "three of a kind in back, the two highest other cards in front",
    )


def one_pair(h: Hand) -> Decision | None:
    """One pair: the pair in back, the two highest other cards in front."""
    if len(h.pairs) != 1 or h.trips or h.by_count[4] or h.by_count[5]:
        return None
    return h.front(
        h.best_two(h.others(h.of_rank(h.pairs[0], 2))),
        "one_pair",
        "one pair in back, the two highest other cards in front",
    )


def no_pair(h: Hand) -> Decision | None:
    """No pair: the second and third highest cards in front."""
    if len(h.singles) != 7:
        return None
    return h.front([h.cards[1], h.cards[2]], "no_pair", "no pair: the second and third highest cards in front")


# --- Foxwoods ---------------------------------------------------------------------------------------


def foxwoods_four_of_a_kind(h: Hand) -> Decision | None:
    """A, K, Q, J: always split; 10 to 7: keep together only if at least a king can go in front,
    otherwise split; 6 and below: never split; with an extra pair or trips: that pair in front."""
    if not h.by_count[4]:
        return None
    q = h.by_count[4][0]
    quads = h.of_rank(q, 4)
    extra = (h.trips + h.pairs)[:1]
    if extra:
        return h.front(h.of_rank(extra[0], 2), "four_of_a_kind", "four of a kind with another pair: that pair in front")
    rest = h.others(quads)
    if q >= JACK:
        return h.front(quads[:2], "four_of_a_kind", "four of a kind, jacks to aces: split")
    if q >= 7:
        if h.rank(rest[0]) >= KING:
            return h.front(
                h.best_two(rest), "four_of_a_kind", "four 7s to 10s with a king or ace to play in front: kept together"
            )
        return h.front(quads[:2], "four_of_a_kind", "four 7s to 10s with no king or ace to play in front: split")
    return h.front(h.best_two(rest), "four_of_a_kind", "four of a kind, 6s and below: never split")


def foxwoods_straight_or_flush(h: Hand) -> Decision | None:
    """Straight, flush or straight flush: with no pair, the two highest cards in front that still
    leave it in back; with one pair, the highest two cards in front, pair or not, that still leave
    it (except: an ace and a pair of kings to tens play the ace in front and the pair in back if
    that makes the front hand better); with two pair, the two-pair rule; with three of a kind,
    the complete hand in back and the pair in front."""
    best = h.best_straight_or_flush()
    if best is None or len(h.pairs) >= 2:
        return None
    if h.trips:
        paired = h.best_straight_or_flush(lambda s: s.low.category is Category.ONE_PAIR)
        chosen = paired or best
        return Decision(
            chosen, "straight_or_flush", "straight or flush with trips: the complete hand in back, the pair in front"
        )
    if h.pairs:
        pair = h.pairs[0]
        if ACE in h.singles and TEN <= pair <= KING:
            ace = h.of_rank(ACE, 1)
            alternative = h.front(ace + [h.others(ace, h.of_rank(pair, 2))[0]], "straight_or_flush", "")
            if alternative.set.low > best.low:
                text = "ace and a pair of kings to tens: the ace in front and the pair in back makes the front better"
                return Decision(alternative.set, "straight_or_flush", text)
        return Decision(
            best,
            "straight_or_flush",
            "straight or flush with one pair: the highest two cards in front that leave it in back",
        )
    return Decision(
        best, "straight_or_flush", "straight or flush: the two highest cards in front that leave it in back"
    )


def foxwoods_two_pair(h: Hand) -> Decision | None:
    """Big pair A, K, Q or J: split, small pair in front; 10 to 7: both pairs in back if an ace can
    go in front, otherwise split; 6 to 3: both pairs in back if a king or higher can go in front,
    otherwise split."""
    if len(h.pairs) != 2 or h.trips:
        return None
    big, small = h.pairs
    split = h.front(h.of_rank(small, 2), "two_pair", "")
    rest = h.others(h.of_rank(big, 2), h.of_rank(small, 2))
    together = h.front(h.best_two(rest), "two_pair", "")
    if big >= JACK:
        return Decision(split.set, "two_pair", "two pair, big pair jacks to aces: split, small pair in front")
    if big >= 7:
        if ACE in h.singles:
            return Decision(
                together.set, "two_pair", "two pair, big pair 7s to 10s, an ace to play in front: both pairs in back"
            )
        return Decision(split.set, "two_pair", "two pair, big pair 7s to 10s, no ace: split")
    if max(h.singles) >= KING:
        return Decision(
            together.set, "two_pair", "two pair, big pair 3s to 6s, a king or ace to play in front: both pairs in back"
        )
    return Decision(split.set, "two_pair", "two pair, big pair 3s to 6s, no king or ace: split")


# --- Bally's Atlantic City (and the generic way of digest 3.5 for what it does not list) -----------


def generic_four_of_a_kind(h: Hand) -> Decision | None:
    """Four of a kind (digest 3.5 item 9): 2-6 keep together; 7-10 split unless an ace can be
    played in front; J-A always split."""
    if not h.by_count[4]:
        return None
    q = h.by_count[4][0]
    quads = h.of_rank(q, 4)
    rest = h.others(quads)
    if q >= JACK:
        return h.front(quads[:2], "four_of_a_kind", "four of a kind, jacks to aces: always split")
    if q >= 7:
        if ACE in {h.rank(c) for c in rest}:
            return h.front(
                h.best_two(rest), "four_of_a_kind", "four 7s to 10s with an ace to play in front: kept together"
            )
        return h.front(quads[:2], "four_of_a_kind", "four 7s to 10s with no ace: split")
    return h.front(h.best_two(rest), "four_of_a_kind", "four of a kind, 2s to 6s: kept together")


def ballys_straight_or_flush(h: Hand) -> Decision | None:
    """Straights and flushes: play the option that leaves the two highest cards in the low hand
    (two pair or more: the pair rules)."""
    best = h.best_straight_or_flush()
    if best is None or len(h.pairs) >= 2:
        return None
    return Decision(
        best, "straight_or_flush", "straight or flush: the option that leaves the two highest cards in the low hand"
    )


def _band(rank: int) -> str:
    return "ace" if rank == ACE else "high" if rank >= JACK else "middle" if rank >= 7 else "low"


def ballys_two_pair(h: Hand) -> Decision | None:
    """Low 2-6, middle 7-10, high J-K: low/low or low/middle split unless the hand has a king or
    an ace; low/high or middle/middle split unless it has an ace; middle/high, high/high, or
    aces with any pair: always split."""
    if len(h.pairs) != 2 or h.trips:
        return None
    big, small = h.pairs
    bands = {_band(big), _band(small)}
    split = h.front(h.of_rank(small, 2), "two_pair", "")
    rest = h.others(h.of_rank(big, 2), h.of_rank(small, 2))
    together = h.front(h.best_two(rest), "two_pair", "")
    singles = set(h.singles)
    if "ace" in bands:
        return Decision(split.set, "two_pair", "two pair with aces: always split")
    if bands in ({"low"}, {"low", "middle"}):
        if singles & {ACE, KING}:
            return Decision(
                together.set, "two_pair", "two pair low/low or low/middle with a king or ace: both pairs in back"
            )
        return Decision(split.set, "two_pair", "two pair low/low or low/middle: split")
    if bands in ({"low", "high"}, {"middle"}):
        if ACE in singles:
            return Decision(
                together.set, "two_pair", "two pair low/high or middle/middle with an ace: both pairs in back"
            )
        return Decision(split.set, "two_pair", "two pair low/high or middle/middle: split")
    return Decision(split.set, "two_pair", "two pair middle/high or high/high: always split")


@dataclass(frozen=True, slots=True)
class HouseWay:
    """A named house way: its rules in the order they are tried, and where it was published."""

    name: str
    source: str
    rules: tuple[tuple[str, Rule], ...]

    def set(self, cards: Sequence[Card], options: Mapping[str, object] | None = None) -> Decision:
        """Set seven cards (the joker allowed) by this house way (``options``: read, not kept)."""
        hand = Hand(cards, _NO_OPTIONS if options is None else options)
        for name, rule in self.rules:
            decision = rule(hand)
            if decision is not None:
                if decision.set.foul:  # pragma: no cover - guarded by the property tests
                    raise AssertionError(f"{self.name}.{name} fouled {format_cards(cards)}")
                return Decision(decision.set, f"{self.name}.{decision.rule}", decision.text)
        raise AssertionError(f"{self.name}: no rule set {format_cards(cards)}")  # pragma: no cover


_NO_OPTIONS: Mapping[str, object] = MappingProxyType({})
"""A house way's options when none are given (the defaults: no exception taken)."""

_SHARED_HEAD: tuple[tuple[str, Rule], ...] = (("five_aces", five_aces),)
_SHARED_TAIL: tuple[tuple[str, Rule], ...] = (
    ("three_of_a_kind", three_of_a_kind),
    ("one_pair", one_pair),
    ("no_pair", no_pair),
)

FOXWOODS = HouseWay(
    "foxwoods",
    "wizardofodds.com/games/pai-gow-poker/house-way/foxwoods/ (../shared/rules/house-ways.md)",
    _SHARED_HEAD
    + (
        ("four_of_a_kind", foxwoods_four_of_a_kind),
        ("two_trips", two_trips),
        ("full_house", full_house),
        ("straight_or_flush", foxwoods_straight_or_flush),
        ("three_pair", three_pair),
        ("two_pair", foxwoods_two_pair),
    )
    + _SHARED_TAIL,
)

BALLYS_AC = HouseWay(
    "ballys_ac",
    "wizardofodds.com/games/pai-gow-poker/house-way/ballys-atlantic-city (../shared/rules/house-ways.md); "
    "no pair, one pair, four of a kind and five aces from the generic way, regulations digest 3.5",
    _SHARED_HEAD
    + (
        ("four_of_a_kind", generic_four_of_a_kind),
        ("two_trips", two_trips),
        ("full_house", full_house),
        ("straight_or_flush", ballys_straight_or_flush),
        ("three_pair", three_pair),
        ("two_pair", ballys_two_pair),
    )
    + _SHARED_TAIL,
)

HOUSE_WAYS: dict[str, HouseWay] = {w.name: w for w in (FOXWOODS, BALLYS_AC)}
"""The house ways by the name config uses."""


def house_way(name: str) -> HouseWay:
    """The house way called ``name``; raises ``KeyError`` naming the known ways."""
    try:
        return HOUSE_WAYS[name]
    except KeyError:
        raise KeyError(f"unknown house way '{name}' (known: {', '.join(sorted(HOUSE_WAYS))})") from None


def set_by_house_way(
    cards: Sequence[Card], name: str = "foxwoods", options: Mapping[str, object] | None = None
) -> Decision:
    """Set seven cards by the named house way."""
    return house_way(name).set(cards, options)
