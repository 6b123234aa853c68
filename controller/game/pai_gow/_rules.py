"""Pai gow poker settlement with pai gow insurance, the bonus wager and the envy bonus
(N.J.A.C. 13:69F-11.15; regulations digest 3): pure rules, no I/O.

The pai gow wager: the player's high hand and low hand are each compared with the dealer's
(set by the house way); a copy (identical rank) goes to the banker. Both won -> paid even money
less the commission; one won -> push; none -> lose. A foul (the low hand outranks the high hand)
is handled by the table's ``foul_policy``: ``forfeit`` (the pai gow wager loses) or
``reset_by_house_way`` (the hand is set again by the house way).

Optional wagers (11.15): the bonus (at least ``bonus_minimum``, $1.00) is paid on the best hand
the seven cards make whatever the set, once, at its highest-paying line; a bonus of at least
``envy_minimum`` ($5.00) gets an envy marker, paid the envy amount for each *premium* hand (a
hand with a line in the envy table) of another player, and the dealer's only if
``envy_includes_dealer``; pai gow insurance wins on a pai gow (no pair, straight or flush, the
joker only an ace).

The order of settlement follows 11.15(d) step by step:

1. (d)1 counterclockwise from the dealer's right: each pai gow wager and its commission; the
   cards stay on the layout where (d)1i/ii say so, else go to the discard rack.
2. (d)2 each seat with a bonus or insurance wager (every seat, if any bonus of $5.00 or more is
   on the table) has its cards rearranged to the best hand: non-qualifying wagers collected,
   qualifying ones paid, premium hands announced and left face up with their bonus wager.
   Every other hand's cards go to the discard rack as its wagers are settled.
3. (d)3 counterclockwise: each envy payment, then its marker collected; the bonus wager on each
   premium hand, then its cards to the discard rack.
4. (d)3iii the cards of premium hands without a bonus wager are collected; so are (our step: no
   step of 11.15 says when they go) the cards of a hand without a bonus or insurance wager that
   another seat's insurance kept on the layout.

A misdeal (digest 3.4, 31.14: a hand of more or fewer than seven cards, or a card dealt twice)
voids every hand and returns every wager; a stub of other than four is not one by itself (the
dealer checks the hands: digest 3.4 item 5).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from controller.configuration import PaiGowOptions, Paytable, PaytableRow, TableConfig, pai_gow_options
from controller.game import hand_name
from controller.game.pai_gow._deal import StartError, misdeal_reasons, position_name, start_position
from controller.game.pai_gow._house_way import Decision, HouseWay, house_way
from controller.game.record import DealtSeat, GameSpec, Problems, read_seats, write_record
from controller.hands import PAI_GOW, BonusValue, Category, bonus_shown, classify_bonus, evaluate_dealt, paying_line
from controller.hands.categories import FIVE_CARD_ORDER
from controller.hands.paigow import HandSet, is_pai_gow, make_set, set_dealt
from controller.vocab import Card, CardError, format_cards, parse_cards
from controller.wagers import (
    DISCARD,
    Action,
    PayoutCaps,
    Result,
    SeatSettlement,
    Settlement,
    Step,
    WagerResult,
    actions_for,
    quick_init,
    settlement_for,
)

__all__ = [
    "SPEC",
    "KnownSets",
    "PaiGowSeat",
    "PaiGowRound",
    "RoundSettler",
    "read_round",
    "settle",
    "round_record",
    "commission",
]

_SEAT_KEYS = {"wagers", "cards", "high", "low", "set", "foul"}
_PAID_BY = {"bonus": ["bonus"], "envy": ["envy"], "insurance": ["insurance"]}


@quick_init
@dataclass(frozen=True, slots=True)
class PaiGowSeat(DealtSeat):
    """One player's round: wagers, the seven cards, and the set (``None``: set by the house way)."""

    high: tuple[Card, ...] | None
    low: tuple[Card, ...] | None
    foul: bool = False
    """The dealer found the player's set a foul (the table marks it; the set itself is not kept)."""

    def record_details(self) -> dict[str, object]:
        if self.foul:
            return {"foul": True}
        if self.high is None or self.low is None:
            return {"set": "house_way"}
        return {"high": format_cards(self.high), "low": format_cards(self.low)}


@quick_init
@dataclass(frozen=True, slots=True)
class PaiGowRound:
    """A pai gow round as recorded."""

    seats: tuple[PaiGowSeat, ...]
    dealer: tuple[Card, ...]
    dealer_set: tuple[tuple[Card, ...], tuple[Card, ...]] | None
    start: tuple[str, int]
    remaining: int
    empty: Mapping[int, tuple[Card, ...]] = field(default_factory=dict)
    misdeal: tuple[str, ...] = ()


def _hand(problems: Problems, path: str, raw: object) -> tuple[Card, ...] | None:
    """Card text as dealt: tokens must read, but counts and repeats are the misdeal check's."""
    if not isinstance(raw, str):
        problems.add(path, f'cards must be a string such as "As Kd", got {raw!r}')
        return None
    try:
        return parse_cards(raw, allow_duplicates=True)
    except CardError as exc:
        problems.add(path, str(exc))
        return None


def _known_set(high: object, low: object, cards: tuple[Card, ...]) -> tuple[tuple[Card, ...], tuple[Card, ...]] | None:
    """A set written as the table writes it (five and two of the seat's seven distinct cards, each
    in its own text, space-separated), read from the seat's cards without parsing them again;
    ``None`` for anything else, which :func:`_player_set` reads and checks in full."""
    if not isinstance(high, str) or not isinstance(low, str) or len(cards) != 7:
        return None
    by_text = {c.text: c for c in cards}
    high_tokens, low_tokens = high.split(), low.split()
    if len(by_text) != 7 or len(high_tokens) != 5 or len(low_tokens) != 2:
        return None
    try:
        chosen = tuple(map(by_text.__getitem__, high_tokens)), tuple(map(by_text.__getitem__, low_tokens))
    except KeyError:
        return None
    if len({*high_tokens, *low_tokens}) != 7:
        return None
    return chosen


def _player_set(
    problems: Problems, path: str, raw: Mapping[str, Any], cards: tuple[Card, ...]
) -> tuple[tuple[Card, ...], tuple[Card, ...]] | None:
    if raw.get("set") == "house_way" and "high" not in raw and "low" not in raw:
        return None
    if "set" in raw and raw["set"] != "house_way":
        problems.add(f"{path}.set", f"the only set by name is 'house_way', got {raw['set']!r}")
        return None
    if "high" not in raw or "low" not in raw:
        problems.add(path, "give both high and low, or set: house_way")
        return None
    known = _known_set(raw["high"], raw["low"], cards)
    if known is not None:
        return known
    high = _hand(problems, f"{path}.high", raw["high"])
    low = _hand(problems, f"{path}.low", raw["low"])
    if high is None or low is None:
        return None
    if len(high) != 5 or len(low) != 2:
        problems.add(path, f"a set is 5 high cards and 2 low cards, got {len(high)} and {len(low)}")
        return None
    if sorted(c.index for c in high + low) != sorted(c.index for c in cards):
        problems.add(path, "high and low must be the seat's seven cards")
        return None
    return high, low


def _start(problems: Problems, data: Mapping[str, Any], o: PaiGowOptions, table: TableConfig) -> tuple[str, int]:
    """The record's starting position (31.11): its method and value."""
    start = data.get("start")
    method, value = o["start_method"], 0
    if not isinstance(start, dict) or set(start) != {"method", "value"}:
        problems.add("$.start", 'must be {"method": "dice" or "rng", "value": N}')
    else:
        method, value = start["method"], start["value"]
        try:
            start_position(method, value, o["count_direction"], table.seats)
        except StartError as exc:
            problems.add("$.start", str(exc))
    return method, value


def _empty(
    problems: Problems, data: Mapping[str, Any], table: TableConfig, seated: set[int]
) -> dict[int, tuple[Card, ...]]:
    """The cards dealt to the positions without a wager (31.8: every position is dealt)."""
    empty: dict[int, tuple[Card, ...]] = {}
    raw_empty = data.get("empty", {})
    if not isinstance(raw_empty, dict):
        problems.add("$.empty", "must map seat numbers without a wager to the cards dealt there")
        raw_empty = {}
    for key, text in raw_empty.items():
        number = int(key) if str(key).isdigit() else 0
        if not 1 <= number <= table.seats or number in seated:
            problems.add(f"$.empty.{key}", "must be a seat of this table with no wager")
            continue
        cards = _hand(problems, f"$.empty.{key}", text)
        if cards is not None:
            empty[number] = cards
    return empty


def read_round(data: Mapping[str, Any], table: TableConfig, *, keep: bool = False) -> PaiGowRound:
    """Check a round record; raises ``RecordError`` listing all problems. A bad deal is not a
    problem of the record but a misdeal, recorded in the round.

    ``keep``: the table's reading of its own round when the dealer's hand is set, kept (one
    round's: the next replaces it) for the round's second reading at its settlement, where only
    the seats' sets are read again when nothing else of the record differs (compared as the JSON
    it is written as, exactly): what is read is what a reading in full reads, the same problems
    included; once read again, it is dropped."""
    global _KEPT_READING
    kept = _KEPT_READING  # one read: another thread's round replaces it at once
    if kept is not None and kept.table is table and data.get("dealer") == kept.dealer:
        again = _read_sets_again(data, kept)
        if again is not None:
            _KEPT_READING = None  # read again once: any later reading is in full
            return again
    rnd = _read_in_full(data, table)
    if keep:
        _KEPT_READING = _keep_reading(data, table, rnd)
    return rnd


_SET_KEYS = frozenset({"set", "high", "low", "foul"})
"""A seat's keys that write its set: what the table writes into its round record between its two
readings of it (the dealer's hand set; the settlement)."""


@quick_init
@dataclass(frozen=True, slots=True)
class _Reading:
    """A round record read without a problem nor a misdeal, kept for its second reading."""

    table: TableConfig
    dealer: object
    """The record's ``dealer``, compared first (another round's differs)."""
    unset: str
    """The record less its seats' sets, as JSON: compared exactly (types and order included)."""
    keys: frozenset[str]
    """The seats' keys (each the seat's number as the table writes it)."""
    seats: tuple[PaiGowSeat, ...]
    rnd: PaiGowRound


_KEPT_READING: _Reading | None = None
"""The table's reading of its round, kept for the settlement's (:func:`read_round`'s ``keep``):
dropped once used, replaced by the next round's."""


def _unset(data: Mapping[str, Any]) -> str | None:
    """``data`` less its seats' sets, as JSON; ``None`` when it is not a record read again from
    what was kept (a seat that is no object, or with a key of no seat, or a value JSON cannot hold)."""
    raw_seats = data.get("seats")
    if not isinstance(raw_seats, dict):
        return None
    seats: dict[object, object] = {}
    for key, raw in raw_seats.items():
        if not isinstance(raw, dict) or not raw.keys() <= _SEAT_KEYS:
            return None
        seats[key] = {k: v for k, v in raw.items() if k not in _SET_KEYS}
    try:
        return json.dumps({**data, "seats": seats}, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return None


def _keep_reading(data: Mapping[str, Any], table: TableConfig, rnd: PaiGowRound) -> _Reading | None:
    unset = _unset(data)
    keys = frozenset(str(s.seat) for s in rnd.seats)
    if rnd.misdeal or unset is None or data["seats"].keys() != keys:
        return None
    seats = tuple(PaiGowSeat(s.seat, s.wagers, s.cards, None, None) for s in rnd.seats)
    return _Reading(table, data.get("dealer"), unset, keys, seats, rnd)


def _read_sets_again(data: Mapping[str, Any], kept: _Reading) -> PaiGowRound | None:
    """``data`` read from ``kept`` where only its seats' sets differ from the record ``kept`` was
    read from (they are read here as :func:`_read_in_full` reads them, in the same order, with the
    same problems); ``None`` when anything else differs."""
    raw_seats = data.get("seats")
    if _unset(data) != kept.unset or not isinstance(raw_seats, dict) or raw_seats.keys() != kept.keys:
        return None
    problems = Problems()
    seats = []
    for base in kept.seats:
        path = f"$.seats.{base.seat}"
        raw = raw_seats[str(base.seat)]
        foul = problems.flag(path, raw, "foul")
        chosen = None if foul else _player_set(problems, path, raw, base.cards)
        high, low = chosen or (None, None)
        seats.append(PaiGowSeat(base.seat, dict(base.wagers), base.cards, high, low, foul))
    problems.raise_if_any()
    r = kept.rnd
    return PaiGowRound(tuple(seats), r.dealer, r.dealer_set, r.start, r.remaining, r.empty, r.misdeal)


def _read_in_full(data: Mapping[str, Any], table: TableConfig) -> PaiGowRound:
    """:func:`read_round`: every part of the record read and checked."""
    problems = Problems()
    o = pai_gow_options(table)
    method, value = _start(problems, data, o, table)
    remaining = data.get("remaining", 4)
    if isinstance(remaining, bool) or not isinstance(remaining, int) or remaining < 0:
        problems.add("$.remaining", f"the count of cards left after the deal, got {remaining!r}")
        remaining = 4
    raw_seats = [
        (rec, _hand(problems, f"{rec[1]}.cards", rec[2].get("cards")))
        for rec in read_seats(data, table, problems, _SEAT_KEYS)
    ]
    raw_dealer = data.get("dealer")
    dealer_set_raw: Mapping[str, Any] | None = None
    if isinstance(raw_dealer, dict):
        dealer_set_raw = raw_dealer
        dealer = _hand(problems, "$.dealer.cards", raw_dealer.get("cards"))
    else:
        dealer = _hand(problems, "$.dealer", raw_dealer)
    empty = _empty(problems, data, table, {rec[0] for rec, _ in raw_seats})
    hands = {f"seat {rec[0]}": cards for rec, cards in raw_seats if cards is not None}
    hands.update({f"seat {n} (no wager)": c for n, c in empty.items()})
    if dealer is not None:
        hands["dealer"] = dealer
    misdeal = tuple(misdeal_reasons(hands)) if not problems.items else ()
    seats = []
    for (number, path, raw, w), cards in raw_seats:
        if "pai_gow" not in w:
            problems.add(f"{path}.wagers", "missing the pai gow wager (11.15(b): the optional wagers go with it)")
        if "bonus" in w and w["bonus"] < o["bonus_minimum"]:
            problems.add(
                f"{path}.wagers.bonus",
                f"a bonus wager is at least {o['bonus_minimum']} cents (11.15(b)), got {w['bonus']}",
            )
        if cards is None:
            continue
        foul = problems.flag(path, raw, "foul")
        chosen = None if misdeal or foul else _player_set(problems, path, raw, cards)
        high, low = chosen or (None, None)
        seats.append(PaiGowSeat(number, w, cards, high, low, foul))  # w: a fresh dict (read_wagers)
    dealer_set = None
    if (
        dealer_set_raw is not None
        and dealer is not None
        and not misdeal
        and ("high" in dealer_set_raw or "low" in dealer_set_raw)
    ):
        dealer_set = _player_set(problems, "$.dealer", dealer_set_raw, dealer)
        if dealer_set and make_set(*dealer_set).foul:
            problems.add("$.dealer", "the dealer's set is a foul (the low hand outranks the high hand)")
    problems.raise_if_any()
    assert dealer is not None
    return PaiGowRound(tuple(seats), dealer, dealer_set, (method, value), remaining, empty, misdeal)


def round_record(rnd: PaiGowRound, table: str | None = None) -> dict[str, object]:
    """The round record (docs/round-record.md) of ``rnd``; ``read_round`` reads it back."""
    dealt = format_cards(rnd.dealer)
    dealer: str | dict[str, str] = dealt
    if rnd.dealer_set:
        dealer = {"cards": dealt, "high": format_cards(rnd.dealer_set[0]), "low": format_cards(rnd.dealer_set[1])}
    extra: dict[str, object] = {
        "start": {"method": rnd.start[0], "value": rnd.start[1]},
        "remaining": rnd.remaining,
        "dealer": dealer,
    }
    if rnd.empty:
        extra["empty"] = {str(n): format_cards(c) for n, c in sorted(rnd.empty.items())}
    return write_record("pai_gow", table, rnd.seats, **extra)


def commission(stake: int, percent: int, rounding: str) -> int:
    """The commission on a winning ``stake`` in cents, rounded ``down``, ``up`` or to the ``nearest`` cent (half up)."""
    raw = stake * percent
    if rounding == "up":
        return -(-raw // 100)
    if rounding == "nearest":
        return (raw + 50) // 100
    return raw // 100


@quick_init
@dataclass(frozen=True, slots=True)
class _Premium:
    """A seven-card hand's bonus category and best cards, its whole classification where a line
    of it may be paid, and its envy line, if any."""

    category: Category
    best: tuple[Card, ...]
    value: BonusValue | None
    """The whole classification (every line the hand qualifies for); ``None`` where no line of
    it is paid or shown: no bonus wager on the hand, no envy marker nor insurance on the table."""
    envy: int = 0
    line: Category | None = None
    """The envy table's line that pays this hand (its highest-paying one), if any."""

    @property
    def lines(self) -> BonusValue:
        """The whole classification, made for every hand a line of which may be paid."""
        assert self.value is not None, "a hand classified for its recall only"
        return self.value


_ROWS: dict[int, tuple[Paytable, dict[Category, PaytableRow]]] = {}
"""Each paytable's lines by category, made once while the paytable lives (every hand asks)."""


def _paying_row(value: BonusValue, table: Paytable) -> PaytableRow | None:
    """The one line of ``table`` that pays ``value``: its highest-paying qualifying line."""
    kept = _ROWS.get(id(table))
    if kept is None or kept[0] is not table:
        if len(_ROWS) > 64:
            _ROWS.clear()
        kept = _ROWS[id(table)] = (table, table.by_category())
    rows = kept[1]
    line = paying_line(value.qualifies, rows, key=lambda row: row.pays_more)
    return rows[line] if line is not None else None


def _classify(cards: tuple[Card, ...], envy_table: Paytable | None) -> _Premium:
    value = classify_bonus(cards, PAI_GOW)
    row = _paying_row(value, envy_table) if envy_table is not None else None
    return _Premium(value.category, value.best, value, (row.amount or 0) if row else 0, row.category if row else None)


def _shown(cards: tuple[Card, ...]) -> _Premium:
    """A hand's bonus category and best cards only, for its recall: no line of it is paid (no
    bonus wager on it, no envy marker nor insurance on the table: its envy line is never read)."""
    category, best = bonus_shown(cards, PAI_GOW)
    return _Premium(category, best, None)


def _line_cards(value: BonusValue, line: Category) -> tuple[Card, ...]:
    """The cards that make ``line`` in ``value``'s seven: its best cards when ``line`` is its
    category, else the strongest five of that category (a line paid below the hand's category:
    A-A-joker with a straight is paid as three of a kind, and its three aces are shown)."""
    if line is value.category or line not in FIVE_CARD_ORDER:
        return value.best
    fives = [evaluate_dealt(five, PAI_GOW) for five in combinations(value.cards, 5)]
    best = max((v for v in fives if v.category is line), key=lambda v: v.strength, default=None)
    return best.best if best is not None else value.best


def _announced(mine: _Premium, stake: int | None, bonus_table: Paytable | None) -> tuple[Category, tuple[Card, ...]]:
    """The line the dealer announces for a hand rearranged in (d)2, and its cards: the one its
    bonus wager is paid on; else (a premium hand) the one the envy is paid on; else its category.
    What the dealer is told and what is paid are always the same line."""
    value = mine.lines
    row = _paying_row(value, bonus_table) if stake is not None and bonus_table is not None else None
    line = row.category if row is not None else mine.line if mine.line is not None else value.category
    return line, _line_cards(value, line)


def _pai_gow_wager(stake: int, player: HandSet, dealer: HandSet, fouled: bool, o: Mapping[str, Any]) -> WagerResult:
    """(d)1: the pai gow wager, the same object for everything that decides it (kept in
    :data:`_KEPT_PAI_GOW`: a table settles the same few stakes and outcomes again and again)."""
    high, dealer_high = player.high.strength, dealer.high.strength  # hands compare by strength
    low, dealer_low = player.low.strength, dealer.low.strength
    percent: int = o["commission_percent"]
    rounding: str = o["commission_rounding"]
    key = (
        stake,
        fouled,
        high > dealer_high,
        low > dealer_low,
        high == dealer_high,
        low == dealer_low,
        percent,
        rounding,
    )
    found = _KEPT_PAI_GOW.get(key)
    if found is None:
        if len(_KEPT_PAI_GOW) >= 4096:
            _KEPT_PAI_GOW.clear()
            _KEPT_ACTIONS.clear()
        found = _KEPT_PAI_GOW[key] = _pai_gow_result(*key)
        _KEPT_ACTIONS[id(found)] = (found, actions_for([found]))
    return found


_KEPT_PAI_GOW: dict[tuple[int, bool, bool, bool, bool, bool, int, str], WagerResult] = {}
"""Pai gow wagers' results by stake and what decides them (a foul; which hands won, which tied;
the commission's percent and rounding)."""
_KEPT_ACTIONS: dict[int, tuple[WagerResult, tuple[Action, ...]]] = {}
"""The dealer's actions of each kept result, by its identity (:func:`_actions_of`)."""


def _actions_of(result: WagerResult) -> tuple[Action, ...]:
    """``actions_for([result])``, made once for a result of :func:`_pai_gow_wager` (a result a
    payout cap replaced is another object: its actions are made again)."""
    kept = _KEPT_ACTIONS.get(id(result))
    if kept is not None and kept[0] is result:
        return kept[1]
    return actions_for([result])


def _pai_gow_result(
    stake: int,
    fouled: bool,
    high_won: bool,
    low_won: bool,
    high_tie: bool,
    low_tie: bool,
    percent: int,
    rounding: str,
) -> WagerResult:
    if fouled:
        return WagerResult("pai_gow", stake, Result.LOSE, -stake, "foul: the low hand outranks the high hand (forfeit)")
    copies = [name for name, tie in (("high", high_tie), ("low", low_tie)) if tie]
    copy_note = f"; copy on the {' and '.join(copies)} hand goes to the banker" if copies else ""
    if high_won and low_won:
        fee = commission(stake, percent, rounding)
        why = f"both hands win: even money less {percent}% commission"
        return WagerResult("pai_gow", stake, Result.WIN, stake - fee, why, commission=fee)
    if high_won or low_won:
        return WagerResult("pai_gow", stake, Result.PUSH, 0, f"one hand wins, one loses: push{copy_note}")
    return WagerResult("pai_gow", stake, Result.LOSE, -stake, f"both hands lose{copy_note}")


@quick_init
@dataclass(frozen=True, slots=True)
class _Round:
    """What the steps of one round's settlement share: the options, the house way, the dealer's
    set, the optional wagers' paytables, the envy markers and every hand's premium status."""

    options: Mapping[str, Any]
    way: HouseWay
    dealer: Decision
    bonus: Paytable | None
    envy: Paytable | None
    insurance: Paytable | None
    markers: frozenset[int]
    """Seats with an envy marker (a bonus wager of at least ``envy_minimum``)."""
    keep_all: bool
    """(d)1ii: every hand stays on the layout (an envy marker or an insurance wager on the table)."""
    premium: Mapping[int, _Premium]
    dealer_premium: _Premium | None
    caps: PayoutCaps
    """The table's payout caps on the optional wagers."""
    shown: Mapping[str, object]
    """The dealer's set in words (:meth:`Decision.to_json`), made once: read by the dealer's step
    and by the settlement's dealer (each makes a dict of its own from it)."""
    dealer_step: Step
    """The dealer's hand exposed and set (the first step of the procedure), made once: the table
    shows it when the dealer's hand is set, and the settlement's procedure begins with it."""


def _round(rnd: PaiGowRound, table: TableConfig, o: Mapping[str, Any]) -> _Round:
    """The shared part of a round's settlement: the dealer's hand set by the house way
    (11.15(d), digest 3.5) unless the record gives it, and each hand classified for the bonus."""
    way = house_way(o["house_way"])
    if rnd.dealer_set:
        dealer = Decision(make_set(*rnd.dealer_set), "given", "set as recorded")
    else:
        dealer = way.set(rnd.dealer, o)
    envy = table.paytables.get("envy")
    markers = frozenset(s.seat for s in rnd.seats if s.wagers.get("bonus", 0) >= o["envy_minimum"] and envy is not None)
    keep_all = bool(markers) or any("insurance" in s.wagers for s in rnd.seats)
    shown = dealer.to_json()
    return _Round(
        options=o,
        way=way,
        dealer=dealer,
        bonus=table.paytables.get("bonus"),
        envy=envy,
        insurance=table.paytables.get("insurance"),
        markers=markers,
        keep_all=keep_all,
        # a hand's lines are read for its bonus wager, and (an envy marker or insurance on the
        # table) for the envy, the premium steps and the announcement of (d)2
        premium={
            s.seat: _classify(s.cards, envy) if keep_all or "bonus" in s.wagers else _shown(s.cards) for s in rnd.seats
        },
        dealer_premium=_classify(rnd.dealer, envy) if o["envy_includes_dealer"] and markers else None,
        caps=PayoutCaps.of(table.paytables, _PAID_BY, table.payout_cap),
        shown=shown,
        dealer_step=_dealer_step(dealer.rule, shown),
    )


_LAST_ROUND: tuple[tuple[PaiGowRound, tuple[object, ...]] | None, _Round | None] = (None, None)
"""The last round's shared part, with the round and what of its table it was made from (the
options, the three paytables, the payout cap), compared with the next on what :func:`_round`
reads (one entry: the table reads its round's shared part when the dealer's hand is set and again
at the settlement, with only the players' sets changed between, which it does not read)."""


def _round_once(rnd: PaiGowRound, table: TableConfig, o: Mapping[str, Any]) -> _Round:
    """:func:`_round`, made again only when something it reads differs from the last round's:
    the options, the three paytables and the payout cap, the dealer's cards and set, and each
    seat's cards, bonus stake and insurance (the cards are the deck's own objects: compared by
    identity first)."""
    global _LAST_ROUND
    p = table.paytables
    facts = (o, p.get("bonus"), p.get("envy"), p.get("insurance"), table.payout_cap)
    last_key, last = _LAST_ROUND  # one read: another thread's round replaces both at once
    if last is not None and last_key is not None:
        last_rnd, last_facts = last_key
        # the dealer's cards first: another round's differ, and then nothing else is compared
        if (
            last_rnd.dealer == rnd.dealer
            and last_facts == facts
            and last_rnd.dealer_set == rnd.dealer_set
            and _read_of_seats(last_rnd) == _read_of_seats(rnd)
        ):
            return last
    shared = _round(rnd, table, o)
    _LAST_ROUND = ((rnd, facts), shared)
    return shared


def _read_of_seats(rnd: PaiGowRound) -> list[tuple[object, ...]]:
    """What :func:`_round` reads of each seat: its number, cards, bonus stake and insurance."""
    return [(s.seat, s.cards, s.wagers.get("bonus", 0), "insurance" in s.wagers) for s in rnd.seats]


@quick_init
@dataclass(frozen=True, slots=True)
class KnownSets:
    """What the table already knows of one seat's sets: the set the dealer recorded (``None``: a
    foul, or not recorded yet) and the house way's set of its seven cards (``None``: not made
    yet). The settlement plays these rather than ranking the same cards again; a set whose cards
    are not the seat's is not used."""

    chosen: HandSet | None = None
    house: HandSet | None = None


_NOTHING_KNOWN = KnownSets()


def _seat_set(
    seat: PaiGowSeat, r: _Round, hands: dict[str, Mapping[str, str]], known: KnownSets = _NOTHING_KNOWN
) -> tuple[HandSet, bool]:
    """The set a seat's pai gow wager plays, and whether it is a foul that forfeits (a foul is
    set again by the house way under ``foul_policy: reset_by_house_way``, noted in ``hands``);
    the sets in ``known`` are played as they are (the same cards ranked give the same set)."""
    o = r.options
    if seat.foul:
        chosen, fouled = _house_set(seat, r, known), True
        if o["foul_policy"] == "reset_by_house_way":
            fouled = False
            hands["reset"] = {"why": "foul reset by the house way"}
    elif seat.high is not None and seat.low is not None:
        given = known.chosen
        if given is not None and given.high.cards == seat.high and given.low.cards == seat.low:
            chosen = given
        else:
            chosen = set_dealt(seat.high, seat.low)
        fouled = chosen.foul
        if fouled and o["foul_policy"] == "reset_by_house_way":
            chosen, fouled = _house_set(seat, r, known), False
            hands["reset"] = {"why": "foul reset by the house way"}
    else:
        chosen, fouled = _house_set(seat, r, known), False
    return chosen, fouled


def _house_set(seat: PaiGowSeat, r: _Round, known: KnownSets) -> HandSet:
    """The house way's set of ``seat``'s cards: the one ``known`` gives when it is of these cards."""
    house = known.house
    if house is not None and sorted(c.index for c in (*house.high.cards, *house.low.cards)) == sorted(
        c.index for c in seat.cards
    ):
        return house
    return r.way.set(seat.cards, r.options).set


def _bonus_result(stake: int, mine: _Premium, bonus_table: Paytable) -> WagerResult:
    """(d)2i, ii: the bonus wager, paid once at the highest-paying line the seven cards make."""
    row = _paying_row(mine.lines, bonus_table)
    if row is None:
        why = f"{hand_name(mine.category.value)} does not qualify"
        return WagerResult("bonus", stake, Result.LOSE, -stake, why)
    return WagerResult("bonus", stake, Result.WIN, row.odds.payout(stake), f"{row.describe()} (highest-paying line)")


def _insurance_result(
    stake: int, cards: tuple[Card, ...], insurance_table: Paytable, hands: dict[str, Mapping[str, str]]
) -> WagerResult:
    """(d)2: pai gow insurance, won on a pai gow (no pair, straight or flush; the joker only an ace)."""
    gow, top = is_pai_gow(cards)
    row = insurance_table.row_for_rank(Category.HIGH_CARD, top) if gow else None
    hands["insurance"] = {"pai_gow": "yes" if gow else "no"}
    if row is None or row.odds.push:
        why = (
            "a pai gow with no paying line"
            if gow
            else "not a pai gow (a pair, straight or flush; the joker only an ace)"
        )
        return WagerResult("insurance", stake, Result.LOSE, -stake, why)
    return WagerResult("insurance", stake, Result.WIN, row.odds.payout(stake), f"pai gow, {row.describe()}")


def _envy_result(seat: PaiGowSeat, r: _Round) -> WagerResult | None:
    """(d)3i: a marker's envy bonus, the envy amount for each other premium hand (the dealer's
    only with ``envy_includes_dealer``); ``None`` when there is none to pay."""
    others = [(f"seat {s}", p) for s, p in r.premium.items() if s != seat.seat and p.envy]
    if r.dealer_premium is not None and r.dealer_premium.envy:
        others.append(("dealer", r.dealer_premium))
    total = sum(p.envy for _, p in others)
    if not total:
        return None
    why = "envy: " + ", ".join(f"{who} {hand_name((p.line or p.category).value)}" for who, p in others)
    return WagerResult("envy", 0, Result.WIN, total, why)


def _seat_settlement(
    seat: PaiGowSeat, r: _Round, table: TableConfig, known: KnownSets = _NOTHING_KNOWN
) -> SeatSettlement:
    """Every wager of one seat settled, its payout caps applied, and its hands as recall shows
    them (the sets in ``known``: what the table has already ranked of this seat's cards)."""
    w = seat.wagers
    hands: dict[str, Mapping[str, str]] = {}
    chosen, fouled = _seat_set(seat, r, hands, known)
    hands["set"] = chosen.to_json()
    wagers = [_pai_gow_wager(w["pai_gow"], chosen, r.dealer.set, fouled, r.options)]
    mine = r.premium[seat.seat]
    hands["bonus"] = {"category": mine.category._value_, "best": format_cards(mine.best)}
    if "bonus" in w and r.bonus is not None:
        wagers.append(_bonus_result(w["bonus"], mine, r.bonus))
    if "insurance" in w and r.insurance is not None:
        wagers.append(_insurance_result(w["insurance"], seat.cards, r.insurance, hands))
    if seat.seat in r.markers:
        envy = _envy_result(seat, r)
        if envy is not None:
            wagers.append(envy)
    capped, caps = r.caps.apply(wagers)
    return SeatSettlement(seat.seat, tuple(capped), hands, caps)


_LAST_SEATS: tuple[_Round | None, dict[int, tuple[PaiGowSeat, SeatSettlement, int | None, _Steps]]] = (None, {})
"""The seats settled with the last shared part, by seat number, each with the seat and the payout
cap it was settled with (everything :func:`_seat_settlement` reads besides it) and its part of
each step (the table shows each seat's pai gow step as its hand is turned, and settles the round
at its end: each seat, and its steps, once)."""


def _seat_once(
    seat: PaiGowSeat, r: _Round, table: TableConfig, known: KnownSets = _NOTHING_KNOWN
) -> tuple[SeatSettlement, _Steps]:
    """:func:`_seat_settlement` and the seat's part of each step (:meth:`_Steps.add_seat`: read,
    never changed), made again only for a seat, a shared part (the same object: kept by
    :func:`_round_once`) or a payout cap they were not made for (the paytables whose caps apply
    are the shared part's own); ``known`` is not part of the key (a known set is the set the same
    cards rank as)."""
    global _LAST_SEATS
    shared, seats = _LAST_SEATS  # one read: another thread's round replaces both at once
    if shared is not r:  # another round: nothing kept is its
        seats = {}
        _LAST_SEATS = (r, seats)
    else:
        kept = seats.get(seat.seat)
        # compared, not hashed: the same cards are the same objects (the deck's own), equal at once
        if kept is not None and kept[2] == table.payout_cap and kept[0] == seat:
            return kept[1], kept[3]
    settled = _seat_settlement(seat, r, table, known)
    steps = _Steps()
    steps.add_seat(seat, settled, r)
    seats[seat.seat] = (seat, settled, table.payout_cap, steps)
    return settled, steps


@quick_init
@dataclass(frozen=True, slots=True)
class _Steps:
    """The dealer's steps of 11.15(d), each list in the order the seats are settled."""

    pai_gow: list[Step] = field(default_factory=list)
    """(d)1: each pai gow wager and its commission."""
    bonus_insurance: list[Step] = field(default_factory=list)
    """(d)2: hands rearranged for the bonus and insurance."""
    envy: list[Step] = field(default_factory=list)
    """(d)3i, ii: envy payments and markers, the bonus on each premium hand."""
    premium_cards: list[Step] = field(default_factory=list)
    """(d)3iii: premium hands without a bonus wager."""
    kept: list[Step] = field(default_factory=list)
    """Cards kept on the layout only by another seat's insurance (our step: collected last)."""

    def add_seat(self, seat: PaiGowSeat, settled: SeatSettlement, r: _Round) -> None:
        """One seat's part of each step."""
        w = seat.wagers
        by_spot = {x.spot: x for x in settled.wagers}
        mine = r.premium[seat.seat]
        is_premium = mine.envy > 0
        keep = "bonus" in w or r.keep_all  # (d)1i, ii: the cards stay on the layout until (d)2 or 3
        hand_set = settled.hands["set"]
        note = f"high {hand_set['high']} / low {hand_set['low']}"
        after = "cards stay on the layout" if keep else DISCARD
        self.pai_gow.append(Step("pai_gow", seat.seat, _actions_of(by_spot["pai_gow"]), note, after))
        if "bonus" in w or "insurance" in w or bool(r.markers):  # (d)2: rearranged to the best hand
            now = [by_spot[k] for k in ("bonus", "insurance") if k in by_spot and not (k == "bonus" and is_premium)]
            line, cards = _announced(mine, w.get("bonus"), r.bonus)
            best = f"best hand {hand_name(line.value)} ({format_cards(cards)})"
            if is_premium:  # (d)2iii: announced, left face up (with its bonus wager) for (d)3
                left = " with its bonus wager" if "bonus" in w else ""
                then = f"premium hand: announce it, leave it face up{left}"
                self.bonus_insurance.append(Step("bonus_insurance", seat.seat, actions_for(now), best, then))
            else:  # (d)2i, ii
                self.bonus_insurance.append(Step("bonus_insurance", seat.seat, actions_for(now), best, DISCARD))
        elif keep and not is_premium:  # kept on the layout by another seat's insurance (d)1ii; no step of
            # 11.15 says when these cards go: collected last, after (d)3iii
            self.kept.append(Step("cards", seat.seat, (), "", DISCARD))
        if seat.seat in r.markers:  # (d)3i: pay the envy bonus, then collect the marker
            envy = [by_spot["envy"]] if "envy" in by_spot else []
            paid = "envy bonus" if envy else "envy bonus: none to pay"
            self.envy.append(Step("envy", seat.seat, actions_for(envy), paid, "collect the envy marker"))
        if is_premium and "bonus" in w:  # (d)3ii: pay the bonus on the premium hand, then its cards go
            self.envy.append(Step("premium", seat.seat, actions_for([by_spot["bonus"]]), "premium hand", DISCARD))
        if is_premium and "bonus" not in w and r.keep_all:  # (d)3iii: only cards (d)1ii kept on the layout
            self.premium_cards.append(Step("premium_cards", seat.seat, (), "premium hand, no bonus wager", DISCARD))

    def extend(self, seat: _Steps) -> None:
        """A seat's part of each step (:meth:`add_seat`'s), after the seats before it."""
        self.pai_gow.extend(seat.pai_gow)
        self.bonus_insurance.extend(seat.bonus_insurance)
        self.envy.extend(seat.envy)
        self.premium_cards.extend(seat.premium_cards)
        self.kept.extend(seat.kept)

    def procedure(self, dealer: Step) -> tuple[Step, ...]:
        """The whole procedure: the dealer's hand, then (d)1, (d)2, (d)3 and the cards left."""
        return (dealer, *self.pai_gow, *self.bonus_insurance, *self.envy, *self.premium_cards, *self.kept)


class RoundSettler:
    """One checked pai gow round's settlement, its shared part (the dealer's set by the house way,
    every hand's bonus and envy status: what does not depend on any player's set) computed once.
    :func:`settle` settles through it; the table keeps one a round and reads from it the steps it
    shows as each hand is turned (the dealer's set, each seat's pai gow wager), each seat settled
    with the set the dealer recorded for it."""

    def __init__(self, rnd: PaiGowRound, table: TableConfig) -> None:
        self.rnd, self.table = rnd, table
        self.options = pai_gow_options(table)
        self.shared: _Round | None = None if rnd.misdeal else _round_once(rnd, table, self.options)
        """``None`` for a misdeal (every hand void: no dealer's set, no seat's step)."""

    def dealer_step(self) -> Step | None:
        """The dealer's hand exposed and set by the house way (11.9, 11.15(d))."""
        if self.shared is None:
            return None
        return self.shared.dealer_step

    def pai_gow_step(self, seat: PaiGowSeat, known: KnownSets = _NOTHING_KNOWN) -> Step | None:
        """(d)1: ``seat``'s pai gow wager and its commission, settled with the set ``seat`` gives
        (the step :func:`settle` shows for it: the other seats' sets do not change it); ``known``:
        the sets of ``seat``'s cards the table has ranked already (not ranked again)."""
        if self.shared is None:
            return None
        return _seat_once(seat, self.shared, self.table, known)[1].pai_gow[0]

    def settle(self) -> Settlement:
        """The whole round settled."""
        rnd, table, o = self.rnd, self.table, self.options
        order = sorted(rnd.seats, key=_right_first)  # counterclockwise from the dealer's right
        position = start_position(*rnd.start, o["count_direction"], table.seats)
        start = {"method": rnd.start[0], "value": rnd.start[1], "first_hand": position_name(position)}
        if self.shared is None:
            return _void(rnd, table, order, start)
        r = self.shared
        steps = _Steps()
        settled: dict[int, SeatSettlement] = {}
        for seat in order:
            settled[seat.seat], part = _seat_once(seat, r, table)
            steps.extend(part)
        return settlement_for(
            "pai_gow",
            table,
            settled,
            steps.procedure(r.dealer_step),
            {"cards": format_cards(rnd.dealer), **r.shown, "start": start},
        )


def _dealer_step(rule: str, shown: Mapping[str, object]) -> Step:
    """The dealer's hand exposed and set by the house way ``rule`` (``shown``: the set's
    :meth:`~controller.hands.paigow.HandSet.to_json`)."""
    return Step("dealer", None, (), f"house way {hand_name(rule)}: high {shown['high']} / low {shown['low']}")


def _right_first(seat: PaiGowSeat) -> int:
    """Sort key: the highest seat number first."""
    return -seat.seat


def settle(rnd: PaiGowRound, table: TableConfig) -> Settlement:
    """Settle a checked pai gow round under ``table``'s house way, paytables and options."""
    return RoundSettler(rnd, table).settle()


def _void(rnd: PaiGowRound, table: TableConfig, order: list[PaiGowSeat], start: Mapping[str, object]) -> Settlement:
    why = "misdeal: " + "; ".join(rnd.misdeal)
    seats = {
        s.seat: SeatSettlement(s.seat, tuple(WagerResult(k, v, Result.RETURNED, 0, why) for k, v in s.wagers.items()))
        for s in rnd.seats
    }
    procedure = [Step("misdeal", None, (), why + "; every hand is void")]
    procedure += [Step("misdeal", s.seat, actions_for(seats[s.seat].wagers)) for s in order]
    return settlement_for(
        "pai_gow",
        table,
        seats,
        tuple(procedure),
        {"cards": format_cards(rnd.dealer), "misdeal": list(rnd.misdeal), "start": dict(start)},
    )


SPEC = GameSpec(
    name="pai_gow",
    read_round=read_round,
    settle=settle,
    round_record=round_record,
    top_keys=frozenset({"game", "table", "table_sha256", "seats", "dealer", "start", "remaining", "empty", "recall"}),
    par="controller.par.sheets:pai_gow_sheet",
    par_needs="controller.par.service:pai_gow_needs",
    par_options=(
        "house_way",
        "commission_percent",
        "house_way_deuces_exception",
        "envy_minimum",
        "envy_includes_dealer",
    ),
)
"""pai_gow's :class:`GameSpec` (registered in :data:`controller.game.record._spec.SPECS`)."""
