"""The test command's property tests are derandomized (issue 40 item 2): the hypothesis profile
``tests/conftest.py`` loads unless ``TABLECTL_HYPOTHESIS=explore``; another value is refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from deadlines import STATE_TIMEOUT_S
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent
PROBE = """
from hypothesis import settings
def test_profile():
    print("derandomize", settings.default.derandomize, flush=True)
"""


def _pytest(tmp_path: Path, value: str | None) -> subprocess.CompletedProcess[str]:
    probe = tmp_path / "test_probe.py"
    probe.write_text(PROBE)
    env = {k: v for k, v in os.environ.items() if k != "TABLECTL_HYPOTHESIS"}
    if value is not None:
        env["TABLECTL_HYPOTHESIS"] = value
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-o", "addopts=", "-p", "no:cacheprovider", "--rootdir", str(REPO)]
        + ["--confcutdir", str(REPO / "tests"), "-c", str(REPO / "pyproject.toml"), str(REPO / "tests" / "conftest.py")]
        + [str(probe)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=STATE_TIMEOUT_S,
    )


def test_the_test_command_is_derandomized() -> None:
    if os.environ.get("TABLECTL_HYPOTHESIS") == "explore":
        assert not settings.default.derandomize
    else:
        assert settings.default.derandomize and settings.default.database is None
    assert settings.default.deadline is None


def test_explore_draws_new_examples_and_another_value_is_refused(tmp_path: Path) -> None:
    assert "derandomize True" in _pytest(tmp_path, None).stdout
    assert "derandomize False" in _pytest(tmp_path, "explore").stdout
    bad = _pytest(tmp_path, "random")
    assert bad.returncode == 4, bad.stdout + bad.stderr
    assert "TABLECTL_HYPOTHESIS='random': unknown; use explore" in bad.stdout + bad.stderr
