"""Mississippi Stud settlement (N.J.A.C. 13:69F-35.10): pure rules, no I/O.

Order of settlement, as 35.10 lays it down:

1. (c) A player who exchanged or communicated information about the hand before all community
   cards were revealed forfeits every wager of the round (an input flag,
   ``communication_violation``); such wagers are collected first. ``folded_at`` is then the
   street the violation was marked at (that street's bet, if already placed, is forfeit too);
   a seat that had folded before (its bonus still in play) keeps its ``folded_at`` and has
   ``violation_at`` (that street or a later one: a fold and a violation in the same street is
   the likeliest case): its fold is collected as any fold, the violation collects the rest.
2. (a), (e), (g) At each street a player places a bet of 1x, 2x or 3x the ante or folds; a
   fold at 3rd street forfeits the ante, at 4th the ante and 3rd street bet, at 5th the ante,
   3rd and 4th street bets, collected at once.
3. (i) Starting at the player farthest to the dealer's right, counterclockwise, the best
   five-card hand of the player's two cards and the three community cards is announced and
   every live wager (ante and street bets) is resolved at the paytable's odds: a pair of 6s
   to 10s pushes (i)2 and anything the paytable does not list loses.
4. The optional three-card bonus is settled on the three community cards alone; it stays in
   action when its player folds (digest 2.5 item 7). Its NJ rule text was not found, so its
   place after the main wagers is our choice, counterclockwise as the main wagers.

Payout caps, per seat: the main paytable's own ``cap`` and the table's ``payout_cap`` limit the
aggregate paid on the ante and bet wagers (digest 2.6); the bonus only by its own paytable's
``cap``. Where a cap bites, the excess comes off the largest payouts first and, among equal
ones, off the last bet made first: 5th street, then 4th, then 3rd, then the ante.

Seats are numbered from the dealer's left (seat 1); counterclockwise from the dealer's right
is the highest seat number first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from controller.configuration import PaytableRow, TableConfig
from controller.game import hand_name
from controller.game.record import DealtSeat, GameSpec, Problems, read_seats, write_record
from controller.hands import MISSISSIPPI_STUD, HandValue, evaluate_dealt, evaluate_three
from controller.vocab import Card, format_cards
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
    hand_summary,
    quick_init,
    settlement_for,
)

__all__ = ["SPEC", "STREETS", "MississippiSeat", "MississippiRound", "read_round", "settle", "round_record"]

STREETS = ("third", "fourth", "fifth")
"""The street bets in the order they are made."""

_SEAT_KEYS = {"wagers", "cards", "folded_at", "communication_violation", "violation_at"}
_PAID_BY = {"main": ["ante", *STREETS], "bonus": ["bonus"]}
_TABLE_CAPPED = ("ante", *STREETS)
"""The wagers the table's aggregate ``payout_cap`` covers: the ante and bet wagers, paid at the main
paytable (regulations digest 2.6: the $50,000 aggregate cap stands with the ante and street bets'
table, PA 58 Pa. Code 655a.12 found, NJ 35.11 inferred; the Ocean casino's published rules put the
"maximum aggregate payout" under that table and none under the 3-card bonus's). The 3-card bonus is
a wager of its own, settled on the community cards alone: the cap never takes its payout, which
only its own paytable's ``cap`` (if configured) limits."""
_CUT_FIRST = ("fifth", "fourth", "third", "ante")
"""Among equal payouts, a cap cuts the last bet made first: 5th street, 4th, 3rd, then the ante."""
_STREET_RULE = {"third": "35.10(a)", "fourth": "35.10(e)", "fifth": "35.10(g)"}


@quick_init
@dataclass(frozen=True, slots=True)
class MississippiSeat(DealtSeat):
    """One player's round: wagers, two cards, the street folded at (or ``None``), the 35.10(c)
    flag, and the street of a violation marked after the seat had folded (else ``None``)."""

    folded_at: str | None
    communication_violation: bool
    violation_at: str | None = None

    def record_details(self) -> dict[str, object]:
        return {
            "folded_at": self.folded_at,
            "communication_violation": self.communication_violation,
            **({"violation_at": self.violation_at} if self.violation_at else {}),
        }


@quick_init
@dataclass(frozen=True, slots=True)
class MississippiRound:
    """A Mississippi Stud round as recorded: the seats and the three community cards."""

    seats: tuple[MississippiSeat, ...]
    community: tuple[Card, ...]


def read_round(data: Mapping[str, object], table: TableConfig) -> MississippiRound:
    """Check a round record against the rules and the table; raises ``RecordError`` listing all problems."""
    problems = Problems()
    seats = []
    for number, path, raw, w in read_seats(data, table, problems, _SEAT_KEYS):
        folded_at = raw.get("folded_at")
        ante = w.get("ante")
        if _plain(raw, folded_at, w, ante):  # nothing below would find a problem
            cards = problems.cards(f"{path}.cards", raw.get("cards"), (2,))
            if cards is not None:
                seats.append(MississippiSeat(number, w, cards, None, False))  # w: a fresh dict (read_wagers)
            continue
        if folded_at is not None and folded_at not in STREETS:
            problems.add(f"{path}.folded_at", f"must be null or one of {', '.join(STREETS)}, got {folded_at!r}")
            folded_at = None
        violation = problems.flag(path, raw, "communication_violation")
        violation_at = _violation_at(problems, path, raw, folded_at, violation, w)
        if "ante" not in w:
            problems.add(f"{path}.wagers", "missing the ante wager")
        live = STREETS[: STREETS.index(folded_at)] if folded_at else STREETS
        # 35.10(c): a violation marked at a street forfeits that street's bet if the seat had placed it
        either = folded_at if violation and violation_at is None else None
        for street in STREETS:
            bet = w.get(street)
            if bet is None:
                if street in live:
                    problems.add(f"{path}.wagers", f"missing the {street} street bet (or set folded_at: {street})")
            elif street not in live and street != either:
                problems.add(f"{path}.wagers.{street}", f"no {street} street bet after folding at {folded_at}")
            elif ante is not None and bet != ante and bet != 2 * ante and bet != 3 * ante:
                a = ante
                problems.add(
                    f"{path}.wagers.{street}", f"must be 1x, 2x or 3x the ante ({a}, {2 * a} or {3 * a}), got {bet}"
                )
        cards = problems.cards(f"{path}.cards", raw.get("cards"), (2,))
        if cards is not None:
            seats.append(MississippiSeat(number, w, cards, folded_at, violation, violation_at))
    community = problems.cards("$.community", data.get("community"), (3,))
    problems.raise_if_any()
    assert community is not None
    return MississippiRound(tuple(seats), community)


def _plain(raw: Mapping[str, object], folded_at: object, wagers: Mapping[str, int], ante: int | None) -> bool:
    """Whether a seat played every street with no violation marked, each street bet 1x, 2x or 3x
    its ante: the usual seat, which :func:`read_round` checks no further (its wagers are whole
    cents already)."""
    if folded_at is not None or ante is None or raw.get("communication_violation", False) is not False:
        return False
    bets = (ante, 2 * ante, 3 * ante)
    return (
        "violation_at" not in raw
        and wagers.get("third") in bets
        and wagers.get("fourth") in bets
        and wagers.get("fifth") in bets
    )


def _violation_at(
    problems: Problems,
    path: str,
    raw: Mapping[str, object],
    folded_at: str | None,
    violation: bool,
    wagers: Mapping[str, int],
) -> str | None:
    """The checked ``violation_at`` of a seat record (``None`` when absent)."""
    at = raw.get("violation_at")
    if at is None:
        return None
    where = f"{path}.violation_at"
    if at not in STREETS:
        problems.add(where, f"must be null or one of {', '.join(STREETS)}, got {at!r}")
    elif not violation:
        problems.add(where, "only with communication_violation: true")
    elif folded_at is None or STREETS.index(at) < STREETS.index(folded_at):
        problems.add(where, "a violation after a fold must come at the street folded_at or a later one")
    elif "bonus" not in wagers:
        problems.add(where, "a folded seat with no bonus has no wager left to forfeit")
    else:
        return str(at)
    return None


def round_record(rnd: MississippiRound, table: str | None = None) -> dict[str, object]:
    """The round record (docs/round-record.md) of ``rnd``; ``read_round`` reads it back."""
    return write_record("mississippi_stud", table, rnd.seats, community=format_cards(rnd.community))


_SPOTS = ("ante", *STREETS)
_VIOLATION_WHY = "communication violation: every wager forfeit (35.10(c))"

_Results = tuple[tuple[WagerResult, ...], tuple[Action, ...]]
_KEPT: dict[tuple[object, ...], tuple[object, _Results]] = {}
"""Wager results and their actions by what decides them (a paytable line, or the category or
street that loses, and the stakes): a table settles the same few again and again."""


def _kept(key: tuple[object, ...], owner: object, make: Callable[[], list[WagerResult]]) -> _Results:
    """The results ``make`` gives for ``key`` and their actions, made once while ``owner`` (the
    paytable line they depend on, or ``None``) is the same object."""
    found = _KEPT.get(key)
    if found is not None and found[0] is owner:
        return found[1]
    results = tuple(make())
    if len(_KEPT) >= 4096:
        _KEPT.clear()
    kept = (results, actions_for(results))
    _KEPT[key] = (owner, kept)
    return kept


def _main(seat: MississippiSeat, community: tuple[Card, ...], table: TableConfig) -> tuple[_Results, dict[str, str]]:
    """35.10(i): every live wager of a seat played to the end, at the line its hand makes."""
    w = seat.wagers
    hand = evaluate_dealt(seat.cards + community, MISSISSIPPI_STUD)
    row = table.paytables["main"].row_for(hand)
    stakes = (w["ante"], w["third"], w["fourth"], w["fifth"])  # _SPOTS
    if row is None:
        key: tuple[object, ...] = ("lose", hand.category._value_, stakes)
    else:
        key = ("push" if row.odds.push else "win", id(row), stakes)
    found = _KEPT.get(key)  # the usual case: these results made for an earlier hand
    if found is not None and found[0] is row:
        return found[1], hand_summary(hand)
    return _kept(key, row, partial(_main_results, hand, row, w)), hand_summary(hand)


def _main_results(hand: HandValue, row: PaytableRow | None, w: Mapping[str, int]) -> list[WagerResult]:
    """The results of :func:`_main` (each reason made only when its results are: a line's text
    is the same every time)."""
    if row is None:
        why = f"{hand_name(hand.category._value_)} does not pay (35.10(i)1)"
        return [WagerResult(s, w[s], Result.LOSE, -w[s], why) for s in _SPOTS]
    if row.odds.push:
        why = f"{row.describe()} (35.10(i)2)"
        return [WagerResult(s, w[s], Result.PUSH, 0, why) for s in _SPOTS]
    odds = row.odds
    why = f"{row.describe()} (35.10(i)3, 35.11)"
    return [WagerResult(s, w[s], Result.WIN, odds.payout(w[s]), why) for s in _SPOTS]


def _seat_wagers(
    seat: MississippiSeat, rnd: MississippiRound, table: TableConfig, bonus: _Bonus
) -> tuple[Sequence[WagerResult], tuple[Action, ...] | None, dict[str, dict[str, str]]]:
    """Steps 1 to 4 of the module's order for one seat: its wager results, the actions of its
    main wagers when nothing but these results decides them, and its hands."""
    w = seat.wagers
    hands: dict[str, dict[str, str]] = {}
    actions: tuple[Action, ...] | None = None
    wagers: Sequence[WagerResult]
    if seat.communication_violation and seat.violation_at is None:
        wagers = [WagerResult(s, w[s], Result.LOSE, -w[s], _VIOLATION_WHY) for s in w]
    elif seat.folded_at is not None:
        lost = _LOST[seat.folded_at]
        why = f"folded at {seat.folded_at} street ({_STREET_RULE[seat.folded_at]})"
        wagers, actions = _kept(
            ("fold", seat.folded_at, tuple(w[s] for s in lost)),
            None,
            lambda: [WagerResult(s, w[s], Result.LOSE, -w[s], why) for s in lost],
        )
    else:
        (wagers, actions), hands["player"] = _main(seat, rnd.community, table)
    if "bonus" in w and seat.communication_violation and seat.violation_at is not None:
        wagers = [*wagers, WagerResult("bonus", w["bonus"], Result.LOSE, -w["bonus"], _VIOLATION_WHY)]
    elif "bonus" in w and not seat.communication_violation:
        hands["bonus"] = bonus.summary
        wagers = [*wagers, bonus.result(w["bonus"])]
    return wagers, actions, hands


_LOST = {street: ("ante", *STREETS[: STREETS.index(street)]) for street in STREETS}
"""The wagers a fold at each street forfeits."""


class _Bonus:
    """The three-card bonus of one round (step 4): the community cards' line, and each stake's result."""

    def __init__(self, community: tuple[Card, ...], table: TableConfig) -> None:
        self.value = evaluate_three(community, MISSISSIPPI_STUD)
        self.row = table.paytables["bonus"].row_for(self.value) if "bonus" in table.paytables else None
        self.summary = hand_summary(self.value)
        self.name = hand_name(self.value.category._value_)

    def result(self, stake: int) -> WagerResult:
        """The result of a bonus wager of ``stake`` cents (the same object for the same line and
        stake, kept across rounds while the line lives)."""
        row = self.row
        if row is None or row.odds.push:
            name = self.name

            def lose() -> list[WagerResult]:
                return [WagerResult("bonus", stake, Result.LOSE, -stake, f"community {name} does not pay")]

            return _kept(("bonus lose", name, stake), None, lose)[0][0]
        line = row

        def win() -> list[WagerResult]:
            return [WagerResult("bonus", stake, Result.WIN, line.odds.payout(stake), f"community {line.describe()}")]

        return _kept(("bonus win", id(row), stake), row, win)[0][0]

    def step(self, seat: int, wagers: list[WagerResult]) -> Step:
        """Seat ``seat``'s bonus step settling ``wagers`` (its bonus, as :meth:`result` gave it or
        capped): the same object for the same seat, community line and results."""
        key = (seat, self.name, *map(id, wagers))
        found = _KEPT_STEPS.get(key)
        if found is not None:  # kept with the results it was made for: those ids are theirs
            return found[1]
        made = Step("bonus", seat, actions_for(wagers), f"bonus on {self.name}")
        if len(_KEPT_STEPS) >= 1024:
            _KEPT_STEPS.clear()
        _KEPT_STEPS[key] = (tuple(wagers), made)
        return made


_KEPT_STEPS: dict[tuple[object, ...], tuple[tuple[WagerResult, ...], Step]] = {}
"""Each seat's bonus step by its seat, the community's line and the results it settles (their
identities: kept with the step, so that no other object takes their ids): a table's bonus bets and
the lines that pay them repeat round after round."""


def _right_first(seat: MississippiSeat) -> int:
    """Sort key: the highest seat number first (counterclockwise from the dealer's right)."""
    return -seat.seat


def settle(rnd: MississippiRound, table: TableConfig) -> Settlement:
    """Settle a checked Mississippi Stud round under ``table``'s paytables and cap."""
    bonus = _Bonus(rnd.community, table)
    order = sorted(rnd.seats, key=_right_first)  # counterclockwise from the dealer's right
    caps_of = PayoutCaps.of(table.paytables, _PAID_BY, table.payout_cap, _TABLE_CAPPED, _CUT_FIRST)
    settled: dict[int, SeatSettlement] = {}
    violation_steps: list[Step] = []
    fold_steps: dict[str, list[Step]] = {street: [] for street in STREETS}
    main_steps: list[Step] = []
    bonus_steps: list[Step] = []
    for seat in order:
        wagers, main_actions, hands = _seat_wagers(seat, rnd, table, bonus)
        wagers, caps = caps_of.apply(wagers)
        settled[seat.seat] = SeatSettlement(seat.seat, tuple(wagers), hands, caps)
        if caps or main_actions is None:
            main_actions = actions_for([x for x in wagers if x.spot != "bonus"])
        bonus_wagers = [x for x in wagers if x.spot == "bonus"] if "bonus" in seat.wagers else []
        if seat.communication_violation:
            forfeit = wagers if seat.violation_at is None else bonus_wagers  # after a fold: what the fold left
            violation_steps.append(
                Step(
                    "violation",
                    seat.seat,
                    actions_for(forfeit),
                    "communication violation (35.10(c))",
                    DISCARD if seat.violation_at is None else "",  # a fold's cards went with the fold
                )
            )
            if seat.violation_at is None:
                continue
            bonus_wagers = []
        if seat.folded_at is not None:
            fold_steps[seat.folded_at].append(
                Step(f"{seat.folded_at}_street", seat.seat, main_actions, f"folds at {seat.folded_at} street", DISCARD)
            )
        else:
            player = hands["player"]
            note = f"{hand_name(player['category'])} ({player['best']})"
            main_steps.append(Step("settle", seat.seat, main_actions, note, DISCARD))
        if bonus_wagers:
            bonus_steps.append(bonus.step(seat.seat, bonus_wagers))
    reveal = Step("dealer", None, (), f"community cards {format_cards(rnd.community)}")
    procedure = (
        *violation_steps,
        *(s for street in STREETS for s in fold_steps[street]),
        reveal,
        *main_steps,
        *bonus_steps,
    )
    return settlement_for(
        "mississippi_stud",
        table,
        settled,
        procedure,
        {"community": format_cards(rnd.community), "bonus": bonus.summary},
    )


SPEC = GameSpec(
    name="mississippi_stud",
    read_round=read_round,
    settle=settle,
    round_record=round_record,
    top_keys=frozenset({"game", "table", "table_sha256", "seats", "community", "recall"}),
    par="controller.par.sheets:mississippi_sheet",
    par_needs="controller.par.service:mississippi_needs",
)
"""mississippi_stud's :class:`GameSpec` (registered in :data:`controller.game.record._spec.SPECS`)."""
