"""No tracked file holds a path of the machine it was made on: a clone at any path must pass.

Test data is generated with placeholders (``{root}``, ``{case}``, ``{tmp}``) that the tests fill
in; a generator that writes its own folder instead leaves that folder in every file it made."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _tracked(root: Path) -> list[Path]:
    try:
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True, timeout=60
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not in a git checkout (or git is missing)")
    return [root / os.fsdecode(name) for name in listed.split(b"\0") if name]


def _content(path: Path) -> bytes:
    """The file's bytes; a symlink's target (``controller/config`` is one: not read through it twice)."""
    if path.is_symlink():
        return os.fsencode(os.readlink(path))
    return path.read_bytes() if path.is_file() else b""  # a file deleted in the work tree


def machine_paths(root: Path) -> list[bytes]:
    """The paths no tracked file may hold: the checkout's, and its parent folder's (followed by
    ``/``, so that a folder named like its prefix does not count), unless that is ``/`` or the
    temporary folder."""
    paths = [os.fsencode(root)]
    # Not the parent when it is ``/`` or the shared temporary folder: the test data names temporary
    # folders of its own (``/tmp/tmpXXXX/...``), which say nothing of where the checkout is.
    if root.parent != root.parent.parent and root.parent != Path(tempfile.gettempdir()).resolve():
        paths.append(os.fsencode(root.parent) + b"/")
    return paths


def test_no_tracked_file_holds_the_checkouts_path() -> None:
    root = Path(
        subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--show-toplevel"], capture_output=True, text=True, timeout=60
        ).stdout.strip()
        or REPO
    ).resolve()
    paths = machine_paths(root)
    found = [
        f"{path.relative_to(root)}: {needle.decode(errors='replace')}"
        for path in _tracked(root)
        for needle in paths
        if needle in _content(path)
    ]
    assert not found, "tracked files hold a path of this machine (generate them with placeholders):\n" + "\n".join(
        found
    )


def test_the_parent_is_not_checked_when_it_is_the_filesystem_root() -> None:
    assert machine_paths(Path("/repo")) == [b"/repo"]
    assert machine_paths(Path("/srv/checkouts/tablectl")) == [b"/srv/checkouts/tablectl", b"/srv/checkouts/"]
