"""`tablectl status` reads the table's latest snapshot from the file the runtime writes beside
its journal (mode 0600, replaced atomically), never the table: what it shows, and a bad file."""

from __future__ import annotations

import json
from pathlib import Path

from controller.cli import main as tablectl
from controller.cli.status import link_status, table_status
from controller.journal import SqliteJournal
from controller.table.events import OpenTable
from controller.table.mississippi_stud import MississippiTable
from controller.table.runtime import snapshot_path, write_snapshot_file
from controller.table_config import config_dir, load_table
from drivers.link import LinkDown
from tests.table_helpers import FedTable

MS = load_table(config_dir() / "bench" / "mississippi_stud.yaml")


def journal(tmp_path: Path) -> Path:
    path = tmp_path / "mississippi_stud.db"
    SqliteJournal(path).close()  # an empty journal
    return path


def test_status_shows_the_snapshot_beside_the_journal(tmp_path: Path, capsys) -> None:
    path = journal(tmp_path)
    assert table_status(path) is None  # no snapshot yet: said so, not an error
    t = FedTable(MississippiTable, MS)
    t.spot(1, "ante", 500)
    t.press("no_more_bets")
    t.deal("As Kd")
    t.feed(LinkDown(device="shoe", reason="unplugged"))
    file = snapshot_path(path)
    assert file == tmp_path / "mississippi_stud.snapshot.json"
    write_snapshot_file(file, t.snapshot())
    assert file.stat().st_mode & 0o777 == 0o600
    status = link_status(path)["table"]
    assert status["round"] == 1 and status["step"] == "hold" and status["key_on"] is False
    assert status["hold"]["reason"] == "link down: shoe" and "link is back" in status["hold"]["clears"]
    assert "As" not in file.read_text() and "Kd" not in file.read_text()  # face down: not in the file either
    assert tablectl(["status", "--journal", str(path)]) == 0
    out = capsys.readouterr().out
    assert "round 1, hold, supervisor key off" in out and "HOLD from dealing: link down: shoe" in out


def test_a_file_that_is_not_a_snapshot_is_named(tmp_path: Path, capsys) -> None:
    path = journal(tmp_path)
    snapshot_path(path).write_text(json.dumps({"snapshot": {"round_no": "x"}}))
    assert tablectl(["status", "--journal", str(path)]) == 2
    err = capsys.readouterr().err
    assert "mississippi_stud.snapshot.json: not a table snapshot" in err and "Traceback" not in err


def test_the_file_is_replaced_whole(tmp_path: Path) -> None:
    t = FedTable(MississippiTable, MS)
    file = tmp_path / "t.snapshot.json"
    write_snapshot_file(file, t.snapshot())
    t.feed(OpenTable())
    write_snapshot_file(file, t.snapshot())
    assert [p.name for p in tmp_path.iterdir()] == ["t.snapshot.json"]  # no temporary file left
    assert json.loads(file.read_text())["snapshot"]["step"] == "betting"
