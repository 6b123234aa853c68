"""How long a controller starting again takes to read its devices' event windows from its journal
(``controller.table.journal_files.journaled_event_windows``), beside the floor of the one SQL
query that read them before the journal had compact blocks.

Run ``python benchmarks/bench_event_windows.py [--records N] [--runs N]``. It writes a journal of
``--records`` records (default 300,000: device events with event numbers, each device's command
results and link statistics, as a table writes them) whose devices linked up once, at its start
(a table up for months without a reconnect: the read goes back to the first record), and times,
in one run, the median of ``--runs`` reads (default 5) of:

* the floor: the query of the windows as plain SQL on the rows (``event = 1`` and a ``LinkUp``,
  an ``EventsOfBoot`` or an event number above 0, newest first, with ``json_extract``);
* the windows as the controller reads them, from that journal's rows;
* the same from a copy whose closed rounds are kept as compact blocks (every tenth snapshot to
  the next), to show the blocks' part.

Prints figures and each as a ratio to the floor; asserts nothing but that every read finds the
same windows.
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

from controller.journal import NewRecord, SqliteJournal
from controller.journal.compact import StoredRecord, encode_block
from controller.table.journal_files import journaled_event_windows

DEVICES = {"shoe", "bet_spots", "panel"}
FLOOR_QUERY = (
    "SELECT kind, json_extract(data, '$.device'), json_extract(data, '$.event_no'), "
    "json_extract(data, '$.boot_id') FROM records WHERE event = 1 "
    "AND (kind IN ('LinkUp', 'EventsOfBoot') OR json_extract(data, '$.event_no') > 0) ORDER BY seq DESC"
)


def _write(path: Path, records: int) -> None:
    """A journal of about ``records`` records, the devices linked up at its start only."""
    clock = iter(float(t) for t in range(1_000_000, 10**9))
    j = SqliteJournal(path, clock=lambda: next(clock))
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
            rows = db.execute(
                "SELECT seq, at, kind, event, data, prev, hash FROM records WHERE seq > ? AND seq <= ? ORDER BY seq",
                (lo, hi),
            ).fetchall()
            block = encode_block([StoredRecord(s, at, k, bool(e), d, p, h) for s, at, k, e, d, p, h in rows])
            with db:
                db.execute(
                    "INSERT INTO blocks VALUES (?, ?, ?, ?, ?, ?)",
                    (block.first_seq, block.last_seq, block.prev, block.hash, block.prefixes, block.payload),
                )
                db.executemany("INSERT INTO block_kinds VALUES (?, ?)", [(k, lo + 1) for k in {r[2] for r in rows}])
                db.execute("DELETE FROM records WHERE seq > ? AND seq <= ?", (lo, hi))
        db.execute("VACUUM")
    finally:
        db.close()


def _floor(path: Path) -> dict[str, tuple[int, int]]:
    """The windows by the floor query (the loop of ``journaled_event_windows`` over its rows)."""
    windows: dict[str, tuple[int, int]] = {}
    newest: dict[str, int] = {}
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        for kind, device, event_no, boot_id in db.execute(FLOOR_QUERY):
            if device not in DEVICES or device in windows:
                continue
            if kind in ("LinkUp", "EventsOfBoot"):
                windows[device] = (int(boot_id), newest.get(device, 0))
                if len(windows) == len(DEVICES):
                    break
            elif device not in newest:
                newest[device] = int(event_no)
    finally:
        db.close()
    return windows


def _windows(path: Path) -> dict[str, tuple[int, int]]:
    return journaled_event_windows(path, DEVICES)


def _median(
    read: Callable[[Path], dict[str, tuple[int, int]]], path: Path, runs: int
) -> tuple[float, dict[str, tuple[int, int]]]:
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
        rows, blocks = Path(tmp) / "rows.db", Path(tmp) / "blocks.db"
        _write(rows, args.records)
        shutil.copy(rows, blocks)
        _fold(blocks)
        floor, expected = _median(_floor, rows, args.runs)
        table = [("floor: one SQL query on the rows", floor)]
        for name, path in (("journaled_event_windows, rows", rows), ("journaled_event_windows, blocks", blocks)):
            took, found = _median(_windows, path, args.runs)
            assert found == expected, (name, found, expected)
            table.append((name, took))
    print(f"{args.records} records, devices linked up at the start; median of {args.runs} reads (CPU seconds)")
    for name, took in table:
        print(f"{name:<40} {took:>8.3f} s {took / floor:>6.2f}x")


if __name__ == "__main__":
    main()
