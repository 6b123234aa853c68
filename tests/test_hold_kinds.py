"""Every kind of hold begins and ends in the journal (issue 45 item 2): a link down, the panel's
outage, the journal's error and its disk full, a jam, the shoe's door, the shoe's count faults,
an unreadable card, a failed command, a void; each with how it cleared, by whom (the supervisor's
act that cleared it, by its record) and every act and refusal tried meanwhile; a second fault while
held; a hold open when the controller stops, ended after the restart with its story intact; and
the same in the simulation's whole table for each of its fault kinds that holds.

The table is the runtime's own path (``publish`` after each event, on the table's clock the test
moves), as in tests/test_holds.py."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli
from table_helpers import ManualClock
from test_holds import TABLE, holds, table

from controller.journal import SqliteJournal
from controller.journal.holds import stories
from controller.table.engine import JournalFault
from controller.table.events import DevicesExpected, OpenTable
from controller.table.runtime import RuntimePorts, TableRuntime
from drivers.bet_spots import SpotReport
from drivers.link import DeviceFault, LinkDown, LinkUp
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, CardUnreadable, DoorChanged, Jam
from drivers.state import PanelState, ShoeState, SpotsState
from hil.simulate.run import run_seed

KEY = "key on"
"""A step: the supervisor turns the key."""
NO_JOURNAL = "journal fails"
"""A step: the journal cannot be written (the engine's word to the table)."""

SPOTS = SpotsState(device="bet_spots", spots=((1, "ante", 500), (4, "ante", 500)), locked=True)
READ_AGAIN = (SPOTS, PanelState(device="panel"), ShoeState(device="shoe", status="ok", cards_out=1))
"""Every device's state, read again."""

Step = object
"""An event for the table, a button pressed (its name), :data:`KEY` or :data:`NO_JOURNAL`."""

OPENED: tuple[Step, ...] = (
    OpenTable(),
    SpotReport(device="bet_spots", seat=1, spot="ante", cents=500),
    SpotReport(device="bet_spots", seat=4, spot="ante", cents=500),
    "no_more_bets",
    CardDealt(device="shoe", card="As", index=1, quality=100),
)
"""A round opened and dealing (tests/test_holds.py's ``table``), journaled."""


def play(runtime: TableRuntime, clock: ManualClock, steps: tuple[Step, ...], journaled: bool = False) -> None:
    """Each step one second after the last; ``journaled``: each event journaled first, as the
    engine does (a restart replays them), else only handled."""
    handle = runtime.engine.step if journaled else runtime._handle
    for step in steps:
        clock.now += 1
        if step == KEY:
            handle(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
        elif step == NO_JOURNAL:
            runtime._journal_failed("j.db: disk full: 0 bytes free")
        elif isinstance(step, str):
            handle(ButtonChanged(device="panel", button=step, pressed=True))
            handle(ButtonChanged(device="panel", button=step, pressed=False))
        else:
            handle(step)


@dataclass(frozen=True)
class Case:
    """A hold made and cleared: the steps, its first reason, and how its end must read."""

    steps: tuple[Step, ...]
    reason: str
    by: str
    act: str | None = None
    """The supervisor's act that cleared it (None: none did)."""
    tried: tuple[str, ...] = ()
    """Every act and refusal of the supervisor's while held (``action`` or ``action: refused``)."""
    cleared: str = "resumed in dealing"
    holds_at: int = 1
    """The step that holds (the first: 1)."""


CASES = {
    "link down": Case(
        (LinkDown(device="bet_spots", reason="no reply"), LinkUp(device="bet_spots", boot_id=1, rebooted=False), SPOTS),
        "link down: bet_spots",
        "by itself: the bet_spots link is back",
    ),
    "panel outage": Case(
        (LinkDown(device="panel", reason="no reply"), "clear_fault", LinkUp(device="panel", boot_id=1, rebooted=False))
        + (PanelState(device="panel"),),
        "link down: panel",
        "by itself: the panel link is back",
        tried=("clear fault: refused",),  # the key counts as off while the panel's link is down
    ),
    "journal error": Case(
        (NO_JOURNAL, JournalFault(reason="disk full", refused=0), *READ_AGAIN),
        "journal: j.db: disk full: 0 bytes free",
        "by itself: every device's state is read again",
    ),
    "journal events lost": Case(
        (NO_JOURNAL, JournalFault(reason="disk full", refused=3), *READ_AGAIN, "clear_fault", KEY, "clear_fault"),
        "journal: j.db: disk full: 0 bytes free",
        "supervisor: fault cleared",
        act="fault cleared",
        tried=("clear fault: refused", "fault cleared"),
    ),
    "jam": Case(
        (Jam(device="shoe"), ShoeState(device="shoe", status="ok", cards_out=1)),
        "shoe jammed: clear the jam",
        "by itself: the shoe reports ok (jam cleared, door closed)",
    ),
    "door": Case(
        (DoorChanged(device="shoe", open=True), DoorChanged(device="shoe", open=False)),
        "shoe door open",
        "by itself: the shoe reports ok (jam cleared, door closed)",
    ),
    "count jump": Case(
        (CardDealt(device="shoe", card="Kd", index=3, quality=100), KEY, "confirm"),
        "shoe card numbers jump from 1 to 3",
        "supervisor: cards accepted",
        act="cards accepted",
        tried=("cards accepted",),
    ),
    "count repeat": Case(
        (CardDealt(device="shoe", card="Kd", index=1, quality=100), KEY, "clear_fault", "confirm"),
        "shoe card numbers start over at 1 after 1",
        "supervisor: cards accepted",
        act="cards accepted",
        tried=("clear fault: refused", "cards accepted"),
    ),
    "count restart": Case(
        (
            CardDealt(device="shoe", card="2d", index=2, quality=100),
            CardDealt(device="shoe", card="Kd", index=1, quality=100),
        )
        + (KEY, "confirm"),
        "shoe card numbers start over at 1 after 2",
        "supervisor: cards accepted",
        act="cards accepted",
        tried=("cards accepted",),
        holds_at=2,
    ),
    "unreadable card": Case(
        (CardUnreadable(device="shoe", index=2), "clear_fault", KEY, "clear_fault"),
        "unreadable card: seat 1 card 2",
        "supervisor: fault cleared",
        act="fault cleared",
        tried=("clear fault: refused", "fault cleared"),
    ),
    "command failed": Case(
        (DeviceFault(device="panel", kind="command_failed", command="display", error="no answer"), KEY, "clear_fault"),
        "panel: no answer",
        "supervisor: fault cleared",
        act="fault cleared",
        tried=("fault cleared",),
    ),
    "voided": Case(
        (CardUnreadable(device="shoe", index=2), KEY, "void"),
        "unreadable card: seat 1 card 2",
        "supervisor: void",
        act="void",
        tried=("void",),
        cleared="round 1 voided",
    ),
}


def tried_words(ended: dict[str, Any]) -> tuple[str, ...]:
    return tuple(t["action"] + (": refused" if "refused" in t else "") for t in ended["tried"])


def check_one_hold(path: Path, case: Case, seconds: float) -> list[tuple[str, dict[str, Any], int, float]]:
    """The journal at ``path`` has one hold, begun and ended as ``case`` says, ``seconds`` long."""
    found = holds(path)
    kinds = [k for k, _, _, _ in found]
    assert kinds[0] == "HoldBegan" and kinds[-1] == "HoldEnded" and kinds.count("HoldEnded") == 1, kinds
    (_, began, began_seq, _), (_, ended, ended_seq, _) = found[0], found[-1]
    assert began["round"] == 1 and began["step"] == "dealing" and began["reason"].startswith(case.reason)
    assert ended["began_seq"] == began_seq < ended_seq
    assert ended["cleared"] == case.cleared and ended["by"] == case.by
    assert ended["duration_s"] == seconds
    assert tried_words(ended) == case.tried
    journal = SqliteJournal.open_readonly(path)
    try:
        acts = {r.seq: r for r in journal.records() if r.kind in ("SupervisorAction", "SupervisorRefused")}
    finally:
        journal.close()
    if case.act is None:
        assert ended["act"] is None
    else:  # the act names the record of the supervisor's act that cleared it, the last one tried
        act = acts[ended["act"]["seq"]]
        assert act.kind == "SupervisorAction" and act.data["action"] == ended["act"]["action"] == case.act
        assert ended["act"] == ended["tried"][-1]
    for t in ended["tried"]:  # each try is its own record, made while held
        assert began_seq < t["seq"] < ended_seq and acts[t["seq"]].data["action"] == t["action"]
    assert not any(card in json.dumps(d) for _, d, _, _ in found for card in ('"As"', '"Kd"', '"2d"'))
    return found


@pytest.mark.parametrize("name", list(CASES))
def test_every_kind_of_hold_begins_and_ends_in_the_journal_with_how_and_who(tmp_path: Path, name: str) -> None:
    case = CASES[name]
    clock = ManualClock(1_800_000_000.0)
    runtime = table(tmp_path / "j.db", clock)
    start = clock.now
    play(runtime, clock, case.steps)
    runtime.journal.close()  # type: ignore[attr-defined]
    check_one_hold(tmp_path / "j.db", case, clock.now - start - case.holds_at)


def test_a_second_fault_while_held_changes_the_one_hold_and_each_try_is_kept(tmp_path: Path) -> None:
    """An unreadable card, then the panel's link lost (the key with it), a try without the key,
    the panel back, the key, clear fault: one hold, ended by the supervisor's act."""
    case = Case(
        (
            CardUnreadable(device="shoe", index=2),
            KEY,
            LinkDown(device="panel", reason="no reply"),
            LinkUp(device="panel", boot_id=1, rebooted=False),
            PanelState(device="panel"),
            "clear_fault",  # the key was lost with the panel's link
            KEY,
            "clear_fault",
        ),
        "unreadable card: seat 1 card 2",
        "supervisor: fault cleared",
        act="fault cleared",
        tried=("clear fault: refused", "fault cleared"),
    )
    clock = ManualClock(1_800_000_000.0)
    runtime = table(tmp_path / "j.db", clock)
    play(runtime, clock, case.steps)
    runtime.journal.close()  # type: ignore[attr-defined]
    check_one_hold(tmp_path / "j.db", case, 7.0)


def test_a_link_down_then_a_jam_while_held_ends_once_both_are_back(tmp_path: Path) -> None:
    case = Case(
        (
            LinkDown(device="bet_spots", reason="no reply"),
            Jam(device="shoe"),  # replaces the link's reason: the dealer must see the jam
            ShoeState(device="shoe", status="ok", cards_out=1),  # the link is still down: held for it
            LinkUp(device="bet_spots", boot_id=1, rebooted=False),
            SPOTS,
        ),
        "link down: bet_spots",
        "by itself: the bet_spots link is back",
    )
    clock = ManualClock(1_800_000_000.0)
    runtime = table(tmp_path / "j.db", clock)
    play(runtime, clock, case.steps)
    runtime.journal.close()  # type: ignore[attr-defined]
    found = check_one_hold(tmp_path / "j.db", case, 4.0)
    assert [d["reason"] for k, d, _, _ in found if k == "HoldChanged"] == [
        "shoe jammed: clear the jam",
        "link down: bet_spots",
    ]


def restarted(path: Path, clock: ManualClock) -> TableRuntime:
    """The controller started again on the journal at ``path``: the open round recovered from it
    (its events replayed into the machine), then every device read again."""
    runtime = TableRuntime(
        TABLE,
        {role: "loop://" for role in TABLE.devices},
        SqliteJournal(path, clock=clock),
        ports=RuntimePorts(wall=clock),
    )
    assert runtime.recover()
    runtime.engine.step(DevicesExpected(tuple(sorted(runtime.drivers)), reread=True, since=clock.now))
    return runtime


def back_after_restart(cards_out: int) -> tuple[Step, ...]:
    """Every device's link up after the restart, and its state read (the shoe ok, ``cards_out``)."""
    states = (*READ_AGAIN[:2], ShoeState(device="shoe", status="ok", cards_out=cards_out))
    return tuple(step for state in states for step in (LinkUp(device=state.device, boot_id=1, rebooted=False), state))


@pytest.mark.parametrize("by_itself", [False, True], ids=["supervisor", "by-itself"])
def test_a_hold_open_when_the_controller_stops_ends_after_the_restart_with_its_story(
    tmp_path: Path, by_itself: bool
) -> None:
    clock = ManualClock(1_800_000_000.0)
    path = tmp_path / "j.db"
    runtime = TableRuntime(
        TABLE,
        {role: "loop://" for role in TABLE.devices},
        SqliteJournal(path, clock=clock),
        ports=RuntimePorts(wall=clock),
    )
    play(runtime, clock, OPENED, journaled=True)
    began = clock.now + 1
    fault: Step = Jam(device="shoe") if by_itself else CardUnreadable(device="shoe", index=2)
    play(runtime, clock, (fault, "clear_fault"), journaled=True)  # a try without the key, before the stop
    runtime.journal.close()  # type: ignore[attr-defined]  # the controller stops, held
    clock.now += 100
    again = restarted(path, clock)
    if by_itself:
        play(again, clock, back_after_restart(cards_out=1), journaled=True)
        case = Case(
            (),
            "shoe jammed",
            "by itself: the shoe reports ok (jam cleared, door closed)",
            tried=("clear fault: refused",),
        )
    else:
        play(again, clock, (*back_after_restart(cards_out=2), KEY, "clear_fault"), journaled=True)
        case = Case(
            (),
            "unreadable card: seat 1 card 2",
            "supervisor: fault cleared",
            act="fault cleared",
            tried=("clear fault: refused", "fault cleared"),
        )
    again.journal.close()  # type: ignore[attr-defined]
    found = check_one_hold(path, case, clock.now - began)
    assert [k for k, _, _, _ in found].count("HoldBegan") == 1  # taken up, not begun again
    code, out, err = cli("holds", "--journal", str(path), "--json", "--no-verify", "--since", "2000-01-01")
    assert code == 0, err
    (story,) = [json.loads(line) for line in out.splitlines()]
    assert story["began"]["seq"] == found[0][2] and story["ended"]["seq"] == found[-1][2]
    # the story between tells the stop too: the devices read again after it are among what happened
    assert any(t["kind"] == "SupervisorRefused" for t in story["tried"])


# (seed, reason): a Mississippi Stud seed of three rounds, injecting only that kind, whose journal
# holds with that reason. The seeds follow the simulated world's draws: when its streams changed
# (2026-12-07 evening) panel_outage moved 1 -> 4 and reboot 5 -> 4 (the old seeds no longer hold so).
SIMULATED = {
    "link_down": (2, "link down: panel"),
    "panel_outage": (4, "link down: panel"),
    "journal_error": (1, "journal: "),
    "disk_full": (1, "journal: disk full"),
    "crash": (1, "controller started again"),
    "jam": (1, "shoe jammed"),
    "door": (1, "shoe door open"),
    "duplicate_card": (1, "card 10 from the shoe dealt when none was expected"),
    "unreadable_card": (1, "card 10 from the shoe after the round's"),
    "early_card": (2, "card 10 from the shoe dealt when none was expected"),
    "never_connected": (1, "never connected: shoe"),
    "reboot": (4, "shoe: the shoe counts 9 cards"),
}


def check_story(story: Any, supervisor: Callable[[int], dict[str, Any]]) -> None:
    """A simulated hold's story: begun and ended, timed on the table's clock, its act and its tries
    the supervisor's records made while held."""
    began, ended = story.began, story.ended
    assert began is not None and ended is not None
    assert ended.data["began_seq"] == began.seq < ended.seq
    if not began.data.get("recorded_late"):
        assert ended.data["duration_s"] == pytest.approx(ended.at - began.at, abs=0.002)
    act = ended.data["act"]
    if act is not None:
        assert ended.data["by"].startswith("supervisor: ") and supervisor(act["seq"])["action"] == act["action"]
    else:
        assert not ended.data["cleared"].startswith("resumed") or ended.data["by"].startswith(
            ("by itself", "supervisor")
        )
    for t in ended.data["tried"]:
        assert began.seq < t["seq"] < ended.seq and supervisor(t["seq"])["action"] == t["action"]


@pytest.mark.parametrize("kind", list(SIMULATED))
def test_each_simulated_fault_that_holds_begins_and_ends_a_hold_in_the_journal(tmp_path: Path, kind: str) -> None:
    seed, reason = SIMULATED[kind]
    result = run_seed("mississippi_stud", seed, [kind], rounds=3, folder=tmp_path)
    assert not result.broken, result.broken
    journal = SqliteJournal.open_readonly(tmp_path / f"mississippi_stud-{seed}.db")
    try:
        records = list(journal.records())
    finally:
        journal.close()
    by_seq = {r.seq: r.data for r in records if r.kind in ("SupervisorAction", "SupervisorRefused")}
    told = stories(records)
    assert any(s.began is not None and str(s.began.data["reason"]).startswith(reason) for s in told), [
        s.began.data["reason"] for s in told if s.began is not None
    ]
    for story in told:
        check_story(story, by_seq.__getitem__)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--since", "2026-02-30"], "'2026-02-30': not a time"),
        (["--since", "yesterday-ish"], "'yesterday-ish': not a time"),
        (["--since", "2026-12-03", "--until", "25:99"], "'25:99': not a time"),
        (["--since", "2026-12-03T10:00", "--until", "2026-12-03T09:00"], "is after --until"),
    ],
)
def test_holds_refuses_a_bad_shift_with_a_clear_error_and_exit_2(tmp_path: Path, args: list[str], named: str) -> None:
    clock = ManualClock(1_800_000_000.0)
    runtime = table(tmp_path / "j.db", clock)
    runtime.journal.close()  # type: ignore[attr-defined]
    code, out, err = cli("holds", "--journal", str(tmp_path / "j.db"), *args)
    assert code == 2 and named in err and "Traceback" not in err and out == ""


@pytest.mark.parametrize(("zone", "listed"), [("EST+5", 1), ("JST-9", 0)])
def test_holds_lists_a_shift_in_the_tables_time_zone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, zone: str, listed: int
) -> None:
    """A hold at 08:00 UTC began at 03:00 on a table in New York, at 17:00 on one in Tokyo: the
    shift from 02:00 to 04:00 local has it in New York only."""
    clock = ManualClock(1_800_000_000.0)  # 2027-01-15 08:00:00 UTC
    runtime = table(tmp_path / "j.db", clock)
    play(runtime, clock, (Jam(device="shoe"), ShoeState(device="shoe", status="ok", cards_out=1)))
    runtime.journal.close()  # type: ignore[attr-defined]
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        code, out, err = cli(
            "holds",
            "--journal",
            str(tmp_path / "j.db"),
            "--no-verify",
            "--since",
            "2027-01-15T02:00",
            "--until",
            "2027-01-15T04:00",
        )
    finally:
        monkeypatch.undo()
        time.tzset()
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("holds from 2027-01-15 02:00:00") and f": {listed}, held " in lines[0]
    if listed:
        assert lines[1].startswith("  2027-01-15 03:00:01 round 1: 1.0 s in dealing: shoe jammed: clear the jam; ")
        assert lines[1].endswith(
            "resumed in dealing, by itself: the shoe reports ok (jam cleared, door closed); 0 events meanwhile"
        )
