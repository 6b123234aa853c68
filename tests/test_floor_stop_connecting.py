"""``tablectl floor ingest`` stops on SIGTERM (systemd's stop) and SIGINT while it is still connecting:
nats-py's connect retries for ever while reconnects are allowed, so a signal that only set a flag
was never acted on and the service hung until systemd killed it. Here the broker and the floor
database are both unreachable (a loopback port nothing listens on, each): the ingest says it is
connecting, takes the signal, says what it was doing, and exits 0."""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
from typing import IO

import pytest
from deadlines import STATE_TIMEOUT_S

from controller.floor.servers import free_port


def _lines(stream: IO[str], out: queue.Queue[str]) -> None:
    for line in stream:
        out.put(line)
    out.put("")  # the end


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_ingest_stops_on_a_signal_while_connecting_to_an_unreachable_broker(sig: signal.Signals) -> None:
    nats_url, db = f"nats://127.0.0.1:{free_port()}", f"postgresql://floor@127.0.0.1:{free_port()}/floor"
    ingest = subprocess.Popen(
        [sys.executable, "-m", "controller", "floor", "ingest", "--nats", nats_url, "--db", db],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert ingest.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_lines, args=(ingest.stdout, lines), daemon=True).start()
    said: list[str] = []
    try:
        while not any("connecting to NATS" in line for line in said):
            said.append(lines.get(timeout=STATE_TIMEOUT_S))
            assert said[-1], f"the ingest ended before connecting: {''.join(said)}"
        ingest.send_signal(sig)
        assert ingest.wait(timeout=30) == 0, "".join(said)
    finally:
        if ingest.poll() is None:
            ingest.kill()
            ingest.wait()
    while line := lines.get(timeout=STATE_TIMEOUT_S):
        said.append(line)
    text = "".join(said)
    assert f"stopped by {sig.name} while connecting to NATS" in text, text
    assert "Traceback" not in text and "connection lost" not in text, text
