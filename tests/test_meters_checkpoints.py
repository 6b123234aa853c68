"""Meters checkpoints (controller.journal.checkpoint): the journal writes the running totals
every EVERY rounds in the chain; ``tablectl meters`` reads the last checkpoint and the rounds
after it only, checked against the chain, and gives what a scan of every round gives;
``journal verify`` recomputes every checkpoint; pruning keeps them verifiable."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli

from controller.journal import SqliteJournal, verify_journal, verify_meters
from controller.journal import checkpoint as cpmod
from controller.journal.meters import meters_for_round
from controller.journal.retention import prune

EVERY = cpmod.EVERY


def round_data(n: int) -> dict[str, object]:
    """Round ``n``: two seats, ante and bonus, the house winning or losing by the round number;
    every 7th round void."""
    net = 500 if n % 3 == 0 else -500 if n % 3 == 1 else 0
    record = {"seats": {"1": {"wagers": {"ante": 500, "bonus": 100}}, "2": {"wagers": {"ante": 1000}}}}
    settlement = None
    if n % 7:
        settlement = {
            "seats": {
                "1": {"wagers": {"ante": {"net": net}, "bonus": {"net": -100 if n % 2 else 300}}},
                "2": {"wagers": {"ante": {"net": 2 * net}}},
            }
        }
    return {"round": n, "game": "mississippi_stud", "record": record, "settlement": settlement, "faults": 0}


def write(path: Path, rounds: int, start: int = 1, clock: list[float] | None = None) -> None:
    """A journal of ``rounds`` rounds (a snapshot at each start, two events, the round record)."""
    t = clock if clock is not None else [1_000_000.0]

    def now() -> float:
        t[0] += 1.0
        return t[0]

    j = SqliteJournal(path, clock=now)
    try:
        for n in range(start, start + rounds):
            j.snapshot(j.last_seq, n, {"round_no": n})
            j.append("SpotReport", {"seat": 1, "cents": 500}, event=True)
            j.append("CardDealt", {"card": "As"}, event=True)
            data = round_data(n)
            j.append_round(n, data, meters_for_round(data))
    finally:
        j.close()


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    path = tmp_path / "j.db"
    write(path, 2 * EVERY + 37)
    return path


def checkpoints(path: Path) -> list[tuple[int, dict[str, object]]]:
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT seq, data FROM records WHERE kind = 'MetersCheckpoint' ORDER BY seq").fetchall()
    finally:
        db.close()
    return [(seq, json.loads(d)) for seq, d in rows]


def test_a_checkpoint_follows_every_hundredth_round(journal: Path) -> None:
    found = checkpoints(journal)
    assert [d["round"] for _, d in found] == [EVERY, 2 * EVERY]
    j = SqliteJournal.open_readonly(journal)
    try:
        assert verify_journal(j).ok
        seqs = dict(j.round_seqs())
        assert [seq for seq, _ in found] == [seqs[EVERY] + 1, seqs[2 * EVERY] + 1]  # right after its round
        last = found[-1][1]
        assert last["spots"]["from_round"] == 1 and last["spots"]["rounds"] == 2 * EVERY
        check = verify_meters(j)
        assert check.report.ok and check.checkpoint is not None and check.checkpoint.round == 2 * EVERY
        assert [n for n, _, _ in check.after] == list(range(2 * EVERY + 1, 2 * EVERY + 38))
    finally:
        j.close()


def test_meters_from_the_checkpoint_are_what_a_scan_gives(journal: Path) -> None:
    code, incremental, err = cli("meters", "--journal", str(journal), "--json")
    assert code == 0, err
    code, scanned, err = cli("meters", "--journal", str(journal), "--json", "--since", "1970-01-02")
    assert code == 0, err
    a, b = json.loads(incremental), json.loads(scanned)
    assert a == b
    won = {e[1]: e[2] for e in a if e[0] == "theoretical"}
    expected = 0
    for n in range(1, 2 * EVERY + 38):
        s = round_data(n)["settlement"]
        if s is not None:
            expected -= sum(w["net"] for seat in s["seats"].values() for w in seat["wagers"].values())  # type: ignore[index, union-attr]
    assert won["won:all"] == expected and won["rounds"] == 2 * EVERY + 37
    code, text, _ = cli("meters", "--journal", str(journal))
    assert code == 0 and f"the {2 * EVERY + 37} rounds from round 1" in text


def test_meters_read_only_the_rounds_after_the_last_checkpoint(journal: Path) -> None:
    """Round 5's record is unreadable (its data replaced): a scan fails on it, the checkpoint
    path never reads it (``journal verify`` still names it)."""
    db = sqlite3.connect(journal)
    seq = db.execute("SELECT seq FROM rounds WHERE round_no = 5").fetchone()[0]
    db.execute("UPDATE records SET data = 'not json' WHERE seq = ?", (seq,))
    db.commit()
    db.close()
    code, _, err = cli("meters", "--journal", str(journal))
    assert code == 0, err
    code, _, err = cli("journal", "verify", "--journal", str(journal))
    assert code == 1 and f"record {seq}" in err


def test_a_changed_meter_is_refused(journal: Path) -> None:
    db = sqlite3.connect(journal)
    db.execute("UPDATE meters SET value = value + 100 WHERE scope = 'table' AND name = 'paid'")
    db.commit()
    db.close()
    code, out, err = cli("meters", "--journal", str(journal))
    assert code == 1 and out == ""
    assert "meter table paid: kept" in err and f"the checkpoint after round {2 * EVERY}" in err
    assert "not shown: the journal does not verify" in err


def test_a_changed_round_after_the_checkpoint_is_refused(journal: Path) -> None:
    db = sqlite3.connect(journal)
    seq = db.execute("SELECT seq FROM rounds WHERE round_no = ?", (2 * EVERY + 3,)).fetchone()[0]
    data = json.loads(db.execute("SELECT data FROM records WHERE seq = ?", (seq,)).fetchone()[0])
    data["record"]["seats"]["2"]["wagers"]["ante"] = 900
    db.execute("UPDATE records SET data = ? WHERE seq = ?", (json.dumps(data), seq))
    db.commit()
    db.close()
    code, _, err = cli("meters", "--journal", str(journal))
    assert code == 1 and f"record {seq}" in err and "hash mismatch" in err


def test_a_changed_checkpoint_is_refused(journal: Path) -> None:
    seq, data = checkpoints(journal)[-1]
    data["meters"] = [[s, n, v + 1 if n == "collected" else v] for s, n, v in data["meters"]]  # type: ignore[union-attr]
    db = sqlite3.connect(journal)
    db.execute("UPDATE records SET data = ? WHERE seq = ?", (json.dumps(data), seq))
    db.commit()
    db.close()
    code, _, err = cli("meters", "--journal", str(journal))
    assert code == 1 and f"record {seq}" in err


def written_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, checkpoint_data: Any) -> Path:
    """A journal of ``EVERY + 5`` rounds whose meters checkpoints were written by ``checkpoint_data``
    (and chained as the journal chains them)."""
    monkeypatch.setattr(cpmod, "checkpoint_data", checkpoint_data)
    path = tmp_path / "j.db"
    write(path, EVERY + 5)
    monkeypatch.undo()
    return path


def test_verify_recomputes_every_checkpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkpoint written wrong (chained as the journal writes it) is named by verify, and by
    meters when it is the last one."""
    real = cpmod.checkpoint_data

    def wrong(db, round_no, seq):  # type: ignore[no-untyped-def]
        data = real(db, round_no, seq)
        if round_no == EVERY:
            data["spots"]["won"]["ante"] += 1
        return data

    path = written_with(tmp_path, monkeypatch, wrong)
    code, _, err = cli("journal", "verify", "--journal", str(path))
    assert code == 1 and f"meters checkpoint record {checkpoints(path)[0][0]} (round {EVERY})" in err
    assert "spot sums" in err


def test_verify_names_a_checkpoint_whose_totals_are_wrong(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = cpmod.checkpoint_data

    def wrong(db, round_no, seq):  # type: ignore[no-untyped-def]
        data = real(db, round_no, seq)
        data["meters"] = [[s, n, v + (1 if n == "paid" and s == "table" else 0)] for s, n, v in data["meters"]]
        return data

    path = written_with(tmp_path, monkeypatch, wrong)
    code, _, err = cli("journal", "verify", "--journal", str(path))
    assert code == 1 and "meter table paid" in err and f"(round {EVERY})" in err
    code, _, err = cli("meters", "--journal", str(path))
    assert code == 1 and "meter table paid" in err


def test_pruned_journal_keeps_verifiable_checkpoints(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    clock = [1_000_000.0]
    write(path, 2 * EVERY + 37, clock=clock)
    before = cli("meters", "--journal", str(path), "--json")[1]
    j = SqliteJournal(path)
    try:
        removed = prune(j, retention_days=0, now=1_000_000.0 + 4 * (EVERY + 50))  # about the first 150 rounds
    finally:
        j.close()
    assert removed > EVERY
    code, _, err = cli("journal", "verify", "--journal", str(path))
    assert code == 0, err
    code, after, err = cli("meters", "--journal", str(path), "--json")
    assert code == 0, err
    assert json.loads(after) == json.loads(before)  # running totals and sums include the pruned rounds
    write(path, EVERY, start=2 * EVERY + 38, clock=clock)  # the table goes on: the next checkpoint
    code, _, err = cli("journal", "verify", "--journal", str(path))
    assert code == 0, err
    assert [d["round"] for _, d in checkpoints(path)] == [2 * EVERY, 3 * EVERY]


def test_a_journal_without_checkpoints_is_checked_whole(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    write(path, 12)
    assert checkpoints(path) == []
    code, out, err = cli("meters", "--journal", str(path))
    assert code == 0, err and "the 12 rounds kept in the journal" in out
    db = sqlite3.connect(path)
    db.execute("UPDATE meters SET value = value + 1 WHERE scope = 'table' AND name = 'paid'")
    db.commit()
    db.close()
    code, _, err = cli("meters", "--journal", str(path))
    assert code == 1 and "meter table paid" in err
