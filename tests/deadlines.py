"""How long a browser or HIL test waits for a state: one deadline for all of them.

A test waits for a state (a step on the page, an event on a driver's queue, a link up), never for
a time; the deadline only says when to give up on a state that is not coming. It is meant for a
loaded machine: at load 35 on 2 cores a process gets about a seventeenth of a core, so what takes
4 s alone (a bench's start-up, a browser's page load) takes over a minute; 60 s deadlines failed
there (issue #31). Waiting longer costs nothing when the state comes; a test that fails still says
what it waited for. ``TABLECTL_TEST_DEADLINE_S`` sets another (a quick look on a quiet machine)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import pytest

STATE_TIMEOUT_S = float(os.environ.get("TABLECTL_TEST_DEADLINE_S") or 300.0)
"""Seconds a test waits for a state before it fails."""


def wait_until(state: Callable[[], bool], what: str) -> None:
    """Wait for ``state`` (a state, not a time: the deadline only gives up on one not coming); fails
    naming ``what`` it waited for."""
    deadline = time.monotonic() + STATE_TIMEOUT_S
    while not state():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.01)
