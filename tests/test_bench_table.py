"""``benchmarks/bench_table.py``'s in-process figures, measured as interleaved pairs (issue 42 item 5):
``--repeat`` prints the medians and the ratios' spread, ``--only in-process`` skips the other rows.
Figures are never checked here (a benchmark asserts nothing): only that the fields are printed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from deadlines import STATE_TIMEOUT_S

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "benchmarks" / "bench_table.py"
GAMES = ("Mississippi Stud, 6 seats", "Boston 5, 6 seats", "pai gow, 7 positions")
RATIO = re.compile(
    r"^  ours / that floor \(target 0\.5x\)\s+\d+\.\d\dx .*median (\d+\.\d{3})x of (\d+) interleaved pairs, "
    r"spread (\d+\.\d{3})x-(\d+\.\d{3})x, \d+% of the median\)$"
)


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH), *args], capture_output=True, text=True, timeout=STATE_TIMEOUT_S * 4, cwd=REPO
    )


def test_repeat_prints_each_games_median_ratio_and_its_spread_and_only_in_process_skips_the_rest() -> None:
    run = bench("--rounds", "3", "--repeat", "2", "--only", "in-process")
    out = run.stdout
    assert run.returncode == 0, f"exited {run.returncode}:\n{out[-3000:]}\n{run.stderr[-3000:]}"
    lines = out.splitlines()
    for game in GAMES:
        assert any(line.startswith(game) and "p99" in line for line in lines), out
    ratios = [m for m in map(RATIO.match, lines) if m]
    assert len(ratios) == len(GAMES), out
    for m in ratios:
        median, pairs, low, high = float(m[1]), int(m[2]), float(m[3]), float(m[4])
        assert pairs == 2, m[0]
        assert low <= median <= high, m[0]
    assert sum("settle_record" in line and "ms per round" in line for line in lines) == len(GAMES), out
    for skipped in ("snapshot after each event", "runtime path", "soak path", "over ptys", "time to ready"):
        assert skipped not in out, f"--only in-process printed {skipped!r}:\n{out}"


def test_repeat_below_one_is_refused_with_a_clear_error() -> None:
    run = bench("--rounds", "3", "--repeat", "0", "--only", "in-process")
    assert run.returncode == 2, run.stdout + run.stderr
    assert "--repeat" in run.stderr and "at least 1" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr, run.stderr
