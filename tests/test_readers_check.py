"""`tablectl status` and the floor forwarder check what can be checked cheaply
(controller.journal.verify_reader: meta, the head, the last snapshot and the records after it):
status warns (exit 1, the status still shown), the forwarder refuses to publish; a keyed journal
read without its key gets its links and head checked, and says what it could not check."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import pytest
from cli_helpers import cli

from controller.configuration import FloorConfig
from controller.floor.forwarder import Forwarder, _Run
from controller.floor.publish import Ack
from controller.journal import JournalError, NewRecord, SqliteJournal, verify, verify_reader
from controller.journal.meters import meters_for_round
from controller.journal.outbox import Outbox
from controller.journal.retention import prune_rounds
from controller.journal.store import record_hash

KEY = b"k" * 32


def write(path: Path, rounds: int = 4, key: bytes | None = None) -> None:
    j = SqliteJournal(path, key)
    try:
        for n in range(1, rounds + 1):
            j.snapshot(j.last_seq, n, {"round_no": n})
            j.append("LinkUp", {"device": "shoe", "boot_id": 7, "rebooted": False}, event=True)
            j.append("CardDealt", {"card": "As"}, event=True)
            data = {
                "round": n,
                "game": "mississippi_stud",
                "record": {"seats": {"1": {"wagers": {"ante": 500}}}},
                "settlement": {"seats": {"1": {"wagers": {"ante": {"net": 500}}}}},
            }
            j.append_round(n, data, meters_for_round(data))
        j.append("CardDealt", {"card": "Kd"}, event=True)  # the open round
    finally:
        j.close()


def sql(path: Path, statement: str, *args: object) -> None:
    db = sqlite3.connect(path)
    db.execute(statement, args)
    db.commit()
    db.close()


@pytest.fixture(params=[None, KEY], ids=["plain", "keyed"])
def journal(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    path = tmp_path / "mississippi_stud.db"
    write(path, key=request.param)
    return path


def test_status_says_the_journal_is_verified(journal: Path) -> None:
    code, out, err = cli("status", "--journal", str(journal))
    assert code == 0, err
    keyed = SqliteJournal.open_readonly(journal)
    try:
        notes = verify_reader(keyed).notes
    finally:
        keyed.close()
    if notes:  # the keyed journal, read without its key: said, not a problem
        assert "journal: links and head verified; meta_hash is not a plain SHA-256" in out
    else:
        assert "journal: verified (meta, head, the last snapshot and the records after it" in out
    status = json.loads(cli("status", "--journal", str(journal), "--json")[1])
    assert status["check"]["ok"] is True and status["check"]["problems"] == []


def test_status_warns_of_a_cut_tail_keyed_or_not(journal: Path) -> None:
    sql(journal, "DELETE FROM records WHERE seq = (SELECT MAX(seq) FROM records)")
    code, out, err = cli("status", "--journal", str(journal))
    assert code == 1
    assert "journal: WARNING: does not verify" in out and "missing (the journal was written up to record" in out
    assert "WARNING" in err and "Traceback" not in err
    assert "link up since" in out  # the status is still shown


def test_status_warns_of_a_relinked_record_keyed_or_not(journal: Path) -> None:
    last = sqlite3.connect(journal).execute("SELECT MAX(seq) FROM records").fetchone()[0]
    sql(journal, "UPDATE records SET prev = ? WHERE seq = ?", "0" * 64, last)
    code, out, _ = cli("status", "--journal", str(journal))
    assert code == 1 and f"record {last}" in out and "does not follow" in out


def test_status_warns_of_a_changed_record_after_the_last_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    write(path)
    last = sqlite3.connect(path).execute("SELECT MAX(seq) FROM records").fetchone()[0]
    sql(path, "UPDATE records SET data = ? WHERE seq = ?", '{"card":"Ah"}', last)
    code, out, _ = cli("status", "--journal", str(path))
    assert code == 1 and f"record {last}" in out and "hash mismatch" in out


def test_a_keyed_journal_is_checked_in_full_with_its_key(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    write(path, key=KEY)
    last = sqlite3.connect(path).execute("SELECT MAX(seq) FROM records").fetchone()[0]
    sql(path, "UPDATE records SET data = ? WHERE seq = ?", '{"card":"Ah"}', last)
    without = SqliteJournal.open_readonly(path)
    with_key = SqliteJournal.open_readonly(path, KEY)
    try:
        plain = verify_reader(without)
        assert plain.ok and plain.notes  # the hashes cannot be checked without the key: said
        keyed = verify_reader(with_key)
        assert not keyed.ok and "hash mismatch" in keyed.problems[0] and not keyed.notes
    finally:
        without.close()
        with_key.close()


def forwarder(path: Path, key: bytes | None = None) -> Forwarder:
    return Forwarder(path, FloorConfig("t1", ("nats://127.0.0.1:1",)), journal_key=key)


def test_the_forwarder_checks_the_backlog_before_publishing(journal: Path) -> None:
    outbox = Outbox(journal)
    try:
        f = forwarder(journal)
        assert f._check_journal(outbox, 0) is None  # nothing acknowledged yet: nothing to follow
        assert f._check_journal(outbox, 3) is not None  # the next record must follow record 3's hash
        sql(journal, "UPDATE records SET prev = ? WHERE seq = 5", "0" * 64)
        with pytest.raises(JournalError, match="does not verify, not published: record 5"):
            f._check_journal(outbox, 2)
    finally:
        outbox.close()


def test_the_forwarder_refuses_a_cut_tail(journal: Path) -> None:
    sql(journal, "DELETE FROM records WHERE seq = (SELECT MAX(seq) FROM records)")
    outbox = Outbox(journal)
    try:
        with pytest.raises(JournalError, match="missing"):
            forwarder(journal)._check_journal(outbox, 0)
    finally:
        outbox.close()


def no_snapshots(path: Path, records: int, key: bytes | None = None) -> None:
    """A journal that keeps no snapshot (benchmarks/bench_floor.py's tables): a reader's chain runs
    from the first record."""
    j = SqliteJournal(path, key)
    try:
        j.append_batch([NewRecord("CardDealt", {"card": "As", "n": n}, event=True) for n in range(records)])
    finally:
        j.close()


@contextmanager
def first_run(path: Path, records: int, key: bytes | None = None) -> Iterator[tuple[Forwarder, Outbox]]:
    """``records`` more records (no snapshot) at ``path``, then a forwarder given ``key`` and its
    outbox after its first run start verified the journal (the outbox closed after)."""
    no_snapshots(path, records, key)
    outbox = Outbox(path, key=key)
    try:
        f = forwarder(path, key)
        f._check_journal(outbox, 0)
        yield f, outbox
    finally:
        outbox.close()


@pytest.fixture
def segments(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The (start, end) of every stretch of chain the readers walk, in order."""
    walked: list[tuple[int, int]] = []
    real = verify._segment

    def spy(journal: SqliteJournal, start: int, end: int, *args: Any, **kwargs: Any) -> None:
        walked.append((start, end))
        real(journal, start, end, *args, **kwargs)

    monkeypatch.setattr(verify, "_segment", spy)
    return walked


def test_a_forwarder_run_start_verifies_only_what_follows_what_it_verified(
    tmp_path: Path, segments: list[tuple[int, int]]
) -> None:
    """A run start after a reconnection or a late acknowledgement walks the chain from the earlier
    of the last record an earlier run verified and the acknowledged position (what it sends again),
    not from the first record: the bench's tables, which keep no snapshot, walked their whole journal
    at each run start."""
    path = tmp_path / "j.db"
    with first_run(path, 60) as (f, outbox):
        assert segments == [(0, 60)]
        no_snapshots(path, 10)  # 61..70, written while the run was on
        segments.clear()
        f._check_journal(outbox, 55)  # acknowledged up to 55: 56..70 sent again, walked from 55
        assert segments == [(55, 70)]
        segments.clear()
        f._check_journal(outbox, 70)  # nothing new, nothing to send again: nothing walked
        assert segments == []
        assert f.status().runs == 3


def test_a_run_start_still_sees_a_change_made_since_the_last_one(tmp_path: Path) -> None:
    """What a run start no longer walks is pinned by the hash of the last record verified: a record
    before it changed with the chain computed again is refused; one in what is sent again is walked."""
    path = tmp_path / "j.db"
    with first_run(path, 60) as (f, outbox):
        sql(path, "UPDATE records SET data = ? WHERE seq = 58", '{"card":"Kd","n":57}')
        with pytest.raises(JournalError, match="does not verify, not published: record 58"):
            f._check_journal(outbox, 50)
        rechain(path, 10, '{"card":"Kd","n":9}')
        with pytest.raises(JournalError, match="record 60: not the record verified before"):
            f._check_journal(outbox, 50)


def rechain(path: Path, seq: int, data: str, signed: bool = False) -> None:
    """Record ``seq``'s data replaced, and every hash from it on computed again (head included);
    ``signed``: the last record's hash made up, as one without the key would to pass for a keyed
    journal (a plain hash there tells a reader without the key that the journal is not signed)."""
    db = sqlite3.connect(path)
    rows = db.execute("SELECT seq, at, kind, event, data, prev FROM records WHERE seq >= ? ORDER BY seq", (seq,))
    prev = None
    for n, at, kind, event, text, old_prev in rows.fetchall():
        text = data if n == seq else text
        prev = old_prev if prev is None else prev
        digest = record_hash(prev, n, at, kind, bool(event), text)
        db.execute("UPDATE records SET data = ?, prev = ?, hash = ? WHERE seq = ?", (text, prev, digest, n))
        prev = digest
    if signed:
        prev = record_hash("made up", 0, 0.0, "", False, "")
        db.execute("UPDATE records SET hash = ? WHERE seq = (SELECT MAX(seq) FROM records)", (prev,))
    db.execute("UPDATE meta SET value = ? WHERE key = 'head_hash'", (prev,))
    db.commit()
    db.close()


class _Taken:
    """A publisher whose broker takes every message at once (what ``_send`` publishes on)."""

    async def publish(self, subject: str, payload: bytes, headers: dict[str, str]) -> asyncio.Future[Any]:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        future.set_result(Ack("floor", 1, False))
        return future


def _sent_after(f: Forwarder, outbox: Outbox, after: int) -> None:
    """``f`` sends the journal's records after ``after`` (to a stand-in that takes them all)."""

    async def send() -> None:
        run = _Run(cast(Any, _Taken()), after, 0, outbox.hash_of(after) if after else None, outbox)
        await f._send(outbox.after(after, 1000), run, outbox)

    asyncio.run(send())


def sent_then_ten_more(f: Forwarder, outbox: Outbox, segments: list[tuple[int, int]], key: bytes | None = None) -> None:
    """After ``f``'s first run start on an empty journal: 60 records written and sent, so the next
    run start, acknowledged up to 60, walks nothing; then records 61-70 written (not sent)."""
    no_snapshots(outbox.path, 60, key)
    _sent_after(f, outbox, 0)
    segments.clear()
    f._check_journal(outbox, 60)
    assert segments == []
    no_snapshots(outbox.path, 10, key)


def refused_at_65(f: Forwarder, outbox: Outbox, segments: list[tuple[int, int]]) -> None:
    """Records 61-70 sent with record 65 changed: the next run start walks from 64 and refuses it."""
    _sent_after(f, outbox, 60)
    with pytest.raises(JournalError, match="does not verify, not published: record 65"):
        f._check_journal(outbox, 70)
    assert segments[-1] == (64, 70)


def test_what_a_run_sends_is_not_verified_again_at_the_next_run_start(
    tmp_path: Path, segments: list[tuple[int, int]]
) -> None:
    """Each record sent that follows the verified chain, its hash computed again as its message is
    made, carries the verified position on: the next run start walks only what came after what was
    sent (a table's first run starts on an empty journal), and a record whose content no longer
    gives its hash stops it there, so the next run start walks it and refuses it."""
    path = tmp_path / "j.db"
    with first_run(path, 0) as (f, outbox):
        sent_then_ten_more(f, outbox, segments)
        sql(path, "UPDATE records SET data = ? WHERE seq = 65", '{"card":"Kd","n":4}')
        refused_at_65(f, outbox, segments)


def test_a_forwarder_with_the_key_carries_its_verified_position_over_a_keyed_journal(
    tmp_path: Path, segments: list[tuple[int, int]]
) -> None:
    """Given the journal's key, the run start checks the chain's HMACs, and each record sent whose
    HMAC is computed again carries the verified position on as a plain journal's does: the next
    run start walks only what came after what was sent, and a record changed without the key is
    walked and refused there (a forwarder not given the key would only check its links)."""
    path = tmp_path / "j.db"
    with first_run(path, 0, KEY) as (f, outbox):
        sent_then_ten_more(f, outbox, segments, KEY)
        rechain(path, 65, '{"card":"Kd","n":4}', signed=True)
        forwarder(path)._check_journal(outbox, 60)  # without the key: the links hold
        refused_at_65(f, outbox, segments)


def test_a_run_start_before_any_acknowledgement_takes_an_intact_journal(tmp_path: Path) -> None:
    """A run that ended before any acknowledgement sends everything again from record 1: the pin
    narrows nothing, so the chain is walked from the anchor, not bound from the pin (which refused
    the intact journal at record 0, at that run start and every later one)."""
    path = tmp_path / "j.db"
    with first_run(path, 20) as (f, outbox):  # the first run: verified 1..20, then the link dropped before any ack
        no_snapshots(path, 5)
        f._check_journal(outbox, 0)  # the next run sends 1..25 again


@pytest.mark.parametrize("key", [None, KEY], ids=["plain", "keyed"])
def test_a_run_start_acknowledged_up_to_a_new_anchor_takes_the_pruned_journal(
    tmp_path: Path, key: bytes | None
) -> None:
    """``journal prune`` removed the rounds up to the acknowledged position, which is now the
    anchor, while the pin is past it: what is sent again starts after the anchor, so the pin
    narrows nothing and the chain is walked from the anchor (the pruned anchor record is not
    looked for)."""
    path = tmp_path / "j.db"
    write(path, key=key)
    outbox = Outbox(path, key=key)
    try:
        f = forwarder(path, key)
        f._check_journal(outbox, 0)  # verified up to the head
        journal = SqliteJournal(path, key)
        try:
            run = [
                (int(r), int(s)) for r, s in journal.db.execute("SELECT round_no, seq FROM rounds WHERE round_no <= 2")
            ]
            assert prune_rounds(journal, run) == 2
            anchor = int(journal.meta("anchor_seq") or 0)
            assert 0 < anchor < journal.last_seq
        finally:
            journal.close()
        f._check_journal(outbox, anchor)  # acknowledged up to the anchor: what follows it is sent again
        f._check_journal(outbox, anchor)  # and at the next run start too
    finally:
        outbox.close()


def test_a_run_start_refuses_a_journal_gone_back_behind_its_pin(tmp_path: Path) -> None:
    """A journal restored from an older copy ends before the record the forwarder verified (and
    maybe sent): the run start refuses it, naming both, and nothing is published."""
    path, backup = tmp_path / "j.db", tmp_path / "backup.db"
    no_snapshots(path, 20)
    shutil.copy(path, backup)
    with first_run(path, 10) as (f, _):
        pass  # verified up to record 30
    shutil.copy(backup, path)
    no_snapshots(path, 5)  # records 21-25, not the ones verified there
    outbox = Outbox(path)
    try:
        with pytest.raises(JournalError, match="record 30: verified before, but the journal now ends at record 25"):
            f._check_journal(outbox, 12)
    finally:
        outbox.close()
