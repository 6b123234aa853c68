"""What the journal's writer does once, not twice (issue 41 item 6): the fold hashes again only rows
this writer did not write itself (a row changed on disk since it was written is still refused where
it was before), and a record appended alone is one SQL statement, committed when it returns."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from itertools import count
from pathlib import Path

import pytest

import controller.journal.compact as compact
from controller.journal import JournalError, SqliteJournal, Sync, verify_journal
from controller.journal._written import WrittenRows
from controller.journal.fold import fold_closed_rounds
from controller.journal.stored import read_records
from hil.simulate.world import SimJournal

ROUNDS = 4
PER_ROUND = 6


def _clock() -> Callable[[], float]:
    ticks = count()
    return lambda: 1_800_000_000.0 + next(ticks) / 8


def _played(path: Path, key: bytes | None = None) -> tuple[SqliteJournal, list[int]]:
    """A writer that wrote ``ROUNDS`` rounds of ``PER_ROUND`` records, each round's start snapshot
    kept after its first record, and the numbers of those snapshots' records."""
    journal = SqliteJournal(path, key, clock=_clock())
    marks = []
    for round_no in range(1, ROUNDS + 1):
        for n in range(PER_ROUND):
            seq = journal.append("SpotReport", {"round": round_no, "n": n, "cents": 500 * n}, event=True)
            if n == 0:
                journal.snapshot(seq, round_no, {"round": round_no})
                marks.append(seq)
    return journal, marks


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each record the block codec hashes, by number (the fold's hashing, counted)."""
    seen: list[int] = []
    real = compact.record_hash

    def counted(prev: str, seq: int, at: float, kind: str, event: bool, text: str, key: bytes | None = None) -> str:
        seen.append(seq)
        return real(prev, seq, at, kind, event, text, key)

    monkeypatch.setattr(compact, "record_hash", counted)
    return seen


def _blocks(path: Path) -> list[tuple[object, ...]]:
    db = sqlite3.connect(path)
    try:
        return list(db.execute("SELECT * FROM blocks ORDER BY first_seq"))
    finally:
        db.close()


@pytest.mark.parametrize("key", [None, b"k" * 32])
def test_the_fold_hashes_again_only_rows_this_writer_did_not_write(
    tmp_path: Path, hashed: list[int], key: bytes | None
) -> None:
    ours, marks = _played(tmp_path / "ours.db", key)
    try:
        done = fold_closed_rounds(ours, None)
        assert (done.blocks, done.records) == (ROUNDS - 1, (ROUNDS - 1) * PER_ROUND)
        assert hashed == []  # every row folded was written, and hashed, by this writer
        assert verify_journal(ours).ok  # (which reads every block, hashing each record)
        hashed.clear()
    finally:
        ours.close()
    theirs, _ = _played(tmp_path / "theirs.db", key)
    theirs.close()
    reopened = SqliteJournal(tmp_path / "theirs.db", key)  # a table started again: the rows are the file's
    try:
        fold_closed_rounds(reopened, None)
    finally:
        reopened.close()
    assert hashed == list(range(marks[0] + 1, marks[-1] + 1))  # each hashed once again, from its block
    assert _blocks(tmp_path / "ours.db") == _blocks(tmp_path / "theirs.db")  # the same blocks, byte for byte


def test_rows_the_writer_no_longer_holds_are_hashed_again(tmp_path: Path, hashed: list[int]) -> None:
    journal, marks = _played(tmp_path / "j.db")
    try:
        assert len(journal.written) == ROUNDS * PER_ROUND
        journal.written = WrittenRows(most=PER_ROUND)
        journal.append("SpotReport", {"late": True}, event=True)  # only the last rows kept from now on
        fold_closed_rounds(journal, None)
        folded = list(hashed)
        assert verify_journal(journal).ok
    finally:
        journal.close()
    assert folded == list(range(marks[0] + 1, marks[-1] + 1))


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ("data = replace(data, '\"cents\":', '\"cents\":9')", "record {n} .*hash mismatch"),
        ("at = at + 1", "record {n} .*hash mismatch"),
        ("kind = 'SpotRepore'", "record {n} .*hash mismatch"),
        (
            "hash = (CASE substr(hash, 1, 1) WHEN '0' THEN '1' ELSE '0' END) || substr(hash, 2)",
            "record {m} does not follow",
        ),
    ],
)
def test_a_row_changed_on_disk_after_this_writer_wrote_it_is_still_not_folded(
    tmp_path: Path, change: str, named: str
) -> None:
    """Named as a fold of rows written by another process names it (the writer's copy is not
    taken for the file's)."""
    path = tmp_path / "j.db"
    journal, marks = _played(path)
    changed = marks[1] + 3
    assert journal.written.span(changed, changed) is not None
    other = sqlite3.connect(path)  # someone else, while the table runs
    with other:
        other.execute(f"UPDATE records SET {change} WHERE seq = ?", (changed,))
    other.close()
    try:
        problem = named.format(n=changed, m=changed + 1)
        with pytest.raises(JournalError, match=rf"not folded \(the rows kept\): {problem}"):
            fold_closed_rounds(journal, None)
        kept = [r.seq for r in read_records(journal.db, marks[1], marks[2], checked=False)]
        folded = [tuple(b) for b in journal.db.execute("SELECT first_seq, last_seq FROM blocks ORDER BY first_seq")]
    finally:
        journal.close()
    assert kept == list(range(marks[1] + 1, marks[2] + 1))  # that round's rows stay
    assert folded == [(marks[0] + 1, marks[1]), (marks[2] + 1, marks[3])]  # the others are folded


def test_an_append_is_one_statement_committed_and_durable_when_it_returns(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    journal = SqliteJournal(path)
    reader = sqlite3.connect(path)
    try:
        journal.append("SpotReport", {"n": 0}, event=True)
        statements: list[str] = []
        journal.db.set_trace_callback(statements.append)
        seq = journal.append("SpotReport", {"n": 1}, event=True)
        journal.db.set_trace_callback(None)
        assert [s.split(" (")[0] for s in statements] == ["INSERT INTO records VALUES"] * len(statements)
        assert not journal.db.in_transaction
        # on disk for another connection as soon as it returns: committed, no transaction left open
        assert reader.execute("SELECT max(seq) FROM records").fetchone() == (seq,)
        assert reader.execute("SELECT value FROM meta WHERE key = 'head_seq'").fetchone() == (str(seq),)
        assert verify_journal(journal).ok
    finally:
        reader.close()
        journal.close()


def test_the_writer_keeps_its_newest_rows_and_lets_the_oldest_go_in_order() -> None:
    """The rows kept once more than ``most`` were written: the newest ``most``, in order; the oldest
    let go one by one (the fold asks for spans of them), and rows folded let go of up to a number."""
    kept = WrittenRows(most=5)
    rows = [(seq, float(seq), "K", 1, "{}", f"p{seq}", f"h{seq}") for seq in range(1, 13)]
    for row in rows:
        kept.add([row])
        assert len(kept) == min(row[0], 5)
    assert kept.span(8, 12) == rows[7:12]
    assert kept.span(7, 8) is None  # 7 was let go
    kept.forget_through(9)
    assert (len(kept), kept.span(10, 12), kept.span(9, 10)) == (3, rows[9:12], None)
    kept.add([rows[2]])  # the file went back under the writer: all kept before let go
    assert (len(kept), kept.span(3, 3)) == (1, [rows[2]])


@pytest.mark.parametrize(("sync", "pragma"), [(Sync.FULL, 2), (Sync.OFF, 0)])
def test_the_journal_syncs_each_commit_as_its_durability_port_says_from_its_first(
    tmp_path: Path, sync: Sync, pragma: int
) -> None:
    """FULL unless the constructor is told otherwise (a simulated disk: the simulation's journal),
    set before the schema's commits; the same records and blocks either way."""
    journal = SqliteJournal(tmp_path / "j.db", clock=_clock(), sync=sync)
    try:
        assert journal.db.execute("PRAGMA synchronous").fetchone() == (pragma,)
    finally:
        journal.close()
    default = SqliteJournal(tmp_path / "default.db")
    try:
        assert default.db.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL: a table's journal
    finally:
        default.close()


def test_a_journal_written_without_sync_holds_what_one_written_with_it_does(tmp_path: Path) -> None:
    """The port changes when bytes reach the disk, never which: rows, blocks and snapshots alike."""
    written = {}
    for sync in Sync:
        journal = SqliteJournal(tmp_path / f"{sync.value}.db", clock=_clock(), sync=sync)
        try:
            for round_no in range(1, ROUNDS + 1):
                seq = journal.append("SpotReport", {"round": round_no}, event=True)
                journal.snapshot(seq, round_no, {"round": round_no})
                journal.append("SpotReport", {"round": round_no, "n": 1}, event=True)
            fold_closed_rounds(journal, None)
            assert verify_journal(journal).ok
        finally:
            journal.close()
        db = sqlite3.connect(tmp_path / f"{sync.value}.db")
        try:
            written[sync] = [
                list(db.execute(f"SELECT * FROM {table} ORDER BY 1")) for table in ("records", "blocks", "snapshots")
            ]
        finally:
            db.close()
    assert written[Sync.OFF] == written[Sync.FULL]


def test_a_journal_is_told_its_durability_by_a_sync_value_only(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="sync: a Sync"):
        SqliteJournal(tmp_path / "j.db", sync="OFF")  # type: ignore[arg-type]  # the wrong type on purpose
    assert not (tmp_path / "j.db").exists()


def test_the_simulation_passes_its_simulated_disk_to_the_journal(tmp_path: Path) -> None:
    journal = SimJournal(tmp_path / "sim.db", clock=_clock())
    try:
        assert journal.sync is Sync.OFF
        assert journal.db.execute("PRAGMA synchronous").fetchone() == (0,)
    finally:
        journal.close()


def test_a_row_changed_on_disk_to_bytes_that_are_not_utf8_is_not_folded_and_verify_names_it(tmp_path: Path) -> None:
    """The fold reads its rows with SQLite's own decoding; a span holding bytes that are not UTF-8
    is read again as the journal reads it, refused (its rows kept), and the others folded."""
    path = tmp_path / "j.db"
    journal, marks = _played(path)
    changed = marks[1] + 2
    other = sqlite3.connect(path)  # someone else, while the table runs
    with other:
        other.execute("UPDATE records SET data = CAST(x'7b22ff227d' AS TEXT) WHERE seq = ?", (changed,))
    other.close()
    try:
        with pytest.raises(JournalError, match=r"not folded \(the rows kept\): 'utf-8' codec can't encode"):
            fold_closed_rounds(journal, None)
        folded = [tuple(b) for b in journal.db.execute("SELECT first_seq, last_seq FROM blocks ORDER BY first_seq")]
        problems = verify_journal(journal).problems
        assert journal.db.text_factory is not str  # the journal's own reading, back after the fold's
    finally:
        journal.close()
    assert folded == [(marks[0] + 1, marks[1]), (marks[2] + 1, marks[3])]
    assert problems == [f"record {changed} (SpotReport): holds bytes that are not UTF-8 text: the record was changed"]
