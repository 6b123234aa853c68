"""The durable journal: the hash chain and what breaks it, the schema version, disk full, an
unwritable journal, a torn last WAL frame, and the engine holding when it cannot record."""

from __future__ import annotations

import dataclasses
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.configuration import config_dir, load_table
from controller.game.mississippi_stud._machine import MississippiTable
from controller.journal import (
    SCHEMA_VERSION,
    JournalError,
    JournalFull,
    NewRecord,
    SqliteJournal,
    checkpoint,
    verify_journal,
)
from controller.journal.meters import meters_for_round
from controller.journal.outbox import Outbox
from controller.journal.records import event_record
from controller.journal.store import GENESIS, _Transaction, record_hash
from controller.table.devices import RecordingDevices
from controller.table.engine import Engine
from controller.table.events import OpenTable
from controller.table.snapshot_build import build_snapshot
from drivers.bet_spots import SpotReport
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt
from drivers.state import PanelState, ShoeState, SpotsState

MS = load_table(config_dir() / "bench" / "mississippi_stud.yaml")


def filled(path: Path, n: int = 10, key: bytes | None = None) -> SqliteJournal:
    j = SqliteJournal(path, key)
    for i in range(n):
        j.append("SpotReport", {"device": "spots", "seat": i % 6 + 1, "spot": "ante", "cents": 500 + i}, event=True)
    return j


def test_records_are_chained_and_on_disk_when_append_returns(tmp_path: Path) -> None:
    j = filled(tmp_path / "j.db", 5)
    rows = j.db.execute("SELECT seq, at, kind, event, data, prev, hash FROM records ORDER BY seq").fetchall()
    prev = GENESIS
    for seq, at, kind, event, data, stored_prev, digest in rows:
        assert stored_prev == prev and digest == record_hash(prev, seq, at, kind, bool(event), data)
        prev = digest
    assert j.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert j.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    other = sqlite3.connect(str(tmp_path / "j.db"))  # another connection sees every record at once
    assert other.execute("SELECT count(*) FROM records").fetchone()[0] == 5
    assert verify_journal(j).ok


ROUND_1 = {
    "round": 1,
    "game": "mississippi_stud",
    "record": {"seats": {"1": {"wagers": {"ante": 500}}}},
    "settlement": {"seats": {"1": {"wagers": {"ante": {"net": -500}}}}},
    "late_bets": [],
    "faults": 0,
}


def test_a_batch_is_chained_indexed_and_committed_as_one_like_single_appends(tmp_path: Path) -> None:
    spot = {"device": "spots", "seat": 1, "spot": "ante", "cents": 500}
    one = SqliteJournal(tmp_path / "one.db", clock=lambda: 1000.0)
    one.append("SpotReport", spot, event=True)
    one.append_round(1, ROUND_1, meters_for_round(ROUND_1))
    one.append("ButtonChanged", {"button": "deal"}, event=True)
    many = SqliteJournal(tmp_path / "many.db", clock=lambda: 1000.0)
    version = many.db.execute("PRAGMA data_version").fetchone()[0]
    other = sqlite3.connect(str(tmp_path / "many.db"))
    before = other.execute("PRAGMA data_version").fetchone()[0]
    seqs = many.append_batch(
        [
            NewRecord("SpotReport", spot, event=True),
            NewRecord("RoundSettled", ROUND_1, round_no=1, meters=meters_for_round(ROUND_1)),
            NewRecord("ButtonChanged", {"button": "deal"}, event=True),
        ]
    )
    assert seqs == [1, 2, 3] and many.last_seq == 3 and version is not None
    assert other.execute("PRAGMA data_version").fetchone()[0] == before + 1  # one commit for the three
    query = "SELECT seq, at, kind, event, data, prev, hash FROM records ORDER BY seq"
    assert many.db.execute(query).fetchall() == one.db.execute(query).fetchall()  # the same chain, hash for hash
    assert many.round_seqs() == one.round_seqs() == [(1, 2)] and many.meters() == one.meters()
    assert many.append("SpotReport", spot, event=True) == 4 and verify_journal(many).ok
    assert many.append_batch([]) == []


def test_a_batch_across_a_meters_checkpoint_is_the_single_appends_record_for_record(tmp_path: Path) -> None:
    """The batch inserts its rows together: those before a round are in before the round's index
    and the checkpoint (which reads the rounds' records) are written, as single appends have them."""
    spot = {"device": "spots", "seat": 1, "spot": "ante", "cents": 500}
    batch: list[NewRecord] = []
    for n in range(1, checkpoint.EVERY + 2):
        batch.append(NewRecord("SpotReport", {**spot, "n": n}, event=True))
        batch.append(NewRecord("RoundSettled", {**ROUND_1, "round": n}, round_no=n, meters=meters_for_round(ROUND_1)))
    batch.append(NewRecord("ButtonChanged", {"button": "deal", "small": 1e-05, "none": None}, event=True))
    one = SqliteJournal(tmp_path / "one.db", clock=lambda: 1000.0)
    for r in batch:
        if r.round_no is None:
            one.append(r.kind, dict(r.data), r.event)
        else:
            one.append_round(r.round_no, dict(r.data), r.meters or {})
    many = SqliteJournal(tmp_path / "many.db", clock=lambda: 1000.0)
    many.append_batch(batch[:3])  # a batch may start after a round's record
    many.append_batch(batch[3:])
    query = "SELECT seq, at, kind, event, data, prev, hash FROM records ORDER BY seq"
    rows = many.db.execute(query).fetchall()
    assert rows == one.db.execute(query).fetchall() and len(rows) == len(batch) + 1  # and the checkpoint
    assert [r[2] for r in rows].count(checkpoint.KIND) == 1
    assert many.round_seqs() == one.round_seqs() and many.meters() == one.meters()
    assert verify_journal(many).ok


def test_a_batch_that_fails_keeps_none_of_its_records(tmp_path: Path) -> None:
    j = filled(tmp_path / "j.db", 2)
    with pytest.raises(TypeError):
        j.append_batch([NewRecord("X", {"n": 1}, event=True), NewRecord("X", {"n": object()}, event=True)])
    with pytest.raises(ValueError, match=r"batch record 0: kind 'X' names round 1; only RoundSettled may"):
        j.append_batch([NewRecord("X", {}, round_no=1)])
    assert j.last_seq == 2 and j.db.execute("SELECT count(*) FROM records").fetchone()[0] == 2
    assert j.append_batch([NewRecord("X", {"n": 1}, event=True)]) == [3] and verify_journal(j).ok


@pytest.mark.parametrize("how", ["append", "append_round", "append_batch"])
def test_a_writer_chains_after_a_record_another_process_appended(tmp_path: Path, how: str) -> None:
    """`journal prune --force-unacknowledged` journals its reason while the table runs: the table's
    writer goes on after that record instead of failing on every write (its next number taken)."""
    path = tmp_path / "j.db"
    writer = SqliteJournal(path)
    writer.append("SpotReport", {"seat": 1}, event=True)
    other = SqliteJournal(path)  # another process's connection
    forced = other.append("PruneForced", {"reason": "floor store rebuilt"})
    other.close()
    if how == "append":
        seq = writer.append("SpotReport", {"seat": 2}, event=True)
    elif how == "append_round":
        data = {"round": 1, "game": "mississippi_stud", "record": {"seats": {}}, "settlement": None, "faults": 0}
        seq = writer.append_round(1, data, meters_for_round(data))
    else:
        (seq,) = writer.append_batch([NewRecord("SpotReport", {"seat": 2}, event=True)])
    kinds = [r.kind for r in writer.records()]
    report = verify_journal(writer)
    writer.close()
    assert seq == forced + 1 and kinds[-2] == "PruneForced"
    assert report.ok, report.problems


def test_a_changed_byte_is_detected_and_located(tmp_path: Path) -> None:
    j = filled(tmp_path / "j.db")
    data = j.db.execute("SELECT data FROM records WHERE seq = 6").fetchone()[0]
    j.db.execute("UPDATE records SET data = ? WHERE seq = 6", (data.replace("505", "905"),))
    assert verify_journal(j).problems == ["record 6 (SpotReport): hash mismatch: the record was changed"]


def test_a_deleted_record_is_detected_and_located(tmp_path: Path) -> None:
    j = filled(tmp_path / "j.db")
    j.db.execute("DELETE FROM records WHERE seq = 4")
    assert verify_journal(j).problems == ["record 4: missing (the next record is 5): removed"]
    j2 = filled(tmp_path / "k.db")
    j2.db.execute("DELETE FROM records WHERE seq = 10")  # the last one
    assert verify_journal(j2).problems == ["record 10: missing (the journal was written up to record 10): removed"]


def test_a_swapped_pair_is_detected_at_the_first_of_the_two(tmp_path: Path) -> None:
    j = filled(tmp_path / "j.db")
    a = j.db.execute("SELECT at, kind, event, data, prev, hash FROM records WHERE seq = 3").fetchone()
    b = j.db.execute("SELECT at, kind, event, data, prev, hash FROM records WHERE seq = 4").fetchone()
    j.db.execute("UPDATE records SET at=?, kind=?, event=?, data=?, prev=?, hash=? WHERE seq = 3", b)
    j.db.execute("UPDATE records SET at=?, kind=?, event=?, data=?, prev=?, hash=? WHERE seq = 4", a)
    assert verify_journal(j).problems == [
        "record 3 (SpotReport): does not follow record 2: removed, inserted or reordered"
    ]


def test_with_an_hmac_key_a_rewritten_chain_is_detected(tmp_path: Path) -> None:
    key = b"table 7 secret"
    j = filled(tmp_path / "j.db", 4, key)
    assert verify_journal(j).ok
    # Someone without the key changes record 2 and recomputes plain SHA-256 hashes from there on.
    rows = j.db.execute("SELECT seq, at, kind, event, data FROM records WHERE seq >= 2 ORDER BY seq").fetchall()
    prev = j.db.execute("SELECT hash FROM records WHERE seq = 1").fetchone()[0]
    for seq, at, kind, event, data in rows:
        data = data.replace("501", "999") if seq == 2 else data
        digest = record_hash(prev, seq, at, kind, bool(event), data)
        j.db.execute("UPDATE records SET data=?, prev=?, hash=? WHERE seq=?", (data, prev, digest, seq))
        prev = digest
    j.db.execute("UPDATE meta SET value=? WHERE key='head_hash'", (prev,))
    assert verify_journal(j).problems[0].startswith("record 2 (SpotReport): hash mismatch")
    assert not verify_journal(SqliteJournal(tmp_path / "j.db")).ok  # nor does it pass as a plain SHA-256 chain


def test_a_newer_schema_is_refused_and_an_older_one_migrated(tmp_path: Path) -> None:
    j = filled(tmp_path / "new.db", 2)
    j.db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    j.close()
    with pytest.raises(
        JournalError,
        match=rf"new.db: journal schema version {SCHEMA_VERSION + 1} is newer than this tablectl reads \({SCHEMA_VERSION}\)",
    ):
        SqliteJournal(tmp_path / "new.db")
    # A version-1 journal (records only) with one finished round: migrated, rounds and meters rebuilt.
    old = filled(tmp_path / "old.db", 2)
    old.append("RoundSettled", ROUND_1)
    for table in ("snapshots", "rounds", "meters", "blocks", "block_kinds"):
        old.db.execute(f"DROP TABLE {table}")
    old.db.execute("DROP TRIGGER head")
    old.db.execute("DELETE FROM meta WHERE key LIKE 'head_%'")
    old.db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    old.close()
    migrated = SqliteJournal(tmp_path / "old.db")
    assert migrated.meta("schema_version") == str(SCHEMA_VERSION)
    assert migrated.round_seqs() == [(1, 3)] and migrated.meters()[("table", "collected")] == 500
    assert verify_journal(migrated).ok


def test_each_record_changes_the_heads_values_in_place(tmp_path: Path) -> None:
    """Schema 5: a record's commit changes the head's two values in ``meta``, not its rows (a row
    deleted and inserted again under a new rowid, as schema 4's trigger did, wrote ``meta``'s key
    index too at every commit); the head is the last record's, and names it once removed."""
    j = filled(tmp_path / "j.db", 2)
    place = j.db.execute("SELECT key, rowid FROM meta WHERE key LIKE 'head_%' ORDER BY key").fetchall()
    last = j.append("Note", {"text": "one more"})
    assert j.db.execute("SELECT key, rowid FROM meta WHERE key LIKE 'head_%' ORDER BY key").fetchall() == place
    digest = j.db.execute("SELECT hash FROM records WHERE seq = ?", (last,)).fetchone()[0]
    assert (j.meta("head_seq"), j.meta("head_hash")) == (str(last), digest)
    j.db.execute("DELETE FROM records WHERE seq = ?", (last,))
    assert verify_journal(j).problems == [
        f"record {last}: missing (the journal was written up to record {last}): removed"
    ]


def test_disk_full_raises_a_clear_error_and_keeps_what_was_written(tmp_path: Path) -> None:
    j = filled(tmp_path / "j.db", 3)
    pages = j.db.execute("PRAGMA page_count").fetchone()[0]
    j.db.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full: no page more
    with pytest.raises(JournalFull, match=r"j.db: disk full: \d+ bytes free on /") as raised:
        for i in range(1000):
            j.append(
                "SpotReport", {"device": "spots", "seat": 1, "spot": "ante", "cents": i, "pad": "x" * 500}, event=True
            )
    assert re.fullmatch(r"disk full: \d+ bytes free on /\S*", raised.value.reason)
    written = j.last_seq
    assert verify_journal(j).ok and written >= 3
    j.db.execute("PRAGMA max_page_count = 1000000")  # space freed
    assert j.append("SpotReport", {"device": "spots", "seat": 1, "spot": "ante", "cents": 1}, event=True) == written + 1
    assert verify_journal(j).ok


def test_an_unwritable_journal_path_is_refused_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a directory")
    with pytest.raises(JournalError, match=r"a-file/j.db: cannot open the journal: "):
        SqliteJournal(tmp_path / "a-file" / "j.db")


def test_a_torn_last_wal_frame_loses_only_the_unfinished_record(tmp_path: Path) -> None:
    j = filled(tmp_path / "j.db", 8)  # kept open: nothing is checkpointed into the main file
    crash = tmp_path / "crash"
    crash.mkdir()
    for suffix in ("", "-wal"):  # the files as a power cut leaves them: nothing checkpointed
        shutil.copy(tmp_path / f"j.db{suffix}", crash / f"j.db{suffix}")
    wal = crash / "j.db-wal"
    size = wal.stat().st_size
    with open(wal, "r+b") as f:
        f.truncate(size - 100)  # the last frame half written
    recovered = SqliteJournal(crash / "j.db")
    assert recovered.last_seq == 7  # the torn transaction never committed
    assert verify_journal(recovered).ok  # the head written with record 8 went with it
    assert recovered.append("X", {}, event=True) == 8
    recovered.close()
    j.close()


def test_a_failed_commit_raises_its_own_error_not_the_rollbacks() -> None:
    """SQLite rolls a transaction back by itself when COMMIT finds the disk full; the ROLLBACK
    after it would fail with "cannot rollback - no transaction is active" and hide the reason."""

    class FullAtCommit:
        in_transaction = False

        def execute(self, sql: str) -> None:
            if sql == "BEGIN IMMEDIATE":
                self.in_transaction = True
            elif sql == "COMMIT":
                self.in_transaction = False  # rolled back by SQLite itself
                raise sqlite3.OperationalError("database or disk is full")
            elif sql == "ROLLBACK" and not self.in_transaction:
                raise sqlite3.OperationalError("cannot rollback - no transaction is active")

    with pytest.raises(sqlite3.OperationalError, match="database or disk is full"):
        with _Transaction(FullAtCommit()):  # type: ignore[arg-type]
            pass


def test_the_table_holds_when_the_journal_cannot_be_written_and_takes_every_event_once_it_can(
    tmp_path: Path,
) -> None:
    j = SqliteJournal(tmp_path / "j.db")
    table = MississippiTable(MS, RecordingDevices())
    timers: list[Callable[[], None]] = []
    engine = Engine(
        table.handle,
        j,
        on_journal_error=table.journal_failed,
        start_timer=lambda delay, call: timers.append(call) or (lambda: None),
    )
    engine.step(ButtonChanged(device="panel", button="supervisor_key", pressed=False))
    table.handle(OpenTable())
    engine.step(SpotReport(device="spots", seat=1, spot="ante", cents=500))
    pages = j.db.execute("PRAGMA page_count").fetchone()[0]
    j.db.execute(f"PRAGMA max_page_count = {pages}")
    placed = {1: 500}
    for seat in range(2, 60):  # until the file is full
        report = SpotReport(device="spots", seat=seat % 6 + 1, spot="ante", cents=1000 + seat)
        placed[report.seat] = report.cents
        engine.step(report)
        if engine.failing:
            break
    snap = build_snapshot(table)
    assert engine.failing and snap.step == "hold" and snap.hold is not None
    assert re.fullmatch(r"journal: disk full: \d+ bytes free on /\S*", snap.hold.reason)
    assert snap.recent[-1] == f"HOLD: {snap.hold.reason}"
    assert not any("rollback" in text or "database or disk" in text for text in snap.recent)
    recorded = {r.data["seat"]: r.data["cents"] for r in j.records() if r.kind == "SpotReport"}
    wagers = build_snapshot(table).wagers()
    assert {n: w["ante"] for n, w in wagers.items()} == recorded  # the refused report was not acted on
    engine.step(SpotReport(device="spots", seat=2, spot="ante", cents=2500))  # placed while it is full
    placed[2] = 2500
    assert build_snapshot(table).step == "hold" and timers  # tried again later
    j.db.execute("PRAGMA max_page_count = 1000000")
    assert engine.retry() and not engine.failing
    kinds = [r.kind for r in j.records()]
    assert kinds[-3:] == ["JournalFault", "SpotReport", "SpotReport"]
    fault = [r for r in j.records() if r.kind == "JournalFault"][0]
    assert fault.data["refused"] == 0 and fault.data["retaken"] == 2 and fault.event
    snap = build_snapshot(table)
    # an outage of every device at once (issue 32): the hold ends by itself once each is read again
    assert snap.hold is not None and snap.hold.reason == "journal written again: each device's state is read again"
    table.handle(PanelState(device="panel", key_on=False, held=()))
    table.handle(ShoeState(device="shoe", status="ok", cards_out=0))
    table.handle(SpotsState(device="bet_spots", spots=tuple((s, "ante", c) for s, c in sorted(placed.items()))))
    snap = build_snapshot(table)
    assert snap.step == "betting" and snap.hold is None  # the hold for the journal ended by itself
    assert {n: w["ante"] for n, w in snap.wagers().items()} == placed  # every bet placed counts, once
    assert verify_journal(j).ok
    j.close()


def _other_process_reads(path: Path) -> int:
    """Open, read and close the journal from another process, as `tablectl status` or a test does;
    returns the records it sees."""
    code = (
        "import sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1])\n"
        "print(c.execute('SELECT count(*) FROM records').fetchone()[0])\n"
        "c.close()\n"
    )
    return int(
        subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True).stdout
    )


@pytest.mark.parametrize("reader", ["open_readonly", "outbox", "second writer"])
def test_opening_a_reader_beside_the_writer_keeps_the_writers_locks(tmp_path: Path, reader: str) -> None:
    """A reader the table's own process opens (the floor forwarder's check, the web view's) must not
    drop the writer's POSIX locks: a file opened and closed outside SQLite does, and another
    process closing its connection then checkpoints and deletes the WAL the writer still writes
    to; what the writer commits afterwards is lost (tests/test_floor.py's kill mid-publish lost
    records the floor had already stored)."""
    path = tmp_path / "j.db"
    j = filled(path, 3)
    if reader == "open_readonly":
        SqliteJournal.open_readonly(path).close()
    elif reader == "outbox":
        Outbox(path).close()
    else:
        SqliteJournal(path).close()
    assert _other_process_reads(path) == 3
    assert path.with_name("j.db-wal").exists(), "another process took the journal as closed and removed its WAL"
    j.append("SpotReport", {"device": "spots", "seat": 1, "spot": "ante", "cents": 500}, event=True)
    assert _other_process_reads(path) == 4, "a record committed after the reader was opened is not in the file"
    j.close()


@dataclasses.dataclass(frozen=True)
class _Cached:
    """An event keeping something beyond its fields (as a cached property would)."""

    card: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "_upper", self.card.upper())


@pytest.mark.parametrize(
    "event",
    [
        SpotReport(device="bet_spots", seat=3, spot="ante", cents=500),
        ButtonChanged(device="panel", button="confirm", pressed=True),
        CardDealt(device="shoe", card="Ah", index=4, quality=100),
        OpenTable(),
        _Cached("ah"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_an_event_is_journaled_as_its_fields_in_their_order(event):
    kind, data = event_record(event)
    assert kind == type(event).__name__
    assert list(data.items()) == [(f.name, getattr(event, f.name)) for f in dataclasses.fields(event)]
