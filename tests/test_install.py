"""An install that works anywhere: the wheel (not an editable install) in a fresh venv, then
`tablectl --version`, `tablectl par` and a bench round from a folder that is not the checkout.
The shipped configs and paytables are package data, and the wheel installs only the design's
top-level packages."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TOP_LEVEL = {"controller", "drivers", "hil"}
BUILD_LEFTOVERS = (".git", ".venv", "build", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", ".benchmarks")
"""What the checkout may hold beside its own files: not copied to build the wheel from."""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The wheel built from this checkout, installed into a new venv: (the wheel, the venv's bin)."""
    base = tmp_path_factory.mktemp("install")
    # Built from a copy: pip builds in the source tree (build/, *.egg-info), where the other worker's
    # tests run `python -m controller` at the same time (one run failed to build the wheel).
    source = base / "source"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(*BUILD_LEFTOVERS))
    # No build isolation and no index: nothing is downloaded; the test extra brings setuptools.
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(base), str(source)],
        capture_output=True,
        text=True,
        cwd=base,
    )
    assert built.returncode == 0, f"pip wheel exit {built.returncode}:\n{built.stderr[-3000:]}"
    (wheel,) = base.glob("tablectl-*.whl")
    venv = base / "venv"
    # Without pip of its own: ensurepip installing pip into the venv was most of the fixture (about
    # 4 s of CPU, 27 s of wall at load 15), and nothing here runs the venv's pip. The running pip
    # installs the wheel into it instead (``--python``: into that interpreter's environment).
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    _see_the_running_dependencies(venv)
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python")]
        + ["install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
    )
    return wheel, venv / "bin"


def running_site_dirs() -> list[str]:
    """The site folders this interpreter imports its dependencies from, whether it runs in a venv
    (its own site-packages) or is a system Python (its site-packages, dist-packages, the user's)."""
    return [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()]


def _see_the_running_dependencies(venv: Path) -> None:
    """Let the new venv import what this interpreter imports, offline: a ``.pth`` file naming the
    running site folders, after the venv's own. ``--system-site-packages`` would not do: from a venv
    it exposes the base interpreter's packages, not the venv's (issue #31). A ``.pth`` line that is
    a folder only adds it to ``sys.path``; the ``.pth`` files inside it (an editable install's
    finder for the checkout) are not run, so tablectl still comes from the wheel."""
    (site_packages,) = venv.glob("lib/python3*/site-packages")
    (site_packages / "zz-running-dependencies.pth").write_text("".join(f"{d}\n" for d in running_site_dirs()))


def _run(bin_dir: Path, cwd: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TABLECTL_CONFIG_DIR")}
    env["HOME"] = str(cwd)  # a user with no cache yet
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        [str(bin_dir / "tablectl"), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def test_the_wheel_installs_only_the_designs_packages(installed: tuple[Path, Path]) -> None:
    wheel, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == TOP_LEVEL
    shipped = {n for n in names if n.startswith("controller/config/") and n.endswith(".yaml")}
    expected = {f"controller/config/{p.relative_to(REPO / 'config')}" for p in (REPO / "config").rglob("*.yaml")}
    assert shipped == expected


def test_the_installed_command_runs_from_any_folder(installed: tuple[Path, Path], tmp_path: Path) -> None:
    _, bin_dir = installed
    version = _run(bin_dir, tmp_path, "--version")
    assert version.returncode == 0 and version.stdout.startswith("tablectl "), version.stderr
    located = subprocess.run(
        [str(bin_dir / "python"), "-c", "import controller; print(controller.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert str(REPO) not in located, f"the venv imports the checkout: {located}"
    par = _run(bin_dir, tmp_path, "par", "--game", "mississippi_stud")
    assert par.returncode == 0, par.stderr
    assert "cannot read" not in par.stderr
    bench = _run(bin_dir, tmp_path, "bench", "--game", "mississippi_stud", "--rounds", "1", "--seed", "1")
    assert bench.returncode == 0, bench.stdout + bench.stderr
    assert (tmp_path / "tablectl-journal" / "mississippi_stud.db").exists()


def test_a_missing_extras_hint_names_the_wheel_installed(installed: tuple[Path, Path], tmp_path: Path) -> None:
    """From the wheel, the hint of an error for a missing extra adds it to that wheel, by its path."""
    wheel, bin_dir = installed
    hint = subprocess.run(
        [
            str(bin_dir / "python"),
            "-c",
            "from controller.host._install_hint import install_hint; print(install_hint('floor'))",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert hint == f"{bin_dir / 'python'} -m pip install '{wheel}[floor]'"
