"""``tablectl recall --at TIME`` and ``--since/--until`` (issue 31): a disputed hand found by when it
was played, in the table's local time with the zone shown, from the journal's round index (never
reading the whole journal), on a journal whose clock the test sets: round N is played from
``T0 + 600 N`` to ``T0 + 600 N + 120`` (ten minutes apart, two minutes each)."""

from __future__ import annotations

import argparse
import json
import time
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli

from controller.cli._when import local_time
from controller.journal import SqliteJournal
from controller.journal.by_time import rounds_at, rounds_between
from controller.journal.meters import meters_for_round

T0 = datetime(2026, 12, 4, 9, 0, tzinfo=UTC).timestamp()
"""09:00 UTC, 04:00 in New York (EST, -0500)."""


def start(n: int) -> float:
    return T0 + 600 * n


def end(n: int) -> float:
    return T0 + 600 * n + 120


def iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat()


def write_journal(path: Path, rounds: int) -> Path:
    """A journal of ``rounds`` void Mississippi Stud rounds, each a bet and its round record."""
    now = [T0]
    journal = SqliteJournal(path, clock=lambda: now[0])
    try:
        for n in range(1, rounds + 1):
            now[0] = start(n)
            first = journal.append("SpotReport", {"device": "bet_spots", "seat": 1, "spot": "ante", "cents": 500}, True)
            now[0] = end(n)
            data: dict[str, Any] = {
                "round": n,
                "first_seq": first,
                "game": "mississippi_stud",
                "record": {"game": "mississippi_stud", "seats": {"1": {"wagers": {"ante": 500}, "cards": "As Kd"}}},
                "settlement": None,
                "cards": [],
                "late_bets": [],
                "faults": 0,
            }
            journal.append_round(n, data, meters_for_round(data))
    finally:
        journal.close()
    return path


@pytest.fixture
def journal(tmp_path: Path, new_york: None) -> Path:
    return write_journal(tmp_path / "j.db", 6)


def shown(out: str) -> list[int]:
    return [int(line.split()[1]) for line in out.splitlines() if line.startswith("round ")]


def recall(journal: Path, *args: str) -> tuple[int, str, str]:
    return cli("recall", "--journal", str(journal), *args)


@pytest.mark.parametrize(
    ("at", "rounds", "in_play"),
    [
        (start(3) + 60, [2, 3, 4], 3),  # in the middle of a round
        (start(3), [2, 3, 4], 3),  # its first moment
        (end(3), [2, 3, 4], 3),  # its last
        (start(1) + 1, [1, 2], 1),  # the first round: none before it
        (end(6) - 1, [5, 6], 6),  # the last: none after it
        (end(3) + 1, [3, 4], None),  # between rounds: the one before and the one after
        (start(1) - 3600, [1], None),  # before the first round
        (end(6) + 3600, [6], None),  # after the last
    ],
)
def test_at_shows_the_round_in_play_with_the_one_before_and_after(
    journal: Path, at: float, rounds: list[int], in_play: int | None
) -> None:
    code, out, err = recall(journal, "--at", iso(at))
    assert code == 0, err
    assert shown(out) == rounds
    head = out.splitlines()[0]
    local = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))
    assert head.startswith(f"rounds at {local} EST -0500: "), head  # the table's local time, its zone shown
    if in_play is None:
        assert "no round was in play" in head
    else:
        assert f"round {in_play} was in play" in head
    assert " EST -0500\n" in out.split("\n", 2)[2]  # each round's times with the zone


def test_a_time_without_a_zone_is_the_tables_local_time(journal: Path) -> None:
    local = datetime.fromtimestamp(start(4) + 30).strftime("%Y-%m-%dT%H:%M:%S")  # 04:40:30 in New York
    assert local == "2026-12-04T04:40:30"
    for given in (local, "2026-12-04T09:40:30Z", "2026-12-04T10:40:30+01:00", "2026-12-04 04:40:30"):
        code, out, err = recall(journal, "--at", given)
        assert code == 0 and shown(out) == [3, 4, 5], (given, err)
        assert out.startswith("rounds at 2026-12-04 04:40:30 EST -0500: round 4 was in play")


def test_hh_mm_is_today_in_the_tables_local_time(new_york: None) -> None:
    parse = local_time(lambda: date(2026, 12, 4))
    assert parse("04:40") == start(4)
    assert parse("4:40:30") == start(4) + 30
    assert parse("2026-12-04T04:40") == parse("2026-12-04T09:40Z") == start(4)


@pytest.mark.parametrize("given", ["25:00", "14:5", "yesterday", "", "2026-13-01", "9" * 300, "12:00 EST"])
@pytest.mark.parametrize("option", ["--at", "--since", "--until"])
def test_a_time_that_is_not_one_is_refused_with_exit_2(journal: Path, option: str, given: str) -> None:
    code, out, err = (
        recall(journal, option, given, "--last", "2") if option != "--at" else recall(journal, option, given)
    )
    assert code == 2 and not out
    assert f"argument {option}: '{given[:40]}" in err and "not a time (use HH:MM today" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("given", ["0001-01-01T00:00+14:00", "9999-12-31T23:59-14:00"])
@pytest.mark.parametrize("option", ["--at", "--since", "--until"])
def test_a_time_whose_local_time_is_off_the_calendar_is_refused(journal: Path, option: str, given: str) -> None:
    """A zone can put a time inside the calendar out of it locally (year 0 or 10000): refused,
    not shown back as ``0-12-31`` or ``10000-01-01`` with the nearest round."""
    code, out, err = recall(journal, option, given)
    assert code == 2 and not out
    assert f"argument {option}: '{given}': out of range" in err and "Traceback" not in err


def test_since_and_until_show_every_round_in_play_in_the_window(journal: Path) -> None:
    def window(*args: str) -> list[int]:
        code, out, err = recall(journal, *args)
        assert code == 0, err
        return shown(out)

    assert window("--since", iso(start(2) + 60), "--until", iso(start(4) + 60)) == [2, 3, 4]  # in play at either end
    assert window("--since", iso(end(2) + 1), "--until", iso(start(4) - 1)) == [3]
    assert window("--since", iso(start(3) + 10), "--until", iso(start(3) + 20)) == [3]  # inside one round
    assert window("--since", iso(end(3) + 1), "--until", iso(end(3) + 2)) == []  # between rounds
    assert window("--since", iso(end(4))) == [4, 5, 6]
    assert window("--until", iso(start(2))) == [1, 2]
    assert window("--since", iso(T0), "--last", "2") == [5, 6]
    code, out, _ = recall(journal, "--since", iso(end(3) + 1), "--until", iso(end(3) + 2))
    assert out.startswith("rounds from 2026-12-04 04:32:01 EST -0500 to 2026-12-04 04:32:02 EST -0500: 0 rounds")


def test_by_time_refuses_what_does_not_go_together(journal: Path) -> None:
    code, _, err = recall(journal, "--since", iso(end(4)), "--until", iso(start(4)))
    assert code == 2 and "--since 2026-12-04 04:42:00 EST -0500 is after --until 2026-12-04 04:40:00 EST -0500" in err
    for other in (["--round", "3"], ["--at", iso(start(3))]):
        code, _, err = recall(journal, "--since", iso(start(3)), *other)
        assert code == 2 and "not with --round or --at" in err
    code, _, err = recall(journal, "--at", iso(start(3)), "--last", "3")
    assert code == 2 and "not allowed with argument" in err


def test_json_holds_only_the_records_and_the_heading_goes_to_stderr(journal: Path) -> None:
    code, out, err = recall(journal, "--at", iso(start(5) + 5), "--json")
    assert code == 0, err
    assert [json.loads(line)["recall"]["round"] for line in out.splitlines()] == [4, 5, 6]
    assert "rounds at 2026-12-04 04:50:05 EST -0500: round 5 was in play" in err


def test_an_empty_journal_says_so(tmp_path: Path, new_york: None) -> None:
    path = write_journal(tmp_path / "empty.db", 0)
    code, out, err = recall(path, "--at", "2026-12-04T04:00")
    assert code == 0 and out.startswith("rounds at 2026-12-04 04:00:00 EST -0500: no finished rounds"), err


def test_one_time_reads_the_round_index_and_the_rounds_it_decides_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A time in a year-long journal reads the index and the records of at most two rounds."""
    path = write_journal(tmp_path / "j.db", 300)
    journal = SqliteJournal.open_readonly(path)
    read: list[tuple[int, int | None]] = []
    records = journal.records

    def counted(after: int = 0, until: int | None = None) -> Any:
        read.append((after, until))
        return records(after, until)

    monkeypatch.setattr(journal, "records", counted)
    try:
        found = rounds_at(journal, start(150) + 60)
        assert found.in_play == 150 and [n for n, _ in found.chosen] == [149, 150, 151]
        assert len(read) <= 2 and all(u is not None and u - a <= 2 for a, u in read)  # round 150's own records
        read.clear()
        assert [n for n, _ in rounds_between(journal, start(200) + 1, start(202) + 1)] == [200, 201, 202]
        assert len(read) <= 2 and all(u is not None and u - a <= 2 for a, u in read)  # round 202's
    finally:
        journal.close()


def test_the_time_type_names_its_forms() -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="HH:MM today, 2026-12-04T14:05, or ISO 8601 with a zone"):
        local_time()("noon")
