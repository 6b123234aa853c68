"""The one reader of a journal's records (issue 45 item 8): a journal whose closed rounds are kept
as compact blocks reads as the same journal kept as rows, in every reader (``journal verify``,
``recall``, ``meters``, ``export``, ``settle --check``, a backup); a changed block is named."""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
from pathlib import Path

import pytest
from cli_helpers import bench_journal, cli
from journal_blocks import block_at, fold_rounds, unfold_with
from journal_helpers import filled

from controller.journal import SqliteJournal, verify_journal, verify_reader
from controller.journal.compact import StoredRecord
from controller.journal.stored import hash_at, last_record, read_records, select_records, seq_bounds

READERS = (
    ["journal", "verify"],
    ["recall", "--last", "100"],
    ["recall", "--json", "--last", "100"],
    ["meters", "--json"],
    ["export", "--format", "jsonl"],
    ["export", "--format", "csv"],
)


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bench_journal(
        tmp_path_factory.mktemp("rows"), "mississippi_stud", rounds=5, seats=3, seed=4, fold_rounds=False
    )


@pytest.fixture
def blocks(rows: Path, tmp_path: Path) -> Path:
    path = tmp_path / "blocks.db"
    shutil.copy(rows, path)
    assert len(fold_rounds(path)) >= 4
    return path


def _shown(path: Path, command: list[str]) -> tuple[int, str, str]:
    """What ``command`` shows of the journal at ``path`` (its path named ``JOURNAL``)."""
    code, out, err = cli(*command, "--journal", str(path))
    return code, out.replace(str(path), "JOURNAL"), err.replace(str(path), "JOURNAL")


def _read(path: Path) -> dict[str, object]:
    db = sqlite3.connect(path)
    try:
        bounds = seq_bounds(db)
        assert bounds is not None
        return {
            "all": list(read_records(db)),
            "from 10 to 60": list(read_records(db, 10, 60)),
            "round records": list(read_records(db, kinds=("RoundSettled",))),
            "last two round records": list(read_records(db, kinds=("RoundSettled",), newest_first=True, limit=2)),
            "newest 7": list(read_records(db, newest_first=True, limit=7)),
            "hashes": [hash_at(db, s) for s in range(bounds[0], bounds[1] + 2)],
            "last": last_record(db),
            "selected": list(select_records(db, "kind, json_extract(data, '$.seat')", "event = 1 AND seq % 3 = 0")),
            "selected newest first": list(select_records(db, "at", "kind = 'RoundSettled'", newest_first=True)),
            "bounds": bounds,
        }
    finally:
        db.close()


def test_records_read_from_blocks_as_from_rows(rows: Path, blocks: Path) -> None:
    db = sqlite3.connect(blocks)
    try:
        in_blocks = db.execute("SELECT sum(last_seq - first_seq + 1) FROM blocks").fetchone()[0]
        assert in_blocks > 2 * db.execute("SELECT count(*) FROM records").fetchone()[0]
    finally:
        db.close()
    assert _read(blocks) == _read(rows)
    kept, folded = SqliteJournal.open_readonly(rows), SqliteJournal.open_readonly(blocks)
    try:
        assert list(folded.records()) == list(kept.records())
        assert (folded.last_seq, folded.last_hash) == (kept.last_seq, kept.last_hash)
    finally:
        kept.close()
        folded.close()


def test_every_reader_shows_a_journal_of_blocks_as_the_same_journal_of_rows(
    rows: Path, blocks: Path, tmp_path: Path
) -> None:
    for command in READERS:
        shown = _shown(blocks, command)
        assert shown[0] == 0, (command, shown)
        assert shown == _shown(rows, command), command
    lines = tmp_path / "rounds.jsonl"
    lines.write_text(cli("recall", "--json", "--journal", str(blocks))[1])
    code, out, err = cli("settle", "--check", "--lines", str(lines))
    assert code == 0 and out.count("re-settled as paid") == 5, out + err


def test_a_backup_copies_the_blocks(rows: Path, blocks: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.db"
    code, out, err = cli("journal", "backup", "--journal", str(blocks), "--to", str(copy))
    assert code == 0, err
    db = sqlite3.connect(copy)
    try:
        assert db.execute("SELECT count(*) FROM blocks").fetchone()[0] >= 4
    finally:
        db.close()
    for command in READERS:
        assert _shown(copy, command) == _shown(rows, command), command


def test_a_changed_record_in_a_block_is_named(blocks: Path) -> None:
    db = sqlite3.connect(blocks)
    try:
        first, last = db.execute(
            "SELECT first_seq, last_seq FROM blocks ORDER BY first_seq LIMIT 1 OFFSET 1"
        ).fetchone()
        records = list(read_records(db, first - 1, last))
        block = block_at(db, first)
    finally:
        db.close()
    i = next(i for i, r in enumerate(records) if r.kind == "RoundSettled")
    target = records[i]
    records[i] = dataclasses.replace(target, data=target.data.replace('"round":', '"round": ', 1))
    unfold_with(blocks, block, records)
    code, out, err = cli("journal", "verify", "--journal", str(blocks))
    assert code != 0 and "Traceback" not in err
    assert f"record {target.seq} (RoundSettled): hash mismatch" in out + err, out + err


def _old_rounds(path: Path, rounds: int) -> None:
    """A journal of ``rounds`` one-seat rounds of 1970 (older than any retention), a snapshot at each
    round's start, its closed rounds folded into blocks."""
    filled(path, None, rounds, snapshots=True).close()
    assert len(fold_rounds(path)) == rounds - 1


def test_prune_removes_the_blocks_of_the_rounds_it_removes(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    _old_rounds(path, 14)
    code, out, err = cli("journal", "prune", "--journal", str(path), "--days", "1")
    assert (code, err) == (0, "") and "pruned 4 rounds" in out
    db = sqlite3.connect(path)
    try:
        anchor = int(db.execute("SELECT value FROM meta WHERE key = 'anchor_seq'").fetchone()[0])
        assert db.execute("SELECT min(first_seq), count(*) FROM blocks").fetchone() == (anchor + 1, 9)
        assert db.execute("SELECT count(*) FROM block_kinds WHERE first_seq <= ?", (anchor,)).fetchone() == (0,)
    finally:
        db.close()
    code, out, err = cli("journal", "verify", "--journal", str(path))
    assert code == 0 and "10 rounds" in out, out + err


def test_the_guard_compares_a_journals_content_whether_rows_or_blocks(rows: Path, blocks: Path, tmp_path: Path) -> None:
    """The refactor guard's digest (hil/simulate/journal_digest.py) is of what the journal holds:
    equal for the same records as rows or as blocks and across schema versions, different when a
    record differs."""
    from hil.simulate.journal_digest import content_digest

    assert rows.read_bytes() != blocks.read_bytes()
    assert content_digest(blocks.read_bytes()) == content_digest(rows.read_bytes())
    older = tmp_path / "v3.db"
    shutil.copy(rows, older)
    db = sqlite3.connect(older)
    try:
        with db:
            db.execute("DROP TABLE blocks")
            db.execute("DROP TABLE block_kinds")
            db.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
            db.execute("UPDATE meta SET value = 'x' WHERE key = 'meta_hash'")
        db.execute("VACUUM")
    finally:
        db.close()
    assert content_digest(older.read_bytes()) == content_digest(rows.read_bytes())
    db = sqlite3.connect(blocks)
    try:
        block = block_at(db, db.execute("SELECT min(first_seq) FROM blocks").fetchone()[0])
        kept = list(read_records(db, block.first_seq - 1, block.last_seq))
    finally:
        db.close()
    unfold_with(blocks, block, [dataclasses.replace(kept[0], at=kept[0].at + 1.0), *kept[1:]])
    assert content_digest(blocks.read_bytes()) != content_digest(rows.read_bytes())


def test_a_keyed_journal_of_blocks_verifies_with_its_key_and_reads_without_it(tmp_path: Path) -> None:
    """Blocks of a keyed journal are checked with its key (a wrong key is told); read without the
    key, they are decoded unchecked, as its rows are read without it."""
    path, key = tmp_path / "j.db", b"k" * 32
    filled(path, key, 4, snapshots=True).close()
    kept = SqliteJournal.open_readonly(path, key)
    before = list(kept.records())
    kept.close()
    assert len(fold_rounds(path)) == 3
    keyed = SqliteJournal.open_readonly(path, key)
    try:
        assert verify_journal(keyed).ok and list(keyed.records()) == before
    finally:
        keyed.close()
    wrong = SqliteJournal.open_readonly(path, b"w" * 32)
    try:
        assert not verify_journal(wrong).ok
    finally:
        wrong.close()
    bare = SqliteJournal.open_readonly(path)
    try:
        report = verify_reader(bare, [(1, bare.last_seq)])
        assert report.ok and report.notes, report.problems
    finally:
        bare.close()


KEY = b"k" * 32


@pytest.fixture(params=["keyed", "without a key"])
def folded(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, Path, bytes | None]:
    """A journal of 5 rounds kept as rows, the same with its closed rounds folded into blocks,
    and its key (keyed, or without a key)."""
    key = KEY if request.param == "keyed" else None
    rows, blocks = tmp_path / "rows.db", tmp_path / "blocks.db"
    filled(rows, key, 5, snapshots=True).close()
    shutil.copy(rows, blocks)
    assert len(fold_rounds(blocks)) == 4
    return rows, blocks, key


class _Counted:
    """A function wrapped to count its calls."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> None:
        self.calls = 0
        inner = getattr(module, name)

        def counted(*args: object, **kwargs: object) -> object:
            self.calls += 1
            return inner(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)


def _all(path: Path, key: bytes | None = None, checked: bool = True) -> list[StoredRecord]:
    db = sqlite3.connect(path)
    try:
        return list(read_records(db, key=key, checked=checked))
    finally:
        db.close()


def test_an_unchecked_read_decompresses_each_block_once_and_hashes_only_a_journal_without_a_key(
    folded: tuple[Path, Path, bytes | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read without the key (start-up's device events, ``status``, a backup's last hash), a block
    is decompressed once; a keyed journal's records are not hashed (their hashes cannot be had
    without the key), a journal without a key gets each record's hash, computed once."""
    from controller.journal import compact

    rows, blocks, key = folded
    db = sqlite3.connect(blocks)
    try:
        spans = db.execute("SELECT count(*), sum(last_seq - first_seq + 1) FROM blocks").fetchone()
        inflated, hashed = _Counted(monkeypatch, compact, "_lines"), _Counted(monkeypatch, compact, "record_hash")
        read = list(read_records(db, checked=False))
        assert (inflated.calls, hashed.calls) == (spans[0], 0 if key else spans[1])
        selected = list(select_records(db, "kind", "event = 1", checked=False, newest_first=True))
        assert (inflated.calls, hashed.calls) == (2 * spans[0], 0 if key else 2 * spans[1])
    finally:
        db.close()
    as_rows = _all(rows)
    assert [dataclasses.replace(r, prev="", hash="") for r in read] == [
        dataclasses.replace(r, prev="", hash="") for r in as_rows
    ]
    assert selected == [(r.seq, r.kind) for r in reversed(as_rows) if r.event]
    if key is None:
        assert read == as_rows  # each record's hash, as from its row
    else:
        in_blocks = {s for lo, hi in _block_spans(blocks) for s in range(lo, hi)}  # a block's last keeps its hash
        assert [(r.seq, r.hash) for r in read] == [(r.seq, "" if r.seq in in_blocks else r.hash) for r in as_rows]


def _block_spans(path: Path) -> list[tuple[int, int]]:
    """(first, last) of each block of the journal at ``path``."""
    db = sqlite3.connect(path)
    try:
        return [(int(a), int(b)) for a, b in db.execute("SELECT first_seq, last_seq FROM blocks ORDER BY first_seq")]
    finally:
        db.close()


def test_a_key_given_to_an_unchecked_read_is_used(tmp_path: Path) -> None:
    """Read unchecked with its key, a keyed journal's records carry their hashes, as from their
    rows; with another key they carry none (but a block's last), and nothing is refused."""
    rows, blocks = tmp_path / "rows.db", tmp_path / "blocks.db"
    filled(rows, KEY, 5, snapshots=True).close()
    shutil.copy(rows, blocks)
    assert len(fold_rounds(blocks)) == 4
    assert _all(blocks, KEY, checked=False) == _all(rows, KEY) == _all(rows, checked=False)
    wrong = _all(blocks, b"w" * 32, checked=False)
    assert wrong == _all(blocks, checked=False) != _all(rows)
    assert [r.seq for r in wrong if not r.hash] == [s for lo, hi in _block_spans(blocks) for s in range(lo, hi)]


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ("DELETE FROM block_kinds WHERE first_seq = {first} AND kind = 'RoundSettled'", "does not list RoundSettled"),
        ("INSERT INTO block_kinds VALUES ('Imagined', {first})", "lists Imagined, which it does not hold"),
        (
            "INSERT INTO block_kinds VALUES ('RoundSettled', 999999)",
            "names a block at record 999999, which is not kept",
        ),
    ],
)
def test_verify_names_a_kind_index_that_is_not_what_its_block_holds(blocks: Path, change: str, named: str) -> None:
    """``verify`` reads each block's kinds (parsed, not hashed again: the walk hashed every record)
    against the kind index a reader looking for a kind trusts: a kind missing, one too many, or a
    block that is not there, each named."""
    db = sqlite3.connect(blocks)
    try:
        (first,) = db.execute("SELECT first_seq FROM blocks ORDER BY first_seq LIMIT 1 OFFSET 1").fetchone()
        with db:
            db.execute(change.format(first=first))
    finally:
        db.close()
    journal = SqliteJournal.open_readonly(blocks)
    try:
        report = verify_journal(journal)
    finally:
        journal.close()
    assert not report.ok and named in report.problems[0], report.problems


def test_a_read_without_hashes_parses_each_block_and_hashes_nothing(
    folded: tuple[Path, Path, bytes | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``hashes=False`` (``verify``'s read of the round records once its walk hashed every record):
    with or without the key, checked or not, the records' content as from their rows, no record
    hashed, and each block's records without a hash of their own but its last."""
    from controller.journal import compact

    rows, blocks, key = folded
    hashed = _Counted(monkeypatch, compact, "record_hash")
    db = sqlite3.connect(blocks)
    try:
        reads = [list(read_records(db, key=key, checked=checked, hashes=False)) for checked in (True, False)]
        rounds = list(read_records(db, kinds=("RoundSettled",), key=key, hashes=False))
    finally:
        db.close()
    assert hashed.calls == 0
    as_rows = _all(rows, key)
    in_blocks = {s for lo, hi in _block_spans(blocks) for s in range(lo, hi)}  # a block's last keeps its hash
    for read in reads:
        assert [dataclasses.replace(r, prev="", hash="") for r in read] == [
            dataclasses.replace(r, prev="", hash="") for r in as_rows
        ]
        assert [(r.seq, r.hash) for r in read] == [(r.seq, "" if r.seq in in_blocks else r.hash) for r in as_rows]
    assert [r.seq for r in rounds] == [r.seq for r in as_rows if r.kind == "RoundSettled"] != []
