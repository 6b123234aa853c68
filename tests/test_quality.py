"""The quality gates: ruff lint, ruff format and mypy (strict on controller/, drivers/, hil/)
must stay clean; each runs as its own subprocess with the configuration in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

GATES = {
    "ruff check": [sys.executable, "-m", "ruff", "check", "."],
    "ruff format": [sys.executable, "-m", "ruff", "format", "--check", "."],
    "mypy": [sys.executable, "-m", "mypy"],
}


@pytest.mark.parametrize("name", list(GATES))
def test_gate_is_clean(name: str) -> None:
    result = subprocess.run(GATES[name], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"{name} failed:\n{result.stdout}\n{result.stderr}"
