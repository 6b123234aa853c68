"""Issue 31: log lines (a link's counters) printed straight through ``tablectl bench``'s and
``soak``'s progress bar broke it; they are written above the bar (``tqdm``'s logging redirect):
the bar's line is cleared, the log line written whole on its own, the bar drawn again below."""

from __future__ import annotations

import contextlib
import io
import logging
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from controller.cli import main as tablectl
from controller.configuration import config_dir, load_table
from hil.bench import run_bench


class Terminal(io.StringIO):
    """Standard error as a terminal (so the bar is shown), kept as text."""

    def isatty(self) -> bool:
        return True


@contextlib.contextmanager
def terminal() -> Iterator[Terminal]:
    """Standard error a terminal, the root logger writing to it as a command's console does (set
    in the test's body: pytest's capture sets ``sys.stderr`` again after the fixtures)."""
    err = Terminal()
    saved = sys.stderr, logging.root.handlers
    sys.stderr, logging.root.handlers = err, [logging.StreamHandler(err)]
    try:
        yield err
    finally:
        sys.stderr, logging.root.handlers = saved


def above_the_bar(out: str, line: str) -> bool:
    """``line`` written on a line of its own after the bar's line was cleared (not after the bar's text)."""
    return f"\r{line}\n" in out and f"]{line}" not in out


def test_bench_writes_log_lines_above_its_bar() -> None:
    log = logging.getLogger("tablectl.table")

    def attach(*_: Any) -> Callable[[], None]:
        log.warning("link panel: 3 timeouts (a test's line)")
        return lambda: log.warning("link shoe: 2 garbage bytes (a test's line)")

    table = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
    with terminal() as err:
        summary = run_bench(table, 1, 1, 5, progress=True, attach=attach)
    assert summary.rounds == 1
    out = err.getvalue()
    assert "round/s]" in out or "round]" in out  # the bar was shown
    assert above_the_bar(out, "link panel: 3 timeouts (a test's line)"), out
    assert above_the_bar(out, "link shoe: 2 garbage bytes (a test's line)"), out


def test_soak_writes_log_lines_above_its_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    import hil.soak

    real = hil.soak.run_soak
    log = logging.getLogger("tablectl.table")

    def soak(*args: Any, **kwargs: Any) -> Any:
        kwargs["progress"](1)
        log.warning("link panel: 3 timeouts (a test's line)")
        log.warning("link shoe: 2 garbage bytes (a test's line)")
        return real(*args, **kwargs)

    monkeypatch.setattr(hil.soak, "run_soak", soak)
    with terminal() as err, contextlib.redirect_stdout(io.StringIO()):
        code = tablectl(["soak", "--game", "mississippi_stud", "--rounds", "20", "--workers", "1", "--seats", "2"])
    out = err.getvalue()
    assert code in (0, 1), out
    assert "round/s]" in out or "round]" in out  # the bar was shown
    assert above_the_bar(out, "link panel: 3 timeouts (a test's line)"), out
    assert above_the_bar(out, "link shoe: 2 garbage bytes (a test's line)"), out
