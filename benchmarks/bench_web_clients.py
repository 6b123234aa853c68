"""Whether browsers slow the table: ``tablectl bench --web`` with no event-stream client and with
many, side by side in one run (issue 23: rounds/s with 200 clients at >= 0.9x of none).

Run ``python benchmarks/bench_web_clients.py [--clients 200] [--stuck 20] [--rounds 40] [--pairs 3]``.
Each pair runs the same bench (``--game``, ``--rounds``, ``--seed``, a fresh journal) twice, once
with no client and once with ``--clients`` clients on ``/events`` (``--stuck`` of them never read
a byte: their socket buffers fill and stay full), alternating which goes first. The clients are
plain sockets in this process (one selector thread reading and discarding), connected as soon as
the bench's view listens (its first round is already under way; they are all connected well within
the first round). The bench's own rounds/s is taken from its summary, and its CPU time (user +
system, ``wait4``'s rusage of the bench process) beside it, since the machine may be shared.

Prints figures (and the load average); asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Clients:
    """``n`` event-stream clients on one selector thread; ``stuck`` of them never read."""

    def __init__(self, port: int, n: int, stuck: int) -> None:
        self.port, self.n, self.stuck = port, n, stuck
        self.socks: list[socket.socket] = []
        self.views = 0
        self.bytes = 0
        self._stop = threading.Event()
        self._sel = selectors.DefaultSelector()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def connect(self) -> None:
        request = f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nAccept: text/event-stream\r\n\r\n".encode()
        for i in range(self.n):
            # 50 clients an address (127.0.0.2, .3, ...): each address holds at most 64
            # connections of the view (controller.web.server.ClientBudget), as browsers on many
            # machines would
            source = (f"127.0.0.{2 + i // 50}", 0)
            s = socket.create_connection(("127.0.0.1", self.port), timeout=30, source_address=source)
            if i < self.stuck:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(request)
            self.socks.append(s)
            if i >= self.stuck:
                s.setblocking(False)
                self._sel.register(s, selectors.EVENT_READ)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._sel.select(0.2):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    data = sock.recv(262144)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    self._sel.unregister(sock)
                    continue
                self.bytes += len(data)
                self.views += data.count(b"event: view")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        for s in self.socks:
            s.close()


@dataclass(frozen=True)
class Run:
    clients: int
    rounds: int
    seconds: float
    rate: float
    cpu: float
    views: int


def run_bench(game: str, rounds: int, seed: int, clients: int, stuck: int) -> Run:
    """One bench run with ``clients`` event-stream clients (connected before it deals)."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        err = Path(tmp) / "bench.err"
        cmd = [sys.executable, "-m", "controller", "bench", "--game", game, "--quiet", "--rounds", str(rounds)]
        cmd += ["--seed", str(seed), "--web", f"127.0.0.1:{port}", "--journal", str(Path(tmp) / f"{game}.db")]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.pop("TABLECTL_WEB_TOKEN", None)
        with err.open("w") as err_file:
            proc = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=err_file, env=env)
        pool = Clients(port, clients, stuck)
        try:
            deadline = time.monotonic() + 60
            while "web: table view on" not in err.read_text():
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the bench did not serve its view: {err.read_text()}")
                time.sleep(0.01)
            pool.connect()
            assert proc.stdout is not None
            out = proc.stdout.read().decode()
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
        finally:
            pool.close()
        m = re.search(r"rounds\s+(\d+) in ([\d.]+) s \(([\d.]+)/s\)", out)
        if m is None:
            raise RuntimeError(f"no summary from the bench (exit {proc.returncode}): {out}\n{err.read_text()}")
        rounds, seconds = int(m.group(1)), float(m.group(2))  # the summary's own rate has one decimal only
        return Run(clients, rounds, seconds, rounds / seconds, usage.ru_utime + usage.ru_stime, pool.views)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--game", default="mississippi_stud")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--stuck", type=int, default=20, help="how many of the clients never read")
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    runs: list[tuple[Run, Run]] = []
    for pair in range(args.pairs):
        order = (0, args.clients) if pair % 2 == 0 else (args.clients, 0)
        done = {n: run_bench(args.game, args.rounds, args.seed, n, args.stuck if n else 0) for n in order}
        none, many = done[0], done[args.clients]
        runs.append((none, many))
        for r in (none, many) if order[0] == 0 else (many, none):
            print(
                f"pair {pair + 1}: {r.clients:4d} clients: {r.rounds} rounds in {r.seconds:6.1f} s, "
                f"{r.rate:.2f} rounds/s, bench CPU {r.cpu:6.1f} s ({r.cpu / r.rounds * 1000:.0f} ms/round), "
                f"{r.views} views received"
            )
        print(f"pair {pair + 1}: rounds/s ratio {many.rate / none.rate:.2f}x, CPU ratio {many.cpu / none.cpu:.2f}x")
    rate = sum(m.rate for _, m in runs) / sum(n.rate for n, _ in runs)
    cpu = sum(m.cpu for _, m in runs) / sum(n.cpu for n, _ in runs)
    print(
        f"all pairs: {args.clients} clients ({args.stuck} never reading) against none: rounds/s {rate:.2f}x, CPU {cpu:.2f}x"
    )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
