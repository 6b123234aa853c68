"""``benchmarks/bench_web.py`` runs from a fresh clone: its smallest run (a few events, one jam
from the page in headless Chromium) prints each of its figures. It is started as a script from
another directory, with nothing on the path but what the script puts there itself: the browser
helpers it borrows from ``tests/`` import their own siblings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from deadlines import STATE_TIMEOUT_S
from web_helpers import need_browser

REPO = Path(__file__).resolve().parent.parent


def test_bench_web_smallest_run_prints_every_figure(tmp_path: Path) -> None:
    need_browser()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_web.py"), "--events", "10", "--faults", "1"],
        capture_output=True,
        text=True,
        timeout=STATE_TIMEOUT_S * 2,
        cwd=tmp_path,
        env=env,
    )
    out = run.stdout
    assert run.returncode == 0, f"bench_web.py exited {run.returncode}:\n{out[-3000:]}\n{run.stderr[-3000:]}"
    assert "controller, bare handle of a spot report:" in out, out
    assert "web feed, snapshot + view model + JSON:" in out, out
    assert "fault to page (1 jams): p50" in out, out
