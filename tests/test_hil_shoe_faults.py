"""The table at its edges (issue 21 items 2 and 3) over real ptys: the real controller and
drivers against the simulators. A jammed shoe and an open shoe door hold the table with the
reason on the panel, cards dealt meanwhile wait for the supervisor, the hold ends when the shoe
reports ok (the jam only by its state, read again by the driver while it lasts), also when the
jam is first seen in the shoe's state after a controller restart. A bet-spot device that reboots
empty during betting: the bets placed during its link hold count as placed; after the lock they
are late bets."""

from __future__ import annotations

from pathlib import Path

from hil_table import HilTable, locked, wait

from controller.configuration import config_dir, load_table
from controller.journal import SqliteJournal

TABLE = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
CARDS = "As Ad Kc Qd 7h 8h 2c"
JAMMED = "shoe jammed: clear the jam"
DOOR = "shoe door open"
WAITING = "1 card dealt while held: supervisor: confirm accepts, void declares a misdeal"
TEN_BETS = [(seat, "ante", 500 * seat) for seat in range(1, 7)] + [(seat, "bonus", 500) for seat in range(1, 5)]


def dealing(t: HilTable, cards: int = 2) -> None:
    locked(t, CARDS)
    t.deal(cards)
    assert t.step == "dealing"


def on_panel(t: HilTable, text: str) -> None:
    wait(lambda: any(text in line for line in t.shown()), f"the panel to show {text!r}")


def test_a_jam_holds_cards_dealt_meanwhile_wait_and_the_hold_ends_when_the_shoe_reports_ok(t: HilTable) -> None:
    dealing(t)
    before = t.count("Jam")
    t.shoe.jam()
    t.settled("Jam", before, 1)
    assert t.step == "hold" and t.hold_reason == JAMMED and t.snap.hold is not None and t.snap.hold.by_itself
    on_panel(t, JAMMED)
    t.key()
    t.press("clear_fault")  # the supervisor cannot clear a jam the shoe still reports
    assert t.step == "hold" and t.hold_reason == JAMMED
    t.deal(1)  # a card left the shoe during the jam: it waits
    assert t.step == "hold" and t.snap.hold is not None and t.snap.hold.cards_waiting == 1
    t.shoe.jam(False)  # no event: the driver reads the shoe's state again while it is jammed
    wait(lambda: t.hold_reason == WAITING, "the jam cleared by the shoe's state")
    t.press("confirm")  # the supervisor accepts the card in its place
    assert t.step == "dealing"
    t.deal(4)
    assert t.step == "third_street" and [str(c) for c in t.hands().dealer] == CARDS.split()[4:]


def test_an_open_door_holds_until_it_is_closed(t: HilTable) -> None:
    dealing(t)
    before = t.count("DoorChanged")
    t.shoe.door(True)
    t.settled("DoorChanged", before, 1)
    assert t.step == "hold" and t.hold_reason == DOOR
    on_panel(t, DOOR)
    t.shoe.door(False)
    t.settled("DoorChanged", before, 2)
    assert t.step == "dealing"
    t.deal(5)
    assert t.step == "third_street"


def test_a_jam_in_the_shoes_state_after_a_controller_restart_holds(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    with HilTable(TABLE, tmp_path / "a", SqliteJournal(path)) as t:
        dealing(t)
        chips, sim = dict(t.spots.chips), t.shoe
    sim.jammed = True  # jammed while the controller was stopped: no event, only its state says so
    with HilTable(TABLE, tmp_path / "b", SqliteJournal(path), chips, shoe_sim=sim) as t:
        assert t.runtime.recovered > 0
        wait(lambda: t.hold_reason == JAMMED, "the jam read in the shoe's state")
        on_panel(t, JAMMED)
        sim.jam(False)
        wait(lambda: t.step == "dealing", "the hold to end when the shoe reports ok")
        t.deal(5)
        assert t.step == "third_street"


def reboot_spots_empty(t: HilTable, bets: list[tuple[int, str, int]]) -> None:
    """The bet-spot device goes silent (the table holds for its link), restarts without memory,
    and the bets are placed right after its restart, before the table hears from it again."""
    before = t.count("LinkDown")
    t.servers["bet_spots"].disconnect()
    t.settled("LinkDown", before, 1)
    assert t.step == "hold" and t.hold_reason == "link down: bet_spots"
    t.spots.restart()
    for seat, spot, cents in bets:
        t.spots.place(seat, spot, cents)
    reports = t.count("SpotReport")
    t.servers["bet_spots"].reconnect()
    t.settled("SpotReport", reports, len(bets))
    wait(lambda: t.snap.hold is None or t.snap.hold.devices_not_back is None, "the spots' state read")


def test_bets_placed_during_a_bet_spot_reboot_while_betting_is_open_count_as_placed(t: HilTable) -> None:
    reboot_spots_empty(t, TEN_BETS)
    wait(lambda: t.step == "betting", "the link hold to end")
    assert not [text for text in t.texts if text.startswith(("late bet", "removed bet"))]
    assert {n: dict(t.snap.seat(n).wager_map()) for n in range(1, 7)} == {
        n: {"ante": 500 * n, **({"bonus": 500} if n <= 4 else {})} for n in range(1, 7)
    }
    t.press("no_more_bets")
    assert t.step == "no_more_bets"


def test_bets_placed_during_a_bet_spot_reboot_after_the_lock_are_late_bets(t: HilTable) -> None:
    t.spot(1, "ante", 500)
    t.press("no_more_bets")
    reboot_spots_empty(t, [(2, "ante", 1000)])
    wait(lambda: t.step == "no_more_bets", "the link hold to end")
    assert "late bet: seat 2 ante 10.00 not accepted" in t.texts
    assert t.snap.seat(2) is None  # no wager entered the round
