"""`tablectl status` reads the table's latest snapshot from the file the runtime writes beside
its journal (mode 0600, replaced atomically), never the table: what it shows, and a bad file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from table_helpers import FedTable, fill_journal

from controller.cli import main as tablectl
from controller.cli._status import link_status, table_status
from controller.configuration import config_dir, load_table
from controller.game.mississippi_stud._machine import MississippiTable
from controller.journal import SqliteJournal
from controller.table._snapshot_file import snapshot_path, write_snapshot_file
from controller.table.events import OpenTable
from drivers.link import LinkDown

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


def _link_journal(path: Path, rounds: int) -> SqliteJournal:
    """Two devices up, a link down and up again, a fault, and LinkStats at each round's end."""
    j = SqliteJournal(path)
    j.append("LinkUp", {"device": "shoe", "boot_id": 1, "rebooted": False}, event=True)
    j.append("LinkUp", {"device": "panel", "boot_id": 2, "rebooted": False}, event=True)
    for n in range(rounds):
        if n == rounds // 2:
            j.append("LinkDown", {"device": "panel", "reason": "no reply"}, event=True)
            j.append("LinkUp", {"device": "panel", "boot_id": 3, "rebooted": True}, event=True)
            j.append("DeviceFault", {"device": "shoe", "kind": "renumbered", "error": "numbering"}, event=True)
        boots = {"shoe": 1, "panel": 2 if n < rounds // 2 else 3}
        for device, boot in boots.items():
            j.append("LinkStats", {"device": device, "up": True, "boot_id": boot, "timeouts": n}, event=False)
        j.append("SpotReport", {"device": "spots", "seat": 1, "spot": "ante", "cents": 500}, event=True)
    return j


def test_status_reads_the_link_records_through_their_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`tablectl status` on a year's journal read every link record (about 14 s at 20M records):
    it now reads the link ups, downs and faults and each device's last LinkStats, each through the
    journal's `records_links` index (no scan of the records), and says what it said before."""
    path = tmp_path / "j.db"
    _link_journal(path, 40).close()
    status = link_status(path)["devices"]
    assert status["panel"]["link"] == "up" and status["panel"]["boot_id"] == 3
    assert status["shoe"]["counters"]["timeouts"] == 39 and status["panel"]["counters"]["timeouts"] == 39
    assert status["shoe"]["last_fault"]["kind"] == "renumbered"
    planned, searched = _link_plans(path, monkeypatch)
    assert planned == status
    assert len(searched) >= 2 and all("USING INDEX records_links" in p for p in searched), searched


def test_the_writer_indexes_the_link_records_of_a_journal_written_before_the_index(tmp_path: Path) -> None:

    path = tmp_path / "j.db"
    j = _link_journal(path, 3)
    j.db.execute("DROP INDEX records_links")  # as a journal written before it
    j.close()

    assert _verified(path)  # the index is not part of the chain or the schema version
    SqliteJournal(path).close()
    j = SqliteJournal.open_readonly(path)
    try:
        assert j.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'records_links'").fetchone()
    finally:
        j.close()
    assert _verified(path)


def _verified(path: Path) -> bool:
    """``journal verify`` of the journal at ``path``, opened read-only, passes."""
    from controller.journal import verify_journal

    reader = SqliteJournal.open_readonly(path)
    try:
        return verify_journal(reader).ok
    finally:
        reader.close()


def _link_plans(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], list[str]]:
    """`tablectl status`'s devices of the journal at ``path`` and the query plans of its reads of the link records."""
    import sqlite3

    plans: list[str] = []
    real = sqlite3.connect

    class Planned(sqlite3.Connection):
        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
            if "FROM records WHERE kind" in sql:
                plans.extend(str(row[3]) for row in super().execute(f"EXPLAIN QUERY PLAN {sql}", *args))
            return super().execute(sql, *args)

    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: real(*a, **k, factory=Planned))
    try:
        devices = link_status(path)["devices"]
    finally:
        monkeypatch.undo()
    return devices, [p for p in plans if p.startswith(("SEARCH", "SCAN"))]


def test_a_journal_with_the_link_index_written_with_in_is_read_verified_and_reindexed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The link records' index is written with ``OR`` now (``kind IN (...)`` cost the writer about 2 us
    a record): a journal with the index as written before is read through it, verifies, and the
    writer's next open replaces it with the new one, which holds the same records."""
    from controller.journal.store import LINKS_CONDITION, OLD_LINKS_INDEX

    path = tmp_path / "j.db"
    j = _link_journal(path, 5)
    new_rows = j.db.execute(f"SELECT seq FROM records WHERE {LINKS_CONDITION} ORDER BY seq").fetchall()
    j.db.execute("DROP INDEX records_links")
    j.db.execute(OLD_LINKS_INDEX)  # as a journal written before the change
    j.close()

    def index_sql() -> str:
        reader = SqliteJournal.open_readonly(path)
        try:
            return str(reader.db.execute("SELECT sql FROM sqlite_master WHERE name = 'records_links'").fetchone()[0])
        finally:
            reader.close()

    assert _verified(path) and " IN (" in index_sql()
    old_status, plans = _link_plans(path, monkeypatch)
    assert len(plans) >= 2 and all("USING INDEX records_links" in p for p in plans), plans
    SqliteJournal(path).close()
    assert _verified(path) and " IN (" not in index_sql() and " OR " in index_sql()
    status, plans = _link_plans(path, monkeypatch)
    assert status == old_status
    assert len(plans) >= 2 and all("USING INDEX records_links" in p for p in plans), plans
    reader = SqliteJournal.open_readonly(path)
    try:
        old_rows = reader.db.execute(
            "SELECT seq FROM records INDEXED BY records_links WHERE kind IN ('LinkUp', 'LinkDown', 'LinkStats', "
            f"'DeviceFault') AND {LINKS_CONDITION} ORDER BY seq"
        ).fetchall()
    finally:
        reader.close()
    assert old_rows == new_rows and new_rows


@pytest.mark.parametrize("fails", ["the temporary file", "its write"])
def test_status_shows_a_hold_for_the_journal_when_the_disk_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, fails: str
) -> None:
    """Issue 32: with the disk full the journal cannot be written (the table holds) and neither
    can a new snapshot file: the snapshot is written over the old file in place, so `tablectl
    status` shows the hold for the journal, not the last snapshot from before the disk filled.
    Two things at once: a bet and a card are placed while the journal is full."""
    import errno

    from controller.table import _snapshot_file as snapshot_file
    from controller.table.runtime import TableRuntime
    from drivers.bet_spots import SpotReport
    from drivers.panel import ButtonChanged
    from drivers.shoe import CardDealt

    path = tmp_path / "mississippi_stud.db"
    j = SqliteJournal(path)
    try:
        runtime = TableRuntime(MS, {role: "loop://" for role in MS.devices}, journal=j)
        step = runtime.engine.step
        step(OpenTable())
        step(SpotReport(device="bet_spots", seat=1, spot="ante", cents=500))
        step(ButtonChanged(device="panel", button="no_more_bets", pressed=True))
        before = link_status(path)["table"]
        assert before["step"] == "no_more_bets" and before["hold"] is None
        full = OSError(errno.ENOSPC, "No space left on device")

        def no_space(*args: Any, **kwargs: Any) -> Any:
            raise full

        if fails == "the temporary file":
            monkeypatch.setattr(snapshot_file.tempfile, "mkstemp", no_space)
        else:
            monkeypatch.setattr(snapshot_file, "_padded", no_space)
        fill_journal(j)
        step(CardDealt(device="shoe", card="As", index=1, quality=100))
        step(SpotReport(device="bet_spots", seat=4, spot="ante", cents=500))  # late, and not journaled either
        status = link_status(path)["table"]
        assert status["step"] == "hold" and status["hold"]["reason"].startswith("journal: "), status
        assert "free space" in status["hold"]["clears"]
        assert [p.name for p in tmp_path.iterdir() if "snapshot" in p.name] == ["mississippi_stud.snapshot.json"]
        assert "As" not in snapshot_path(path).read_text()
        assert tablectl(["status", "--journal", str(path)]) == 0
        out = capsys.readouterr().out
        assert "round 1, hold, supervisor key off" in out and "HOLD from no_more_bets: journal: " in out
    finally:
        j.close()
