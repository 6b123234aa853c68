"""Holds are journal records (issue 45 item 2): each hold's begin (round, step, why, what clears
it), each new reason, its end (how it cleared, by whom, how long), also when two faults come at
once, when a void ends it, and when the journal itself could not take its begin; a restart takes
up a hold still open rather than beginning it again; ``recall`` tells each hold's story in its
round, ``tablectl holds`` lists a shift's. The runtime's own path (``publish`` after each event,
its drivers on loopback URLs never started), and the simulation's whole table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli
from table_helpers import ManualClock

from controller.configuration import config_dir, load_table
from controller.journal import JournalError, SqliteJournal
from controller.journal.holds import round_holds, stories
from controller.table.events import OpenTable
from controller.table.runtime import RuntimePorts, TableRuntime
from drivers.bet_spots import SpotReport
from drivers.link import LinkDown, LinkUp
from drivers.panel import ButtonChanged
from drivers.protocol import DeviceFault
from drivers.shoe import CardDealt, DoorChanged, Jam
from drivers.state import ShoeState, SpotsState

TABLE = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
JAMMED = "shoe jammed: clear the jam"


def table(path: Path, clock: ManualClock) -> TableRuntime:
    runtime = TableRuntime(
        TABLE,
        {role: "loop://" for role in TABLE.devices},
        SqliteJournal(path, clock=clock),
        ports=RuntimePorts(wall=clock),  # the table's clock: the holds' durations are timed on it
    )
    runtime._handle(OpenTable())
    for seat in (1, 4):
        runtime._handle(SpotReport(device="bet_spots", seat=seat, spot="ante", cents=500))
    runtime._handle(ButtonChanged(device="panel", button="no_more_bets", pressed=True))
    runtime._handle(CardDealt(device="shoe", card="As", index=1, quality=100))
    return runtime


def holds(path: Path) -> list[tuple[str, dict[str, Any], int, float]]:
    journal = SqliteJournal.open_readonly(path)
    try:
        return [(r.kind, r.data, r.seq, r.at) for r in journal.records() if r.kind.startswith("Hold")]
    finally:
        journal.close()


def test_a_jam_and_an_open_door_at_once_begin_change_and_end_one_hold(tmp_path: Path) -> None:
    clock = ManualClock(1_800_000_000.0)
    runtime = table(tmp_path / "j.db", clock)
    runtime._handle(Jam(device="shoe"))
    clock.now += 5
    runtime._handle(DoorChanged(device="shoe", open=True))  # a second fault at the same time
    clock.now += 60
    runtime._handle(DoorChanged(device="shoe", open=False))
    clock.now += 20.5
    runtime._handle(ShoeState(device="shoe", status="ok", cards_out=1))  # the jam cleared
    runtime.journal.close()  # type: ignore[attr-defined]
    found = holds(tmp_path / "j.db")
    assert [k for k, _, _, _ in found] == ["HoldBegan", "HoldChanged", "HoldChanged", "HoldEnded"]
    began, ended = found[0], found[-1]
    assert began[1]["round"] == 1 and began[1]["step"] == "dealing" and began[1]["reason"] == JAMMED
    assert began[1]["clears"].startswith("by itself when the shoe reports ok") and began[1]["who"]
    assert found[1][1]["reason"] == f"{JAMMED}; shoe door open"
    assert ended[1] == {
        "round": 1,
        "reason": JAMMED,
        "began_seq": began[2],
        "duration_s": 85.5,
        "cleared": "resumed in dealing",
        "by": "by itself: the shoe reports ok (jam cleared, door closed)",
        "act": None,
        "tried": [],
    }
    assert not any("As" in json.dumps(d) for _, d, _, _ in found)  # no card face down named


def test_a_hold_a_void_ends_is_told_in_its_rounds_recall_and_listed_for_the_shift(tmp_path: Path) -> None:
    clock = ManualClock(1_800_000_000.0)
    runtime = table(tmp_path / "j.db", clock)
    runtime._handle(LinkDown(device="bet_spots", reason="no reply"))
    clock.now += 3
    runtime._handle(CardDealt(device="shoe", card="Kd", index=3, quality=100))  # a jump, meanwhile
    clock.now += 4
    runtime._handle(LinkUp(device="bet_spots", boot_id=1, rebooted=False))
    runtime._handle(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    clock.now += 2
    runtime._handle(ButtonChanged(device="panel", button="void", pressed=True))
    runtime.journal.close()  # type: ignore[attr-defined]
    found = holds(tmp_path / "j.db")
    assert [k for k, _, _, _ in found] == ["HoldBegan", "HoldChanged", "HoldEnded"]
    ended = found[-1][1]
    assert ended["round"] == 1 and ended["cleared"] == "round 1 voided"
    assert ended["by"] == "supervisor: misdeal" and ended["duration_s"] == 9.0
    journal = SqliteJournal.open_readonly(tmp_path / "j.db")
    try:
        settled = journal.round_seqs()[0][1]
        assert found[-1][2] < settled  # ended among the round's own records, before its round record
        own = [r for r in journal.records(0, settled - 1) if r.data.get("round") in (1, None)]
        (story,) = round_holds(journal, 1, own, settled)
    finally:
        journal.close()
    assert story.began is not None and story.ended is not None and story.duration == 9.0
    assert [c.data["reason"] for c in story.changes] == [found[1][1]["reason"]]
    # recall --json tells it (the events are not journaled here: the round is read unverified)
    code, out, err = cli("recall", "--journal", str(tmp_path / "j.db"), "--json", "--no-verify")
    assert code == 0, err
    (told,) = json.loads(out)["recall"]["holds"]
    assert told["began"]["seq"] == found[0][2] and told["ended"]["by"] == "supervisor: misdeal"
    code, out, err = cli("recall", "--journal", str(tmp_path / "j.db"), "--no-verify")
    assert "  holds:\n" in out and "HELD in dealing: link down: bet_spots" in out
    assert f"CLEARED after 9.0 s: round 1 voided, supervisor: misdeal (record {ended['act']['seq']})" in out
    code, out, err = cli("holds", "--journal", str(tmp_path / "j.db"), "--no-verify", "--since", "2027-01-15")
    assert code == 0 and "holds from 2027-01-15 00:00:00" in out and ": 1, held 9.0 s in all" in out
    assert "round 1: 9.0 s in dealing: link down: bet_spots; round 1 voided, supervisor: misdeal" in out
    assert "supervisor: misdeal; 1 supervisor try, " in out  # the hold's end lists what was tried
    code, out, err = cli("holds", "--journal", str(tmp_path / "j.db"), "--no-verify", "--since", "2027-01-16")
    assert code == 0 and ": 0, held 0 s in all" in out


def test_a_hold_begun_while_the_journal_could_not_be_written_is_begun_late_with_its_time(tmp_path: Path) -> None:
    clock = ManualClock(1_800_000_000.0)
    runtime = table(tmp_path / "j.db", clock)
    journal = runtime.journal
    append = journal.append
    failing = {"on": True}

    def flaky(kind: str, data: dict[str, Any], event: bool = False) -> int:
        if failing["on"]:
            raise JournalError("j.db: disk full (test)")
        return append(kind, data, event)

    journal.append = flaky  # type: ignore[method-assign]
    runtime._handle(Jam(device="shoe"))  # its begin cannot be written
    failing["on"] = False
    clock.now += 10
    runtime._handle(DoorChanged(device="shoe", open=True))
    clock.now += 5
    runtime._handle(DoorChanged(device="shoe", open=False))
    runtime._handle(ShoeState(device="shoe", status="ok", cards_out=1))
    journal.close()  # type: ignore[attr-defined]
    found = holds(tmp_path / "j.db")
    assert [k for k, _, _, _ in found] == ["HoldBegan", "HoldChanged", "HoldChanged", "HoldEnded"]
    began = found[0][1]
    assert began["recorded_late"] is True and began["reason"] == JAMMED
    assert began["began"].startswith("2027-01-15T")
    assert found[-1][1]["duration_s"] == 15.0 and found[-1][1]["began_seq"] == found[0][2]


def test_a_restart_while_held_takes_the_hold_up_rather_than_beginning_it_again(tmp_path: Path) -> None:
    clock = ManualClock(1_800_000_000.0)
    runtime = table(tmp_path / "j.db", clock)
    runtime._handle(Jam(device="shoe"))
    runtime.journal.close()  # type: ignore[attr-defined]
    # the controller starts again on the journal, held as before (the snapshot shows the same hold)
    clock.now += 30
    again = TableRuntime(
        TABLE,
        {role: "loop://" for role in TABLE.devices},
        SqliteJournal(tmp_path / "j.db", clock=clock),
        ports=RuntimePorts(wall=clock),
    )
    again.table = runtime.table  # the table as the replay rebuilds it: held for the jam
    again.publish()
    again._handle(ShoeState(device="shoe", status="ok", cards_out=1))
    again.journal.close()  # type: ignore[attr-defined]
    found = holds(tmp_path / "j.db")
    assert [k for k, _, _, _ in found] == ["HoldBegan", "HoldEnded"]
    assert found[1][1]["began_seq"] == found[0][2] and found[1][1]["duration_s"] == 30.0


def test_stories_pair_each_end_with_its_begin() -> None:
    from controller.journal.records import JournalRecord

    def rec(seq: int, kind: str, **data: Any) -> JournalRecord:
        return JournalRecord(seq, 100.0 + seq, kind, data)

    told = stories(
        [
            rec(1, "HoldBegan", round=1, step="dealing", reason="a"),
            rec(2, "ButtonChanged", button="supervisor_key", pressed=True),
            rec(3, "SpotReport", seat=1, spot="ante", cents=5),
            rec(4, "HoldEnded", round=1, began_seq=1, duration_s=3.0),
            rec(5, "HoldEnded", round=1, began_seq=0),  # its begin never written
            rec(6, "HoldBegan", round=2, step="betting", reason="b"),
        ]
    )
    assert [(s.began.seq if s.began else None, s.ended.seq if s.ended else None) for s in told] == [
        (1, 4),
        (None, 5),
        (6, None),
    ]
    assert [t.seq for t in told[0].tried] == [2] and told[0].duration == 3.0 and told[2].duration is None


@pytest.mark.parametrize("seed", [2, 6])
def test_the_simulation_journals_every_hold_it_makes_begun_and_ended(tmp_path: Path, seed: int) -> None:
    code, out, err = cli(
        "simulate", "--seed", str(seed), "--rounds", "3", "--faults", "ci", "--journal-dir", str(tmp_path), "--quiet"
    )
    assert code == 0, err
    (path,) = tmp_path.glob("*.db")
    code, out, err = cli("holds", "--journal", str(path), "--json", "--since", "2000-01-01T00:00")
    assert code == 0, err
    told = [json.loads(line) for line in out.splitlines()]
    for story in told:  # each one begun and ended, the end after the begin, its duration the records' own
        assert story["began"] is not None and story["ended"] is not None, story
        assert story["ended"]["began_seq"] == story["began"]["seq"] < story["ended"]["seq"]
        between = story["ended"]["at"] - story["began"]["at"]
        if story["began"].get("recorded_late"):  # begun while the journal could not be written: from then
            assert story["duration_s"] >= between
        else:
            assert story["duration_s"] == pytest.approx(between, abs=0.002)
    code, out, err = cli("recall", "--journal", str(path), "--json", "--last", "100")
    assert code == 0, err
    in_rounds = [h for line in out.splitlines() for h in json.loads(line)["recall"]["holds"]]
    assert sorted(h["began"]["seq"] for h in in_rounds) == sorted(
        s["began"]["seq"] for s in told if s["round"] in {json.loads(x)["recall"]["round"] for x in out.splitlines()}
    )


def test_a_hold_waiting_for_a_refused_state_says_the_state_is_what_it_waits_for(tmp_path: Path) -> None:
    clock = ManualClock(1_800_000_000.0)
    runtime = table(tmp_path / "j.db", clock)
    runtime._handle(LinkDown(device="bet_spots", reason="no reply"))
    clock.now += 3
    runtime._handle(LinkUp(device="bet_spots", boot_id=1, rebooted=False))
    runtime._handle(
        DeviceFault(device="bet_spots", kind="state", error="the device refused the state request (NAK): asked again")
    )
    clock.now += 600
    hold = runtime.snapshot.hold
    assert hold is not None and hold.devices_not_back == "bet_spots: back, its state not read yet"
    assert "link is back" not in hold.clears and "read" in hold.clears, hold
    assert hold.reason == "link down: bet_spots"  # what it began with: the words follow what it waits for
    runtime._handle(SpotsState(device="bet_spots", boot_id=1, spots=((1, "ante", 500), (4, "ante", 500)), locked=True))
    assert runtime.snapshot.hold is None
    runtime.journal.close()  # type: ignore[attr-defined]
    found = holds(tmp_path / "j.db")  # the journal says what clears it as its reason says, as before
    assert [k for k, _, _, _ in found] == ["HoldBegan", "HoldEnded"]
    assert found[0][1]["clears"] == "by itself when the bet_spots link is back; or supervisor key on: void"
    assert found[1][1]["by"] == "by itself: the bet_spots link is back"


def test_a_hold_for_one_link_down_names_the_device_it_waits_for_now(tmp_path: Path) -> None:
    clock = ManualClock(1_800_000_000.0)
    runtime = table(tmp_path / "j.db", clock)
    runtime._handle(LinkDown(device="bet_spots", reason="no reply"))
    runtime._handle(LinkDown(device="panel", reason="no reply"))
    runtime._handle(LinkUp(device="bet_spots", boot_id=1, rebooted=False))
    runtime._handle(SpotsState(device="bet_spots", boot_id=1, spots=((1, "ante", 500), (4, "ante", 500)), locked=True))
    runtime._handle(LinkUp(device="panel", boot_id=1, rebooted=False))
    hold = runtime.snapshot.hold
    runtime.journal.close()  # type: ignore[attr-defined]
    assert hold is not None and hold.devices_not_back == "panel: back, its state not read yet", hold
    assert hold.clears.startswith("by itself when the panel state is read") and "bet_spots" not in hold.clears, hold
