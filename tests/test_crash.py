"""The crash test (technical standard 5.3 F): a HIL bench run with a fixed seed is killed with
SIGKILL at 50 random points and started again each time on the same journal. At the end every
round's record and settlement equal those of a run never stopped, no round (so no wager) is
lost or counted twice, and `tablectl journal verify` passes. (More kills:
``benchmarks/bench_journal.py --kills N``.)"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
from pathlib import Path

from controller.journal import SqliteJournal

ROUNDS = 60
KILLS = 50


def bench(journal: Path, cwd: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "controller",
        "bench",
        "--game",
        "mississippi_stud",
        "--seats",
        "3",
        "--rounds",
        str(ROUNDS),
        "--seed",
        "7",
        "--journal",
        str(journal),
        "--resume",
        "--quiet",
    ]


def rounds_of(path: Path) -> list[dict]:
    journal = SqliteJournal(path, create=False)
    try:
        return [journal.record(seq).data for _, seq in journal.round_seqs()]
    finally:
        journal.close()


def test_killed_at_fifty_random_points_the_rounds_equal_an_uninterrupted_run(tmp_path: Path) -> None:
    env = {"TMPDIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    rng = random.Random(20261202)
    crashed = tmp_path / "crashed.db"
    kills = 0
    while kills < KILLS:
        proc = subprocess.Popen(
            bench(crashed, tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=tmp_path
        )
        try:
            proc.wait(timeout=rng.uniform(0.2, 0.8))
            err = proc.stderr.read().decode()
            proc.stderr.close()
            raise AssertionError(
                f"the run finished after {kills} kills (rounds too few for {KILLS} kill points): {proc.returncode} {err[-800:]}"
            )
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            proc.stderr.close()
            kills += 1
    finish = subprocess.run(
        bench(crashed, tmp_path), capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600
    )
    assert finish.returncode == 0, finish.stderr[-2000:]
    clean = tmp_path / "clean.db"
    straight = subprocess.run(
        bench(clean, tmp_path), capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600
    )
    assert straight.returncode == 0, straight.stderr[-2000:]

    got, want = rounds_of(crashed), rounds_of(clean)
    assert (
        [r["round"] for r in got] == list(range(1, ROUNDS + 1)) == [r["round"] for r in want]
    )  # none lost, none twice
    for a, b in zip(got, want):
        assert a["record"] == b["record"], f"round {a['round']}: wagers, cards or decisions differ"
        assert a["settlement"] == b["settlement"], f"round {a['round']}: the settlement differs"
        assert a["cards"] == b["cards"]
    verify = subprocess.run(
        [sys.executable, "-m", "controller", "journal", "verify", "--journal", str(crashed)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verify.returncode == 0, verify.stderr
    assert "meters agree" in verify.stdout
    recall = subprocess.run(
        [sys.executable, "-m", "controller", "recall", "--journal", str(crashed), "--round", "17", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    record = json.loads(recall.stdout)
    settle = subprocess.run(
        [sys.executable, "-m", "controller", "settle", "-"],
        input=json.dumps(record),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert settle.returncode == 0, settle.stderr
    assert json.loads(settle.stdout) == want[16]["settlement"]
