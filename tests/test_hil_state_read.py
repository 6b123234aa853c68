"""Item 1 of issue 11 over real ptys: after every link-up the controller reads each device's whole
state, and the table acts on what changed while the link was down (the real controller and
drivers against the simulators)."""

from __future__ import annotations

from hil_table import HilTable, locked, to_third, wait

from controller.configuration import config_dir, load_table

TABLE = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
CARDS = "As Ad Kc Qd 7h 8h 2c"


def records(t: HilTable, kind: str) -> list[dict]:
    return [r.data for r in t.journal.records(t.first_seq) if r.kind == kind]


def outage(t: HilTable, device: str, state: str, while_down=lambda: None) -> None:  # type: ignore[no-untyped-def]
    """The device's link drops, ``while_down`` happens, the link returns and its state is read."""
    before = t.count("LinkDown")
    t.servers[device].disconnect()
    t.settled("LinkDown", before, 1)
    while_down()
    before = t.count(state)
    t.servers[device].reconnect()
    t.settled(state, before, 1)


def test_spots_changed_while_the_link_was_down_are_applied_as_their_reports(t: HilTable) -> None:
    t.spot(1, "ante", 500)
    t.spot(4, "ante", 1000)

    def changes() -> None:
        t.spots.put(2, "ante", 700)  # placed while the sensors could not report
        t.spots.put(4, "ante", 0)  # taken off
        t.spots.put(9, "ante", 500)  # a seat the table does not have

    outage(t, "bet_spots", "SpotsState", changes)
    assert t.step == "betting"
    assert t.snap.wagers() == {1: {"ante": 500}, 2: {"ante": 700}}
    assert [(f["seat"], f["spot"]) for f in records(t, "DeviceFault") if "seat" in f] == [(9, "ante")]
    wait(lambda: t.spots.lamps.get((2, "ante")) == "open", "the new wager's lamp")


def test_a_spot_changed_after_the_lock_while_the_link_was_down_is_a_late_bet(t: HilTable) -> None:
    to_third(t)
    outage(t, "bet_spots", "SpotsState", lambda: t.spots.put(1, "ante", 900))
    assert t.step == "third_street" and t.snap.seat(1).wager_map() == {"ante": 500}
    assert list(t.snap.late_notes) == ["late bet: seat 1 ante 9.00 not accepted"]
    wait(lambda: t.spots.lamps.get((1, "ante")) == "flash_late", "the late bet's lamp flashing")


def test_the_panels_key_read_after_a_link_up_replaces_what_the_table_believed(t: HilTable) -> None:
    t.spot(1, "ante", 500)
    t.press("no_more_bets")

    def restarted_with_the_key_on() -> None:
        t.panel.restart()  # its reports lost
        t.panel.key(True, report=False)

    outage(t, "panel", "PanelState", restarted_with_the_key_on)
    t.press("void")  # the panel's state says the key is on
    wait(lambda: len(t.results) == 1, "the void")
    assert records(t, "SupervisorAction")[-1]["action"] == "void"


def test_a_shoe_count_that_differs_from_the_cards_reported_holds(t: HilTable) -> None:
    locked(t, CARDS)
    t.deal(3)

    def cards_lost() -> None:
        t.shoe.deal(2)
        with t.shoe.lock:  # their reports lost (a shoe that dropped its queue)
            t.shoe.pending.clear()

    outage(t, "shoe", "ShoeState", cards_lost)
    assert t.step == "hold"
    assert t.hold_reason == "shoe: the shoe counts 5 cards out, the table has 3 reported"
    assert any(f.get("cards_out") == 5 for f in records(t, "DeviceFault"))


def test_cards_dealt_while_the_panel_is_down_wait_and_are_accepted_in_their_places(t: HilTable) -> None:
    locked(t, CARDS)
    t.deal(3)
    outage(t, "panel", "PanelState", lambda: t.deal(4))  # the dealer goes on dealing: held, the cards wait
    assert t.step == "hold"
    assert t.hold_reason == "4 cards dealt while held: supervisor: confirm accepts, void declares a misdeal"
    assert [c[0] for c in t.hands().log] == [1, 2, 3, 4, 5, 6, 7]  # none refused, none dropped
    t.key()
    t.press("confirm")
    assert t.step == "third_street"
    assert [str(c) for c in t.hands().of(4)] == ["Kc", "Qd"] and [str(c) for c in t.hands().dealer] == [
        "7h",
        "8h",
        "2c",
    ]
    assert records(t, "SupervisorAction")[-1]["action"] == "cards accepted"
