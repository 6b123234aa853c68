"""The crash test (technical standard 5.3 F), for every game: a HIL bench run with a fixed seed
is killed with SIGKILL at chosen points and started again each time on the same journal. At the
end every round's record and settlement equal those of a run never stopped, no round (so no
wager) is lost or counted twice, and `tablectl journal verify` passes.

The kill points are points of progress, never of time: each is a journal record count, chosen
(seeded) between the first record and nine tenths of the clean run's records; the test watches
the journal read-only and sends SIGKILL as soon as it holds that many records. So the test cannot
pass or fail by the machine's speed: every kill lands, mid-round, on a fast machine or a slow one.
(More kills: ``benchmarks/bench_journal.py --kills N``.)"""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from cli_helpers import run_tablectl, tablectl_process

from controller.journal import SqliteJournal

ROUNDS = 16
KILLS = 8
ROOT = Path(__file__).resolve().parent.parent


def bench(game: str, journal: Path) -> list[str]:
    options = ("--seats", 3, "--rounds", ROUNDS, "--seed", 7, "--journal", journal, "--resume", "--quiet")
    return tablectl_process("bench", "--game", game, *options)


def rounds_of(path: Path) -> list[dict]:
    journal = SqliteJournal(path, create=False)
    try:
        return [journal.record(seq).data for _, seq in journal.round_seqs()]
    finally:
        journal.close()


def records_in(path: Path) -> int:
    """The journal's record count, read-only (another process is writing it); 0 before it exists."""
    if not path.exists():
        return 0
    try:
        db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=5)
        try:
            # the last record, whether a row or in a block (closed rounds are folded as the table plays)
            row = db.execute(
                "SELECT max(m) FROM (SELECT max(seq) AS m FROM records UNION ALL SELECT max(last_seq) FROM blocks)"
            ).fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return 0  # the schema is being created
    return int(row[0] or 0)


def kill_at(cmd: list[str], journal: Path, target: int, env: dict[str, str], cwd: Path) -> None:
    """Run ``cmd`` until ``journal`` holds ``target`` records, then SIGKILL it."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    try:
        deadline = time.monotonic() + 300  # only against a hang: the kill point is the record count
        while records_in(journal) < target:
            if proc.poll() is not None:
                err = proc.stderr.read().decode()  # type: ignore[union-attr]
                pytest.fail(
                    f"the run ended (status {proc.returncode}) before the journal reached record {target}: {err[-800:]}"
                )
            assert time.monotonic() < deadline, f"no progress to record {target} in 300 s"
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()  # type: ignore[union-attr]


@pytest.mark.parametrize("game", ["mississippi_stud", "boston5", "pai_gow"])
def test_killed_at_chosen_records_the_rounds_equal_an_uninterrupted_run(tmp_path: Path, game: str) -> None:
    env = {"TMPDIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    clean = tmp_path / "clean.db"
    straight = subprocess.run(bench(game, clean), capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert straight.returncode == 0, straight.stderr[-2000:]
    total = records_in(clean)
    rng = random.Random(f"{game}-20261203")
    targets = sorted(rng.sample(range(20, total * 9 // 10), KILLS))
    crashed = tmp_path / "crashed.db"
    for target in targets:
        kill_at(bench(game, crashed), crashed, target, env, tmp_path)
    finish = subprocess.run(bench(game, crashed), capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert finish.returncode == 0, finish.stderr[-2000:]

    got, want = rounds_of(crashed), rounds_of(clean)
    assert [r["round"] for r in got] == list(range(1, ROUNDS + 1)) == [r["round"] for r in want]  # none lost or twice
    for a, b in zip(got, want, strict=True):
        assert a["record"] == b["record"], f"round {a['round']}: wagers, cards or decisions differ"
        assert a["settlement"] == b["settlement"], f"round {a['round']}: the settlement differs"
        assert a["cards"] == b["cards"]
    verify = run_tablectl("journal", "verify", "--journal", crashed, timeout=120)
    assert verify.returncode == 0, verify.stderr
    assert "meters agree" in verify.stdout
    recall = run_tablectl("recall", "--journal", crashed, "--round", "11", "--json", timeout=120)
    record = json.loads(recall.stdout)
    settle = run_tablectl("settle", "-", stdin=json.dumps(record), timeout=120, cwd=ROOT)
    assert settle.returncode == 0, settle.stderr
    assert json.loads(settle.stdout) == want[10]["settlement"]
