"""Three Card Poker settlement (N.J.A.C. 13:69F-20): pure rules, no I/O.

The NJ rule text was not found here; the section numbers follow the chapter's layout for its
other games (20.6 wagers, 20.10 the round's completion, 20.11 payout odds) and the play itself is
as every published house rule sheet gives it. Order of settlement:

1. (20.10(b)) A player who does not place a play wager equal to the ante folds: the ante is
   collected, and with it a pair plus wager of that player (the pair plus is in action only with
   the hand played, 20.10(c)). Folded hands are collected first, unexposed.
2. (20.10(d)) The dealer's three cards are revealed; the dealer's hand qualifies with a queen
   high or better (:data:`QUALIFIER`).
3. (20.10(e)) Starting at the player farthest to the dealer's right, counterclockwise, each
   played hand is settled: dealer not qualifying -> the ante wins even money and the play
   pushes (e)1; dealer qualifying and higher -> ante and play lose (e)2; equal -> both push
   (e)3; player higher -> ante and play win even money (e)4. The ante bonus (20.11(b)) is paid on
   the ante for a straight or better whatever the dealer holds; the pair plus (20.11(c)) is
   paid on the player's own hand, whatever the dealer holds.

Hands rank as three-card hands (:data:`controller.hands.THREE_CARD_POKER`). Seats are numbered
from the dealer's left (seat 1); counterclockwise from the dealer's right is the highest seat
number first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from controller.configuration import TableConfig
from controller.game import hand_name
from controller.game._seat_steps import capped_seat, fold_unexposed_step, played_step
from controller.game.record import DealtSeat, GameSpec, Problems, read_seats, write_record
from controller.hands import THREE_CARD_POKER, HandValue, evaluate_three
from controller.vocab import Card, format_cards, parse_cards
from controller.wagers import (
    Result,
    SeatSettlement,
    Settlement,
    Step,
    WagerResult,
    hand_summary,
    quick_init,
    settlement_for,
)

__all__ = [
    "SPEC",
    "QUALIFIER",
    "TOP_KEYS",
    "ThreeCardSeat",
    "ThreeCardRound",
    "paytable_wager",
    "qualifies",
    "read_round",
    "settle",
    "round_record",
]

QUALIFIER: HandValue = evaluate_three(parse_cards("Qs 3h 2d"), THREE_CARD_POKER)
"""The least qualifying dealer hand, queen high (20.10(d)): the regulation's, not a setting."""

TOP_KEYS = frozenset({"game", "table", "table_sha256", "seats", "dealer", "recall"})
"""A Three Card Poker record's keys (docs/round-record.md); ``recall`` is not read for settling."""

_SEAT_KEYS = {"wagers", "cards"}
_PAID_BY = {"ante_bonus": ["ante_bonus"], "pair_plus": ["pair_plus"]}


@quick_init
@dataclass(frozen=True, slots=True)
class ThreeCardSeat(DealtSeat):
    """One player's round: wagers (``ante``, ``play`` when played, ``pair_plus``) and three cards.

    A seat with an ante and no play wager folded (20.10(b))."""

    @property
    def folded(self) -> bool:
        """The player put up an ante and no play wager."""
        return "ante" in self.wagers and "play" not in self.wagers


@quick_init
@dataclass(frozen=True, slots=True)
class ThreeCardRound:
    """A Three Card Poker round as recorded: the seats and the dealer's three cards."""

    seats: tuple[ThreeCardSeat, ...]
    dealer: tuple[Card, ...]


def qualifies(dealer: HandValue) -> bool:
    """The dealer's hand is queen high or better (20.10(d))."""
    return dealer.strength >= QUALIFIER.strength


def read_round(data: Mapping[str, object], table: TableConfig) -> ThreeCardRound:
    """Check a round record against the rules and the table; raises ``RecordError`` listing all problems."""
    problems = Problems()
    seats = []
    for number, path, raw, w in read_seats(data, table, problems, _SEAT_KEYS):
        if "ante" not in w and "pair_plus" not in w:
            problems.add(f"{path}.wagers", "needs an ante or a pair plus wager (20.6)")
        if "play" in w and "ante" not in w:
            problems.add(f"{path}.wagers.play", "a play wager needs an ante (20.6)")
        elif "play" in w and w["play"] != w["ante"]:
            problems.add(f"{path}.wagers.play", f"must equal the ante ({w['ante']}), got {w['play']} (20.6)")
        cards = problems.cards(f"{path}.cards", raw.get("cards"), (3,))
        if cards is not None:
            seats.append(ThreeCardSeat(number, w, cards))  # w: a fresh dict (read_wagers)
    dealer = problems.cards("$.dealer", data.get("dealer"), (3,))  # a card dealt twice is refused here too
    problems.raise_if_any()
    assert dealer is not None
    return ThreeCardRound(tuple(seats), dealer)


def round_record(rnd: ThreeCardRound, table: str | None = None) -> dict[str, object]:
    """The round record (docs/round-record.md) of ``rnd``; ``read_round`` reads it back."""
    return write_record("three_card_poker", table, rnd.seats, dealer=format_cards(rnd.dealer))


def _ante_play(ante: int, player: HandValue, dealer: HandValue) -> list[WagerResult]:
    """The ante and play wagers of a played hand against the dealer (20.10(e))."""
    if not qualifies(dealer):
        why = "dealer does not qualify: ante wins 1 to 1, play pushes (20.10(e)1, 20.11(a))"
        return [WagerResult("ante", ante, Result.WIN, ante, why), WagerResult("play", ante, Result.PUSH, 0, why)]
    if dealer.strength > player.strength:
        why = "dealer qualifies and is higher (20.10(e)2)"
        return [WagerResult(s, ante, Result.LOSE, -ante, why) for s in ("ante", "play")]
    if dealer.strength == player.strength:
        why = "tie with the qualifying dealer (20.10(e)3)"
        return [WagerResult(s, ante, Result.PUSH, 0, why) for s in ("ante", "play")]
    why = "player higher than the qualifying dealer: 1 to 1 (20.10(e)4, 20.11(a))"
    return [WagerResult(s, ante, Result.WIN, ante, why) for s in ("ante", "play")]


def _paytable(table: TableConfig, spot: str, stake: int, player: HandValue, rule: str) -> WagerResult | None:
    """A paytable payout on ``stake`` for the player's hand (``None``: no paying line)."""
    row = table.paytables[spot].row_for(player)
    if row is None or row.odds.push:
        return None
    why = f"{row.describe()}, whatever the dealer holds ({rule})"
    return WagerResult(spot, stake, Result.WIN, row.odds.payout(stake), why)


def paytable_wager(table: TableConfig, spot: str, stake: int, hand: HandValue, rule: str) -> WagerResult:
    """A wager of ``stake`` on ``spot`` that the table's paytable pays on ``hand`` whatever the
    dealer holds (``rule``: the rule it follows): paid at its line, else lost."""
    paid = _paytable(table, spot, stake, hand, rule)
    why = f"{hand_name(hand.category.value)} does not pay ({rule})"
    return paid or WagerResult(spot, stake, Result.LOSE, -stake, why)


def _played(seat: ThreeCardSeat, dealer: HandValue, table: TableConfig) -> list[WagerResult]:
    """Every wager of a seat whose hand is in action."""
    w = seat.wagers
    player = evaluate_three(seat.cards, THREE_CARD_POKER)
    out: list[WagerResult] = []
    if "ante" in w:
        out += _ante_play(w["ante"], player, dealer)
        bonus = _paytable(table, "ante_bonus", w["ante"], player, "20.11(b)")
        if bonus is not None:
            out.append(bonus)
    if "pair_plus" in w:
        out.append(paytable_wager(table, "pair_plus", w["pair_plus"], player, "20.11(c)"))
    return out


def settle(rnd: ThreeCardRound, table: TableConfig) -> Settlement:
    """Settle a checked Three Card Poker round under ``table``'s paytables and cap."""
    dealer = evaluate_three(rnd.dealer, THREE_CARD_POKER)
    order = sorted(rnd.seats, key=lambda s: -s.seat)  # counterclockwise from the dealer's right
    settled: dict[int, SeatSettlement] = {}
    fold_steps: list[Step] = []
    main_steps: list[Step] = []
    for seat in order:
        hands: dict[str, dict[str, str]] = {}
        if seat.folded:
            why = "folded: ante and pair plus forfeit (20.10(b), 20.10(c))"
            wagers = [WagerResult(s, n, Result.LOSE, -n, why) for s, n in seat.wagers.items()]
        else:
            wagers = _played(seat, dealer, table)
            hands["player"] = hand_summary(evaluate_three(seat.cards, THREE_CARD_POKER))
        done = settled[seat.seat] = capped_seat(seat.seat, wagers, hands, table, _PAID_BY)
        if seat.folded:
            fold_steps.append(fold_unexposed_step(seat.seat, done.wagers))
        else:
            main_steps.append(played_step(seat.seat, done.wagers, hands["player"]))
    word = "qualifies" if qualifies(dealer) else "does not qualify"
    reveal = Step("dealer", None, (), f"reveals {format_cards(rnd.dealer)}: {word} (queen high or better, 20.10(d))")
    summary = {
        "cards": format_cards(rnd.dealer),
        **hand_summary(dealer),
        "qualifies": "yes" if qualifies(dealer) else "no",
    }
    return settlement_for("three_card_poker", table, settled, (*fold_steps, reveal, *main_steps), summary)


SPEC = GameSpec(
    name="three_card_poker",
    read_round=read_round,
    settle=settle,
    round_record=round_record,
    top_keys=TOP_KEYS,
    par="controller.par.three_card_poker:table_sheet",
)
"""Three Card Poker's :class:`GameSpec` (registered in :data:`controller.game.record._spec.SPECS`)."""
