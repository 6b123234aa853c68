"""``tablectl export`` in the table's time zone and with who (issue 45 item 3): the days are the
table's (``--zone``, else the computer's own), a day of daylight saving has its 23 or 25 hours,
every time carries the zone's offset, and each row names the round's dealer and who authorized
its supervisor acts as far as the journal knows it (the key alone before sign-in).

The journals are written here through the journal's writer with a given clock: rounds of a real
bench table (their records as the table wrote them) placed at chosen instants around midnight.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from cli_helpers import bench_journal, cli
from journal_helpers import settled_rounds
from table_helpers import ManualClock

from controller.journal import SqliteJournal
from controller.journal.meters import meters_for_round

MALTA = ZoneInfo("Europe/Malta")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The ``RoundSettled`` data of four rounds a bench table played."""
    path = bench_journal(tmp_path_factory.mktemp("bench"), "mississippi_stud", 4, 3, 5)
    return [data for _, _, data in settled_rounds(path)]


def _local(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=MALTA).timestamp()


def write_journal(
    path: Path, played: list[dict[str, Any]], at: list[float], people: list[tuple[str | None, list[dict[str, object]]]]
) -> None:
    """A journal of ``played``'s rounds, round N settled at ``at[N-1]``, with its dealer and the
    supervisor acts (``SupervisorAction`` data) of ``people[N-1]`` recorded as the table records them."""
    clock = ManualClock(0.0)
    journal = SqliteJournal(path, clock=clock)
    try:
        for number, (data, when, (dealer, acts)) in enumerate(zip(played, at, people, strict=True), start=1):
            clock.now = when - 1
            first = journal.append("OpenTable", {"round": number})
            for act in acts:
                journal.append("SupervisorAction", {"round": number, "reason": "test", **act})
            clock.now = when
            settled = dict(data, round=number, first_seq=first, last_seq=journal.last_seq)
            if dealer is not None:
                settled["dealer_id"] = dealer
            journal.append_round(number, settled, meters_for_round(settled))
    finally:
        journal.close()


def _rows(path: Path, *args: str) -> list[dict[str, Any]]:
    code, out, err = cli("export", "--journal", str(path), "--format", "jsonl", *args)
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def _rounds(path: Path, *args: str) -> list[int]:
    return sorted({row["round"] for row in _rows(path, *args)})


@contextlib.contextmanager
def computer_zone(name: str) -> Iterator[None]:
    """The computer's own zone is ``name`` for a while (``TZ``), as on a table set to it."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = name
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = before
        time.tzset()


def test_a_day_is_the_tables_day_in_its_zone(played: list[dict[str, Any]], tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    at = [
        _local("2026-12-04T23:30"),  # 22:30 UTC: the 4th in Malta and in UTC
        _local("2026-12-05T00:30"),  # 23:30 UTC on the 4th: the 5th in Malta
        _local("2026-03-29T23:30"),  # the day the clocks go forward: 23 hours
        _local("2026-03-30T00:10"),
    ]
    write_journal(path, played, sorted(at), [(None, [])] * 4)
    # sorted: rounds 1-2 in March, 3-4 in December
    assert _rounds(path, "--day", "2026-12-04", "--zone", "Europe/Malta") == [3]
    assert _rounds(path, "--day", "2026-12-05", "--zone", "Europe/Malta") == [4]
    assert _rounds(path, "--day", "2026-12-04", "--zone", "UTC") == [3, 4]
    assert _rounds(path, "--day", "2026-03-29", "--zone", "Europe/Malta") == [1]  # its 23 hours
    assert _rounds(path, "--day", "2026-03-30", "--zone", "Europe/Malta") == [2]
    # a time without a zone is the table's; a date alone as --until is taken through its end
    assert _rounds(path, "--since", "2026-12-05T00:00", "--zone", "Europe/Malta") == [4]
    assert _rounds(path, "--since", "2026-12-05T00:00", "--zone", "UTC") == []
    assert _rounds(path, "--since", "2026-03-29", "--until", "2026-03-29", "--zone", "Europe/Malta") == [1]
    assert _rounds(path, "--since", "2026-12-04T23:00+01:00", "--zone", "UTC") == [3, 4]  # its own zone
    # each time in the table's zone, with the offset of its day (summer time in March)
    times = {row["round"]: row["time"] for row in _rows(path, "--zone", "Europe/Malta")}
    assert times == {
        1: "2026-03-29T23:30:00+02:00",
        2: "2026-03-30T00:10:00+02:00",
        3: "2026-12-04T23:30:00+01:00",
        4: "2026-12-05T00:30:00+01:00",
    }
    # without --zone: the computer's own, which on the table is the table's
    with computer_zone("Europe/Malta"):
        assert _rounds(path, "--day", "2026-12-05") == [4]
        assert _rounds(path, "--day", "2026-03-29") == [1]
        assert {row["round"]: row["time"] for row in _rows(path)} == times
    with computer_zone("UTC"):
        assert _rounds(path, "--day", "2026-12-04") == [3, 4]
        assert _rows(path, "--day", "2026-12-04")[0]["time"] == "2026-12-04T22:30:00+00:00"


def test_each_row_names_the_dealer_and_who_authorized_each_act(played: list[dict[str, Any]], tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    at = [_local(f"2026-12-04T1{n}:00") for n in range(4)]
    people: list[tuple[str | None, list[dict[str, object]]]] = [
        (None, []),  # before sign-in: nobody named
        ("D-0107", []),
        ("D-0107", [{"action": "cards accepted", "supervisor_id": "S-0042"}, {"action": "late bet accepted"}]),
        ("D-0311", [{"action": "void", "round": 3}, {"action": "fault cleared", "supervisor_id": "S-0042"}]),
    ]
    write_journal(path, played, at, people)
    code, out, err = cli("export", "--journal", str(path), "--zone", "Europe/Malta")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    who = {(int(r["round"]), r["dealer"], r["supervisor"]) for r in rows}
    assert who == {
        (1, "", ""),
        (2, "D-0107", ""),
        (3, "D-0107", "cards accepted by S-0042; late bet accepted by the key"),
        (4, "D-0311", "fault cleared by S-0042"),
    }
    assert {int(r["round"]) for r in rows} == {1, 2, 3, 4}  # every round has its rows
    lines = _rows(path, "--zone", "Europe/Malta")
    by_round = {row["round"]: (row["dealer"], row["supervisor"]) for row in lines}
    assert by_round[1] == (None, [])
    assert by_round[3] == (
        "D-0107",
        [{"action": "cards accepted", "by": "S-0042"}, {"action": "late bet accepted", "by": None}],
    )
    # another round's act recorded among this round's records is not this round's
    assert by_round[4] == ("D-0311", [{"action": "fault cleared", "by": "S-0042"}])
