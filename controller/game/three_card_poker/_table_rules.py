"""Three Card Poker with the 6 Card Bonus: the catalog and the rules layer's settlement a table
deals (its :class:`~controller.game.record._spec.GameSpec`).

The ante, play and pair plus wagers are settled by :mod:`controller.game.three_card_poker._rules`
(N.J.A.C. 13:69F-20, inferred from published rule sheets); this module adds the 6 Card Bonus beside
them, settled in the same step of the same seat:

* a wager spot ``six_card_bonus`` and a paytable spot of the same name (five-card hands: the
  table's paytable, ``config/paytables/``, is configuration, never code);
* the wager needs an ante (it is placed with the ante before the deal);
* the best five-card hand of the player's three cards and the dealer's three pays as the table's
  paytable says, whatever the dealer holds (:data:`SOURCE`);
* it is a wager of its own, independent of the ante and the pair plus: a hand that folds loses its
  ante and pair plus (collected when it folds, 20.10(b), (c)) and keeps its 6 Card Bonus, its
  cards kept face down until the bonus is settled in its turn from the dealer's right
  (table-games-online.com: "three independent bets ... if the player folds, the Pair Plus bet is
  forfeited", nothing forfeits the 6 Card Bonus; its published edge, 10.23% for
  1000-200-50-25-20-10-5, is the edge of a bonus settled on every hand).

The independent ranking of :mod:`.six_card` (its own best-five code) checks this one in the tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from controller.configuration import TableConfig
from controller.game import hand_name
from controller.game._seat_steps import capped_seat, played_step
from controller.game.record import GameSpec, RecordError
from controller.game.three_card_poker import _rules as main
from controller.game.three_card_poker._catalog import CATALOG as MAIN_CATALOG
from controller.game.three_card_poker._six_card import SOURCE
from controller.hands import THREE_CARD_POKER, HandValue, Kind, evaluate_best, evaluate_three
from controller.vocab import Card
from controller.wagers import (
    DISCARD,
    DISCARD_UNEXPOSED,
    Action,
    PaytableSpot,
    Result,
    SeatSettlement,
    Settlement,
    Step,
    WagerResult,
    actions_for,
    hand_summary,
    settlement_for,
)
from controller.wagers._results import CapReport

__all__ = ["CATALOG", "SPEC", "SIX_CARD", "six_card_hand", "fold_step", "read_round", "settle"]

SIX_CARD = "six_card_bonus"
"""The 6 Card Bonus's wager spot and paytable spot."""

CATALOG = replace(
    MAIN_CATALOG,
    wager_spots=(*MAIN_CATALOG.wager_spots, SIX_CARD),
    paytable_spots=(*MAIN_CATALOG.paytable_spots, PaytableSpot(SIX_CARD, Kind.FIVE, False, SIX_CARD)),
)
"""Three Card Poker's catalog with the 6 Card Bonus beside its wagers."""

_PAID_BY = {"ante_bonus": ["ante_bonus"], "pair_plus": ["pair_plus"], SIX_CARD: [SIX_CARD]}
_FOLD_WHY = "folded: ante and pair plus forfeit (20.10(b), (c), inferred)"


def six_card_hand(player: tuple[Card, ...], dealer: tuple[Card, ...]) -> HandValue:
    """The best five-card hand of the player's three cards and the dealer's three."""
    return evaluate_best((*player, *dealer), THREE_CARD_POKER)


def fold_step(seat: int, wagers: Mapping[str, int]) -> Step:
    """A folded hand's collection, done when it folds: its ante and pair plus; its cards go to the
    discard rack unexposed, or, with a 6 Card Bonus still in action, stay face down for it."""
    collect = tuple(Action("collect", spot, cents) for spot, cents in wagers.items() if spot != SIX_CARD)
    if SIX_CARD in wagers:
        return Step("fold", seat, collect, "folds; the 6 Card Bonus stays: keep the cards face down")
    return Step("fold", seat, collect, "folds", DISCARD_UNEXPOSED)


def read_round(data: Mapping[str, object], table: TableConfig) -> main.ThreeCardRound:
    """:func:`controller.game.three_card_poker._rules.read_round`, and a 6 Card Bonus needs an ante."""
    rnd = main.read_round(data, table)
    missing = [s.seat for s in rnd.seats if SIX_CARD in s.wagers and "ante" not in s.wagers]
    if missing:
        raise RecordError([f"$.seats.{n}.wagers.{SIX_CARD}: a 6 Card Bonus needs an ante ({SOURCE})" for n in missing])
    return rnd


def _played(
    seat: main.ThreeCardSeat, dealer: tuple[Card, ...], table: TableConfig
) -> tuple[list[WagerResult], tuple[CapReport, ...]]:
    """Every wager of a hand in action: the main game's (settled by the main game's rules under
    each paytable's own cap; the table's cap applies to the whole seat afterwards), then the
    6 Card Bonus."""
    alone = main.ThreeCardRound((_without_six(seat),), dealer)
    paid = main.settle(alone, replace(table, payout_cap=None)).seats[0]
    out = list(paid.wagers)
    if SIX_CARD in seat.wagers:
        out.append(_six(seat, dealer, table))
    return out, paid.caps


def _six(seat: main.ThreeCardSeat, dealer: tuple[Card, ...], table: TableConfig) -> WagerResult:
    """The 6 Card Bonus of a seat (played or folded), whatever the dealer holds."""
    return main.paytable_wager(table, SIX_CARD, seat.wagers[SIX_CARD], six_card_hand(seat.cards, dealer), SOURCE)


def _without_six(seat: main.ThreeCardSeat) -> main.ThreeCardSeat:
    return main.ThreeCardSeat(seat.seat, {k: v for k, v in seat.wagers.items() if k != SIX_CARD}, seat.cards)


def settle(rnd: main.ThreeCardRound, table: TableConfig) -> Settlement:
    """Settle a checked round: folded hands' antes and pair plus collected first (when they
    folded); the dealer's hand exposed; then from the dealer's right each hand in action, its ante
    and play, ante bonus, pair plus and 6 Card Bonus in one step, and each folded hand's 6 Card
    Bonus in its turn (published rule sheets; 20.10, 20.11 inferred)."""
    dealer = evaluate_three(rnd.dealer, THREE_CARD_POKER)
    settled: dict[int, SeatSettlement] = {}
    fold_steps: list[Step] = []
    main_steps: list[Step] = []
    for seat in sorted(rnd.seats, key=lambda s: -s.seat):  # counterclockwise from the dealer's right
        hands: dict[str, dict[str, str]] = {}
        earlier: tuple[CapReport, ...] = ()
        if seat.folded:
            wagers = [WagerResult(s, n, Result.LOSE, -n, _FOLD_WHY) for s, n in seat.wagers.items() if s != SIX_CARD]
            if SIX_CARD in seat.wagers:
                wagers.append(_six(seat, rnd.dealer, table))
        else:
            wagers, earlier = _played(seat, rnd.dealer, table)
            hands["player"] = hand_summary(evaluate_three(seat.cards, THREE_CARD_POKER))
        if SIX_CARD in seat.wagers:
            hands[SIX_CARD] = hand_summary(six_card_hand(seat.cards, rnd.dealer))
        done = settled[seat.seat] = capped_seat(seat.seat, wagers, hands, table, _PAID_BY, earlier)
        if seat.folded:
            fold_steps.append(fold_step(seat.seat, seat.wagers))
            six = [w for w in done.wagers if w.spot == SIX_CARD]
            if six:
                # the folded hand is turned for the bonus but never named: it stays face down on every view
                note = f"6 Card Bonus, the hand folded: {hand_name(hands[SIX_CARD]['category'])}"
                main_steps.append(Step(SIX_CARD, seat.seat, actions_for(six), note, DISCARD))
        else:
            main_steps.append(played_step(seat.seat, done.wagers, hands["player"]))
    qualifies = main.qualifies(dealer)
    word = "qualifies" if qualifies else "does not qualify"
    shown = " ".join(str(c) for c in rnd.dealer)
    reveal = Step("dealer", None, (), f"reveals {shown}: {word} (queen high or better, 20.10(d))")
    summary = {"cards": shown, **hand_summary(dealer), "qualifies": "yes" if qualifies else "no"}
    return settlement_for("three_card_poker", table, settled, (*fold_steps, reveal, *main_steps), summary)


SPEC = GameSpec(
    name="three_card_poker",
    read_round=read_round,
    settle=settle,
    round_record=main.round_record,
    top_keys=main.TOP_KEYS,
    par="controller.game.three_card_poker._par:table_sheet",
)
"""Three Card Poker's spec with the 6 Card Bonus (the game's definition holds it)."""
