"""HIL, issue 21 item 4: ports over real ptys. A port is opened exclusively (a second opener, in
another process, is told ``port X is in use by another process``); a port that will not open says
why, once per reason (not on every retry); ``tablectl status`` says ``never connected: REASON``.

What the exclusive open proves, and what it does not: pyserial's ``exclusive=True`` takes a POSIX
``flock`` on the port. Between two openers that both lock (two controllers, ``tablectl run`` and
``python -m hil.sim``'s clients, pyserial's miniterm with ``--exclusive``) the second is refused, as
the tests below show with two processes on one pty. The lock is advisory: a program that opens the
port without ``flock`` is not kept out, and the last test shows that too, so nobody reads more into
the first ones than they prove.
"""

from __future__ import annotations

import errno
import os
import queue
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest
import serial
from cli_helpers import run_tablectl
from deadlines import STATE_TIMEOUT_S
from hil_helpers import of, wait_for
from test_hil_devices_visibility import Lines, collected
from test_hil_link import FAST as HIL_FAST

from drivers.link import DeviceFault, LinkUp
from drivers.registry import driver_class
from drivers.transport import PortOpenError, Transport, open_reason
from hil.devices import ShoeSim
from hil.serve import PtyServer

ROOT = Path(__file__).resolve().parent.parent

FAST = replace(HIL_FAST, reconnect_min_s=0.02, reconnect_max_s=0.05)
"""The HIL links' timing, reconnecting sooner: a port refused again and again is retried often."""

OPEN_AND_REPORT = """
import sys
from drivers.transport import PortOpenError, Transport
try:
    port = Transport(sys.argv[1])
except PortOpenError as exc:
    print(exc.reason, flush=True)
    sys.exit(3)
print("opened", flush=True)
sys.stdin.read()  # hold the port until the test closes our stdin
"""


@contextmanager
def other_process(path: str | Path) -> Iterator[tuple[subprocess.Popen[str], Lines]]:
    """A second process that opens ``path`` as the controller does (exclusively) and holds it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", OPEN_AND_REPORT, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdin is not None
    with collected(proc, proc.stdout, proc.stdin.close) as running:
        yield running


def wait_until(cond: Callable[[], bool], what: str, timeout: float = STATE_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.01)
    pytest.fail(f"timed out waiting for {what}")


def test_a_second_process_is_refused_the_port_the_driver_holds() -> None:
    q: queue.Queue = queue.Queue()
    with PtyServer(ShoeSim(["As"])) as server:
        with driver_class("shoe")("shoe", server.path, q, config=FAST):
            wait_for(q, of(LinkUp))
            with other_process(server.path) as (proc, out):
                assert proc.wait(timeout=STATE_TIMEOUT_S) == 3
                out.wait(lambda line: line == f"port {server.path} is in use by another process", "the refusal")
        # the driver closed the port: the lock went with it, and the other process opens it
        with other_process(server.path) as (_, out):
            out.wait(lambda line: line == "opened", "the port opened once the driver let it go")


def test_the_driver_is_refused_a_port_another_process_holds_and_says_why_once_per_reason(tmp_path: Path) -> None:
    port = tmp_path / "tty-shoe"  # the config's path: first it does not exist
    q: queue.Queue = queue.Queue()
    sim = ShoeSim(["As"])
    with driver_class("shoe")("shoe", str(port), q, config=FAST) as shoe:
        (missing,) = [e for e in wait_for(q, of(DeviceFault)) if isinstance(e, DeviceFault)]
        assert missing.kind == "open_failed"
        assert missing.error.startswith(f"cannot open port {port}: No such file or directory")
        wait_until(lambda: shoe.stats.reconnects >= 10, "ten retries")
        with PtyServer(sim, link=tmp_path / "tty-real") as server:
            with other_process(server.link or "") as (_, out):
                out.wait(lambda line: line == "opened", "the other process holding the port")
                port.symlink_to(tmp_path / "tty-real")  # now the path opens, but another process holds it
                seen = wait_for(q, of(DeviceFault))
                busy = seen[-1]
                assert busy.kind == "open_failed"
                assert busy.error.startswith(f"port {port} is in use by another process")
                retries = shoe.stats.reconnects
                wait_until(lambda: shoe.stats.reconnects >= retries + 10, "ten more retries")
            # the other process let go: the driver opens the port and the device answers
            events = wait_for(q, of(LinkUp))
    faults = [e for e in seen + events if isinstance(e, DeviceFault)]
    assert faults == [busy], "each reason reported once, not on every retry"


def test_a_port_that_opens_but_never_answers_says_so_once(tmp_path: Path) -> None:
    q: queue.Queue = queue.Queue()
    master, slave = os.openpty()  # a pty nobody answers on
    try:
        path = os.ttyname(slave)
        with driver_class("shoe")("shoe", path, q, config=FAST) as shoe:
            (fault,) = [e for e in wait_for(q, of(DeviceFault)) if isinstance(e, DeviceFault)]
            assert fault.kind == "no_answer"
            assert fault.error.startswith(f"port {path} opened but the device does not answer")
            wait_until(lambda: shoe.stats.reconnects >= 3, "three more openings")
        assert not any(isinstance(e, DeviceFault) for e in list(q.queue))
    finally:
        os.close(master)
        os.close(slave)


def test_the_os_reason_in_words() -> None:
    # Root opens any file, so a refused permission is made here the way pyserial reports it.
    refused = serial.SerialException(errno.EACCES, "could not open port /dev/ttyUSB0: [Errno 13] Permission denied")
    assert open_reason(refused, "/dev/ttyUSB0") == "Permission denied: is the user in the dialout group?"
    locked = serial.SerialException(errno.EWOULDBLOCK, "Could not exclusively lock port /dev/ttyUSB0: [Errno 11]")
    assert open_reason(locked, "/dev/ttyUSB0") == "port /dev/ttyUSB0 is in use by another process"
    with pytest.raises(PortOpenError) as info:
        Transport(str(Path("/nonexistent") / "ttyUSB0"))
    assert info.value.reason == "No such file or directory"


def test_the_lock_is_advisory_an_opener_without_flock_is_not_kept_out() -> None:
    with PtyServer(ShoeSim(["As"])) as server:
        held = Transport(server.path)
        try:
            fd = os.open(server.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)  # no flock: let in
            os.close(fd)
            with pytest.raises(PortOpenError, match="is in use by another process"):
                Transport(server.path)  # a second locking opener, even in this process, is refused
        finally:
            held.close()


def test_run_without_its_devices_logs_each_reason_once_and_status_says_never_connected(tmp_path: Path) -> None:
    from test_hil_devices_visibility import COUNTERS_EVERY_S, table_config, tablectl_run

    urls = {role: str(tmp_path / f"no-{role}") for role in ("shoe", "bet_spots", "panel")}
    config = table_config(tmp_path, urls, COUNTERS_EVERY_S)
    with tablectl_run(config, tmp_path) as (_, log):
        # the counter line (rate-limited, here every half second) shows the retries going on
        log.wait(
            lambda s: "link shoe" in s and "reconnects" in s and int(s.split("reconnects ")[1].split(" ")[0]) >= 3,
            "the shoe's reconnect counter",
            timeout=STATE_TIMEOUT_S,
        )
        status = run_tablectl("status", "--config", config, timeout=STATE_TIMEOUT_S, cwd=ROOT)
    for role, url in urls.items():
        said = [  # the hold's own lines (tablectl.table) name it too: each hold and change of reason
            line
            for line in log.lines
            if f"cannot open port {url}: No such file or directory" in line and " tablectl.table: " not in line
        ]
        assert len(said) == 1, (role, log.lines[-20:])
    assert status.returncode == 0, status.stderr
    for role, url in urls.items():
        assert f"{role}: never connected: cannot open port {url}: No such file or directory" in status.stdout
    assert "no link records yet" not in status.stdout
