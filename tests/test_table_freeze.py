"""A table process's start-up taken out of the garbage collector's scans (issue 42 item 5)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_freeze_start_up_freezes_what_the_start_made_and_collects_its_garbage_first() -> None:
    """In a process of its own (a test's process starts many tables and must not freeze them):
    the objects alive are frozen, a cycle already garbage is not (collected first)."""
    code = (
        "import gc, weakref\n"
        "from controller.table.runtime import freeze_start_up\n"
        "class Node: pass\n"
        "kept = [Node() for _ in range(100)]\n"
        "lost = Node(); lost.me = lost; gone = weakref.ref(lost); del lost\n"
        "freeze_start_up()\n"
        "assert gc.get_freeze_count() > 100, gc.get_freeze_count()\n"
        "assert gone() is None, 'garbage frozen with the start-up'\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
