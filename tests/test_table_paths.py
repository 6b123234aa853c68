"""Each kind of event takes the path of its kind through the table (chosen once for the kind):
a spot report the table cannot take is refused in every state, and never enters the round; a
card from the shoe whose number breaks the count, or a card while the table holds, is never
placed, whatever cards went before it."""

from __future__ import annotations

from typing import Any

import pytest
from table_helpers import FedTable

from controller.configuration import config_dir, load_table
from controller.table.game_tables import GAME_TABLES
from drivers.bet_spots import SpotReport
from drivers.link import CommandResult
from drivers.shoe import CardDealt

GAMES = ("mississippi_stud", "boston5", "pai_gow")
MAIN = {"mississippi_stud": "ante", "boston5": "first", "pai_gow": "pai_gow"}


def fed(game: str) -> tuple[FedTable, list[tuple[str, dict[str, Any]]]]:
    """A table of ``game`` opened for its first round, with what it journals beside the events."""
    t = FedTable(GAME_TABLES[game], load_table(config_dir() / "bench" / f"{game}.yaml"))
    audited: list[tuple[str, dict[str, Any]]] = []
    t.m.audit = lambda kind, data: audited.append((kind, dict(data)))
    return t, audited


def refused_reports(t: FedTable, audited: list[tuple[str, dict[str, Any]]], main: str) -> None:
    before = {n: dict(s.wagers) for n, s in t.m.seats.items()}
    audited.clear()
    for seat, spot in ((0, main), (7, main), (1, "no_such_spot")):
        t.feed(SpotReport(device="spots", seat=seat, spot=spot, cents=500))
    assert [(k, d["seat"], d["spot"]) for k, d in audited] == [
        ("DeviceFault", 0, main),
        ("DeviceFault", 7, main),
        ("DeviceFault", 1, "no_such_spot"),
    ]
    assert all(d["error"].startswith("report refused: ") for _, d in audited)
    assert {n: dict(s.wagers) for n, s in t.m.seats.items()} == before


@pytest.mark.parametrize("game", GAMES)
def test_a_report_for_a_spot_the_table_lacks_is_refused_before_and_after_the_bets_and_while_dealing(
    game: str,
) -> None:
    t, audited = fed(game)
    main = MAIN[game]
    refused_reports(t, audited, main)  # betting, no bet yet
    t.spot(1, main, 1000)
    refused_reports(t, audited, main)  # betting, a bet placed
    t.press("no_more_bets")
    if game == "pai_gow":
        t.press("next", "next", "confirm")  # the starting number
    t.deal("2c")
    assert t.m.phase.value != "betting"
    refused_reports(t, audited, main)  # after the lock, the deal begun
    assert t.m.seats[1].wagers[main] == 1000


def test_a_reply_to_a_command_changes_nothing_each_time_it_comes() -> None:
    t, _ = fed("mississippi_stud")
    t.spot(1, "ante", 1000)
    sent = len(t.devices.commands)
    for _ in range(3):
        reply = CommandResult(device="panel", command="SHOW", status=0)
        assert t.m.changes_nothing(reply)
        t.feed(reply)
    assert len(t.devices.commands) == sent and t.m.seats[1].wagers == {"ante": 1000}


@pytest.mark.parametrize("index", [4, 2, 1])  # a jump, a repeat, a start over in the middle of the round
def test_a_card_that_breaks_the_shoes_count_waits_after_cards_that_went_on(index: int) -> None:
    t, _ = fed("mississippi_stud")
    t.spot(1, "ante", 1000)
    t.press("no_more_bets")
    t.deal("2c 3d")  # shoe cards 1 and 2: the count goes on
    assert t.m.state.dealt == 2
    t.feed(CardDealt(device="shoe", card="4h", index=index, quality=100))
    assert t.m.state.dealt == 2 and t.m.phase.value == "hold"
    assert [i for i, _ in t.m.ledger.waiting] == [index]


def test_a_card_whose_number_goes_on_while_held_waits_for_the_supervisor() -> None:
    t, _ = fed("mississippi_stud")
    t.spot(1, "ante", 1000)
    t.press("no_more_bets")
    t.deal("2c 3d")
    t.feed(CardDealt(device="shoe", card="4h", index=5, quality=100))  # a jump: held
    t.feed(CardDealt(device="shoe", card="5s", index=6, quality=100))  # goes on from it, while held
    assert t.m.state.dealt == 2 and [i for i, _ in t.m.ledger.waiting] == [5, 6]
    assert t.m.card_log[-1]["to"] == "waiting for the supervisor (dealt while held)"
    assert "card 6 dealt while held: it waits for the supervisor" in t.m.display.notes
