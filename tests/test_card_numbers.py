"""The shoe's card numbers checked against the cards journaled (issue 21): a jump (2, then 5)
holds the table and the card waits for the supervisor; a count starting over at 1, or a card read
again at its own number, is no jump. In each game, while dealing and while already held."""

from __future__ import annotations

import pytest
from table_helpers import FedTable

from controller.table.boston5 import Boston5Table
from controller.table.mississippi_stud import MississippiTable
from controller.table.snapshot_build import build_hands
from controller.table_config import config_dir, load_table
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, CardUnreadable

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
def test_a_count_starting_over_or_a_card_read_again_is_no_jump(game: str) -> None:
    t = dealing(game)
    t.feed(card("As", 1))
    t.feed(CardUnreadable(device="shoe", index=2))
    t.feed(card("Ad", 2))  # read again at its own number
    snap = t.snapshot()
    assert snap.hold is None or "jump" not in snap.hold.reason
    t.feed(card("Kc", 1))  # the shoe counts from 1 again (a new shoe): not a jump
    snap = t.snapshot()
    assert snap.hold is None or "jump" not in snap.hold.reason
    t.feed(card("Qd", 3))  # 1, then 3: a jump
    snap = t.snapshot()
    assert snap.hold is not None and snap.hold.reason.startswith(
        "shoe card numbers jump from 1 to 3: shoe card 2 never"
    )
