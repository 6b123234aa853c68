"""``tablectl journal backup`` (issue 45 item 5): SQLite's online backup of a live journal (the
table writing it the while), then the copy verified; the copy is one file, private, never written
over another; a journal that does not verify gives a copy that says so; the restore drill of
docs/operations.md (the copy put in place, the table going on from it) works."""

from __future__ import annotations

import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from controller.configuration import config_dir, load_table
from controller.journal import SqliteJournal, verify_journal
from hil.bench import run_bench
from tests.cli_helpers import cli

BENCH = config_dir() / "bench" / "mississippi_stud.yaml"


@pytest.fixture(scope="module")
def bench_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bench") / "journal.db"
    summary = run_bench(load_table(BENCH), seats=3, rounds=4, seed=8, progress=False, journal_path=path)
    assert summary.rounds == 4
    return path


def test_a_backup_taken_while_the_table_writes_is_a_verified_copy(bench_journal: Path, tmp_path: Path) -> None:
    live = tmp_path / "live.db"
    shutil.copy(bench_journal, live)
    writer = SqliteJournal(live, create=False)
    first = writer.last_seq
    stop, written = threading.Event(), threading.Event()

    def write() -> None:  # the table: records committed one by one the whole time
        while not stop.is_set():
            writer.append("SpotReport", {"device": "bet_spots", "seat": 1, "spot": "ante", "cents": 500}, event=True)
            written.set()

    thread = threading.Thread(target=write)
    thread.start()
    try:
        assert written.wait(timeout=60)
        copies = []
        for n in range(3):
            copy = tmp_path / f"copy-{n}.db"
            code, out, err = cli("journal", "backup", "--journal", str(live), "--to", str(copy))
            assert code == 0, err
            assert f"{copy}: a copy of {live} up to record " in out and "4 rounds, meters agree" in out
            copies.append(copy)
    finally:
        stop.set()
        thread.join()
    last = writer.last_seq
    writer.close()
    seen = []
    for copy in copies:
        assert copy.stat().st_mode & 0o777 == 0o600
        assert not Path(f"{copy}-wal").exists()  # one file: nothing beside it to carry along
        with open(copy, "rb") as f:
            header = f.read(20)
        assert header[18:20] == b"\x01\x01"  # rollback journal mode, readable without a WAL
        journal = SqliteJournal.open_readonly(copy)
        try:
            assert verify_journal(journal).ok
            seen.append(journal.last_seq)
        finally:
            journal.close()
    assert first < seen[0] <= seen[1] <= seen[2] <= last  # each a moment of the live journal
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")]


def test_a_backup_never_replaces_a_file_and_names_what_is_wrong(bench_journal: Path, tmp_path: Path) -> None:
    there = tmp_path / "there.db"
    there.write_text("someone's file")
    code, _, err = cli("journal", "backup", "--journal", str(bench_journal), "--to", str(there))
    assert code == 2 and "there.db: already exists" in err and there.read_text() == "someone's file"
    code, _, err = cli("journal", "backup", "--journal", str(bench_journal), "--to", str(tmp_path / "no" / "c.db"))
    assert code == 2 and "no: no such folder" in err
    code, _, err = cli("journal", "backup", "--journal", str(bench_journal), "--to", str(bench_journal))
    assert code == 2 and "already exists" in err
    code, _, err = cli("journal", "backup", "--journal", str(tmp_path / "none.db"), "--to", str(tmp_path / "c.db"))
    assert code == 2 and "none.db: no journal there" in err
    code, _, err = cli("journal", "backup", "--journal", str(bench_journal))
    assert code == 2 and "--to" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["there.db"]


def test_the_copy_of_a_changed_journal_says_it_does_not_verify(bench_journal: Path, tmp_path: Path) -> None:
    changed = tmp_path / "changed.db"
    shutil.copy(bench_journal, changed)
    db = sqlite3.connect(changed)
    seq = db.execute("SELECT min(seq) FROM records WHERE kind = 'SpotReport' AND seq > 20").fetchone()[0]
    db.execute("UPDATE records SET data = replace(data, '\"cents\":', '\"cents\":9') WHERE seq = ?", (seq,))
    db.commit()
    db.close()
    code, out, err = cli("journal", "backup", "--journal", str(changed), "--to", str(tmp_path / "copy.db"))
    assert code == 1 and not out
    assert f"copy.db: record {seq} (SpotReport)" in err and "hash mismatch" in err and "the copy does not verify" in err
    assert (tmp_path / "copy.db").exists()  # kept: a changed journal's copy is evidence too


def test_the_restore_drill_the_table_goes_on_from_the_copy(bench_journal: Path, tmp_path: Path) -> None:
    live = tmp_path / "live.db"
    shutil.copy(bench_journal, live)
    copy = tmp_path / "backup.db"
    assert cli("journal", "backup", "--journal", str(live), "--to", str(copy))[0] == 0
    live.unlink()  # the disk lost; the copy put in its place
    shutil.copy(copy, live)
    assert cli("journal", "verify", "--journal", str(live))[0] == 0
    summary = run_bench(load_table(BENCH), seats=3, rounds=6, seed=8, progress=False, journal_path=live, resume=True)
    assert summary.mismatches == 0
    code, out, err = cli("journal", "verify", "--journal", str(live))
    assert code == 0 and "6 rounds, meters agree" in out, err
