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
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, ShoeStatus

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


# --- every step of a round, held or not (issue 42 item 5: the path of each kind is chosen once, so
# a check it skips would be skipped in every state): a report for a spot the table lacks is refused,
# and a button let go changes nothing and sends nothing

Script = tuple[tuple[Any, ...], ...]
"""A round as the events fed: ``("spot", seat, spot, cents)``, ``("press", button, ...)``,
``("deal", "cards")``, ``("card", card)`` (a jump), ``("key", on)``, ``("feed", event)``."""


def held(card: str) -> Script:
    """``card`` two numbers on from the shoe's count (a jump: the table holds), accepted by the supervisor."""
    return (("card", card), ("key", True), ("press", "confirm"), ("key", False))


ROUNDS: dict[str, Script] = {
    "mississippi_stud": (
        ("spot", 1, "ante", 500),
        ("spot", 4, "ante", 1000),
        ("press", "no_more_bets"),
        ("deal", "As Ad"),
        *held("Kc"),
        ("deal", "Qd 7h 8h 2c"),
        ("spot", 1, "third", 500),
        ("press", "seat_4", "fold", "confirm", "reveal"),
        ("spot", 1, "fourth", 500),
        ("press", "reveal"),
        ("spot", 1, "fifth", 500),
        ("press", "reveal", "confirm", "confirm", "confirm"),
    ),
    "boston5": (
        ("spot", 1, "ante", 500),
        ("spot", 1, "first", 1000),
        ("spot", 1, "bonus", 500),
        ("spot", 3, "ante", 500),
        ("spot", 3, "first", 1000),
        ("press", "no_more_bets"),
        ("deal", "As Ks"),
        *held("Qs"),
        ("deal", "7d 9c 8h 3c 4d 5h"),
        ("press", "seat_1", "next", "confirm"),
        ("spot", 1, "second", 1000),
        ("spot", 3, "second", 1000),
        ("press", "deal"),
        ("deal", "Js Ts"),
        *held("9s"),
        ("deal", "9d 6h 6c"),
        ("press", "confirm", "confirm", "confirm", "confirm"),
    ),
    "three_card_poker": (
        ("spot", 1, "ante", 500),
        ("spot", 1, "pair_plus", 500),
        ("spot", 3, "ante", 1000),
        ("press", "no_more_bets"),
        ("deal", "Ah Kh"),
        *held("Qh"),
        ("deal", "4d 2s Qc 8h Jc 5s"),
        ("spot", 1, "play", 500),
        ("press", "seat_3", "fold", "confirm", "reveal", "confirm", "confirm", "confirm", "confirm"),
    ),
}
_PAI_GOW_SHOE = (
    "7d Qd 3c 5s 2h Kc 9s 4d JK Ah 6c Tc 8s Jd 2s 5h Qc 3h 9d Kd 7s 4s Ad 6h Th 8c Js 2c 5c Qs 3s 9c Ks 7h "
    "4h As 6s Td 8d Jh 2d 5d Qh 3d 9h Kh 7c 4c Ac 6d Ts 8h Jc"
).split()
"""A 53-card pai gow deck in a shuffled order: 49 dealt, four remain (31.8)."""
ROUNDS["pai_gow"] = (
    ("spot", 2, "pai_gow", 1000),
    ("spot", 2, "bonus", 500),
    ("spot", 2, "envy_marker", 1),  # 11.15(c): the bonus's $5 envy marker
    ("spot", 5, "pai_gow", 2500),
    ("press", "no_more_bets", "next", "next", "next", "next", "next", "confirm"),  # dice 8: the dealer first
    ("deal", " ".join(_PAI_GOW_SHOE[:10])),
    *held(_PAI_GOW_SHOE[10]),
    ("deal", " ".join(_PAI_GOW_SHOE[11:49])),
    ("feed", ShoeStatus(device="shoe", stub_count=4, deck_size=53)),
    ("press", *["confirm"] * 12),
)
STEPS = {
    "pai_gow": {"betting", "dealing", "hold from dealing", "check_deal", "set_hands", "setting", "settlement"},
    "mississippi_stud": {"betting", "dealing", "hold from dealing", "third_street", "fifth_street", "settlement"},
    "boston5": {"first_deal", "hold from first_deal", "bonus", "second_wager", "hold from final_deal", "settlement"},
    "three_card_poker": {"betting", "dealing", "hold from dealing", "play", "settlement"},
}
"""Steps each round of :data:`ROUNDS` goes through (among others)."""


def play(t: FedTable, script: Script, after_each: Any) -> None:
    """Feed ``script`` to ``t``, calling ``after_each()`` after every event."""
    for what, *args in script:
        if what == "spot":
            t.spot(*args)
            after_each()
        elif what == "press":
            for button in args:
                t.press(button)
                after_each()
        elif what == "deal":
            for c in args[0].split():
                t.deal(c)
                after_each()
        elif what == "card":
            t.feed(CardDealt(device="shoe", card=args[0], index=t.shoe_index + 2, quality=100))
            after_each()
        elif what == "feed":
            t.feed(args[0])
            after_each()
        else:
            t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=args[0]))
            after_each()


@pytest.mark.parametrize("game", sorted(ROUNDS))
def test_in_every_step_a_report_for_a_lacking_spot_is_refused_and_a_release_changes_nothing(game: str) -> None:
    t, audited = fed(game)
    main = {"three_card_poker": "ante", **MAIN}[game]
    seen: set[str] = set()

    def check() -> None:
        state = t.m.state
        phase, held_from = state.phase.value, state.held_from
        step = f"hold from {held_from.value}" if phase == "hold" and held_from is not None else phase
        if step in seen:
            return
        seen.add(step)
        before = (state.phase, state.held_from, state.dealt, len(t.m.ledger.waiting))
        refused_reports(t, audited, main)
        sent = len(t.devices.commands)
        for button in ("confirm", "next", "reveal", "deal", "fold", "no_more_bets", "seat_1"):
            t.feed(ButtonChanged(device="panel", button=button, pressed=False))
        assert len(t.devices.commands) == sent, step  # the screen stays: nothing sent
        assert (state.phase, state.held_from, state.dealt, len(t.m.ledger.waiting)) == before, step

    check()
    play(t, ROUNDS[game], check)
    assert t.m.rounds and t.m.phase.value == "betting"
    assert STEPS[game] <= seen, STEPS[game] - seen
