"""What the floor's end-to-end tests share (tests/test_floor*.py): waiting for a state, counting
rows in the floor store, the ingest in a thread of the test process, a NATS connection with an
identity's credentials. The servers themselves are tests/floor_fixtures.py's."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deadlines import STATE_TIMEOUT_S

if TYPE_CHECKING:
    from floor_fixtures import FloorLink

    from controller.floor.ingest import IngestConfig
    from controller.floor.metrics import IngestMetrics


def floor_command(*args: str) -> tuple[int, str]:
    """``tablectl floor ARGS`` run as its own process: its exit code and what it printed (standard
    output, then standard error), which never holds a traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "controller", "floor", *args], capture_output=True, text=True, timeout=120
    )
    assert "Traceback" not in done.stderr
    return done.returncode, done.stdout + done.stderr


def wait_for(cond: Callable[[], bool], what: str, timeout: float = STATE_TIMEOUT_S) -> None:
    """Wait until ``cond()`` holds; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def count(db: str, sql: str, *args: Any) -> int:
    """The first column of ``sql``'s first row in database ``db`` as a number (0 when none)."""
    import psycopg

    with psycopg.connect(db, autocommit=True) as conn:
        row = conn.execute(sql, args).fetchone()
        return int(row[0]) if row and row[0] is not None else 0


class IngestThread:
    """``floor ingest`` in a thread of the test process."""

    def __init__(self, config: IngestConfig, metrics: IngestMetrics | None = None) -> None:
        from controller.floor.ingest import IngestStats

        self.stop_event = threading.Event()
        self.stats = IngestStats()
        self.error: BaseException | None = None
        self.config, self.metrics = config, metrics
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from controller.floor.ingest import run_ingest

        try:
            asyncio.run(run_ingest(self.config, self.stop_event, self.stats, self.metrics))
        except BaseException as exc:  # reported by stop()
            self.error = exc

    def stop(self) -> None:
        self.stop_event.set()
        self.thread.join(STATE_TIMEOUT_S)
        assert self.error is None, repr(self.error)


async def connect(link: FloorLink, creds: Path | None, errors: list[str] | None = None) -> Any:
    """A NATS connection to ``link``'s servers with the identity of ``creds`` (None: none), not reconnecting;
    the server's errors (lower case) appended to ``errors``."""
    import nats

    from controller.floor.connect import nats_auth_options

    async def error_cb(exc: Exception) -> None:
        if errors is not None:
            errors.append(str(exc).lower())

    return await nats.connect(
        servers=list(link.servers),
        connect_timeout=5,
        allow_reconnect=False,
        error_cb=error_cb,
        **nats_auth_options(link.auth(creds)),
    )
