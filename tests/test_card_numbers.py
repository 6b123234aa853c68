"""The shoe's card numbers checked against the cards journaled (issue 21): a jump (2, then 5)
holds the table and the card waits for the supervisor; so do a repeated number (a second card
under number 2) and a count starting over at 1 in the middle of a round with no shuffle (issue 32);
a count starting over before the round's first card, after the shoe's state said so, or a card
read again at its own number, is no break. In each game, while dealing and while already held."""

from __future__ import annotations

import pytest
from table_helpers import FedTable

from controller.configuration import config_dir, load_table
from controller.game.boston5._machine import Boston5Table
from controller.game.mississippi_stud._machine import MississippiTable
from controller.table.snapshot_build import build_hands
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, CardUnreadable
from drivers.state import ShoeState

BENCH = config_dir() / "bench"
GAMES = {
    "mississippi_stud": (MississippiTable, load_table(BENCH / "mississippi_stud.yaml"), {"ante": 500}),
    "boston5": (Boston5Table, load_table(BENCH / "boston5.yaml"), {"ante": 500, "first": 1000}),
}
JUMP = (
    "shoe card numbers jump from 2 to 5: shoe cards 3 to 4 never reported:"
    " supervisor: confirm accepts the cards, void declares a misdeal"
)


def dealing(game: str) -> FedTable:
    cls, table, spots = GAMES[game]
    t = FedTable(cls, table)
    for seat in (1, 4):
        for spot, cents in spots.items():
            t.spot(seat, spot, cents)
    t.press("no_more_bets")
    return t


def card(text: str, index: int) -> CardDealt:
    return CardDealt(device="shoe", card=text, index=index, quality=100)


@pytest.mark.parametrize("game", GAMES)
def test_a_jump_in_the_card_numbers_holds_and_the_card_waits(game: str) -> None:
    t = dealing(game)
    t.feed(card("As", 1))
    t.feed(card("Ad", 2))
    t.feed(card("6c", 5))
    snap = t.snapshot()
    assert snap.step == "hold" and snap.hold is not None and snap.hold.reason == JUMP
    log = build_hands(t.m).log
    assert (
        log[-1][0] == 5 and log[-1][2] == "waiting for the supervisor (dealt after a jump in the shoe's card numbers)"
    )
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("void")
    assert t.snapshot().round_no == 2  # the misdeal voided the round


@pytest.mark.parametrize("game", GAMES)
def test_a_jump_while_held_for_something_else_holds_for_the_jump(game: str) -> None:
    t = dealing(game)
    t.feed(card("As", 1))
    t.feed(card("Ad", 2))
    t.feed(CardUnreadable(device="shoe", index=3))
    assert t.snapshot().step == "hold"
    t.feed(card("6c", 6))
    snap = t.snapshot()
    assert snap.hold is not None and snap.hold.reason.startswith(
        "shoe card numbers jump from 3 to 6: shoe cards 4 to 5"
    )


@pytest.mark.parametrize("game", GAMES)
def test_a_card_read_again_at_its_own_number_is_no_break(game: str) -> None:
    t = dealing(game)
    t.feed(card("As", 1))
    t.feed(CardUnreadable(device="shoe", index=2))
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.feed(card("Ad", 2))  # read again at its own number
    snap = t.snapshot()
    assert snap.hold is None, snap.hold
    t.feed(card("Qd", 4))  # 2, then 4: a jump
    snap = t.snapshot()
    assert snap.hold is not None and snap.hold.reason.startswith(
        "shoe card numbers jump from 2 to 4: shoe card 3 never"
    )


REPEAT = (
    "shoe card numbers repeat: card 2 reported again after 2:"
    " supervisor: confirm accepts the cards, void declares a misdeal"
)
RESTART = (
    "shoe card numbers start over at 1 after 2 in the middle of the round, with no shuffle:"
    " supervisor: confirm accepts the cards, void declares a misdeal"
)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(("index", "reason", "why"), [(2, REPEAT, "repeat"), (1, RESTART, "restart")])
def test_a_repeated_or_restarted_card_number_holds_and_the_card_waits(
    game: str, index: int, reason: str, why: str
) -> None:
    t = dealing(game)
    t.feed(card("As", 1))
    t.feed(card("Ad", 2))
    t.feed(card("6c", index))
    snap = t.snapshot()
    assert snap.step == "hold" and snap.hold is not None and snap.hold.reason == reason
    assert snap.hold.clears == "supervisor key on: confirm accepts the cards, void declares a misdeal"
    log = build_hands(t.m).log
    assert (
        log[-1][0] == index
        and log[-1][2] == f"waiting for the supervisor (dealt after a {why} in the shoe's card numbers)"
    )
    assert [(n, card) for n, card, _ in log[:-1]] == [(1, "As"), (2, "Ad")]  # not placed: it waits
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("confirm")  # accepted: the card goes to its place in dealing order
    snap = t.snapshot()
    assert snap.hold is None and build_hands(t.m).log[-1][2].startswith("seat")  # placed in dealing order
    t.feed(card("Kc", index + 1))  # the shoe's count goes on from the accepted card
    assert t.snapshot().hold is None


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("index", [2, 1])
def test_a_repeated_or_restarted_number_while_held_for_another_card_holds_for_it(game: str, index: int) -> None:
    t = dealing(game)
    t.feed(card("As", 1))
    t.feed(card("Ad", 2))
    t.feed(CardUnreadable(device="shoe", index=3))  # held for the unreadable card 3
    t.feed(card("6c", index))  # and the count breaks meanwhile
    snap = t.snapshot()
    word = "repeat: card 2" if index == 2 else "start over at 1"
    assert snap.hold is not None and snap.hold.reason.startswith(f"shoe card numbers {word}")
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("void")
    assert t.snapshot().round_no == 2  # a misdeal


@pytest.mark.parametrize("game", GAMES)
def test_a_count_starting_over_between_rounds_or_after_the_shoe_said_so_is_no_break(game: str) -> None:
    t = dealing(game)
    t.feed(card("As", 1))
    t.feed(ShoeState(device="shoe", status="ok", cards_out=0))  # the shoe restarted, its count with it
    t.feed(card("Ad", 1))
    snap = t.snapshot()
    assert snap.hold is None, snap.hold
    t.feed(card("Kc", 2))
    assert t.snapshot().hold is None
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("void")  # a new round: the shoe counts from 1 again (a new shoe) before its first card
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=False))
    cls, table, spots = GAMES[game]
    for seat in (1, 4):
        for spot, cents in spots.items():
            t.spot(seat, spot, cents)
    t.press("no_more_bets")
    t.feed(card("Qd", 1))
    assert t.snapshot().hold is None and t.snapshot().round_no == 2


def test_two_waiting_cards_under_one_shoe_number_each_keep_their_own_entry() -> None:
    """Three Card Poker swarm seed 164 (`cards`: round 7's record had shoe card 1 twice): the deal
    came out during a disk-full hold, then the shoe's count started over, so two waiting cards
    were both number 1. The ledger kept the entries of cards being placed by shoe number only:
    the first card 1 placed took the second's entry, its own stayed "waiting", and the second was
    added at the end. Each keeps its own entry now (by number and card, in dealt order)."""
    from controller.table.card_ledger import BURNED, CardLedger
    from controller.vocab import card

    ledger = CardLedger()
    for index, text in ((1, "8h"), (2, "7s"), (1, "8s")):
        ledger.wait(index, card(text), "dealt while held")
    assert [i for i, _ in ledger.take_waiting()] == [1, 2, 1]
    ledger.placed(1, card("8h"), "seat 1")
    ledger.placed(2, card("7s"), "seat 1")
    ledger.not_used(1, "8s", BURNED)
    assert [(e["index"], e["card"], e["to"]) for e in ledger.records()] == [
        (1, "8h", "seat 1"),
        (2, "7s", "seat 1"),
        (1, "8s", BURNED),
    ]
