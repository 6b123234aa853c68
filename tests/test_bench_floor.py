"""``benchmarks/bench_floor.py`` runs from a fresh clone, signing on (issue 44 item 7): its ``--tiny``
run (4 tables, every phase in seconds) ends with every record stored exactly once, the tables'
records signed and the ingest storing only signed records of registered tables, and its
required-work floor measured with the signature checks and the ``stored`` messages in it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from deadlines import STATE_TIMEOUT_S

pytest.importorskip("psycopg")
pytest.importorskip("nats")

REPO = Path(__file__).resolve().parent.parent


def test_bench_floor_tiny_runs_signed_and_exactly_once() -> None:
    run = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_floor.py"), "--tiny", "--patience", str(STATE_TIMEOUT_S)],
        capture_output=True,
        text=True,
        timeout=STATE_TIMEOUT_S * 4,
        cwd=REPO,
    )
    out = run.stdout
    assert run.returncode == 0, f"bench_floor.py --tiny exited {run.returncode}:\n{out[-3000:]}\n{run.stderr[-3000:]}"
    assert "every record signed" in out and "--require-signed" in out, out
    assert "exactly once yes" in out, out
    assert "rejected 0" in out and "quarantined 0" in out, out
    assert "of the required floor: signature checks" in out, out
    assert "end to end / required-work floor:" in out, out
