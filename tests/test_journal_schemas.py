"""An upgrade reads every journal an earlier tablectl wrote (issue 45 item 5).

The schema steps of the journal's history are recorded here as SQL, as each release wrote them
(not imported from the code that migrates them: a checker shares no code with what it checks).
A journal of each earlier layout is built from them with the records of a real bench table,
then opened as `tablectl run` opens it after an upgrade (migrated on open) and read with
`journal verify`, `recall`, `meters` and `settle --check`: everything the original shows. A new
schema version without its step recorded here fails the test that the steps reach this version.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import bench_journal, cli

from controller.configuration import config_dir, load_table
from controller.journal import SCHEMA_VERSION, verify_journal
from controller.table.journal_files import open_journal

STEPS: list[tuple[int, str, tuple[str, ...]]] = [
    (
        1,
        "the chained records and meta",
        (
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            "CREATE TABLE records (\n"
            "    seq INTEGER PRIMARY KEY, at REAL NOT NULL, kind TEXT NOT NULL, event INTEGER NOT NULL,\n"
            "    data TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL\n"
            ")",
        ),
    ),
    (
        2,
        "the derived tables: snapshots, the round index, meters",
        (
            "CREATE TABLE snapshots (seq INTEGER PRIMARY KEY, round_no INTEGER NOT NULL, state TEXT NOT NULL)",
            "CREATE TABLE rounds (round_no INTEGER PRIMARY KEY, seq INTEGER NOT NULL, at REAL NOT NULL)",
            "CREATE TABLE meters (scope TEXT NOT NULL, name TEXT NOT NULL, value INTEGER NOT NULL, "
            "PRIMARY KEY (scope, name))",
        ),
    ),
    (
        2,
        "the head trigger (added within version 2)",
        (
            "CREATE TRIGGER head AFTER INSERT ON records BEGIN\n"
            "    INSERT OR REPLACE INTO meta VALUES ('head_seq', NEW.seq), ('head_hash', NEW.hash);\n"
            "END",
        ),
    ),
    (3, "snapshots bound to the chain; meta signed", ("ALTER TABLE snapshots ADD COLUMN hash TEXT",)),
    (
        4,
        "compact blocks of closed rounds' records",
        (
            "CREATE TABLE blocks (\n"
            "    first_seq INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL UNIQUE, prev TEXT NOT NULL, hash TEXT NOT NULL,\n"
            "    prefixes BLOB NOT NULL, payload BLOB NOT NULL\n"
            ")",
            "CREATE TABLE block_kinds (kind TEXT NOT NULL, first_seq INTEGER NOT NULL, PRIMARY KEY (kind, first_seq)) "
            "WITHOUT ROWID",
        ),
    ),
    (
        5,
        "the head kept in place (its rows upserted)",
        (
            "DROP TRIGGER head",
            "CREATE TRIGGER head AFTER INSERT ON records BEGIN\n"
            "    INSERT INTO meta VALUES ('head_seq', NEW.seq), ('head_hash', NEW.hash)\n"
            "        ON CONFLICT (key) DO UPDATE SET value = excluded.value;\n"
            "END",
        ),
    ),
]
"""Each step of the journal's schema in the order releases took them: (the version it belongs
to, what it added, its statements as that release wrote them)."""

LAYOUTS = list(range(1, len(STEPS) + 1)) + [-4]
"""Each journal layout a release wrote: the first N steps; -4: the first four (version 3), written
before the journal kept its game in its signed meta (version 3 as first released)."""


def _meta_hash(meta: dict[str, str]) -> str:
    """``meta_hash`` as docs/journal.md has it (no key): SHA-256 of ``meta\\n`` and the signed
    values as canonical JSON (sorted keys, no spaces)."""
    signed = {k: v for k, v in meta.items() if k not in ("head_seq", "head_hash", "meta_hash")}
    return hashlib.sha256(("meta\n" + json.dumps(signed, sort_keys=True, separators=(",", ":"))).encode()).hexdigest()


def _label(n: int) -> str:
    version, what, _ = STEPS[abs(n) - 1]
    return f"v{version}-{what.split(' ')[1]}" + ("-before-game-meta" if n < 0 else "")


TABLE = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
READERS = (["recall", "--json", "--last", "100"], ["meters", "--json"], ["export", "--format", "jsonl"])
"""The readers whose output an old journal must give as the original does."""


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bench_journal(tmp_path_factory.mktemp("original"), "mississippi_stud", 5, 3, 4, fold_rounds=False)


def build(layout: int, source: Path, target: Path) -> int:
    """A journal of the first ``layout`` steps (-N: the first N, before the game was kept in meta)
    holding ``source``'s records (and its derived rows, as far as the layout has them); its schema
    version."""
    steps = abs(layout)
    version = STEPS[steps - 1][0]
    src = sqlite3.connect(source)
    db = sqlite3.connect(target)
    try:
        for _, _, statements in STEPS[:steps]:
            for statement in statements:
                db.execute(statement)
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        columns = {r[1] for r in db.execute("PRAGMA table_info(snapshots)")} if "snapshots" in tables else set()
        meta = dict(src.execute("SELECT key, value FROM meta"))
        if layout == len(STEPS):  # this version's meta, the game it is bound to included, as signed
            kept = {k: v for k, v in meta.items() if k not in ("head_seq", "head_hash")}
        elif layout >= 4:  # version 3 as last released: the game in its meta, signed with its version
            kept = {k: v for k, v in meta.items() if k not in ("head_seq", "head_hash", "meta_hash")}
            kept["schema_version"] = str(version)
            kept["meta_hash"] = _meta_hash(kept)
        else:  # written before the game was kept in meta: the version, when it was made
            kept = {"schema_version": str(version), "created": meta["created"]}
            if version >= 3:
                kept["meta_hash"] = _meta_hash(kept)
        db.executemany("INSERT INTO meta VALUES (?, ?)", kept.items())
        db.executemany(
            "INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)",
            src.execute("SELECT seq, at, kind, event, data, prev, hash FROM records ORDER BY seq"),
        )
        if "rounds" in tables:
            db.executemany("INSERT INTO rounds VALUES (?, ?, ?)", src.execute("SELECT round_no, seq, at FROM rounds"))
            db.executemany("INSERT INTO meters VALUES (?, ?, ?)", src.execute("SELECT scope, name, value FROM meters"))
            shown = "seq, round_no, state, hash" if "hash" in columns else "seq, round_no, state"
            db.executemany(
                f"INSERT INTO snapshots VALUES ({', '.join('?' * len(shown.split(', ')))})",
                src.execute(f"SELECT {shown} FROM snapshots"),
            )
        db.commit()
    finally:
        db.close()
        src.close()
    target.chmod(0o600)
    return version


def _schema(path: Path) -> set[tuple[str, str, str]]:
    db = sqlite3.connect(path)
    try:
        return {
            (t, n, s) for t, n, s in db.execute("SELECT type, name, sql FROM sqlite_master") if n != "records_links"
        }
    finally:
        db.close()


def test_the_recorded_steps_reach_this_schema_version(original: Path, tmp_path: Path) -> None:
    assert STEPS[-1][0] == SCHEMA_VERSION, "a new schema version: record its step in STEPS"
    assert [v for v, _, _ in STEPS] == sorted(v for v, _, _ in STEPS)
    built = tmp_path / "latest.db"
    build(len(STEPS), original, built)
    assert _schema(built) == _schema(original)  # the steps, all taken, are the schema tablectl writes


@pytest.mark.parametrize("layout", LAYOUTS, ids=_label)
def test_a_journal_of_each_earlier_layout_opens_migrated_and_reads_as_written(
    original: Path, tmp_path: Path, layout: int
) -> None:
    old = tmp_path / "old.db"
    version = build(layout, original, old)
    code, _, err = cli("journal", "verify", "--journal", str(old))
    if version < 2:  # the readers ask for the upgrade first, and change nothing
        assert code == 2 and "schema version 1: open it once with `tablectl run`" in err
    else:  # read as it is, before any start migrates it
        assert code == 0, err
        for command in READERS:
            assert cli(*command, "--journal", str(old)) == cli(*command, "--journal", str(original)), command
    journal = open_journal(TABLE, tmp_path, old)  # as `tablectl run` opens it after an upgrade
    try:
        assert journal.schema_version == SCHEMA_VERSION and journal.meta("game") == "mississippi_stud"
        assert verify_journal(journal).ok
    finally:
        journal.close()
    code, out, err = cli("journal", "verify", "--journal", str(old))
    assert code == 0 and "5 rounds, meters agree" in out, err
    assert _schema(old) == _schema(original)
    for command in READERS:
        code, migrated, err = cli(*command, "--journal", str(old))
        assert code == 0, err
        _, first, _ = cli(*command, "--journal", str(original))
        assert migrated == first, command
    lines = tmp_path / "rounds.jsonl"
    lines.write_text(cli("recall", "--json", "--journal", str(old))[1])
    code, out, err = cli("settle", "--check", "--lines", str(lines))
    assert code == 0 and out.count("re-settled as paid") == 5, out + err
    # the chain goes on from it: a record more, and the journal still verifies, its head kept
    journal = open_journal(TABLE, tmp_path, old)
    try:
        seq = journal.append("Note", {"text": "after the upgrade"})
        assert journal.meta("head_seq") == str(seq)
        assert verify_journal(journal).ok
    finally:
        journal.close()
    assert json.loads(cli("meters", "--json", "--journal", str(old))[1])


KILLED_AFTER_A_STEP = """
import os
import sys

from controller.journal import store


def killed_after(step):
    def run(journal):
        step(journal)
        os._exit(9)  # killed once the step has run, before the journal says its new version

    return run


store.MIGRATIONS = {version: killed_after(step) for version, step in store.MIGRATIONS.items()}
store.SqliteJournal(sys.argv[1], create=False)
"""
"""An upgrade's first start killed in the middle of migrating the journal."""


@pytest.mark.parametrize("layout", [n for n in LAYOUTS if STEPS[abs(n) - 1][0] < SCHEMA_VERSION], ids=_label)
def test_an_upgrade_killed_while_it_migrates_starts_again(original: Path, tmp_path: Path, layout: int) -> None:
    old = tmp_path / "old.db"
    version = build(layout, original, old)
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_AFTER_A_STEP, str(old)], capture_output=True, text=True, timeout=300
    )
    assert killed.returncode == 9, killed.stderr
    db = sqlite3.connect(old)
    try:  # the step was not kept without its version: the journal is as it was
        assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (str(version),)
    finally:
        db.close()
    journal = open_journal(TABLE, tmp_path, old)  # the next start migrates it whole
    try:
        assert journal.schema_version == SCHEMA_VERSION
        assert verify_journal(journal).ok
    finally:
        journal.close()
    assert _schema(old) == _schema(original)
    for command in READERS:
        assert cli(*command, "--journal", str(old)) == cli(*command, "--journal", str(original)), command
