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

A misdeal (digest 3.4, 31.14) voids every hand and returns every wager.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.cards import Card, CardError, format_cards, parse_cards
from controller.game_options import pai_gow_options
from controller.games.house_way import Decision, house_way
from controller.games.pai_gow_deal import StartError, misdeal_reasons, position_name, start_position
from controller.games.record import Problems, read_seats, write_record
from controller.games.spec import GameSpec
from controller.hands import PAI_GOW, BonusValue, Category, classify_bonus, paying_line
from controller.hands.paigow import HandSet, is_pai_gow, make_set
from controller.names import hand_name
from controller.paytables import Paytable, PaytableRow
from controller.settlement import (
    DISCARD,
    Result,
    SeatSettlement,
    Settlement,
    Step,
    WagerResult,
    actions_for,
    apply_caps,
    settlement_for,
)
from controller.table_config import TableConfig

__all__ = ["SPEC", "PaiGowSeat", "PaiGowRound", "read_round", "settle", "round_record", "commission"]

_SEAT_KEYS = {"wagers", "cards", "high", "low", "set", "foul"}
_PAID_BY = {"bonus": ["bonus"], "envy": ["envy"], "insurance": ["insurance"]}


@dataclass(frozen=True, slots=True)
class PaiGowSeat:
    """One player's round: wagers, the seven cards, and the set (``None``: set by the house way)."""

    seat: int
    wagers: Mapping[str, int]
    cards: tuple[Card, ...]
    high: tuple[Card, ...] | None
    low: tuple[Card, ...] | None
    foul: bool = False
    """The dealer found the player's set a foul (the table marks it; the set itself is not kept)."""

    def to_record(self) -> dict[str, Any]:
        """This seat as written in a round record."""
        out: dict[str, Any] = {"wagers": dict(self.wagers), "cards": format_cards(self.cards)}
        if self.foul:
            out["foul"] = True
        elif self.high is None or self.low is None:
            out["set"] = "house_way"
        else:
            out["high"], out["low"] = format_cards(self.high), format_cards(self.low)
        return out


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


def read_round(data: Mapping[str, Any], table: TableConfig) -> PaiGowRound:
    """Check a round record; raises ``RecordError`` listing all problems. A bad deal is not a
    problem of the record but a misdeal, recorded in the round."""
    problems = Problems()
    o = pai_gow_options(table)
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
    remaining = data.get("remaining", 4)
    if isinstance(remaining, bool) or not isinstance(remaining, int) or remaining < 0:
        problems.add("$.remaining", f"the count of cards left after the deal, got {remaining!r}")
        remaining = 4
    raw_seats = [
        (rec, _hand(problems, f"{rec.path}.cards", rec.raw.get("cards")))
        for rec in read_seats(data, table, problems, _SEAT_KEYS)
    ]
    raw_dealer = data.get("dealer")
    dealer_set_raw: Mapping[str, Any] | None = None
    if isinstance(raw_dealer, dict):
        dealer_set_raw = raw_dealer
        dealer = _hand(problems, "$.dealer.cards", raw_dealer.get("cards"))
    else:
        dealer = _hand(problems, "$.dealer", raw_dealer)
    empty: dict[int, tuple[Card, ...]] = {}
    raw_empty = data.get("empty", {})
    if not isinstance(raw_empty, dict):
        problems.add("$.empty", "must map seat numbers without a wager to the cards dealt there")
        raw_empty = {}
    seated = {rec.seat for rec, _ in raw_seats}
    for key, text in raw_empty.items():
        number = int(key) if str(key).isdigit() else 0
        if not 1 <= number <= table.seats or number in seated:
            problems.add(f"$.empty.{key}", "must be a seat of this table with no wager")
            continue
        cards = _hand(problems, f"$.empty.{key}", text)
        if cards is not None:
            empty[number] = cards
    hands = {f"seat {rec.seat}": cards for rec, cards in raw_seats if cards is not None}
    hands.update({f"seat {n} (no wager)": c for n, c in empty.items()})
    if dealer is not None:
        hands["dealer"] = dealer
    misdeal = tuple(misdeal_reasons(hands, remaining)) if not problems.items else ()
    seats = []
    for rec, cards in raw_seats:
        w, path = rec.wagers, rec.path
        if "pai_gow" not in w:
            problems.add(f"{path}.wagers", "missing the pai gow wager (11.15(b): the optional wagers go with it)")
        if "bonus" in w and w["bonus"] < o["bonus_minimum"]:
            problems.add(
                f"{path}.wagers.bonus",
                f"a bonus wager is at least {o['bonus_minimum']} cents (11.15(b)), got {w['bonus']}",
            )
        if cards is None:
            continue
        foul = problems.flag(path, rec.raw, "foul")
        chosen = None if misdeal or foul else _player_set(problems, path, rec.raw, cards)
        high, low = chosen or (None, None)
        seats.append(PaiGowSeat(rec.seat, dict(w), cards, high, low, foul=foul))
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


def round_record(rnd: PaiGowRound, table: str | None = None) -> dict[str, Any]:
    """The round record (docs/round-record.md) of ``rnd``; ``read_round`` reads it back."""
    dealer: Any = format_cards(rnd.dealer)
    if rnd.dealer_set:
        dealer = {"cards": dealer, "high": format_cards(rnd.dealer_set[0]), "low": format_cards(rnd.dealer_set[1])}
    extra: dict[str, Any] = {
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


@dataclass(frozen=True, slots=True)
class _Premium:
    """A seven-card hand's bonus classification and its envy line, if any."""

    value: BonusValue
    envy: int


def _paying_row(value: BonusValue, table: Paytable) -> PaytableRow | None:
    """The one line of ``table`` that pays ``value``: its highest-paying qualifying line."""
    rows = table.by_category()
    line = paying_line(value.qualifies, rows, key=lambda row: row.pays_more)
    return rows[line] if line is not None else None


def _classify(cards: tuple[Card, ...], envy_table: Paytable | None) -> _Premium:
    value = classify_bonus(cards, PAI_GOW)
    row = _paying_row(value, envy_table) if envy_table is not None else None
    return _Premium(value, (row.amount or 0) if row else 0)


def _pai_gow_wager(stake: int, player: HandSet, dealer: HandSet, fouled: bool, o: Mapping[str, Any]) -> WagerResult:
    if fouled:
        return WagerResult("pai_gow", stake, Result.LOSE, -stake, "foul: the low hand outranks the high hand (forfeit)")
    high_won = player.high > dealer.high
    low_won = player.low > dealer.low
    copies = [
        name
        for name, mine, theirs in (("high", player.high, dealer.high), ("low", player.low, dealer.low))
        if mine == theirs
    ]
    copy_note = f"; copy on the {' and '.join(copies)} hand goes to the banker" if copies else ""
    if high_won and low_won:
        fee = commission(stake, o["commission_percent"], o["commission_rounding"])
        why = f"both hands win: even money less {o['commission_percent']}% commission"
        return WagerResult("pai_gow", stake, Result.WIN, stake - fee, why, commission=fee)
    if high_won or low_won:
        return WagerResult("pai_gow", stake, Result.PUSH, 0, f"one hand wins, one loses: push{copy_note}")
    return WagerResult("pai_gow", stake, Result.LOSE, -stake, f"both hands lose{copy_note}")


def settle(rnd: PaiGowRound, table: TableConfig) -> Settlement:
    """Settle a checked pai gow round under ``table``'s house way, paytables and options."""
    o = pai_gow_options(table)
    order = sorted(rnd.seats, key=lambda s: -s.seat)  # counterclockwise from the dealer's right
    position = start_position(*rnd.start, o["count_direction"], table.seats)
    start = {"method": rnd.start[0], "value": rnd.start[1], "first_hand": position_name(position)}
    if rnd.misdeal:
        return _void(rnd, table, order, start)
    way = house_way(o["house_way"])
    if rnd.dealer_set:
        dealer_decision = Decision(make_set(*rnd.dealer_set), "given", "set as recorded")
    else:
        dealer_decision = way.set(rnd.dealer, dict(o))
    dealer = dealer_decision.set
    bonus_table, envy_table, insurance_table = (table.paytables.get(k) for k in ("bonus", "envy", "insurance"))
    envy_min = o["envy_minimum"]
    markers = {s.seat for s in rnd.seats if s.wagers.get("bonus", 0) >= envy_min and envy_table is not None}
    any_big_bonus = bool(markers)
    keep_all = any_big_bonus or any("insurance" in s.wagers for s in rnd.seats)
    premium = {s.seat: _classify(s.cards, envy_table) for s in rnd.seats}
    dealer_premium = _classify(rnd.dealer, envy_table) if o["envy_includes_dealer"] else None
    steps: dict[str, list[Step]] = {"pai_gow": [], "bonus_insurance": [], "envy": [], "premium_cards": [], "kept": []}
    settled: dict[int, SeatSettlement] = {}
    for seat in order:
        w = seat.wagers
        hands: dict[str, Mapping[str, str]] = {}
        if seat.foul:
            chosen, fouled = way.set(seat.cards, dict(o)).set, True
            if o["foul_policy"] == "reset_by_house_way":
                fouled = False
                hands["reset"] = {"why": "foul reset by the house way"}
        elif seat.high is not None and seat.low is not None:
            chosen = make_set(seat.high, seat.low)
            fouled = chosen.foul
            if fouled and o["foul_policy"] == "reset_by_house_way":
                chosen, fouled = way.set(seat.cards, dict(o)).set, False
                hands["reset"] = {"why": "foul reset by the house way"}
        else:
            chosen, fouled = way.set(seat.cards, dict(o)).set, False
        hands["set"] = chosen.to_json()
        wagers = [_pai_gow_wager(w["pai_gow"], chosen, dealer, fouled, o)]
        mine = premium[seat.seat]
        hands["bonus"] = {"category": mine.value.category.value, "best": format_cards(mine.value.best)}
        is_premium = mine.envy > 0
        if "bonus" in w and bonus_table is not None:
            row = _paying_row(mine.value, bonus_table)
            if row is None:
                wagers.append(
                    WagerResult(
                        "bonus",
                        w["bonus"],
                        Result.LOSE,
                        -w["bonus"],
                        f"{hand_name(mine.value.category.value)} does not qualify",
                    )
                )
            else:
                wagers.append(
                    WagerResult(
                        "bonus",
                        w["bonus"],
                        Result.WIN,
                        row.odds.payout(w["bonus"]),
                        f"{row.describe()} (highest-paying line)",
                    )
                )
        if "insurance" in w and insurance_table is not None:
            gow, top = is_pai_gow(seat.cards)
            row = insurance_table.row_for_rank(Category.HIGH_CARD, top) if gow else None
            hands["insurance"] = {"pai_gow": "yes" if gow else "no"}
            if row is None or row.odds.push:
                why = (
                    "a pai gow with no paying line"
                    if gow
                    else "not a pai gow (a pair, straight or flush; the joker only an ace)"
                )
                wagers.append(WagerResult("insurance", w["insurance"], Result.LOSE, -w["insurance"], why))
            else:
                wagers.append(
                    WagerResult(
                        "insurance",
                        w["insurance"],
                        Result.WIN,
                        row.odds.payout(w["insurance"]),
                        f"pai gow, {row.describe()}",
                    )
                )
        if seat.seat in markers:
            others = [(f"seat {s}", p) for s, p in premium.items() if s != seat.seat and p.envy]
            if dealer_premium is not None and dealer_premium.envy:
                others.append(("dealer", dealer_premium))
            total = sum(p.envy for _, p in others)
            if total:
                why = "envy: " + ", ".join(f"{who} {hand_name(p.value.category.value)}" for who, p in others)
                wagers.append(WagerResult("envy", 0, Result.WIN, total, why))
        wagers, caps = apply_caps(wagers, table.paytables, _PAID_BY, table.payout_cap)
        settled[seat.seat] = SeatSettlement(seat.seat, tuple(wagers), hands, caps)
        by_spot = {x.spot: x for x in wagers}
        keep = "bonus" in w or keep_all  # (d)1i, ii: the cards stay on the layout until (d)2 or 3
        note = f"high {hands['set']['high']} / low {hands['set']['low']}"
        after = "cards stay on the layout" if keep else DISCARD
        steps["pai_gow"].append(Step("pai_gow", seat.seat, actions_for([by_spot["pai_gow"]]), note, after))
        rearranged = "bonus" in w or "insurance" in w or any_big_bonus  # (d)2
        if rearranged:
            now = [by_spot[k] for k in ("bonus", "insurance") if k in by_spot and not (k == "bonus" and is_premium)]
            best = f"best hand {hand_name(mine.value.category.value)} ({format_cards(mine.value.best)})"
            if is_premium:  # (d)2iii: announced, left face up (with its bonus wager) for (d)3
                left = " with its bonus wager" if "bonus" in w else ""
                steps["bonus_insurance"].append(
                    Step(
                        "bonus_insurance",
                        seat.seat,
                        actions_for(now),
                        best,
                        f"premium hand: announce it, leave it face up{left}",
                    )
                )
            else:  # (d)2i, ii
                steps["bonus_insurance"].append(Step("bonus_insurance", seat.seat, actions_for(now), best, DISCARD))
        elif keep and not is_premium:  # kept on the layout by another seat's insurance (d)1ii; no step of
            # 11.15 says when these cards go: collected last, after (d)3iii
            steps["kept"].append(Step("cards", seat.seat, (), "", DISCARD))
        if seat.seat in markers:  # (d)3i: pay the envy bonus, then collect the marker
            envy = [by_spot["envy"]] if "envy" in by_spot else []
            paid = "envy bonus" if envy else "envy bonus: none to pay"
            steps["envy"].append(Step("envy", seat.seat, actions_for(envy), paid, "collect the envy marker"))
        if is_premium and "bonus" in w:  # (d)3ii: pay the bonus on the premium hand, then its cards go
            steps["envy"].append(Step("premium", seat.seat, actions_for([by_spot["bonus"]]), "premium hand", DISCARD))
        if is_premium and "bonus" not in w and keep_all:  # (d)3iii: only cards (d)1ii kept on the layout
            steps["premium_cards"].append(Step("premium_cards", seat.seat, (), "premium hand, no bonus wager", DISCARD))
    dealer_step = Step(
        "dealer",
        None,
        (),
        f"house way {hand_name(dealer_decision.rule)}: high {format_cards(dealer.high.best)} / low {format_cards(dealer.low.best)}",
    )
    procedure = (
        dealer_step,
        *steps["pai_gow"],
        *steps["bonus_insurance"],
        *steps["envy"],
        *steps["premium_cards"],
        *steps["kept"],
    )
    return settlement_for(
        "pai_gow",
        table,
        settled,
        procedure,
        {"cards": format_cards(rnd.dealer), **dealer_decision.to_json(), "start": start},
    )


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
"""pai_gow's :class:`GameSpec` (registered in :data:`controller.games.spec.SPECS`)."""
