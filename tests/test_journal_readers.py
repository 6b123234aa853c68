"""The journal's readers and its protection: read-only opening, permissions whatever the umask,
the HMAC key file, the signed pruning anchor, recall showing exactly each round (its own events,
under their true kinds) and recalled records that re-settle from any folder."""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import bench_journal as played
from cli_helpers import cli, real_table_config
from journal_helpers import filled

from controller.journal import JournalError, SqliteJournal, read_hmac_key, verify_journal
from controller.journal.meters import meters_for_round
from controller.journal.recall import recall, recall_lines
from controller.journal.retention import prune
from controller.journal.store import meta_hash


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("mask", [0o000, 0o022, 0o077])
def test_journal_folders_are_0700_and_files_0600_whatever_the_umask(tmp_path: Path, mask: int) -> None:
    path = tmp_path / "tablectl-journal" / "deep" / "t.db"
    with umask(mask):
        j = SqliteJournal(path)
        j.append("SpotReport", {"seat": 1}, event=True)
    assert mode(path.parent) == 0o700 and mode(path.parent.parent) == 0o700
    for p in path.parent.iterdir():
        assert mode(p) == 0o600, p.name
    j.close()


def test_an_existing_journal_file_is_made_0600(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    SqliteJournal(path).close()
    path.chmod(0o644)
    SqliteJournal(path).close()
    assert mode(path) == 0o600


def test_the_hmac_key_file_must_be_the_owners_alone(tmp_path: Path) -> None:
    key = tmp_path / "k.key"
    key.write_text("secret\n")
    key.chmod(0o644)
    with pytest.raises(JournalError, match=r"k.key: the HMAC key file is readable by others \(mode 0644\)"):
        read_hmac_key(key)
    key.chmod(0o640)
    with pytest.raises(JournalError, match="readable by others"):
        read_hmac_key(key)
    key.chmod(0o600)
    assert read_hmac_key(key) == b"secret"
    key.write_text("  \n")
    with pytest.raises(JournalError, match="empty"):
        read_hmac_key(key)
    with pytest.raises(JournalError, match="cannot read"):
        read_hmac_key(tmp_path / "none.key")


@pytest.mark.parametrize("key", [None, b"k" * 32])
def test_the_pruning_anchor_is_signed(tmp_path: Path, key: bytes | None) -> None:
    j = filled(tmp_path / "j.db", key, 14)
    assert prune(j, retention_days=1, now=10**9) == 4
    assert verify_journal(j).ok
    # Prune one more round by hand (hiding it), as an editor of the file would: the records, the
    # index entry, the anchor and the pruned meters all made to agree.
    (round_no, seq), *_ = j.round_seqs()
    settled = j.record(seq)
    assert settled is not None
    baseline = {(s, n): v for s, n, v in json.loads(j.meta("pruned_meters") or "[]")}
    for k, v in meters_for_round(settled.data).items():
        baseline[k] = baseline.get(k, 0) + v
    anchor = j.db.execute("SELECT hash FROM records WHERE seq = ?", (seq,)).fetchone()[0]
    j.db.execute("DELETE FROM records WHERE seq <= ?", (seq,))
    j.db.execute("DELETE FROM rounds WHERE round_no = ?", (round_no,))
    pruned = json.dumps([[s, n, v] for (s, n), v in sorted(baseline.items())])
    j.db.execute(
        "INSERT OR REPLACE INTO meta VALUES ('anchor_seq', ?), ('anchor_hash', ?), ('pruned_meters', ?)",
        (str(seq), anchor, pruned),
    )
    report = verify_journal(j)
    assert not report.ok and "meta_hash" in report.problems[0]
    # Recomputing meta_hash needs the key: without one (the documented limit) it passes again.
    j.db.execute("UPDATE meta SET value = ? WHERE key = 'meta_hash'", (meta_hash(j.meta_rows()),))
    assert verify_journal(j).ok is (key is None)
    j.close()


def test_readers_open_read_only_and_leave_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    filled(path, None, 3).close()
    before = path.read_bytes()
    for args in (["recall"], ["recall", "--json"], ["meters"], ["journal", "verify"]):
        code, _, err = cli(*args, "--journal", str(path))
        assert code == 0, err
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["j.db"]
    reader = SqliteJournal.open_readonly(path)
    with pytest.raises(Exception, match="readonly|read-only|attempt to write"):
        reader.db.execute("INSERT INTO meta VALUES ('x', 'y')")
    reader.close()


def test_recall_lists_each_rounds_own_events_under_their_true_kinds(tmp_path: Path) -> None:
    j = SqliteJournal(tmp_path / "j.db")
    j.append("SpotReport", {"device": "spots", "seat": 1, "spot": "ante", "cents": 500, "at": 1.0}, event=True)
    # Round 3 is voided by a button press, and round 4 starts on the same event: round 4's first
    # record is the one after that press, so round 3's void and its record follow it.
    press = j.append("ButtonChanged", {"device": "panel", "button": "void", "pressed": True, "at": 2.0}, event=True)
    j.append("SupervisorAction", {"round": 3, "action": "void", "reason": "round 3 voided"})
    base = {"game": "mississippi_stud", "settlement": None, "late_bets": [], "faults": 0}
    j.append_round(3, {**base, "round": 3, "record": {"seats": {}}, "first_seq": 1}, {})
    j.append("LinkUp", {"device": "shoe", "at": 3.0}, event=True)
    j.append("LinkDown", {"device": "panel", "error": "timeout", "at": 4.0}, event=True)
    j.append_round(4, {**base, "round": 4, "record": {"seats": {}}, "first_seq": press + 1}, {})
    (r4,) = recall(j, round_no=4)
    assert [e.kind for e in r4.events] == ["LinkUp", "LinkDown"]
    text = "\n".join(recall_lines(r4))
    assert "SUPERVISOR" not in text and "FAULT LinkUp" not in text
    assert "LinkUp shoe" in text and "FAULT LinkDown panel" in text
    (r3,) = recall(j, round_no=3)
    assert "SupervisorAction" in [e.kind for e in r3.events]
    j.close()


@pytest.fixture(scope="module")
def bench_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return played(tmp_path_factory.mktemp("bench"), "mississippi_stud", 2, 2, 4)


def test_recalled_records_resettle_from_any_folder(
    bench_journal: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("recall", "--journal", str(bench_journal), "--json", "--last", "1")
    assert code == 0, err
    record = json.loads(out)
    assert Path(record["table"]).is_absolute() and len(record["table_sha256"]) == 64
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "r.json").write_text(out)
    monkeypatch.chdir(elsewhere)
    code, _, err = cli("settle", "r.json")
    assert code == 0, err
    (elsewhere / "r.json").write_text(json.dumps({**record, "table_sha256": "1" * 64}))
    code, _, err = cli("settle", "r.json")
    assert code == 2 and "$.table_sha256" in err and "changed since the round" in err


def test_a_tampered_wager_is_marked_and_the_exit_status_is_1(bench_journal: Path, tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    path.write_bytes(bench_journal.read_bytes())
    j = SqliteJournal(path)
    seq = j.round_seqs()[-1][1]
    data = j.db.execute("SELECT data FROM records WHERE seq = ?", (seq,)).fetchone()[0]
    j.db.execute("UPDATE records SET data = ? WHERE seq = ?", (data.replace('"ante":', '"ante":1', 1), seq))
    j.close()
    code, out, err = cli("recall", "--journal", str(path))
    assert code == 1 and f"record {seq} (RoundSettled): hash mismatch" in err
    assert "ROUND 2: NOT VERIFIED" in out and "ROUND 1: NOT VERIFIED" not in out
    code, out, err = cli("recall", "--journal", str(path), "--json")
    assert code == 1 and [json.loads(line)["recall"]["round"] for line in out.splitlines()] == [1]
    assert cli("recall", "--journal", str(path), "--no-verify")[0] == 0
    assert cli("meters", "--journal", str(path))[0] == 1


@pytest.fixture(scope="module")
def longer_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return played(tmp_path_factory.mktemp("bench"), "mississippi_stud", 4, 2, 5, fold_rounds=False)  # rows: changed


def _copy(src: Path, tmp_path: Path) -> Path:
    path = tmp_path / "j.db"
    path.write_bytes(src.read_bytes())
    return path


def _recompute_chain_from(j: SqliteJournal, first: int) -> None:
    """What someone without a key can do: compute every hash again from record ``first`` on (and
    the head), so that the chain itself is whole again."""
    from controller.journal.store import record_hash

    prev = j.db.execute("SELECT hash FROM records WHERE seq = ?", (first - 1,)).fetchone()[0]
    rows = j.db.execute("SELECT seq, at, kind, event, data FROM records WHERE seq >= ? ORDER BY seq", (first,))
    for seq, at, kind, event, data in rows.fetchall():
        digest = record_hash(prev, seq, at, kind, bool(event), data, None)
        j.db.execute("UPDATE records SET prev = ?, hash = ? WHERE seq = ?", (prev, digest, seq))
        prev = digest
    j.db.execute("UPDATE meta SET value = ? WHERE key = 'head_hash'", (prev,))


TAMPERINGS = ("last-round-deleted", "wager-changed-chain-recomputed", "record-changed", "index-moved")


def _tamper(kind: str, path: Path) -> None:
    j = SqliteJournal(path)
    rounds = j.round_seqs()
    if kind == "last-round-deleted":
        # Every record of the last round, from its snapshot on, and its index entry; meta's head stays.
        start = j.db.execute("SELECT MAX(seq) FROM snapshots WHERE seq < ?", (rounds[-1][1],)).fetchone()[0]
        j.db.execute("DELETE FROM records WHERE seq > ?", (start,))
        j.db.execute("DELETE FROM rounds WHERE round_no = ?", (rounds[-1][0],))
        j.db.execute("INSERT OR REPLACE INTO meta VALUES ('head_seq', ?)", (rounds[-1][1] + 50,))
    elif kind == "wager-changed-chain-recomputed":
        seq = rounds[0][1]  # the first round: long before the last snapshot
        data = j.db.execute("SELECT data FROM records WHERE seq = ?", (seq,)).fetchone()[0]
        j.db.execute("UPDATE records SET data = ? WHERE seq = ?", (data.replace('"ante":', '"ante":1', 1), seq))
        _recompute_chain_from(j, seq)
    elif kind == "record-changed":
        seq = rounds[-1][1] - 3
        j.db.execute("UPDATE records SET data = '{}' WHERE seq = ?", (seq,))
    elif kind == "index-moved":
        j.db.execute("UPDATE rounds SET seq = ? WHERE round_no = ?", (rounds[0][1], rounds[-1][0]))
    j.close()


@pytest.mark.parametrize("kind", TAMPERINGS)
def test_every_reader_tells_a_tampering_that_verify_catches(longer_journal: Path, tmp_path: Path, kind: str) -> None:
    path = _copy(longer_journal, tmp_path)
    _tamper(kind, path)
    code, _, err = cli("journal", "verify", "--journal", str(path))
    assert code == 1, err
    code, _, err = cli("recall", "--journal", str(path), "--last", "1")
    assert code == 1 and err, f"recall --last 1 is silent on {kind}"
    code, _, err = cli("meters", "--journal", str(path))
    assert code == 1 and err, f"meters is silent on {kind}"


def test_an_untampered_journal_reads_clean_by_every_reader(longer_journal: Path, tmp_path: Path) -> None:
    path = _copy(longer_journal, tmp_path)
    for args in (("recall", "--last", "1"), ("recall", "--round", "1"), ("meters",), ("journal", "verify")):
        code, _, err = cli(*args, "--journal", str(path))
        assert (code, err) == (0, ""), (args, err)


def test_prune_keeps_what_the_floor_has_not_acknowledged_unless_forced_with_a_reason(tmp_path: Path) -> None:
    from controller.journal.outbox import Outbox

    path = tmp_path / "j.db"
    j = filled(path, None, 14)  # rounds of 1970: all older than any retention; the last ten always stay
    seqs = [seq for _, seq in j.round_seqs()]
    j.close()
    outbox = Outbox(path)
    outbox.ack(seqs[-1])  # the broker took every round: not enough
    outbox.close()
    code, out, err = cli("journal", "prune", "--journal", str(path), "--days", "1")
    assert code == 1 and "pruned 0 rounds" in out
    assert "4 older rounds kept: the floor store holds only up to record 0" in err
    outbox = Outbox(path)
    outbox.confirm(seqs[1])  # the floor store has rounds 1 and 2
    outbox.close()
    code, out, err = cli("journal", "prune", "--journal", str(path), "--days", "1")
    assert code == 1 and "pruned 2 rounds" in out
    assert "2 older rounds kept: the floor store holds only up to record" in err
    assert cli("journal", "verify", "--journal", str(path))[0] == 0
    assert cli("journal", "prune", "--journal", str(path), "--days", "1", "--force-unacknowledged", " ")[0] == 2
    code, out, err = cli(
        "journal", "prune", "--journal", str(path), "--days", "1", "--force-unacknowledged", "floor store rebuilt"
    )
    assert (code, err) == (0, "") and "pruned 2 rounds" in out
    j = SqliteJournal.open_readonly(path)
    (forced,) = [r for r in j.records() if r.kind == "PruneForced"]
    assert forced.data == {"reason": "floor store rebuilt", "floor_acked_seq": seqs[1], "days": 1}
    assert len(j.round_seqs()) == 10
    j.close()
    assert cli("journal", "verify", "--journal", str(path))[0] == 0


def test_prune_of_a_table_without_a_floor_is_as_before(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    filled(path, None, 14).close()
    code, out, err = cli("journal", "prune", "--journal", str(path), "--days", "1")
    assert (code, err) == (0, "") and "pruned 4 rounds" in out


def _change(path: Path, seq: int, data: str = '{"seat": 9}') -> str:
    """Change record ``seq``'s data behind the journal's back; returns what it held."""
    j = SqliteJournal(path)
    before = str(j.db.execute("SELECT data FROM records WHERE seq = ?", (seq,)).fetchone()[0])
    j.db.execute("UPDATE records SET data = ? WHERE seq = ?", (data, seq))
    j.close()
    return before


def _prune(path: Path, *extra: str) -> tuple[int, str, str]:
    return cli("journal", "prune", "--journal", str(path), "--days", "1", *extra)


def test_prune_refuses_a_journal_whose_rounds_to_remove_were_changed(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    j = filled(path, None, 14, snapshots=True)
    seq = j.round_seqs()[1][1] - 1  # round 2's bet, long before the last snapshot
    j.close()
    _change(path, seq)
    code, out, err = _prune(path)
    assert code == 1 and "not pruned: the journal does not verify" in err and f"record {seq}" in err, err
    j = SqliteJournal.open_readonly(path)
    assert len(j.round_seqs()) == 14 and j.record(seq) is not None
    j.close()


def test_prune_checks_from_its_mark_what_was_written_since(tmp_path: Path) -> None:
    """The first prune checks every record and marks the last; the next checks from the mark: a record
    written after it and changed stops it (before the last snapshot, so no reader's check sees it),
    one changed before it and kept is left to `journal verify`."""
    path = tmp_path / "j.db"
    filled(path, None, 14, snapshots=True).close()
    assert _prune(path)[0] == 0
    j = SqliteJournal.open_readonly(path)
    mark = int(j.meta("verified_seq") or 0)
    assert mark == j.last_seq and j.meta("verified_hash") == j.last_hash
    kept_before_mark = j.round_seqs()[5][1]  # round 10: kept by the next prune too
    j.close()
    filled(path, None, 4, first=15, snapshots=True).close()
    changed = mark + 3  # a bet of round 15, in the rounds kept
    held = _change(path, changed)
    code, _, err = _prune(path)
    assert code == 1 and f"record {changed}" in err, err
    _change(path, changed, held)  # put back: whole again
    assert cli("journal", "verify", "--journal", str(path))[0] == 0
    _change(path, kept_before_mark)
    code, out, err = _prune(path)
    assert (code, err) == (0, "") and "pruned 4 rounds" in out  # read once already, not again
    assert cli("journal", "verify", "--journal", str(path))[0] == 1  # everything is read here


def test_prune_refuses_a_chain_computed_again_through_its_mark(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    filled(path, None, 14).close()
    assert _prune(path)[0] == 0
    j = SqliteJournal(path)
    first = j.round_seqs()[2][1]
    j.db.execute("UPDATE records SET data = ? WHERE seq = ?", ('{"seat": 9}', first))
    _recompute_chain_from(j, first)
    j.close()
    code, _, err = _prune(path)
    assert code == 1 and "not the record the last prune checked" in err, err
    code, _, err = cli("journal", "verify", "--journal", str(path))
    assert code == 1 and "verified_seq" in err, err


def test_prune_refuses_a_mark_moved_by_hand_and_a_key_it_was_not_given(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    filled(path, None, 14).close()
    assert _prune(path)[0] == 0
    j = SqliteJournal(path)
    j.db.execute("UPDATE meta SET value = ? WHERE key = 'verified_seq'", (str(j.last_seq + 100),))
    j.close()
    code, _, err = _prune(path)
    assert code == 1 and "meta_hash" in err, err
    keyed = tmp_path / "keyed.db"
    filled(keyed, b"k" * 32, 14).close()
    code, _, err = _prune(keyed)
    assert code == 1 and "signed with a key this command was not given" in err, err


KEY = b"k" * 32


def _keyed_open_table(tmp_path: Path) -> tuple[Path, Path]:
    """A keyed journal of 14 rounds of 1970 with round 15 open (its snapshot after round 14's
    record, where a running table puts it), and a table config naming it and its key file."""
    path = tmp_path / "j.db"
    j = filled(path, KEY, 14, snapshots=True)
    j.snapshot(j.last_seq, 15, {"round": 15})
    j.close()
    key = tmp_path / "t.key"
    key.write_bytes(KEY)
    key.chmod(0o600)
    return path, real_table_config(tmp_path, f"\njournal:\n  path: {path}\n  hmac_key_file: {key}\n")


INDEX_TAMPERINGS = {
    # Ten index entries made up: counted from the index, the last ten rounds would all be pruned.
    "index-padded": [f"INSERT INTO rounds VALUES ({1000 + n}, {10**9 + n}, 0.0)" for n in range(10)],
    # A round's entry deleted: its record would go with the rest, its meters left out of the signed baseline.
    "index-entry-deleted": ["DELETE FROM rounds WHERE round_no = 2"],
    # A snapshot among those removed changed: prune would erase the trace.
    "snapshot-changed": ["UPDATE snapshots SET state = '{\"round\": 99}' WHERE round_no = 2"],
}


@pytest.mark.parametrize("kind", INDEX_TAMPERINGS)
def test_prune_takes_neither_the_round_index_nor_the_snapshots_on_trust(tmp_path: Path, kind: str) -> None:
    """The round index and the snapshots are not signed: prune checks them against the chain for
    everything it removes, and counts the last ten rounds in the chain (with the key given)."""
    path, config = _keyed_open_table(tmp_path)
    j = SqliteJournal(path, KEY)
    for statement in INDEX_TAMPERINGS[kind]:
        j.db.execute(statement)
    j.close()
    code, _, err = cli("journal", "prune", "--config", str(config), "--days", "1")
    assert code == 1 and "not pruned" in err, (code, err)
    j = SqliteJournal.open_readonly(path, KEY)
    assert j.record(1) is not None and [r for r, _ in j.round_seqs()][:2] in ([1, 2], [1, 3])
    j.close()


def test_prune_of_a_keyed_open_table_with_its_key_keeps_the_last_ten(tmp_path: Path) -> None:
    path, config = _keyed_open_table(tmp_path)
    code, out, err = cli("journal", "prune", "--config", str(config), "--days", "1")
    assert (code, err) == (0, "") and "pruned 4 rounds" in out
    assert cli("journal", "verify", "--config", str(config))[0] == 0
