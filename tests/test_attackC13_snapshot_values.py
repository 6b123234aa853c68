"""Attack on the round snapshot read back at a restart (docs/journal.md, "Recovery"): the values
the restore converts (``round_no``, ``spots``, ``shoe_count``, ``rounds_dealt``, ``supervisor``,
``shoe_faults``, ``signin``, ``links_reread``) were converted unchecked. A journal damaged or
edited stopped ``tablectl run`` with a Python traceback (``int('x')``, a spot of two values), or
replayed the round from a wrong number or count (round ``-3``, a shoe count of ``-1``). Every
boundary checks its input: the start is refused (exit 2), the journal, the snapshot's record and
what is wrong named, and the journal is left as it was."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import real_table_config
from table_helpers import ManualClock
from test_attackB13_snapshot_links_down import refused_at_the_start
from test_replay_authority import Fed

from controller.table.events import OpenTable

GAME = "mississippi_stud"

BAD = [
    ("round_no", "x"),
    ("round_no", None),
    ("round_no", 1.5),
    ("round_no", 0),
    ("round_no", True),
    ("spots", "abc"),
    ("spots", [[1, "ante"]]),
    ("spots", [["a", "ante", 5]]),
    ("spots", [[1, "ante", -5]]),
    ("spots", None),
    ("shoe_count", "x"),
    ("shoe_count", -1),
    ("shoe_count", [1]),
    ("rounds_dealt", None),
    ("supervisor", "yes"),
    ("shoe_faults", "x"),
    ("shoe_faults", {"jammed": "no"}),
    ("signin", "x"),
    ("links_reread", ["panel"]),
    ("links_reread", {"devices": ["printer"], "since": 1.0}),
    ("links_reread", {"devices": ["panel"], "since": "now"}),
    ("links_reread", {"devices": ["panel"]}),
]


def _opened(path: Path, clock: ManualClock, key: str, value: object) -> None:
    """A round opened, then a stop; its snapshot's ``key`` set to ``value``."""
    live = Fed(GAME, path, clock, False)
    try:
        live.feed(OpenTable())
    finally:
        live.close()
    with sqlite3.connect(path) as db:
        (state,) = db.execute("SELECT state FROM snapshots").fetchone()
        snapshot = json.loads(state)
        snapshot[key] = value
        db.execute("UPDATE snapshots SET state = ?", (json.dumps(snapshot),))


def _rows(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT * FROM records ORDER BY seq").fetchall()


@pytest.mark.parametrize(("key", "value"), BAD, ids=[f"{k}={json.dumps(v)}" for k, v in BAD])
def test_a_snapshot_value_the_table_never_writes_is_refused_at_the_start(
    tmp_path: Path, key: str, value: object
) -> None:
    clock, path = ManualClock(1_800_000_000.0), tmp_path / "j.db"
    _opened(path, clock, key, value)
    text = refused_at_the_start(path, clock, GAME)
    assert f"{path}: the snapshot at record 1: {key} {json.dumps(value)} " in text, text


@pytest.mark.parametrize(("key", "value"), [("round_no", "x"), ("spots", [[1, "ante"]]), ("shoe_count", None)])
def test_tablectl_run_on_a_bad_snapshot_exits_2_naming_the_journal_and_record(
    tmp_path: Path, key: str, value: object
) -> None:
    clock, path = ManualClock(1_800_000_000.0), tmp_path / "j.db"
    _opened(path, clock, key, value)
    before = _rows(path)
    config = real_table_config(tmp_path)
    # in a process of its own: before the check the start raised out of `run` with its threads up
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller",
            "run",
            "--config",
            str(config),
            "--journal",
            str(path),
            "--allow-unapproved",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    code, err = done.returncode, done.stderr
    assert code == 2, err
    assert f"tablectl run: {path}: the snapshot at record 1: {key} {json.dumps(value)} " in err, err
    assert "Traceback" not in err
    assert _rows(path) == before


def test_the_snapshots_the_table_writes_pass_the_check(tmp_path: Path) -> None:
    """The good input still passes: the round replays at its number and step."""
    clock, path = ManualClock(1_800_000_000.0), tmp_path / "j.db"
    live = Fed(GAME, path, clock, False)
    try:
        live.feed(OpenTable())
    finally:
        live.close()
    again = Fed(GAME, path, clock, False)
    try:
        assert again.runtime.recover()
        assert (again.phase, again.runtime.round.round_no) == ("betting", 1)
    finally:
        again.close()
