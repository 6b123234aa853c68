"""A journal that went back behind the record a reader verified before (``verify_reader(verified=...)``,
the floor forwarder's pin): restored from a backup and written again with other records."""

from __future__ import annotations

import shutil
from pathlib import Path

from controller.journal import SqliteJournal, verify_reader


def _write(path: Path, start: int, stop: int, sign: int) -> tuple[int, str]:
    journal = SqliteJournal(path, clock=lambda: 1765000000.5)
    try:
        for i in range(start, stop):
            seq = journal.append("Test", {"i": sign * i})
            if seq % 5 == 0:
                journal.snapshot(seq, seq // 5, {"round": seq // 5})
        return journal.last_seq, journal.last_hash
    finally:
        journal.close()


def test_a_journal_gone_back_behind_the_pin_is_refused(tmp_path: Path) -> None:
    path, backup = tmp_path / "t.db", tmp_path / "backup.db"
    _write(path, 0, 10, 1)
    shutil.copy(path, backup)
    pin = _write(path, 10, 20, 1)  # an earlier run verified records 1-20, 12 acknowledged
    shutil.copy(backup, path)
    _write(path, 10, 17, -1)  # restored at record 10, then records 11-17 that are not the ones verified
    journal = SqliteJournal.open_readonly(path)
    try:
        report = verify_reader(journal, [(13, 17)], verified=pin)
    finally:
        journal.close()
    assert report.problems == [
        "record 20: verified before, but the journal now ends at record 17: it went back (restored from an older"
        " copy?), records verified (and maybe sent) are gone"
    ]
