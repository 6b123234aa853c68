"""Boston 5: a bonus hand exposed stays exposed (the outside review's attack16 finding: pressing the
seat's button again un-exposed it, and its winning bonus was then collected).

24.10(a): "any player who has placed an optional bonus wager may elect to expose those cards in
order to qualify for the optional bonus payout"; the cards, once exposed, have been seen. A seat
button pressed by mistake (the wrong seat marked exposed) must still be correctable: the
supervisor, with the key on, un-exposes it while the bonus hands are being exposed (journaled as a
``SupervisorAction``); without the key the press is refused (journaled as ``SupervisorRefused``);
held, or once the bonus settlement began, no press changes what is exposed."""

from __future__ import annotations

import pytest
from table_helpers import FedTable, bench_table, closed_table

from controller.table.game_tables import GAME_TABLES
from drivers.link import LinkDown
from drivers.panel import ButtonChanged

BETS = ((1, "ante", 500), (1, "first", 1000), (1, "bonus", 500), (2, "ante", 500), (2, "first", 1000))
FIRST = "Ah Ad Ac 7c 4d 2s 9d 9s 3c"
"""Seat 1's three aces (a winning bonus hand), seat 2's, the dealer's three."""


def table() -> tuple[FedTable, list[tuple[str, dict[str, object]]]]:
    """Seat 1 with a bonus, its three cards dealt, and the table's journaled acts."""
    t = closed_table("boston5", BETS)
    audited: list[tuple[str, dict[str, object]]] = []
    t.m.audit = lambda kind, data: audited.append((kind, dict(data)))
    t.deal(FIRST)
    assert t.snapshot().step == "bonus"
    return t, audited


def key(t: FedTable, on: bool) -> None:
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=on))


def exposed(t: FedTable) -> bool:
    seat = t.snapshot().seat(1)
    assert seat is not None
    return seat.exposed


def bonus_result(t: FedTable) -> str:
    """Seat 1's bonus as the round settles it (the rest of the round played out)."""
    t.press("confirm")  # the bonus settlement's step
    assert t.snapshot().step == "second_wager", t.snapshot().asked
    t.press("seat_1", "fold", "confirm", "seat_2", "fold", "confirm", "deal")
    while t.snapshot().step == "settlement":
        t.press("confirm")
    last = t.snapshot().last_round
    assert last is not None and not last.void
    (seat,) = [seat for seat in last.seats if seat.seat == 1]
    (bonus,) = [w for w in seat.wagers if w.spot == "bonus"]
    return bonus.result


def test_a_second_press_without_the_key_is_refused_journaled_and_the_winning_bonus_paid() -> None:
    t, audited = table()
    t.press("seat_1")
    assert exposed(t) and t.snapshot().seat(1).cards == ("Ah", "Ad", "Ac")
    t.press("seat_1")  # a second press: the cards were seen, they stay exposed
    assert exposed(t) and t.snapshot().seat(1).cards == ("Ah", "Ad", "Ac")
    assert audited == [
        (
            "SupervisorRefused",
            {
                "round": 1,
                "action": "un-expose bonus hand",
                "button": "seat_1",
                "reason": "the supervisor's key is needed",
            },
        )
    ]
    assert "un-expose bonus hand refused: the supervisor's key is needed" in t.snapshot().recent
    t.press("next")
    assert bonus_result(t) == "win"


def test_the_supervisor_corrects_a_wrong_press_journaled_and_the_bonus_is_collected_unexposed() -> None:
    t, audited = table()
    t.press("seat_1")  # a wrong press: the player did not expose
    key(t, True)
    t.press("seat_1")
    key(t, False)
    assert not exposed(t) and t.snapshot().seat(1).cards == (None, None, None)
    assert audited == [
        (
            "SupervisorAction",
            {"round": 1, "action": "bonus hand not exposed", "reason": "seat 1: a wrong press corrected (24.10(a))"},
        )
    ]
    t.press("next")
    assert bonus_result(t) == "lose"  # 24.10(a): a hand not exposed loses its bonus


def test_after_the_correction_the_dealer_may_mark_it_exposed_again() -> None:
    t, _ = table()
    t.press("seat_1")
    key(t, True)
    t.press("seat_1")
    key(t, False)
    t.press("seat_1")  # the player does expose after all
    assert exposed(t)
    t.press("next")
    assert bonus_result(t) == "win"


@pytest.mark.parametrize("key_on", [False, True], ids=["key-off", "key-on"])
@pytest.mark.parametrize("when", ["bonus-held", "bonus-settlement", "bonus-settlement-held"])
def test_held_or_once_the_bonus_settlement_began_no_press_changes_the_exposure(when: str, key_on: bool) -> None:
    """Held while the bonus hands are exposed, or from the bonus settlement on (held or not), the
    seat's button changes nothing, the supervisor's key on or off: the bonus is paid as exposed."""
    t, audited = table()
    t.press("seat_1")
    if when != "bonus-held":
        t.press("next")
        assert t.snapshot().step == "bonus_settlement"
    if when.endswith("held"):
        t.feed(LinkDown(device="shoe", reason="cable"))
        assert t.snapshot().step == "hold"
    key(t, key_on)
    t.press("seat_1")
    key(t, False)
    assert exposed(t) and t.snapshot().seat(1).cards == ("Ah", "Ad", "Ac")
    assert not [kind for kind, _ in audited if kind.startswith("Supervisor")], audited
    if when.endswith("held"):
        t.devices_back(("shoe",), ())
    if when == "bonus-held":
        t.press("next")
    assert bonus_result(t) == "win"


def test_the_events_replayed_expose_and_correct_alike() -> None:
    """A restart's replay: the refused press, the key and the correction give the same exposure."""
    t, _ = table()
    t.press("seat_1", "seat_1")
    key(t, True)
    t.press("seat_1")
    key(t, False)
    again = FedTable(GAME_TABLES["boston5"], bench_table("boston5"))
    for event in t.events:
        again.feed(event)
    assert not exposed(again) and again.snapshot().seat(1) == t.snapshot().seat(1)
