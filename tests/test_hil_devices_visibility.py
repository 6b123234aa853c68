"""HIL, issue 11 items 4, 7, 10 and the deployment: `tablectl run` as a process on real ptys logs
link down and up (text and JSON) and counts garbage on a port, tells systemd it is ready and
alive over a real AF_UNIX datagram socket; link counters are journaled at each round's end as
``LinkStats`` and `tablectl status` shows them from another process, read-only."""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pytest
from cli_helpers import run_tablectl, tablectl_process
from deadlines import STATE_TIMEOUT_S

from controller.journal.records import event_record
from controller.table._sdnotify import SystemdNotifier
from controller.table.events import decode_event
from drivers.link import LinkStats
from hil.devices import BetSpotSim, PanelSim, ShoeSim
from hil.serve import PtyServer, served_table_config

ROOT = Path(__file__).resolve().parent.parent

COUNTERS_EVERY_S = 0.5
"""The links' ``log_interval_s`` of a test that waits for a counter's log line (the default, 10 s,
is a wait of up to 10 s for each line; a line is still logged only when a counter changed)."""


def table_config(tmp_path: Path, urls: dict[str, str], log_interval_s: float | None = None) -> Path:
    """config/mississippi_stud.yaml with the devices on ``urls`` (polled every 0.02 s; their
    counters logged every ``log_interval_s``, None: the default 10 s) and the journal in
    ``tmp_path`` (also imported by test_hil_restart, test_logs and test_hil_ports)."""
    return served_table_config(ROOT, tmp_path, urls, 0.02, log_interval_s)


class Lines:
    """The lines a process writes to a pipe, collected by a thread."""

    def __init__(self, stream) -> None:  # type: ignore[no-untyped-def]
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream) -> None:  # type: ignore[no-untyped-def]
        for line in stream:
            self.lines.append(line.rstrip("\n"))

    def wait_until(self, cond: Callable[[list[str]], bool], what: str, timeout: float = STATE_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if cond(list(self.lines)):
                return
            time.sleep(0.02)
        pytest.fail(f"timed out waiting for {what}; log so far:\n" + "\n".join(self.lines[-30:]))

    def wait(self, match: Callable[[str], bool], what: str, timeout: float = STATE_TIMEOUT_S) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if match(line):
                    return line
            time.sleep(0.02)
        pytest.fail(f"timed out waiting for {what}; log so far:\n" + "\n".join(self.lines[-30:]))


@contextmanager
def tablectl_run(
    config: Path, cwd: Path, *args: str, env: dict[str, str] | None = None
) -> Iterator[tuple[subprocess.Popen[str], Lines]]:
    """``tablectl run --config CONFIG ARGS --allow-unapproved`` as a process in ``cwd`` (``env``
    added to this one's), its log lines collected; stopped (SIGTERM) after. Also imported by
    test_hil_ports."""
    proc = subprocess.Popen(
        tablectl_process("run", "--config", config, *args, "--allow-unapproved"),
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )
    with collected(proc, proc.stderr, proc.terminate) as running:
        yield running


@contextmanager
def collected(
    proc: subprocess.Popen[str], stream: IO[str] | None, stop: Callable[[], object]
) -> Iterator[tuple[subprocess.Popen[str], Lines]]:
    """``proc`` with the lines it writes to ``stream`` (its pipe) collected; after, ``stop`` ends it,
    it is waited for and ``stream`` closed. Also imported by test_hil_ports."""
    assert stream is not None
    try:
        yield proc, Lines(stream)
    finally:
        stop()
        proc.wait(timeout=STATE_TIMEOUT_S)
        stream.close()


@contextmanager
def running_table(
    tmp_path: Path, log_format: str, env: dict[str, str], log_interval_s: float | None = None
) -> Iterator[tuple]:
    sims = {"shoe": ShoeSim(address=1), "bet_spots": BetSpotSim(address=2), "panel": PanelSim(address=3)}
    servers = {role: PtyServer(sim, link=tmp_path / f"tty-{role}") for role, sim in sims.items()}
    urls = {role: server.start() for role, server in servers.items()}
    config = table_config(tmp_path, urls, log_interval_s)
    try:
        with tablectl_run(config, tmp_path, "--log-format", log_format, env=env) as (proc, log):
            yield proc, log, servers, sims
    finally:
        for server in servers.values():
            server.close()


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_run_logs_link_down_and_up_and_counts_garbage(tmp_path: Path, log_format: str) -> None:
    # the counters logged every half second, not every 10 s: the garbage's line comes sooner
    with running_table(tmp_path, log_format, {}, COUNTERS_EVERY_S) as (_, log, servers, _sims):
        if log_format == "json":
            records: list[dict] = []

            def said(text: str, device: str) -> Callable[[str], bool]:
                def match(line: str) -> bool:
                    try:
                        r = json.loads(line)
                    except ValueError:
                        return False
                    records.append(r)
                    return text in r["message"] and r.get("device") == device

                return match
        else:

            def said(text: str, device: str) -> Callable[[str], bool]:
                return lambda line: text in line and device in line

        log.wait(said("link panel up", "panel"), "the panel's link up")
        servers["panel"].disconnect()
        down = log.wait(said("link panel down", "panel"), "the panel's link down")
        assert "WARNING" in down
        servers["panel"].reconnect()
        log.wait_until(lambda lines: sum("link panel up" in line for line in lines) == 2, "the panel's link up again")
        # 1 MB of random bytes on the bet spots' port: counted and named in the log
        servers["bet_spots"].inject(random.Random(1).randbytes(1 << 20))
        line = log.wait(
            lambda s: "link bet_spots" in s and "garbage_bytes" in s and int(_count(s, "garbage_bytes")) > 500_000,
            "the garbage counted in the log",
            timeout=STATE_TIMEOUT_S,
        )
        if log_format == "json":
            assert json.loads(line)["counters"]["garbage_bytes"] > 500_000
        else:  # `tablectl status --config` from here, while the table runs
            out = run_tablectl("status", "--config", tmp_path / "table.yaml", timeout=STATE_TIMEOUT_S, cwd=ROOT)
            assert out.returncode == 0, out.stderr
            assert "panel: link up since" in out.stdout and "bet_spots: link up since" in out.stdout


def _count(line: str, name: str) -> str:
    tail = line.split(name + " ", 1)[1]
    return tail.split(" ", 1)[0].strip(",\"'")


def test_run_tells_systemd_it_is_ready_and_alive(tmp_path: Path) -> None:
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(STATE_TIMEOUT_S)
    got: list[str] = []
    try:
        with running_table(tmp_path, "text", {"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "400000"}) as (
            proc,
            log,
            _,
            _sims,
        ):
            while sum(m.startswith("WATCHDOG=1") for m in got) < 3:
                got.append(sock.recv(4096).decode())
            proc.terminate()
            proc.wait(timeout=STATE_TIMEOUT_S)
            sock.settimeout(5)
            try:
                while True:
                    got.append(sock.recv(4096).decode())
            except TimeoutError:
                pass
    finally:
        sock.close()
    assert got[0].startswith("READY=1") and "STATUS=table" in got[0]
    assert got[-1] == "STOPPING=1"


def test_notifier_abstract_socket_and_without_systemd() -> None:
    name = f"tablectl-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(STATE_TIMEOUT_S)
    try:
        notifier = SystemdNotifier({"NOTIFY_SOCKET": "@" + name, "WATCHDOG_USEC": "2000000"})
        assert notifier.watchdog_s == 2.0 and notifier.ready("x")
        assert sock.recv(100) == b"READY=1\nSTATUS=x"
    finally:
        sock.close()
    assert not SystemdNotifier({}).enabled and not SystemdNotifier({}).watchdog()
    assert SystemdNotifier({"WATCHDOG_USEC": "1000", "WATCHDOG_PID": "1", "NOTIFY_SOCKET": "/x"}).watchdog_s is None


def test_link_stats_round_trip_through_the_journal_decoder() -> None:
    stats = LinkStats(device="panel", up=True, boot_id=0xDEADBEEF, crc_errors=3, garbage_bytes=1000, busy=2)
    kind, data = event_record(stats)
    assert kind == "LinkStats"
    assert decode_event(kind, json.loads(json.dumps(data))) == stats


def test_link_stats_at_each_round_end_and_status_from_another_process(tmp_path: Path) -> None:
    journal = tmp_path / "bench.db"
    bench = subprocess.Popen(
        tablectl_process("bench", "--game", "mississippi_stud", "--seats", "2")
        # no round limit that a fast machine reaches: the test stops it by SIGTERM once status was read
        + ["--rounds", "10000000", "--seed", "3", "--journal", str(journal), "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    try:
        # While the bench runs, `tablectl status` reads its journal from here (read-only).
        deadline = time.monotonic() + STATE_TIMEOUT_S
        status: dict = {}
        while time.monotonic() < deadline:
            if journal.exists():
                out = run_tablectl("status", "--journal", journal, "--json", cwd=ROOT, timeout=STATE_TIMEOUT_S)
                if out.returncode == 0:
                    status = json.loads(out.stdout)
                    if all(status["devices"].get(d, {}).get("counters") for d in ("shoe", "bet_spots", "panel")):
                        break
            time.sleep(0.2)
        assert all(status.get("devices", {}).get(d, {}).get("counters") for d in ("shoe", "bet_spots", "panel")), (
            "status never showed the three devices' counters while the bench ran"
        )
        assert bench.poll() is None, "the bench finished before status was read while it ran"
    finally:
        bench.terminate()  # SIGTERM, as StopSignals handles it: the summary, then 143
        _, err = bench.communicate(timeout=STATE_TIMEOUT_S)
    # stopped by the signal, not failed: the round in play is left open for the next run to finish
    assert bench.returncode == 143, err
    assert "stopped by SIGTERM after" in err.decode() and "Traceback" not in err.decode()
    for device in ("shoe", "bet_spots", "panel"):
        d = status["devices"][device]
        assert d["link"] == "up" and d["counters"]["frames_ok"] > 0 and d["boot_id"]
    # the table as its snapshot file (written beside the journal while it ran) shows it
    table = status["table"]
    assert table is not None and table["game"] == "mississippi_stud" and table["round"] >= 1
    assert table["key_on"] is False and table["step"]
    assert (journal.with_name("bench.snapshot.json").stat().st_mode & 0o777) == 0o600
    text = run_tablectl("status", "--journal", journal, cwd=ROOT, timeout=STATE_TIMEOUT_S)
    assert text.returncode == 0 and "panel: link up since" in text.stdout and "garbage_bytes 0" in text.stdout
    assert "table Mississippi Stud" in text.stdout and "supervisor key off" in text.stdout
    # one LinkStats per device after every round
    import sqlite3

    from controller.journal.stored import read_records

    db = sqlite3.connect(f"{journal.as_uri()}?mode=ro", uri=True)
    kinds = [r.kind for r in read_records(db, checked=False)]  # rows and folded rounds alike
    rounds = db.execute("SELECT count(*) FROM rounds").fetchone()[0]
    db.close()
    assert rounds >= 1 and kinds.count("LinkStats") == 3 * rounds
    bad = run_tablectl("status", "--journal", tmp_path / "none.db", cwd=ROOT, timeout=STATE_TIMEOUT_S)
    assert bad.returncode == 2 and "none.db: no journal there" in bad.stderr and "Traceback" not in bad.stderr
