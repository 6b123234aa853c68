"""``tablectl journal backup`` (issue 45 item 5): SQLite's online backup of a live journal (the
table writing it the while), then the copy verified; the copy is one file, private, never written
over another; a journal that does not verify gives a copy that says so; the restore drill of
docs/operations.md (the copy put in place, the table going on from it) works."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import bench_journal as played
from cli_helpers import cli

import controller.journal.backup as backup
from controller.configuration import config_dir, load_table
from controller.journal import JournalError, SqliteJournal, verify_journal
from controller.journal.writer_lock import holder
from hil.bench import run_bench

BENCH = config_dir() / "bench" / "mississippi_stud.yaml"


@pytest.fixture(scope="module")
def bench_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return played(tmp_path_factory.mktemp("bench"), "mississippi_stud", rounds=4, seats=3, seed=8, fold_rounds=False)


WRITER = """
import sys
from pathlib import Path

from controller.journal import SqliteJournal
from controller.journal.writer_lock import WriterLock

live, stop = Path(sys.argv[1]), Path(sys.argv[2])
with WriterLock.acquire(live, "the table (a test's writer)"):
    journal = SqliteJournal(live, create=False)
    written = 0
    while not stop.exists():  # the table: records committed one by one until told to stop
        journal.append("SpotReport", {"device": "bet_spots", "seat": 1, "spot": "ante", "cents": 500}, event=True)
        written += 1
    journal.close()
print(written)
"""
"""A table's writer in its own process: it holds the journal's writer lock, as `tablectl run` does,
and appends until the stop file appears."""


def _head(live: Path) -> int:
    """The last record of ``live`` as a reader sees it now."""
    journal = SqliteJournal.open_readonly(live)
    try:
        return journal.last_seq
    finally:
        journal.close()


def _wait_for_head(live: Path, past: int, writer: subprocess.Popen[str]) -> int:
    """Wait (generously) until the writer has committed a record after ``past``."""
    deadline = time.monotonic() + 120
    while (head := _head(live)) <= past:
        assert writer.poll() is None, writer.communicate()
        assert time.monotonic() < deadline, f"the writer committed nothing after record {past}"
        time.sleep(0.01)
    return head


def test_a_backup_taken_while_the_table_writes_is_a_verified_copy(bench_journal: Path, tmp_path: Path) -> None:
    live, stop = tmp_path / "live.db", tmp_path / "stop"
    shutil.copy(bench_journal, live)
    first = _head(live)
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(live), str(stop)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    copies, seen = [], []
    try:
        head = _wait_for_head(live, first, writer)
        for n in range(3):
            held = holder(live)
            assert held is not None and held.pid == writer.pid  # the table holds its journal the while
            copy = tmp_path / f"copy-{n}.db"
            code, out, err = cli("journal", "backup", "--journal", str(live), "--to", str(copy))
            assert code == 0, err
            assert f"{copy}: a copy of {live} up to record " in out and "4 rounds, meters agree" in out
            copies.append(copy)
            journal = SqliteJournal.open_readonly(copy)
            try:
                seen.append(journal.last_seq)
            finally:
                journal.close()
            assert seen[-1] >= head  # at least what was committed before the backup began
            head = _wait_for_head(live, seen[-1], writer)  # and the table went on after the copy's moment
    finally:
        stop.touch()
        out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    last = _head(live)
    assert int(out) == last - first  # every record the writer committed is in the live journal
    assert seen == sorted(seen) and first < seen[0] and seen[-1] < last
    for copy, upto in zip(copies, seen, strict=True):
        assert copy.stat().st_mode & 0o777 == 0o600
        assert not Path(f"{copy}-wal").exists()  # one file: nothing beside it to carry along
        with open(copy, "rb") as f:
            header = f.read(20)
        assert header[18:20] == b"\x01\x01"  # rollback journal mode, readable without a WAL
        journal = SqliteJournal.open_readonly(copy)
        try:
            assert verify_journal(journal).ok
            assert journal.last_seq == upto
        finally:
            journal.close()
    assert cli("journal", "verify", "--journal", str(live))[0] == 0  # the table's journal as it was
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")]


def test_a_file_made_while_the_copy_is_written_is_not_replaced(
    bench_journal: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "copy.db"
    journal = SqliteJournal.open_readonly(bench_journal)
    checked = backup._check_target

    def check_then_someone_writes(source: SqliteJournal, path: Path) -> None:
        checked(source, path)
        path.write_text("someone's file")  # after the check, before the copy is in place

    monkeypatch.setattr(backup, "_check_target", check_then_someone_writes)
    try:
        with pytest.raises(JournalError, match="copy.db: already exists \\(made while the copy was written\\)"):
            backup.backup_journal(journal, target)
    finally:
        journal.close()
    assert target.read_text() == "someone's file"
    assert [p.name for p in tmp_path.iterdir()] == ["copy.db"]


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
    beside = Path(f"{bench_journal}-wal")  # no table writes it: no WAL file there
    code, _, err = cli("journal", "backup", "--journal", str(bench_journal), "--to", str(beside))
    assert code == 2 and "the journal's own file" in err and not beside.exists()
    code, _, err = cli("journal", "backup", "--journal", str(bench_journal), "--to", str(tmp_path))
    assert code == 2 and f"{tmp_path}: a folder: name a new file in it" in err
    code, _, err = cli("journal", "backup", "--journal", str(bench_journal), "--to", str(tmp_path / ("x" * 300)))
    assert code == 2 and "File name too long" in err
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


def test_a_keyed_journal_is_backed_up_and_its_copy_verified_with_the_key(tmp_path: Path) -> None:
    key = tmp_path / "table.key"
    key.write_text("a key of the bench's own\n")
    key.chmod(0o600)
    config = tmp_path / "table.yaml"
    bench = BENCH.read_text().replace(
        "paytables_dir: ../paytables", f"paytables_dir: {BENCH.parent.parent / 'paytables'}"
    )
    config.write_text(bench + f"journal: {{hmac_key_file: {key}}}\n")
    live = tmp_path / "live.db"
    summary = run_bench(load_table(config), seats=2, rounds=2, seed=3, progress=False, journal_path=live)
    assert summary.rounds == 2
    copy = tmp_path / "copy.db"
    code, out, err = cli("journal", "backup", "--config", str(config), "--journal", str(live), "--to", str(copy))
    assert code == 0 and not err and "2 rounds, meters agree" in out, err
    assert cli("journal", "verify", "--config", str(config), "--journal", str(copy))[0] == 0  # the key checks the copy
    assert key.read_bytes() not in copy.read_bytes()  # the key is not in the copy
    # without the key: a copy still, and said to be checked only as far as a reader without it can
    code, out, err = cli("journal", "backup", "--journal", str(live), "--to", str(tmp_path / "unkeyed.db"))
    assert code == 0 and "signed with a key" in err, err
    assert "checked without the journal's key: the chain's links and the head only" in out
    assert cli("journal", "verify", "--config", str(config), "--journal", str(tmp_path / "unkeyed.db"))[0] == 0
    # with another key: the copy is kept, and said not to verify with that key
    other = tmp_path / "other.key"
    other.write_text("not the table's key\n")
    other.chmod(0o600)
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(bench + f"journal: {{hmac_key_file: {other}}}\n")
    code, out, err = cli(
        "journal", "backup", "--config", str(wrong), "--journal", str(live), "--to", str(tmp_path / "w.db")
    )
    assert code == 1 and "HMAC key is wrong" in err and "the copy does not verify" in err
