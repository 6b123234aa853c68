"""The Boston 5 table machine, event by event (24.8, 24.10)."""

from __future__ import annotations

from typing import Any

from table_helpers import FedTable

from controller.configuration import config_dir, load_table
from controller.game.boston5._machine import Boston5Table, Phase
from controller.game.record import settle_record
from controller.table.phases import Common

TABLE = load_table(config_dir() / "bench" / "boston5.yaml")


class Table(FedTable):
    """The Boston5Table machine fed events directly."""

    def __init__(self) -> None:
        super().__init__(Boston5Table, TABLE)

    def bets(self, *seats: int, bonus: tuple[int, ...] = ()) -> None:
        bets(self, seats, bonus)


def bets(t: Any, seats: tuple[int, ...], bonus: tuple[int, ...] = ()) -> None:
    """On table ``t`` (fed or over ptys): ante 5.00 and first wager 10.00 at ``seats``, a 5.00 bonus at
    ``bonus``, then no more bets."""
    for s in seats:
        t.spot(s, "ante", 500)
        t.spot(s, "first", 1000)
    for s in bonus:
        t.spot(s, "bonus", 500)
    t.press("no_more_bets")


def finish(t: Table) -> None:
    while t.m.phase is Common.SETTLEMENT:
        t.press("confirm")


def test_clean_round_in_the_regulated_deal_order() -> None:
    t = Table()
    t.bets(2, 5, bonus=(2,))
    t.deal("As Ks Qs 2h 7d 9c 3c 4d 5h")
    assert [str(c) for c in t.m.seats[2].cards] == ["As", "Ks", "Qs"]  # 24.8(c)1: three to each, clockwise
    assert [str(c) for c in t.m.seats[5].cards] == ["2h", "7d", "9c"]
    assert [str(c) for c in t.m.dealer] == ["3c", "4d", "5h"]  # 24.8(c)2: then three to the dealer
    assert t.m.phase is Phase.BONUS
    t.press("seat_2", "next")
    # 24.10(a), (b): the bonus is settled on the exposed three cards before any second wager
    assert (
        t.m.phase is Phase.BONUS_SETTLEMENT
        and t.m.display.prompts[-1].startswith("seat 2: ")
        and "pay bonus" in t.m.display.prompts[-1]
    )
    t.spot(2, "second", 1000)  # too early: not a second wager yet
    assert "second" not in t.m.seats[2].wagers
    t.press("confirm")
    assert t.m.phase is Phase.SECOND_WAGER
    t.spot(2, "second", 1000)
    t.spot(5, "second", 1000)
    t.press("deal")
    t.deal("Js Ts 6h 6c 8c 9s")  # 24.10(d): two to each seat with a second wager, then two to the dealer
    assert [str(c) for c in t.m.seats[5].cards][-2:] == ["6h", "6c"] and [str(c) for c in t.m.dealer][-2:] == [
        "8c",
        "9s",
    ]
    assert t.m.phase is Common.SETTLEMENT
    finish(t)
    result = t.m.rounds[-1]
    assert result.settlement.to_json() == settle_record(result.record, TABLE).to_json()
    assert result.record["seats"]["2"]["exposed_bonus"] is True
    bonus_step = result.settlement.procedure[0]
    assert (
        bonus_step.phase == "bonus" and t.m.display.prompts.count(bonus_step.text) == 1
    )  # shown once, after the exposure


def test_dealer_cards_are_not_shown_before_they_are_revealed() -> None:
    t = Table()
    t.bets(1)
    t.deal("As Ks Qs 3c 4d 5h")
    assert not any(c in p for p in t.m.display.prompts for c in ("3c", "4d", "5h"))


def test_fold_and_withdrawal_of_the_second_wager() -> None:
    t = Table()
    t.bets(1, 3, 6)
    t.deal("As Ks Qs 2h 7d 9c 8h 8d 2s 3c 4d 5h")
    t.press("seat_3", "fold")  # 24.10(b): fold, forfeiting ante and first
    assert t.m.display.prompts[-1] == (
        "seat 3: folds: collect ante 5.00, first 10.00; discard the cards unexposed"
    )  # collected now, the cards face down (24.10(b))
    t.press("deal")
    assert t.m.phase is Phase.SECOND_WAGER  # the collection is confirmed first
    t.press("confirm")
    t.spot(1, "second", 1000)
    t.spot(6, "second", 1000)
    t.spot(6, "second", 0)  # 24.10(c): withdrawn before the final two cards
    assert t.m.seats[6].folded_at == "second" and "second" not in t.m.seats[6].wagers
    t.press("confirm", "deal")
    t.deal("Js Ts 9s 9d")  # only seat 1 gets cards, then the dealer
    assert t.m.phase is Common.SETTLEMENT
    finish(t)
    s = t.m.rounds[-1].settlement
    assert s.seat(3).net == -1500 and s.seat(6).net == -1500


def test_deal_waits_for_every_decision_and_second_must_equal_first() -> None:
    t = Table()
    t.bets(1, 2)
    t.deal("As Ks Qs 2h 7d 9c 3c 4d 5h")
    t.spot(1, "second", 500)
    assert t.m.display.prompts[-1] == "correct: seat 1 second: must equal the first wager 10.00"
    t.spot(1, "second", 1000)
    t.press("deal")
    assert t.m.phase is Phase.SECOND_WAGER and t.m.display.prompts[-1] == "cannot deal: waiting for seat 2"


def test_wager_rules_at_no_more_bets() -> None:
    t = Table()
    t.spot(1, "ante", 500)
    t.spot(1, "first", 500)
    t.spot(2, "bonus", 500)
    t.corrections_asked(
        "correct: seat 1 first: must be 2 x the ante (10.00)",
        "correct: seat 2: needs an ante and a first wager",
    )


def test_a_tie_pushes_and_a_late_bet_is_refused() -> None:
    t = Table()
    t.bets(1)
    t.deal("Ah Kd 9c Ac Kh 9d")
    t.spot(4, "ante", 500)
    assert t.m.late.noted == ["late bet: seat 4 ante 5.00 not accepted"]
    t.spot(1, "second", 1000)
    t.press("deal")
    t.deal("5s 3h 5d 3c")
    finish(t)
    assert {w.result.value for w in t.m.rounds[-1].settlement.seat(1).wagers} == {"push"}


def test_round_replays_to_the_same_prompts_and_settlement() -> None:
    t = Table()
    t.bets(1, 4, bonus=(4,))
    t.deal("As Ks Qs 8h 8d 9c 3c 4d 5h")
    t.press("seat_4", "next", "confirm")
    t.spot(1, "second", 1000)
    t.press("seat_4", "fold", "confirm")
    t.press("deal")
    t.deal("Js Ts 2s 7h")
    finish(t)
    again = Table()
    for e in t.events:
        again.m.handle(e)
    assert (
        again.m.display.prompts == t.m.display.prompts
        and again.m.rounds[-1].settlement.to_json() == t.m.rounds[-1].settlement.to_json()
    )


def test_when_every_player_folds_the_round_settles_without_the_final_cards() -> None:
    t = Table()
    t.bets(2, 4, bonus=(4,))
    t.deal("As Ks Qs 2h 7d 9c 3c 4d 5h")
    t.press("next", "confirm")  # seat 4 does not expose: the bonus is collected
    t.press("seat_2", "fold", "confirm", "seat_4", "fold", "confirm", "deal")
    assert t.m.phase is Common.SETTLEMENT and len(t.m.dealer) == 3
    assert not any("3c" in p for p in t.m.display.prompts)  # the dealer's hand is never revealed
    finish(t)
    result = t.m.rounds[-1]
    assert result.record["dealer"] == "3c 4d 5h"
    assert result.settlement.to_json() == settle_record(result.record, TABLE).to_json()
    assert result.settlement.seat(2).net == -1500 and result.settlement.seat(4).net == -2000


def test_the_final_deal_names_its_seats() -> None:
    """24.10(d): two cards to each seat that placed (and kept) a second wager, then the dealer."""
    t = Table()
    t.bets(1, 3, 6)
    t.deal("As Ks Qs 2h 7d 9c 8h 8d 2s 3c 4d 5h")
    t.press("seat_3", "fold", "confirm")
    t.spot(1, "second", 1000)
    t.spot(6, "second", 1000)
    t.press("deal")
    assert t.m.display.prompt == "deal the final two cards: seats 1, 6, then the dealer"


def withdrawn_after_deal(
    seats: tuple[int, ...] = (1, 3), withdrawn: int = 3, cards: str = "As Ks Qs 2h 7d 9c 3c 4d 5h"
) -> Table:
    """``seats`` wagered, were dealt ``cards``, each made a second wager and the dealer pressed deal;
    then seat ``withdrawn``'s second wager was taken back (24.10(c)): a fold, its collection to confirm."""
    t = Table()
    t.bets(*seats)
    t.deal(cards)
    for seat in seats:
        t.spot(seat, "second", 1000)
    t.press("deal")
    t.spot(withdrawn, "second", 0)
    return t


def test_a_withdrawal_after_deal_is_confirmed_before_the_next_card() -> None:
    """24.10(c): withdrawn after "deal", before the first final card: a fold, whose collection the
    dealer confirms before any final card is taken; a card before that waits for the supervisor."""
    t = withdrawn_after_deal()
    fold = "seat 3: folds: collect ante 5.00, first 10.00; discard the cards unexposed"
    assert t.m.display.prompts[-1] == fold and t.m.display.steps_pending()
    t.deal("Js")  # the next card, before the collection is confirmed: not dealt to seat 1
    assert t.m.phase is Common.HOLD and "dealt when none was expected" in t.m.holds.reason
    assert len(t.m.seats[1].cards) == 3 and t.m.ledger.waiting


def test_a_withdrawal_after_deal_confirmed_lets_the_final_cards_come_to_the_seats_left() -> None:
    t = withdrawn_after_deal()
    while t.m.display.steps_pending():
        t.press("confirm")
    assert t.m.display.prompt == "deal the final two cards: seat 1, then the dealer"
    t.deal("Js Ts 9s 9d")
    assert t.m.phase is Common.SETTLEMENT and [str(c) for c in t.m.seats[1].cards][-2:] == ["Js", "Ts"]
    finish(t)
    result = t.m.rounds[-1]
    assert result.settlement.seat(3).net == -1500
    assert result.settlement.to_json() == settle_record(result.record, TABLE).to_json()


def test_a_withdrawal_whose_early_card_the_supervisor_accepts_names_only_the_seats_left() -> None:
    """Issue 32 (Boston 5): a second wager withdrawn after "deal" and a card dealt before its
    collection is confirmed, two things at once: the hold names confirm (clear fault is refused
    while the card waits), and once the collection is confirmed and the card accepted the final
    deal's prompt names the seats left, never the withdrawn one; the round settles."""
    t = withdrawn_after_deal((1, 3, 5), 3, "As Ks Qs 2h 7d 9c 8h 8d 2s 3c 4d 5h")
    t.deal("Js")  # before the collection is confirmed: it waits for the supervisor
    assert t.m.phase is Common.HOLD and t.m.hold_prompt() == "supervisor: key, then confirm accepts the cards, or void"
    assert t.snapshot().hold is not None
    assert t.snapshot().hold.clears == "supervisor key on: confirm accepts the cards, void declares a misdeal"
    t.press("supervisor_key")
    t.press("clear_fault")  # refused: the card waits
    assert t.m.phase is Common.HOLD and t.m.display.prompts[-1].startswith("clear fault refused")
    while t.m.display.steps_pending():
        t.press("confirm")  # the fold's collection, confirmed while held
    assert t.m.display.prompt == "deal the final two cards: seats 1, 5, then the dealer"
    t.press("confirm")  # the supervisor accepts the card: seat 1's fourth
    assert t.m.phase is Phase.FINAL_DEAL
    assert t.m.display.prompt == "deal the final cards: seat 1 one more, seat 5 two, then the dealer two"
    assert not any("seats 1, 3, 5" in line or "seat 3" in line for line in t.m.display.lines)
    t.deal("Ts 9s 9d 6c 6d")
    assert t.m.phase is Common.SETTLEMENT
    assert [str(c) for c in t.m.seats[1].cards][-2:] == ["Js", "Ts"]
    assert [str(c) for c in t.m.seats[5].cards][-2:] == ["9s", "9d"] and len(t.m.seats[3].cards) == 3
    finish(t)
    result = t.m.rounds[-1]
    assert result.settlement.seat(3).net == -1500
    assert result.settlement.to_json() == settle_record(result.record, TABLE).to_json()


def test_after_an_early_final_card_is_accepted_the_prompt_counts_what_each_seat_still_needs() -> None:
    """Issue 40 item 8 (Boston 5): a final card dealt before the final deal may begin (a withdrawal's
    collection not yet confirmed) holds; the supervisor accepts it (seat 1's fourth, in dealing
    order). The prompt then counts what each seat and the dealer still need, never "the final two
    cards" for a seat that has one, and keeps counting as the cards come."""
    t = withdrawn_after_deal((1, 3, 5), 5, "As Ks Qs 2h 7d 9c 8h 8d 2s 3c 4d 5h")
    t.deal("Js")  # early: it waits for the supervisor
    assert t.m.phase is Common.HOLD
    t.press("supervisor_key")
    while t.m.display.steps_pending():
        t.press("confirm")
    t.press("confirm")  # the supervisor accepts the card
    assert t.m.phase is Phase.FINAL_DEAL and [str(c) for c in t.m.seats[1].cards][-1] == "Js"
    assert t.m.display.prompt == "deal the final cards: seat 1 one more, seat 3 two, then the dealer two"
    t.deal("Ts")
    assert t.m.display.prompt == "deal the final cards: seat 3 two, then the dealer two"
    t.deal("9s 9d 6c")
    assert t.m.display.prompt == "deal the final cards: the dealer one more"
    t.deal("6d")
    assert t.m.phase is Common.SETTLEMENT
    assert [str(c) for c in t.m.seats[1].cards][-2:] == ["Js", "Ts"]
    assert [str(c) for c in t.m.dealer][-2:] == ["6c", "6d"]
    finish(t)
    result = t.m.rounds[-1]
    assert result.settlement.to_json() == settle_record(result.record, TABLE).to_json()


def test_the_screen_names_one_seat_as_a_seat_and_more_as_seats() -> None:
    """Issue 32: ``bonus: seat 2 may expose``, never ``seats 2``; two seats are ``seats 2, 5``."""
    for bonus, named in (((2,), "seat 2"), ((2, 5), "seats 2, 5")):
        t = Table()
        t.bets(2, 5, bonus=bonus)
        t.deal("As Ks Qs 2h 7d 9c 3c 4d 5h")
        assert t.m.display.prompt == f"bonus: {named} may expose (seat button); then next"
        t.press(f"seat_{bonus[0]}")
        assert "exposed: seat 2" in t.m.screen_details()
        t.press("next")
        while t.m.phase is Phase.BONUS_SETTLEMENT:
            t.press("confirm")
        t.spot(2, "second", 1000)
        assert "waiting: seat 5" in t.m.screen_details()
        t.press("deal")
        assert t.m.display.prompts[-1] == "cannot deal: waiting for seat 5"


def test_the_last_seat_withdrawing_while_a_card_waits_settles_once_the_card_is_accepted() -> None:
    """Issue 32 (Boston 5), two things at once: the only second wager withdrawn after "deal" and a
    card dealt before its collection is confirmed: nobody is left, so the prompt says so (never a
    seat), the card accepted by the supervisor has no place (burned) and the round settles."""
    t = Table()
    t.bets(1)
    t.deal("As Ks Qs 3c 4d 5h")
    t.spot(1, "second", 1000)
    t.press("deal")
    t.spot(1, "second", 0)
    t.deal("Js")
    assert t.m.phase is Common.HOLD
    t.press("supervisor_key")
    while t.m.display.steps_pending():
        t.press("confirm")
    assert t.m.display.prompt == "nobody left: no final cards; the round settles once the hold ends"
    t.press("confirm")  # the supervisor accepts the card
    assert t.m.card_log[-1] == {"index": 7, "card": "Js", "to": "burned: no place in the deal"}
    finish(t)
    result = t.m.rounds[-1]
    assert result.settlement is not None and result.settlement.seat(1).net == -1500
    assert result.settlement.to_json() == settle_record(result.record, TABLE).to_json()


def test_an_unreadable_card_before_the_deal_is_burned_and_never_entered_as_a_seats() -> None:
    """Found by the reference model (Boston 5 seed 72 of six rounds, every CI fault kind): an
    unreadable card out of the shoe while betting was open held as "seat 4 card 1" to enter; a seat
    joined meanwhile, and the card the supervisor entered made the table raise (IndexError), end
    the hold and go on betting, the card's place left in the round's record. A card before the deal
    has no place in it: unreadable, it is burned and the supervisor goes on or voids."""
    from drivers.panel import ButtonChanged
    from drivers.shoe import CardUnreadable

    t = Table()
    for s in (4, 5, 6):
        t.spot(s, "ante", 500)
        t.spot(s, "first", 1000)
    t.feed(CardUnreadable(device="shoe", index=7))
    assert t.m.phase is Common.HOLD
    assert t.m.holds.reason.startswith(
        "card 7 from the shoe before the round's first card, unreadable: burned unexposed"
    )
    assert t.m.holds.clears().words() == "supervisor key on: clear fault, or void"
    t.spot(2, "ante", 500)  # a seat joins while held
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("next", "confirm")  # no card to enter
    assert t.m.phase is Common.HOLD and t.m.machine_error is None
    t.press("clear_fault")
    assert t.m.phase is Common.BETTING and t.m.machine_error is None
    t.spot(2, "first", 1000)
    t.press("no_more_bets")
    t.shoe_index = 7  # the shoe's count goes on from the burned card
    t.deal("As Ks Qs 2h 7d 9c 3c 4d 5h 8s 8d 8c Jh Jd Jc")
    assert [str(c) for c in t.m.seats[2].cards] == ["As", "Ks", "Qs"]
    assert t.m.card_log[0]["to"].startswith("burned")


def test_when_every_step_was_done_in_the_round_the_settlement_asks_nothing_again() -> None:
    """Found by the simulation's settled_twice check (Boston 5 CI seeds 17, 34, 52, ...): every seat
    folded after the bonus was settled at the exposure (24.10(a), (b)), so no step was left; the
    table showed the last bonus step again, a wager collected twice, instead of nothing left."""
    t = Table()
    t.bets(2, 4, bonus=(4,))
    t.deal("As Ks Qs 2h 7d 9c 3c 4d 5h")
    t.press("next")  # seat 4 does not expose: its bonus is collected now
    bonus = t.m.display.prompts[-1]
    assert "collect bonus" in bonus
    t.press("confirm")
    t.press("seat_2", "fold", "confirm", "seat_4", "fold", "confirm", "deal")
    assert t.m.phase is Common.SETTLEMENT
    assert t.m.display.prompts.count(bonus) == 1 and t.m.display.prompt != bonus
    finish(t)
    assert t.m.display.prompts.count(bonus) == 1


# --- work a press does once (issue 42 item 5): a final card reads the seats in play once


def boston5_before_final_deal() -> Table:
    t = Table()
    t.bets(2, 3, 5)
    t.deal("As Ks Qs 2h 7d 9c 3c 4d 5h Jh Jd Jc")
    assert t.m.phase is Phase.SECOND_WAGER  # no bonus wager: no exposure, no bonus steps
    t.spot(2, "second", 1000)
    t.spot(5, "second", 1000)
    return t


def test_the_final_deal_reads_the_seats_in_play_once() -> None:
    t = boston5_before_final_deal()
    playing = [0]
    in_play = t.m.in_play

    def counting() -> Any:
        playing[0] += 1
        return in_play()

    t.m.in_play = counting
    t.press("seat_3", "fold", "confirm", "deal")
    assert t.m.phase is Phase.FINAL_DEAL
    assert playing[0] == 1  # read at the step's start (the fold changed the seats)
    t.deal("Ts")
    assert playing[0] == 1  # not again for a card's place, the deal's size or the prompt
    assert t.m.display.prompts[-1] == "deal the final cards: seat 2 one more, seat 5 two, then the dealer two"
    t.deal("9s 6h")
    assert t.m.display.prompts[-1] == "deal the final cards: seat 5 one more, then the dealer two"
    t.deal("6c 8c")
    assert t.m.display.prompts[-1] == "deal the final cards: the dealer one more"
    t.deal("9h")
    assert t.m.phase is Common.SETTLEMENT
    assert playing[0] == 1 + 1  # and once more to show the dealer's hand (not a card of the deal)
