"""Logs journald reads (issue 45 item 4): ISO 8601 times with the zone; under journald (its
``$JOURNAL_STREAM`` naming standard error) each line starts with its syslog priority so
``journalctl -p warning`` finds the warnings; JSON lines carry ``level`` and ``priority``;
``--log-level`` drops what is less severe. The formatters in process, and ``tablectl run`` as a
process on real ptys writing to a pipe that ``$JOURNAL_STREAM`` names."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import IO

import pytest
from deadlines import STATE_TIMEOUT_S
from test_hil_devices_visibility import Lines, table_config

from controller.host import configure_logging
from controller.host._logs import LIBRARY_LOGGERS, priority, under_journald
from hil.devices import BetSpotSim, PanelSim, ShoeSim
from hil.serve import PtyServer


def _stream_of(path: Path) -> str:
    st = os.stat(path)
    return f"{st.st_dev}:{st.st_ino}"


def _log_to(path: Path, form: str, level: str, environ: dict[str, str]) -> list[str]:
    """Log a debug, an info, a warning (two lines), an error with a device; the lines written."""
    with open(path, "w") as out:
        handler = configure_logging(level, form, out, environ, name="tablectl.test_logs")
        try:
            log = logging.getLogger("tablectl.test_logs")
            log.debug("debugging")
            log.info("table running")
            log.warning("link panel down\nsecond line")
            log.error("journal full", extra={"device": "shoe"})
        finally:
            logging.getLogger("tablectl.test_logs").removeHandler(handler)
    return path.read_text().splitlines()


def test_text_lines_have_an_iso_time_with_the_zone_and_no_prefix_outside_journald(tmp_path: Path) -> None:
    path = tmp_path / "log"
    lines = _log_to(path, "text", "info", {})
    assert len(lines) == 4  # info, the warning's two lines, the error; no debug
    stamp, level, logger, *_ = lines[0].split(" ")
    when = datetime.fromisoformat(stamp)
    assert when.tzinfo is not None and "T" in stamp
    assert (level, logger) == ("INFO", "tablectl.test_logs:")
    assert lines[2] == "second line"
    # $JOURNAL_STREAM inherited, but standard error sent elsewhere: no prefix
    other = tmp_path / "other"
    other.write_text("")
    lines = _log_to(path, "text", "info", {"JOURNAL_STREAM": _stream_of(other)})
    assert not any(line.startswith("<") for line in lines)


def test_under_journald_each_line_starts_with_its_priority(tmp_path: Path) -> None:
    path = tmp_path / "log"
    path.write_text("")
    environ = {"JOURNAL_STREAM": _stream_of(path)}
    lines = _log_to(path, "text", "debug", environ)
    assert [line[:3] for line in lines] == ["<7>", "<6>", "<4>", "<4>", "<3>"]
    assert lines[3] == "<4>second line"  # a continuation line keeps its message's priority
    datetime.fromisoformat(lines[1][3:].split(" ")[0])
    lines = _log_to(path, "json", "warning", environ)
    assert [line[:3] for line in lines] == ["<4>", "<3>"]
    records = [json.loads(line[3:]) for line in lines]
    assert [(r["level"], r["priority"]) for r in records] == [("WARNING", 4), ("ERROR", 3)]
    assert records[1]["device"] == "shoe" and records[0]["message"] == "link panel down\nsecond line"
    assert datetime.fromisoformat(records[0]["time"]).tzinfo is not None
    assert abs(datetime.fromisoformat(records[0]["time"]).timestamp() - records[0]["at"]) < 0.001


def test_priorities_and_what_is_journald() -> None:
    assert [priority(n) for n in (10, 20, 30, 40, 50)] == [7, 6, 4, 3, 2]
    for value in ("", "12", "a:b", "1:2:3"):
        assert not under_journald(sys.stderr, {"JOURNAL_STREAM": value})


def test_log_options_are_refused_when_bad() -> None:
    from cli_helpers import cli

    code, _, err = cli("run", "--config", "x.yaml", "--log-level", "loud")
    assert code == 2 and "--log-level" in err and "'loud'" in err


def started_under_journald(args: list[str], cwd: Path) -> tuple[subprocess.Popen[bytes], Lines, IO[str]]:
    """``tablectl ARGS`` run in ``cwd`` as systemd runs a unit: its standard error a stream that
    ``JOURNAL_STREAM`` names (journald's), whose lines are collected; the process, the lines and the
    stream (closed by the test)."""
    read, write = os.pipe()
    st = os.fstat(write)
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", *args],
        stderr=write,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"},
        cwd=cwd,
    )
    os.close(write)
    stream = os.fdopen(read, encoding="utf-8")
    return proc, Lines(stream), stream


def test_run_under_journald_prefixes_each_line_with_its_priority(tmp_path: Path) -> None:
    sims = {"shoe": ShoeSim(address=1), "bet_spots": BetSpotSim(address=2), "panel": PanelSim(address=3)}
    servers = {role: PtyServer(sim, link=tmp_path / f"tty-{role}") for role, sim in sims.items()}
    urls = {role: server.start() for role, server in servers.items()}
    config = table_config(tmp_path, urls)
    proc, log, stream = started_under_journald(
        ["run", "--config", str(config), "--allow-unapproved", "--log-format", "text", "--log-level", "info"], tmp_path
    )
    try:
        up = log.wait(lambda line: "link panel up" in line, "the panel's link up")
        assert up.startswith("<6>") and datetime.fromisoformat(up[3:].split(" ")[0]).tzinfo is not None
        servers["panel"].disconnect()
        down = log.wait(lambda line: "link panel down" in line, "the panel's link down")
        assert down.startswith("<4>") and " WARNING " in down
        proc.terminate()
        log.wait_until(lambda lines: any("stopped after" in line for line in lines), "the last line")
    finally:
        proc.terminate()
        proc.wait(timeout=STATE_TIMEOUT_S)
        for server in servers.values():
            server.close()
        log._thread.join(timeout=STATE_TIMEOUT_S)  # the process gone, the pipe's end read
        stream.close()
    assert all(line.startswith("<") for line in log.lines), [line for line in log.lines if not line.startswith("<")]


@pytest.mark.parametrize("form", ["text", "json"])
def test_log_level_warning_leaves_out_info(tmp_path: Path, form: str) -> None:
    lines = _log_to(tmp_path / "log", form, "warning", {})
    assert not any("table running" in line for line in lines)
    assert any("journal full" in line for line in lines)


def test_uvicorns_records_go_the_same_way_with_their_priority(tmp_path: Path) -> None:
    """The web views' server (uvicorn) logs through tablectl's handler, not its own (whose lines
    had neither time nor priority): under journald a warning of it starts with ``<4>``."""
    path = tmp_path / "log"
    with open(path, "w") as out:
        handler = configure_logging("info", "text", out, {"JOURNAL_STREAM": _stream_of(path)}, name="tablectl.test")
        try:
            logging.getLogger("uvicorn.error").warning("Invalid HTTP request received.")
        finally:
            for name in ("tablectl.test", *LIBRARY_LOGGERS):
                logging.getLogger(name).removeHandler(handler)
    (line,) = path.read_text().splitlines()
    assert line.startswith("<4>") and line.endswith(" WARNING uvicorn.error: Invalid HTTP request received.")
    assert datetime.fromisoformat(line[3:].split(" ")[0]).tzinfo is not None


@pytest.mark.parametrize("command", [["web", "serve", "--socket", "x.sock"], ["floor", "web", "--db", "x"]])
def test_the_web_views_take_the_log_options(command: list[str]) -> None:
    from cli_helpers import cli

    code, _, err = cli(*command, "--log-level", "loud")
    assert code == 2 and "--log-level" in err and "'loud'" in err
    code, _, err = cli(*command, "--log-format", "xml")
    assert code == 2 and "--log-format" in err


def test_web_serve_under_journald_prefixes_its_warnings_and_stops_on_sigterm(tmp_path: Path) -> None:
    """``tablectl web serve`` (the views' unit) waiting for a table that is not there yet: its
    warning is a journald line of priority 4 with an ISO time; SIGTERM ends it (it sleeps on a
    wake-up the handler sets)."""
    pytest.importorskip("uvicorn")
    proc, log, stream = started_under_journald(
        ["web", "serve", "--socket", str(tmp_path / "none.sock"), "--web", "127.0.0.1:0", "--log-level", "warning"],
        tmp_path,
    )
    try:
        line = log.wait(lambda line: "none.sock" in line, "the warning that the socket is not there")
        assert line.startswith("<4>") and " WARNING tablectl.web" in line, line
        assert datetime.fromisoformat(line[3:].split(" ")[0]).tzinfo is not None
        proc.terminate()
        assert proc.wait(timeout=STATE_TIMEOUT_S) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log._thread.join(timeout=STATE_TIMEOUT_S)
        stream.close()
