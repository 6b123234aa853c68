"""benchmarks/architecture.py (issue 42 item 7's measures) runs on this checkout and prints each
measure; it asserts nothing about the figures, which docs/architecture.md records."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MEASURES = (
    "reaches through a hub (self.table): ",
    "import circles (every import, TYPE_CHECKING and in functions included): ",
    "dotted dispatch: ",
    "Any in controller/: ",
    "functions over C901 15: ",
    "exported names in controller/: ",
    "private modules: ",
    "duplicates pairs (whole tree): ",
)


def test_prints_each_measure() -> None:
    script = ROOT / "benchmarks" / "architecture.py"
    proc = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for measure in MEASURES:
        found = [line for line in lines if line.startswith(measure)]
        assert found, f"{measure!r} missing from:\n{proc.stdout}"
        figure = found[0][len(measure) :].split()[0]
        assert figure.isdigit() or figure == "n/a", found[0]


def test_refuses_a_folder_without_the_packages(tmp_path: Path) -> None:
    script = ROOT / "benchmarks" / "architecture.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--root", str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert "has no controller/ folder" in proc.stderr
    assert "Traceback" not in proc.stderr
