"""The journal's writer of compact blocks (issue 45 item 8): a table folds each closed round into
one block as it plays, only what the floor store holds, each fold one transaction; the same
rounds folded and kept as rows show the same in every reader, the floor's records included."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from cli_helpers import cli

from controller.configuration import config_dir, load_table
from controller.journal import JournalError, SqliteJournal
from controller.journal.fold import fold_closed_rounds
from controller.journal.outbox import Outbox
from controller.journal.retention import prune_rounds
from controller.journal.store import OUTBOX_SCHEMA
from controller.journal.stored import read_records, seq_bounds
from controller.table._round_folder import RoundFolder
from hil.bench import run_bench
from hil.simulate.journal_digest import content_digest

BENCH = config_dir() / "bench" / "mississippi_stud.yaml"
ROUNDS = 4
KEY = "correct horse battery staple\n"


def _bench(path: Path, fold: bool, keyed: bool = False) -> Path:
    """A bench journal of ``ROUNDS`` rounds at ``path`` (folded as the table plays, or kept as rows);
    returns the config it was written with."""
    config = path.parent / "bench.yaml"
    text = BENCH.read_text().replace("paytables_dir: ../paytables", f"paytables_dir: {config_dir() / 'paytables'}")
    if keyed:
        key = path.parent / "journal.key"
        key.write_text(KEY)
        key.chmod(0o600)
        text += f"journal: {{hmac_key_file: {key}}}\n"
    config.write_text(text)
    summary = run_bench(
        load_table(config), seats=3, rounds=ROUNDS, seed=4, progress=False, journal_path=path, fold_rounds=fold
    )
    assert summary.rounds == ROUNDS and summary.failure is None
    return config


def _spans(path: Path) -> tuple[list[tuple[int, int]], int]:
    """The blocks (first, last) and the number of rows of the journal at ``path``."""
    db = sqlite3.connect(path)
    try:
        blocks = [(int(a), int(b)) for a, b in db.execute("SELECT first_seq, last_seq FROM blocks ORDER BY first_seq")]
        return blocks, int(db.execute("SELECT count(*) FROM records").fetchone()[0])
    finally:
        db.close()


def _copy_of(journal: Path, folder: Path) -> Path:
    """``folder/journal.db``: a copy of ``journal`` the test may change."""
    path = folder / "journal.db"
    shutil.copy(journal, path)
    return path


@contextmanager
def _content_kept(journal: Path, folder: Path) -> Iterator[Path]:
    """A copy of ``journal`` (as ``_copy_of``) whose records' content after the block is what it
    was before it, and which verifies."""
    path = _copy_of(journal, folder)
    before = content_digest(path.read_bytes())
    yield path
    assert content_digest(path.read_bytes()) == before
    _verifies(path)


def _verifies(path: Path) -> str:
    """What ``tablectl journal verify`` prints of ``path``, which must verify (exit 0)."""
    code, out, err = cli("journal", "verify", "--journal", str(path))
    assert code == 0, out + err
    return out


def _snapshots(path: Path) -> list[int]:
    db = sqlite3.connect(path)
    try:
        return [int(s) for (s,) in db.execute("SELECT seq FROM snapshots ORDER BY seq")]
    finally:
        db.close()


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A journal the table kept as rows, and its config."""
    path = tmp_path_factory.mktemp("plain") / "journal.db"
    return path, _bench(path, fold=False)


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A journal signed with a key, kept as rows, and its config (with the key)."""
    path = tmp_path_factory.mktemp("keyed") / "journal.db"
    return path, _bench(path, fold=False, keyed=True)


def _folded(rows: Path, config: Path, to: Path) -> Path:
    """A copy of the journal at ``rows`` folded by the writer, as the table folds (no floor)."""
    shutil.copy(rows, to)
    journal = SqliteJournal(to, _key(config))
    try:
        done = fold_closed_rounds(journal, None)
    finally:
        journal.close()
    assert done.blocks == len(_snapshots(to)) - 1 >= ROUNDS - 1
    return to


def _key(config: Path) -> bytes | None:
    from controller.table.journal_files import journal_key

    return journal_key(load_table(config))


def _shown(path: Path, config: Path, *command: str) -> tuple[int, str, str]:
    code, out, err = cli(*command, "--journal", str(path), "--config", str(config))
    return code, out.replace(str(path), "JOURNAL"), err.replace(str(path), "JOURNAL")


def _floor_records(path: Path, after: int = 0, key: bytes | None = None) -> list[object]:
    """What the forwarder reads to send, from record ``after`` on (with the journal's ``key``, as
    the table's forwarder and `floor resend` read it), and each record's hash as it compares what
    the floor says it holds."""
    outbox = Outbox(path, key=key)
    try:
        return list(outbox.after(after, limit=10**6)) + [outbox.hash_of(s) for s in range(after, outbox.head() + 1)]
    finally:
        outbox.close()


def test_a_table_folds_each_closed_round_as_it_plays(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    _bench(path, fold=True)
    blocks, rows = _spans(path)
    marks = _snapshots(path)
    assert blocks == [(lo + 1, hi) for lo, hi in zip(marks, marks[1:], strict=False)]  # every closed round
    assert len(blocks) >= ROUNDS - 1
    db = sqlite3.connect(path)
    try:  # the open round (and what came before the first round) stays rows
        kept = [int(s) for (s,) in db.execute("SELECT seq FROM records WHERE seq > ? ORDER BY seq", (marks[0],))]
        bounds = seq_bounds(db)
    finally:
        db.close()
    assert bounds is not None and kept == list(range(marks[-1] + 1, bounds[1] + 1))
    assert rows == len(kept) + marks[0]
    assert f"{ROUNDS} rounds" in _verifies(path)


@pytest.mark.parametrize("which", ["plain", "keyed"])
def test_the_same_rounds_folded_and_as_rows_show_the_same_byte_for_byte(
    which: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    rows, config = request.getfixturevalue(which)
    blocks = _folded(rows, config, tmp_path / "blocks.db")
    assert _spans(blocks)[0] and not _spans(rows)[0]
    assert content_digest(blocks.read_bytes()) == content_digest(rows.read_bytes())  # what the guard compares
    for command in (
        ["journal", "verify"],
        ["recall", "--last", "100"],
        ["recall", "--json", "--last", "100"],
        ["recall", "--round", "2"],
        ["meters", "--json"],
    ):
        shown = _shown(blocks, config, *command)
        assert shown[0] == 0, (command, shown)
        assert shown == _shown(rows, config, *command), command
    settled = []
    for path in (rows, blocks):  # re-settlement of what recall wrote, checked against what was paid
        lines = tmp_path / f"{path.stem}.jsonl"
        lines.write_text(_shown(path, config, "recall", "--json", "--last", "100")[1])
        code, out, err = cli("settle", "--check", "--lines", str(lines))
        assert code == 0 and out.count("re-settled as paid") == ROUNDS, out + err
        again = cli("settle", "--lines", str(lines))
        settled.append(repr((out, err, again)).replace(str(lines), "LINES"))
    assert settled[0] == settled[1]
    if which == "plain":  # without a key every record's hash is computed again: all the floor would be sent
        assert _floor_records(blocks) == _floor_records(rows)
    else:  # with one, what the forwarder has still to send is never folded: the same from there on
        last_block = _spans(blocks)[0][-1][1]
        assert _floor_records(blocks, last_block) == _floor_records(rows, last_block)
        # and with the key (the table's forwarder, `floor resend`) every record as from its row
        assert _floor_records(blocks, key=_key(config)) == _floor_records(rows, key=_key(config))
        assert _floor_records(blocks, key=_key(config)) == _floor_records(rows)
    pairs = []  # what `floor reconcile --config` compares with the floor's records: every hash, with the key
    for path in (rows, blocks):
        db = sqlite3.connect(path)
        try:
            pairs.append(
                [(r.seq, r.hash) for r in read_records(db, key=_key(config), checked=_key(config) is not None)]
            )
        finally:
            db.close()
    assert pairs[0] == pairs[1] and all(digest for _, digest in pairs[1])


def test_reconcile_compares_by_number_a_record_whose_hash_is_not_known_without_the_key() -> None:
    from controller.floor.reconcile import reconcile

    found = reconcile(iter([(1, "h1"), (2, ""), (3, "h3")]), iter([(1, "h1"), (2, "hX"), (3, "h3")]))
    assert found.ok and (found.compared, found.by_number) == (2, 1)
    found = reconcile(iter([(1, "h1"), (2, "h2"), (3, "h3")]), iter([(1, "h1"), (2, "hX"), (3, "h3")]))
    assert not found.ok and found.by_number == 0


def _with_floor(path: Path, stored: int | None, held: int | None = None) -> None:
    db = sqlite3.connect(path)
    try:
        with db:
            db.execute(OUTBOX_SCHEMA)
            db.execute("INSERT INTO floor_outbox VALUES ('floor', ?, 1.0, 'up', NULL)", (10**6,))
            if stored is not None:
                db.execute("INSERT INTO floor_outbox VALUES ('floor-stored', ?, 1.0, NULL, NULL)", (stored,))
            if held is not None:
                db.execute("INSERT INTO floor_outbox VALUES ('floor-held', ?, 1.0, 'held', 'x')", (held,))
    finally:
        db.close()


def _fold_as_table(path: Path, floor: bool) -> list[tuple[int, int]]:
    journal = SqliteJournal(path)
    try:
        RoundFolder(journal, floor).fold()
    finally:
        journal.close()
    return _spans(path)[0]


def test_only_what_the_floor_store_holds_is_folded(plain: tuple[Path, Path], tmp_path: Path) -> None:
    marks = _snapshots(plain[0])
    cases = {
        "floor said nothing": (None, None, []),
        "floor-stored inside round 2": (marks[2] - 1, None, [(marks[0] + 1, marks[1])]),
        "floor-stored at round 2's end": (marks[2], None, [(marks[0] + 1, marks[1]), (marks[1] + 1, marks[2])]),
        "held inside round 2": (marks[3], marks[2], [(marks[0] + 1, marks[1])]),
    }
    for name, (stored, held, expected) in cases.items():
        path = tmp_path / f"{name}.db"
        shutil.copy(plain[0], path)
        _with_floor(path, stored, held)
        assert _fold_as_table(path, floor=True) == expected, name
        assert _fold_as_table(path, floor=True) == expected, name  # nothing more on a second call
    no_outbox = tmp_path / "no-outbox.db"
    shutil.copy(plain[0], no_outbox)
    assert _fold_as_table(no_outbox, floor=True) == []  # a table with a floor before its forwarder has begun
    assert len(_fold_as_table(no_outbox, floor=False)) == len(marks) - 1


STEPS = ("INSERT ON blocks", "INSERT ON block_kinds", "DELETE ON records")


@pytest.mark.parametrize("step", STEPS)
def test_a_fold_that_fails_in_its_transaction_leaves_the_rows(
    step: str, plain: tuple[Path, Path], tmp_path: Path
) -> None:
    with _content_kept(plain[0], tmp_path) as path:
        journal = SqliteJournal(path)
        try:
            verb, table = step.split(" ON ")
            journal.db.execute(
                f"CREATE TEMP TRIGGER fault AFTER {verb} ON main.{table} BEGIN SELECT RAISE(ABORT, 'injected'); END"
            )
            with pytest.raises(JournalError, match="injected"):
                fold_closed_rounds(journal, None)
            assert _spans(path) == _spans(plain[0])  # the rows, no block
            journal.db.execute("DROP TRIGGER fault")
            assert fold_closed_rounds(journal, None).blocks == len(_snapshots(path)) - 1  # folded on the next try
        finally:
            journal.close()


def _crash_in_fold(path: str, step: str) -> None:
    """In a child: fold, the process ending at ``step`` inside the transaction (``os._exit``: no
    rollback, no close, as a power cut or a kill would leave the file)."""
    journal = SqliteJournal(path)
    journal.db.create_function("crash", 0, lambda: os._exit(3))
    verb, table = step.split(" ON ")
    journal.db.execute(f"CREATE TEMP TRIGGER crash AFTER {verb} ON main.{table} BEGIN SELECT crash(); END")
    fold_closed_rounds(journal, None)
    os._exit(0)


@pytest.mark.parametrize("step", STEPS)
def test_a_crash_inside_a_fold_leaves_the_rows_or_the_block_never_both_nor_neither(
    step: str, plain: tuple[Path, Path], tmp_path: Path
) -> None:
    with _content_kept(plain[0], tmp_path) as path:
        child = multiprocessing.get_context("fork").Process(target=_crash_in_fold, args=(str(path), step))
        child.start()
        child.join(timeout=120)
        assert child.exitcode == 3
        assert _spans(path) == _spans(plain[0])


def test_a_round_whose_rows_do_not_verify_is_not_folded(plain: tuple[Path, Path], tmp_path: Path) -> None:
    path = _copy_of(plain[0], tmp_path)
    marks = _snapshots(path)
    db = sqlite3.connect(path)
    with db:
        (seq,) = db.execute(
            "SELECT min(seq) FROM records WHERE seq > ? AND data LIKE '%\"cents\":%'", (marks[1],)
        ).fetchone()
        db.execute("UPDATE records SET data = replace(data, '\"cents\":', '\"cents\":9') WHERE seq = ?", (seq,))
    db.close()
    assert marks[1] < seq <= marks[2]
    journal = SqliteJournal(path)
    try:
        with pytest.raises(JournalError, match=rf"not folded \(the rows kept\): record {seq} .*hash mismatch"):
            fold_closed_rounds(journal, None)
        kept = [r.seq for r in read_records(journal.db, marks[1], marks[2], checked=False)]
    finally:
        journal.close()
    assert kept == list(range(marks[1] + 1, marks[2] + 1))
    assert (marks[1] + 1, marks[2]) not in _spans(path)[0]
    assert (marks[0] + 1, marks[1]) in _spans(path)[0]


def test_prune_of_folded_rounds_keeps_no_pruned_record_and_verifies(tmp_path: Path) -> None:
    """A round's block runs on past its round record to the next round's start: prune cuts it at
    the round record, the records after it kept in a block of their own that follows the anchor."""
    path = tmp_path / "journal.db"
    run_bench(load_table(BENCH), seats=2, rounds=12, seed=9, progress=False, journal_path=path)
    db = sqlite3.connect(path)
    try:
        run = [(int(r), int(s)) for r, s in db.execute("SELECT round_no, seq FROM rounds WHERE round_no <= 2")]
        settled = run[-1][1]
        first, last = db.execute(
            "SELECT first_seq, last_seq FROM blocks WHERE first_seq <= ? AND last_seq >= ?", (settled, settled)
        ).fetchone()
    finally:
        db.close()
    assert last > settled  # records after the round record in its block
    journal = SqliteJournal(path)
    try:
        assert prune_rounds(journal, run) == 2  # rounds 1 and 2, as `journal prune` gives them
    finally:
        journal.close()
    db = sqlite3.connect(path)
    try:
        assert db.execute("SELECT min(first_seq) FROM blocks").fetchone() == (settled + 1,)
        assert db.execute("SELECT count(*) FROM block_kinds WHERE first_seq <= ?", (settled,)).fetchone() == (0,)
        assert [r.seq for r in read_records(db, 0, last)] == list(range(settled + 1, last + 1))
    finally:
        db.close()
    _verifies(path)


def test_records_of_some_kinds_are_those_of_every_record_from_blocks_and_rows_alike(
    plain: tuple[Path, Path], tmp_path: Path
) -> None:
    """``records(kinds=...)`` (what the simulation's checks at a seed's end read) gives exactly the
    records of those kinds that ``records()`` gives, in order, whether a round is a block or rows."""
    rows, config = plain
    blocks = _folded(rows, config, tmp_path / "blocks.db")
    kinds = ("RoundSettled", "CardDealt", "CardUnreadable")
    for path in (rows, blocks):
        journal = SqliteJournal.open_readonly(path)
        try:
            every = list(journal.records())
            some = list(journal.records(kinds=kinds))
            after = list(journal.records(after=every[len(every) // 2].seq, kinds=("CardDealt",)))
        finally:
            journal.close()
        assert some == [r for r in every if r.kind in kinds]
        assert {r.kind for r in some} >= {"RoundSettled", "CardDealt"}
        assert after == [r for r in every[len(every) // 2 + 1 :] if r.kind == "CardDealt"] != []
    spans = _spans(blocks)[0]
    folded = {r.seq for r in some if any(lo <= r.seq <= hi for lo, hi in spans)}
    assert folded and len(folded) < len(some)  # records from blocks and from rows among them
