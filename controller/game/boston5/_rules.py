"""Boston 5 stud poker settlement (N.J.A.C. 13:69F-24.10): pure rules, no I/O.

Order of settlement, as 24.10 lays it down:

1. (a) Optional bonus wagers, on each player's first three cards: losing bonus wagers (not
   exposed, or exposed but not a paying hand) are collected, then winning ones paid.
2. (b) Each player places a second wager equal to the first or folds; a fold forfeits the
   ante and the first wager, collected at once.
3. (e) The dealer reveals five cards and sets the highest hand.
4. (f) Starting at the player farthest to the dealer's right, counterclockwise, each
   player's wagers are resolved: dealer higher -> ante, first and second lose; a tie ->
   all push; player higher -> first and second win at the table's ``first_second_pays``
   and the ante is returned, or paid as an ante bonus. The ante bonus (24.11(c)) is paid on
   a qualifying hand whatever the comparison: when the player loses, the ante itself is
   collected and the bonus still paid; on a tie, the ante pushes and the bonus is paid.

Seats are numbered from the dealer's left (seat 1, dealt first) to the dealer's right, so
"counterclockwise from the dealer's right" is the highest seat number first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from controller.configuration import TableConfig, boston5_options
from controller.game import hand_name
from controller.game._seat_steps import capped_seat, fold_unexposed_step, played_step
from controller.game.record import DealtSeat, GameSpec, Problems, read_seats, write_record
from controller.hands import BOSTON5, evaluate_five, evaluate_three
from controller.vocab import Card, format_cards
from controller.wagers import (
    Result,
    SeatSettlement,
    Settlement,
    Step,
    WagerResult,
    actions_for,
    apply_caps,
    hand_summary,
    quick_init,
    settlement_for,
)

__all__ = ["SPEC", "Boston5Seat", "Boston5Round", "read_round", "settle", "bonus_procedure", "round_record"]

_SEAT_KEYS = {"wagers", "cards", "exposed_bonus", "folded"}
_PAID_BY = {"bonus": ["bonus"], "ante_bonus": ["ante_bonus"]}  # paytable spot -> wagers it pays


@quick_init
@dataclass(frozen=True, slots=True)
class Boston5Seat(DealtSeat):
    """One player's round: wagers (cents by spot), cards in dealt order, decisions."""

    exposed_bonus: bool
    folded: bool

    def record_details(self) -> dict[str, object]:
        return {"exposed_bonus": self.exposed_bonus, "folded": self.folded}


@quick_init
@dataclass(frozen=True, slots=True)
class Boston5Round:
    """A Boston 5 round as recorded: the seats in play and the dealer's five cards."""

    seats: tuple[Boston5Seat, ...]
    dealer: tuple[Card, ...]


def read_round(data: Mapping[str, Any], table: TableConfig) -> Boston5Round:
    """Check a round record against the rules and the table; raises ``RecordError`` listing all problems."""
    problems = Problems()
    multiple = table.options["first_to_ante"]
    assert isinstance(multiple, int), "table_config checks first_to_ante is a whole number"
    seats = []
    for number, path, raw, w in read_seats(data, table, problems, _SEAT_KEYS):
        folded = problems.flag(path, raw, "folded")
        exposed = problems.flag(path, raw, "exposed_bonus")
        for spot in ("ante", "first"):
            if spot not in w:
                problems.add(f"{path}.wagers", f"missing the {spot} wager (ante and first are required)")
        if "ante" in w and "first" in w and w["first"] != multiple * w["ante"]:
            problems.add(
                f"{path}.wagers.first", f"must be {multiple} x the ante ({multiple * w['ante']}), got {w['first']}"
            )
        if folded and "second" in w:
            problems.add(f"{path}.wagers.second", "a player who folded has no second wager")
        if not folded and "second" not in w:
            problems.add(f"{path}.wagers", "missing the second wager (equal to the first), or set folded: true")
        if "second" in w and "first" in w and w["second"] != w["first"]:
            problems.add(f"{path}.wagers.second", f"must equal the first wager ({w['first']}), got {w['second']}")
        cards = problems.cards(f"{path}.cards", raw.get("cards"), (3,) if folded else (5,))
        if cards is not None:
            seats.append(Boston5Seat(number, w, cards, exposed, folded))  # w: a fresh dict (read_wagers)
    # When every player folds, the final cards are not dealt (24.10(d)): the dealer has three.
    all_folded = bool(seats) and all(s.folded for s in seats)
    dealer = problems.cards("$.dealer", data.get("dealer"), (3, 5) if all_folded else (5,))
    problems.raise_if_any()
    assert dealer is not None
    return Boston5Round(tuple(seats), dealer)


def round_record(rnd: Boston5Round, table: str | None = None) -> dict[str, Any]:
    """The round record (docs/round-record.md) of ``rnd``; ``read_round`` reads it back."""
    return write_record("boston5", table, rnd.seats, dealer=format_cards(rnd.dealer))


def _bonus(seat: Boston5Seat, table: TableConfig) -> tuple[WagerResult, dict[str, str]]:
    stake = seat.wagers["bonus"]
    three = evaluate_three(seat.cards[:3], BOSTON5)
    row = table.paytables["bonus"].row_for(three)
    summary = hand_summary(three)
    if not seat.exposed_bonus:
        return WagerResult("bonus", stake, Result.LOSE, -stake, "three-card hand not exposed (24.10(a))"), summary
    if row is None or row.odds.push:
        why = f"exposed {hand_name(three.category.value)} does not qualify (24.10(a))"
        return WagerResult("bonus", stake, Result.LOSE, -stake, why), summary
    return WagerResult("bonus", stake, Result.WIN, row.odds.payout(stake), f"{row.describe()} (24.11(d))"), summary


def _bonus_step(seat: int, bonus: WagerResult, summary: Mapping[str, str]) -> Step:
    if bonus.result is Result.LOSE:
        return Step("bonus", seat, actions_for([bonus]), bonus.why)
    return Step("bonus", seat, actions_for([bonus]), hand_name(summary["category"]))


def bonus_procedure(seats: Iterable[Boston5Seat], table: TableConfig) -> tuple[Step, ...]:
    """The dealer's bonus steps right after the exposure (24.10(a)), from the three-card hands
    alone: losing bonus wagers collected, then winning ones paid, each counterclockwise from the
    dealer's right. Equal to the bonus steps that begin :func:`settle`'s procedure, unless the
    table's aggregate ``payout_cap`` later cuts a bonus payout (that cap needs the whole hand)."""
    lose: list[Step] = []
    win: list[Step] = []
    for seat in sorted(seats, key=lambda s: -s.seat):
        if "bonus" in seat.wagers:
            bonus, summary = _bonus(seat, table)
            (capped,), _ = apply_caps([bonus], table.paytables, {"bonus": ["bonus"]}, None)
            (lose if capped.result is Result.LOSE else win).append(_bonus_step(seat.seat, capped, summary))
    return (*lose, *win)


def _main(seat: Boston5Seat, dealer_value: Any, table: TableConfig) -> tuple[list[WagerResult], dict[str, str]]:
    w = seat.wagers
    player = evaluate_five(seat.cards, BOSTON5)
    pays = boston5_options(table)["first_second_pays"]
    out: list[WagerResult] = []
    if player < dealer_value:
        why = "dealer higher (24.10(f)1)"
        out += [WagerResult(s, w[s], Result.LOSE, -w[s], why) for s in ("ante", "first", "second")]
    elif player == dealer_value:
        why = "tie with the dealer (24.10(f)2)"
        out += [WagerResult(s, w[s], Result.PUSH, 0, why) for s in ("ante", "first", "second")]
    else:
        why = f"player higher: {pays} (24.10(f)3)"
        out += [WagerResult(s, w[s], Result.WIN, pays.payout(w[s]), why) for s in ("first", "second")]
    row = table.paytables["ante_bonus"].row_for(player)
    if row is not None and not row.odds.push:
        why = f"ante bonus {row.describe()}, paid whatever the comparison (24.10(f)3, 24.11(c))"
        out.append(WagerResult("ante_bonus", w["ante"], Result.WIN, row.odds.payout(w["ante"]), why))
    if player > dealer_value:  # 24.10(f)3: first and second paid, then the ante bonus, then the ante returned
        out.append(
            WagerResult("ante", w["ante"], Result.RETURNED, 0, "player higher: the ante is returned (24.10(f)3)")
        )
    return out, hand_summary(player)


def settle(rnd: Boston5Round, table: TableConfig) -> Settlement:
    """Settle a checked Boston 5 round under ``table``'s paytables, cap and options."""
    all_folded = all(s.folded for s in rnd.seats)
    dealer_value = evaluate_five(rnd.dealer, BOSTON5) if len(rnd.dealer) == 5 else None
    order = sorted(rnd.seats, key=lambda s: -s.seat)  # counterclockwise from the dealer's right
    settled: dict[int, SeatSettlement] = {}
    bonus_steps_lose: list[Step] = []
    bonus_steps_win: list[Step] = []
    fold_steps: list[Step] = []
    main_steps: list[Step] = []
    for seat in order:
        wagers: list[WagerResult] = []
        hands: dict[str, dict[str, str]] = {}
        if "bonus" in seat.wagers:
            bonus, hands["bonus"] = _bonus(seat, table)
            wagers.append(bonus)
        if seat.folded:
            why = "folded: ante and first wager forfeit (24.10(b))"
            wagers += [WagerResult(s, seat.wagers[s], Result.LOSE, -seat.wagers[s], why) for s in ("ante", "first")]
        else:
            assert dealer_value is not None
            main, hands["player"] = _main(seat, dealer_value, table)
            wagers += main
        done = settled[seat.seat] = capped_seat(seat.seat, wagers, hands, table, _PAID_BY)
        bonus_results = [w for w in done.wagers if w.spot == "bonus"]
        rest = [w for w in done.wagers if w.spot != "bonus"]
        if bonus_results:
            (bonus_steps_lose if bonus_results[0].result is Result.LOSE else bonus_steps_win).append(
                _bonus_step(seat.seat, bonus_results[0], hands["bonus"])
            )
        if seat.folded:
            fold_steps.append(fold_unexposed_step(seat.seat, rest))
        else:
            main_steps.append(played_step(seat.seat, rest, hands["player"]))
    if all_folded or dealer_value is None:  # nobody left to compare with: the dealer's hand is not revealed
        procedure = (*bonus_steps_lose, *bonus_steps_win, *fold_steps)
        return settlement_for("boston5", table, settled, procedure, {"cards": format_cards(rnd.dealer)})
    reveal = Step(
        "dealer",
        None,
        (),
        f"reveal and set {hand_name(dealer_value.category.value)} ({format_cards(dealer_value.best)})",
    )
    procedure = (*bonus_steps_lose, *bonus_steps_win, *fold_steps, reveal, *main_steps)
    return settlement_for(
        "boston5", table, settled, procedure, {"cards": format_cards(rnd.dealer), **hand_summary(dealer_value)}
    )


SPEC = GameSpec(
    name="boston5",
    read_round=read_round,
    settle=settle,
    round_record=round_record,
    top_keys=frozenset({"game", "table", "table_sha256", "seats", "dealer", "recall"}),
    par="controller.par.sheets:boston5_sheet",
    par_needs="controller.par.service:boston5_needs",
    par_options=("first_to_ante", "first_second_pays"),
)
"""boston5's :class:`GameSpec` (registered in :data:`controller.game.record._spec.SPECS`)."""
