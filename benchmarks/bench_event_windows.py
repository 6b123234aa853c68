"""How long a controller starting again takes to read its devices' event windows from its journal
(``controller.table.journal_files.journaled_event_windows``), beside the floor of the one SQL
query that read them before the journal had compact blocks.

Run ``python benchmarks/bench_event_windows.py [--records N] [--runs N]``. It writes a journal of
``--records`` records (default 300,000: device events with event numbers, each device's command
results and link statistics, as a table writes them) whose devices linked up once, at its start
(a table up for months without a reconnect: the read goes back to the first record), and times,
in one run, the median of ``--runs`` reads (default 5) of:

* the floor: the query the windows were read by before the journal had compact blocks, as plain
  SQL on the rows (``event = 1`` and a ``LinkUp``, an ``EventsOfBoot`` or an event number above
  0, newest first, with ``json_extract``), every row of it read;
* the windows as the controller reads them, from that journal's rows;
* the same from a copy whose closed rounds are kept as compact blocks (every tenth snapshot to
  the next), to show the blocks' part;
* the same from a journal signed with an HMAC key, its blocks as above, read without the key (as
  a controller reads its windows at start-up).

Prints figures and each as a ratio to the floor; asserts nothing but that the rows and the
blocks give the same windows.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# its helpers from tests/, by bare name as the tests import them (tests/ is no package)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from journal_blocks import fold

from controller.journal import NewRecord, SqliteJournal
from controller.table.journal_files import journaled_event_windows

DEVICES = {"shoe", "bet_spots", "panel"}
FLOOR_QUERY = (
    "SELECT kind, json_extract(data, '$.device'), json_extract(data, '$.event_no'), "
    "json_extract(data, '$.boot_id') FROM records WHERE event = 1 "
    "AND (kind IN ('LinkUp', 'EventsOfBoot') OR json_extract(data, '$.event_no') > 0) ORDER BY seq DESC"
)


KEY = b"k" * 32
"""The key of the keyed journal."""


def _write(path: Path, records: int, key: bytes | None = None) -> None:
    """A journal of about ``records`` records (signed with ``key``), the devices linked up at its start only."""
    clock = iter(float(t) for t in range(1_000_000, 10**9))
    j = SqliteJournal(path, key, clock=lambda: next(clock))
    j.append_batch([NewRecord("LinkUp", {"device": d, "boot_id": 7, "rebooted": False}, event=True) for d in DEVICES])
    n, round_no = 0, 0
    while j.last_seq < records:
        round_no += 1
        j.snapshot(j.last_seq, round_no, {"round": round_no})
        batch = []
        for _ in range(20):
            n += 1
            batch.append(NewRecord("CardDealt", {"device": "shoe", "at": 1.0, "event_no": n, "card": "As"}, event=True))
            batch.append(
                NewRecord("SpotReport", {"device": "bet_spots", "event_no": n, "seat": 1, "cents": 500}, event=True)
            )
            batch.append(NewRecord("ButtonChanged", {"device": "panel", "event_no": n, "button": "next"}, event=True))
            batch.append(NewRecord("CommandResult", {"device": "panel", "command": "SHOW", "ok": True}, event=False))
        batch.append(NewRecord("LinkStats", {"device": "shoe", "up": True, "boot_id": 7, "timeouts": 0}, event=False))
        j.append_batch(batch)
    j.close()


def _fold(path: Path) -> None:
    """The records between every tenth snapshot and the next kept as one compact block each."""
    db = sqlite3.connect(path)
    try:
        marks = [int(s) for (s,) in db.execute("SELECT seq FROM snapshots ORDER BY seq")][::10]
        for lo, hi in zip(marks, marks[1:], strict=False):
            fold(db, lo + 1, hi)
        db.execute("VACUUM")
    finally:
        db.close()


def _floor(path: Path) -> int:
    """The floor: every row of the former query read (as the windows are, back to the first
    record, when the devices linked up at the start)."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return sum(1 for _ in db.execute(FLOOR_QUERY))
    finally:
        db.close()


def _windows(path: Path) -> dict[str, tuple[int, int]]:
    return journaled_event_windows(path, DEVICES)


def _median(read: Callable[[Path], object], path: Path, runs: int) -> tuple[float, object]:
    times, found = [], read(path)  # the first read fills the OS's file cache
    for _ in range(runs):
        start = time.process_time()
        found = read(path)
        times.append(time.process_time() - start)
    return statistics.median(times), found


def main() -> None:
    """Write the journals, time the reads, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=300_000, help="records in the journal")
    parser.add_argument("--runs", type=int, default=5, help="reads of each (the median is shown)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows, blocks, keyed = Path(tmp) / "rows.db", Path(tmp) / "blocks.db", Path(tmp) / "keyed.db"
        _write(rows, args.records)
        shutil.copy(rows, blocks)
        _fold(blocks)
        _write(keyed, args.records, KEY)
        _fold(keyed)
        floor, _ = _median(_floor, rows, args.runs)
        table = [("floor: the former SQL query, every row read", floor)]
        found = []
        for name, path in (
            ("journaled_event_windows, rows", rows),
            ("journaled_event_windows, blocks", blocks),
            ("journaled_event_windows, blocks, keyed", keyed),
        ):
            took, windows = _median(_windows, path, args.runs)
            found.append(windows)
            table.append((name, took))
        assert found[0] == found[1] == found[2] and len(found[0]) == len(DEVICES), found
    print(f"{args.records} records, devices linked up at the start; median of {args.runs} reads (CPU seconds)")
    for name, took in table:
        print(f"{name:<46} {took:>8.3f} s {took / floor:>6.2f}x")


if __name__ == "__main__":
    main()
