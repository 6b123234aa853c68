"""Attack on the journal's fold that "hashes only rows not written by this writer" (CHANGELOG
2026-12-07 morning, #41 item 6): two writers on one journal, a row replaced or removed under the
writer by another process, and a writer started again after a crash between its inserts and the
fold; ``tablectl journal verify`` after each. What the fold makes of rows it holds in memory must
be what it makes of the same file read by a writer that holds none (every row hashed again)."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from itertools import count
from pathlib import Path

import pytest
from cli_helpers import cli
from test_journal_written import _blocks

from controller.journal import JournalError, SqliteJournal
from controller.journal._hashing import record_hash
from controller.journal.fold import fold_closed_rounds

ROUNDS = 4
PER_ROUND = 5


def _clock() -> Callable[[], float]:
    ticks = count()
    return lambda: 1_800_000_000.0 + next(ticks) / 8


def _round(journal: SqliteJournal, round_no: int, other: SqliteJournal | None = None) -> int:
    """One round of records, its start snapshot after its first; ``other`` appends a record of its
    own in its middle (as ``journal prune --force-unacknowledged`` does while the table runs)."""
    first = 0
    for n in range(PER_ROUND):
        seq = journal.append("SpotReport", {"round": round_no, "n": n, "cents": 500 * n}, event=True)
        if n == 0:
            journal.snapshot(seq, round_no, {"round": round_no})
            first = seq
        if other is not None and n == 2:
            other.append("JournalPruned", {"reason": f"by hand in round {round_no}"})
    return first


def _verify(path: Path) -> tuple[int, str]:
    code, out, err = cli("journal", "verify", "--journal", str(path))
    return code, out + err


def _fold_fresh(path: Path) -> None:
    """The fold of a writer that holds no row (every row hashed again from the file)."""
    fresh = SqliteJournal(path)
    try:
        fold_closed_rounds(fresh, None)
    finally:
        fresh.close()


def test_two_writers_on_one_journal_fold_as_a_writer_holding_nothing_does(tmp_path: Path) -> None:
    """Not found (a check not made before): the table's records interleaved with another writer's;
    the table's fold (its own rows from memory, the other's hashed) writes the very blocks a writer
    started on the same file writes, and the journal verifies."""
    path = tmp_path / "j.db"
    table = SqliteJournal(path, clock=_clock())
    other = SqliteJournal(path, clock=_clock())
    try:
        for round_no in range(1, ROUNDS + 1):
            _round(table, round_no, other if round_no % 2 else None)
        table.append("SpotReport", {"after": True}, event=True)  # the table follows the other's head
        copy = tmp_path / "copy.db"
        with sqlite3.connect(copy) as backup_to, sqlite3.connect(path) as source:
            source.backup(backup_to)
        done = fold_closed_rounds(table, None)
        assert done.blocks == ROUNDS - 1
    finally:
        other.close()
        table.close()
    _fold_fresh(copy)
    assert _blocks(path) == _blocks(copy)
    assert _verify(path)[0] == 0 and _verify(copy)[0] == 0


@pytest.mark.parametrize("restarted", [False, True], ids=["live", "after a crash"])
@pytest.mark.parametrize("how", ["replaced", "removed"])
def test_a_row_replaced_or_removed_under_the_writer_is_not_folded_and_verify_names_it(
    tmp_path: Path, how: str, restarted: bool
) -> None:
    """Not found: another process replaces one of the table's rows with one it hashed itself
    (chained to the row before it: the row verifies alone) or deletes it; the table's fold (live,
    or started again after a crash between its inserts and the fold) leaves that round's rows, folds
    the others, and ``tablectl journal verify`` refuses the journal (naming the record that does
    not follow, or the one missing)."""
    path = tmp_path / "j.db"
    table = SqliteJournal(path, clock=_clock())
    marks = [_round(table, n) for n in range(1, ROUNDS + 1)]
    changed = marks[1] + 2
    other = sqlite3.connect(path)
    with other:
        seq, at, kind, event, data, prev, _ = other.execute(
            "SELECT * FROM records WHERE seq = ?", (changed,)
        ).fetchone()
        if how == "replaced":
            forged = data.replace('"cents":', '"cents":9')
            digest = record_hash(prev, seq, at, kind, bool(event), forged, None)
            other.execute("UPDATE records SET data = ?, hash = ? WHERE seq = ?", (forged, digest, seq))
        else:
            other.execute("DELETE FROM records WHERE seq = ?", (changed,))
    other.close()
    if restarted:  # the crash: nothing the writer held in memory is left
        table.close()
        table = SqliteJournal(path, clock=_clock())
    try:
        if how == "replaced":
            with pytest.raises(
                JournalError, match=rf"not folded \(the rows kept\): record {changed + 1} does not follow"
            ):
                fold_closed_rounds(table, None)
        else:  # a span with a record missing is not a closed one: left as it is, without a word
            assert fold_closed_rounds(table, None).blocks == ROUNDS - 2
        left = [r[0] for r in table.db.execute("SELECT seq FROM records WHERE seq > ? AND seq <= ?", marks[1:3])]
    finally:
        table.close()
    assert left == [s for s in range(marks[1] + 1, marks[2] + 1) if how == "replaced" or s != changed]
    code, said = _verify(path)
    assert code != 0 and str(changed + 1 if how == "replaced" else changed) in said, said


def test_a_fold_after_a_crash_between_the_insert_and_the_fold_hashes_and_verifies(tmp_path: Path) -> None:
    """Not found: the rounds written, the table stops before folding them (a crash: its memory of
    the rows is gone), another process appends meanwhile; started again, it folds every closed round
    (each row hashed again), the blocks are those a live writer makes, and the journal verifies."""
    live, crashed = tmp_path / "live.db", tmp_path / "crashed.db"
    for path in (live, crashed):
        table = SqliteJournal(path, clock=_clock())
        for round_no in range(1, ROUNDS + 1):
            _round(table, round_no)
        if path == live:
            fold_closed_rounds(table, None)
        table.close()
    _fold_fresh(crashed)
    assert _blocks(live) == _blocks(crashed)
    assert _verify(live)[0] == 0 and _verify(crashed)[0] == 0
    shutil.copy(crashed, tmp_path / "again.db")
    _fold_fresh(tmp_path / "again.db")  # folded twice: nothing left to fold, nothing changes
    assert _blocks(tmp_path / "again.db") == _blocks(crashed)
