"""Devices that behave like real ones (issue 11), over real ptys: the real controller and drivers
against the simulators, links dropped and restored, the key, cards dealt while held, and spot
reports for seats and spots the table does not have."""

from __future__ import annotations

from pathlib import Path

from hil_table import HilTable, locked, shoe, to_third, wait
from table_helpers import NOT_AT_THIS_TABLE, seats_1_and_4_ledger

from controller.configuration import config_dir, load_table
from controller.journal import SqliteJournal
from controller.journal.recall import recall, recall_lines

TABLE = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
CARDS = "As Ad Kc Qd 7h 8h 2c"
STREETS = ("third", "fourth", "fifth")


def records(t: HilTable, kind: str) -> list[dict]:
    return [r.data for r in t.journal.records(t.first_seq) if r.kind == kind]


def handled(t: HilTable, kind: str, before: int) -> None:
    """Wait until one more ``kind`` event is journaled and every journaled event handled."""
    t.settled(kind, before, 1)


def drop(t: HilTable, device: str) -> None:
    before = t.count("LinkDown")
    t.servers[device].disconnect()
    handled(t, "LinkDown", before)


def restore(t: HilTable, device: str) -> None:
    before = t.count("LinkUp")
    t.servers[device].reconnect()
    handled(t, "LinkUp", before)


def test_2_after_a_panel_link_down_the_key_is_off_until_the_panel_says_on(t: HilTable) -> None:
    to_third(t)
    t.key()
    drop(t, "panel")
    restore(t, "panel")
    t.press("void")  # the key was on before the link dropped: no longer evidence
    assert t.results == [] and t.snap.round_no == 1
    refused = records(t, "SupervisorRefused")
    assert [(r["action"], r["reason"]) for r in refused] == [("void", "the supervisor's key is needed")]
    t.key()  # the panel reports the key on again
    t.press("void")
    wait(lambda: len(t.results) == 1, "the void")
    assert t.results[-1].settlement is None


def test_3_a_hold_for_a_device_is_not_cleared_while_it_is_gone(t: HilTable) -> None:
    to_third(t)
    t.key()
    drop(t, "bet_spots")
    assert t.step == "hold" and t.hold_reason == "link down: bet_spots"
    t.press("clear_fault")
    assert t.step == "hold"
    assert records(t, "SupervisorRefused")[-1]["reason"] == "a device is not back: bet_spots: link down"
    assert any(p.startswith("clear fault refused: a device is not back") for p in t.texts[-3:])
    t.press("void")  # the supervisor may still void
    wait(lambda: len(t.results) == 1, "the void")
    assert t.results[-1].settlement is None


def test_5_cards_dealt_while_held_wait_for_the_supervisor_and_recall_shows_every_card(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    with HilTable(TABLE, tmp_path / "run", SqliteJournal(path)) as t:
        locked(t, CARDS)
        t.deal(2)
        before = t.count("CardUnreadable")
        t.shoe.unreadable()  # the third card leaves the shoe unread: the table holds
        t.settled("CardUnreadable", before, 1)
        assert t.step == "hold"
        t.deal(4)  # the dealer goes on dealing: four cards left the shoe while held
        assert t.step == "hold" and [c[0] for c in t.hands().log] == [1, 2, 3, 4, 5, 6, 7]  # none dropped
        t.press("confirm")  # without the key: refused, and journaled
        t.key()
        t.press("next")
        assert t.hands().entry == "2c"  # deck no. 1: the whole deck, none skipped (skips told the cards out)
        t.press(*["next"] * 11)  # on to deck no. 12, the card the shoe could not read
        assert t.hands().entry == "Kc"
        t.press("confirm")
        assert t.hold_reason == "4 cards dealt while held: supervisor: confirm accepts, void declares a misdeal"
        t.press("confirm")  # accepted, each in its place in the dealing order
        assert t.step == "third_street"
        assert [str(c) for c in t.hands().of(4)] == [str(t.hands().of(4)[0]), "Qd"]
        assert [str(c) for c in t.hands().dealer] == ["7h", "8h", "2c"]
        for street in STREETS:
            t.spot(1, street, 500)
            t.spot(4, street, 1000)
            t.press("reveal")
        t.settles_as_tablectl_settle(t.finish())
    journal = SqliteJournal(path)
    (round_one,) = recall(journal, round_no=1)
    cards = [(c["index"], c["card"], c["to"]) for c in round_one.data["cards"]]
    entered = cards[-1][1]
    assert cards == [*seats_1_and_4_ledger("As Ad ?? Qd 7h 8h 2c"), (3, entered, "seat 4")]
    text = "\n".join(recall_lines(round_one))
    assert "  4 Qd  -> seat 4" in text and "SUPERVISOR cards accepted" in text
    assert "SUPERVISOR REFUSED enter card: the supervisor's key is needed" in text
    journal.close()


def test_6_reports_for_seats_and_spots_the_table_does_not_have_are_refused(t: HilTable) -> None:
    for seat, spot in NOT_AT_THIS_TABLE:
        t.spot(seat, spot, 500)
    t.spot(1, "ante", 500)
    faults = records(t, "DeviceFault")
    assert [(f["device"], f["seat"], f["spot"]) for f in faults] == [("bet_spots", *s) for s in NOT_AT_THIS_TABLE]
    assert "no seat 9 at this table (seats 1-6)" in faults[2]["error"]
    assert [s.number for s in t.snap.seats] == [1] and (9, "ante") not in t.spots.lamps
    t.press("no_more_bets")
    t.load(shoe(CARDS))
    t.deal(5)
    assert t.step == "third_street"
    for street in STREETS:
        t.spot(1, street, 500)
        t.press("reveal")
    result = t.finish()
    assert list(result.record["seats"]) == ["1"]
    t.settles_as_tablectl_settle(result)


def test_4_on_link_up_the_panel_and_the_spots_get_their_whole_state_again(t: HilTable) -> None:
    from drivers.messages import BUTTONS

    def settled() -> bool:
        return t.runtime.engine.queue.empty() and t.runtime.engine.processed == t.count_events()

    to_third(t)
    drop(t, "panel")  # the hold's text and lamp are sent while the panel cannot hear them
    t.panel.display.clear()  # and it comes back blank, as a panel that restarted
    t.panel.lamps.clear()
    restore(t, "panel")
    # the panel shows what the table shows now (the hold, or its end once the panel's state is read)
    wait(
        lambda: (
            settled()
            and t.panel.display == dict(enumerate(t.snap.screen, start=1))
            and t.panel.lamps.get(BUTTONS.index("clear_fault") + 1) == dict(t.snap.panel_lamps)["clear_fault"]
        ),
        "the panel's screen and lamps sent again",
    )
    drop(t, "bet_spots")
    t.spots.lamps.clear()
    t.spots.locked = False
    restore(t, "bet_spots")
    wait(lambda: t.spots.locked, "the spots locked again")
    wait(lambda: t.spots.lamps == {(1, "ante"): "accepted", (4, "ante"): "accepted"}, "every spot lamp sent again")


def test_a_spot_lock_that_stays_busy_holds_the_table_until_cleared(t: HilTable) -> None:
    t.spot(1, "ante", 500)
    t.spots.busy_next = 1000  # the sensors answer every command busy
    t.press("no_more_bets")
    wait(lambda: t.step == "hold", "the hold for the failed lock")
    assert t.hold_reason.startswith("bet_spots: command ") and "busy after" in t.hold_reason
    assert not t.spots.locked
    t.spots.busy_next = 0
    t.key()
    t.press("clear_fault")
    assert t.step == "no_more_bets"
    wait(lambda: t.spots.locked and t.spots.lamps.get((1, "ante")) == "accepted", "the lock and lamps sent again")
