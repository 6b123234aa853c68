"""What an idle table costs: CPU and wake-ups of a table with no round in play.

Run ``python benchmarks/bench_idle.py [--seconds N] [--settle S] [--source DIR] [--table T]``. It
starts, one after the other, three idle tables (or those named by ``--table``), lets each settle
``S`` seconds (default 10: the links up, the table open, and 5 s of nothing, after which an idle
table's links poll every 200 ms, docs/protocol.md section 4.1), then measures ``N`` seconds
(default 20) of doing nothing:

- ``tablectl run`` with the shipped config/mississippi_stud.yaml (its devices polled every 50 ms,
  200 ms once idle, as docs/protocol.md says) on three simulators, each in a process of its own
  (``python -m hil.sim KIND --link PATH``), as a real table's devices are boxes of their own: the
  controller's process alone is what the table's computer spends;
- ``tablectl bench --manual --view-socket PATH``: the bench's simulators are threads of the
  controller's process (nothing connects to the view's socket);
- ``tablectl bench --manual --web 127.0.0.1:PORT``: the same with the view's own process.

For each: the CPU time (user + system) of the controller's process, and of its whole process tree
(the web view's process too), as a percentage of one core, beside the target of 1%; the
simulators' processes apart (``run``); the context switches of all the tree's threads
(``voluntary_ctxt_switches`` + ``nonvoluntary_ctxt_switches`` in ``/proc/PID/task/TID/status``)
per second, each voluntary one a thread going to sleep, so about how often threads wake; and the
busiest thread's.

``--source DIR`` runs the ``controller`` of another checkout (its ``PYTHONPATH``); ``--before DIR``
measures that checkout's table right before this one's, table by table, in the same run: the
figures before a change beside those after it at the same load. Wake-ups per second (the
voluntary context switches: each a thread going to sleep, so woken again) depend on the code,
not on the machine's load; the CPU figure and the other switches (preemptions) grow with it.

The load average before and after is printed beside the figures: every wake-up of an idle thread
costs more on a machine whose caches other processes keep filling.

Linux only (``/proc``). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from hil.serve import served_table_config

ROOT = Path(__file__).resolve().parent.parent
TARGET_PERCENT = 1.0
"""An idle table uses at most 1% of one core (issue 45, item 7)."""

TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Sample:
    """What the processes had used at one moment."""

    at: float
    controller_cpu_s: float
    tree_cpu_s: float
    switches: int
    wakeups: int
    per_thread: dict[tuple[int, int], int]


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (every thread, living or gone)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14 and 15)


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _tree(pid: int) -> list[int]:
    """``pid`` and every process under it."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            todo += _children(p)
        except OSError:
            continue
    return out


def _switches(pid: int) -> dict[tuple[int, int], tuple[int, int]]:
    """Context switches of each thread of ``pid``, by (pid, tid): (voluntary, nonvoluntary)."""
    out: dict[tuple[int, int], tuple[int, int]] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            lines = (task / "status").read_text().splitlines()
        except OSError:
            continue
        counts = {line.split(":")[0]: int(line.split()[1]) for line in lines if "ctxt_switches" in line}
        out[(pid, int(task.name))] = (counts["voluntary_ctxt_switches"], counts["nonvoluntary_ctxt_switches"])
    return out


def _sample(pid: int) -> Sample:
    tree = _tree(pid)
    both: dict[tuple[int, int], tuple[int, int]] = {}
    cpu = 0.0
    for p in tree:
        try:
            cpu += _cpu_s(p)
            both.update(_switches(p))
        except OSError:
            continue
    per_thread = {key: sum(n) for key, n in both.items()}
    wakeups = sum(n[0] for n in both.values())
    return Sample(time.monotonic(), _cpu_s(pid), cpu, sum(per_thread.values()), wakeups, per_thread)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def measure(mode: str, seconds: float, settle: float, source: Path | None) -> dict[str, float]:
    """Start an idle table (``mode``: ``bench``, ``bench-web`` or ``run``), measure ``seconds``."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source)
    where = source or ROOT
    sims: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="bench-idle-") as tmp:
        folder = Path(tmp)
        argv = [sys.executable, "-m", "controller"]
        if mode == "run":  # the simulators in processes of their own, as devices are boxes of their own
            urls: dict[str, str] = {}
            for role in ("shoe", "bet_spots", "panel"):
                link = folder / f"tty-{role}"
                sims.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "hil.sim", role, "--link", str(link)],
                        cwd=where,
                        env=env,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL,
                    )
                )
                assert sims[-1].stdout is not None
                sims[-1].stdout.readline()  # serving
                urls[role] = str(link)
            argv += ["run", "--config", str(served_table_config(where, folder, urls, 0.05)), "--allow-unapproved"]
        else:
            argv += ["bench", "--manual", "--quiet", "--rounds", "1", "--journal", str(folder / "idle.db")]
            if mode == "bench-web":
                argv += ["--web", f"127.0.0.1:{_free_port()}"]
            else:  # --manual needs something to drive it: the view's socket, with no web process on it
                argv += ["--view-socket", str(folder / "view.sock")]
        proc = subprocess.Popen(
            argv, cwd=where, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        try:
            time.sleep(settle)  # the links come up, the table opens (a benchmark may sleep)
            if proc.poll() is not None:
                raise SystemExit(f"bench_idle: the table exited early ({proc.returncode}): {' '.join(argv)}")
            first = _sample(proc.pid)
            sims_first = sum(_cpu_s(s.pid) for s in sims)
            time.sleep(seconds)
            last = _sample(proc.pid)
            sims_last = sum(_cpu_s(s.pid) for s in sims)
        finally:
            _stop(proc)
            for sim in sims:
                _stop(sim)
    span = last.at - first.at
    busiest = max(
        (n - first.per_thread.get(key, 0) for key, n in last.per_thread.items()),
        default=0,
    )
    return {
        "controller": 100 * (last.controller_cpu_s - first.controller_cpu_s) / span,
        "tree": 100 * (last.tree_cpu_s - first.tree_cpu_s) / span,
        "sims": 100 * (sims_last - sims_first) / span,
        "switches": (last.switches - first.switches) / span,
        "wakeups": (last.wakeups - first.wakeups) / span,
        "busiest": busiest / span,
        "threads": len(last.per_thread),
    }


MODES = {
    "run": "`tablectl run` (shipped config, 50 ms polls; simulators in processes of their own)",
    "bench": "`tablectl bench --manual --view-socket` (simulators in the process)",
    "bench-web": "`tablectl bench --manual --web` (simulators in the process, the view's process)",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds measured (default 20)")
    parser.add_argument(
        "--settle",
        type=float,
        default=10.0,
        help="seconds to let the table open and go idle first (default 10: its links poll slower after 5 s of nothing)",
    )
    parser.add_argument(
        "--table", choices=list(MODES), action="append", help="measure only this table (repeatable; default: all)"
    )
    parser.add_argument("--source", type=Path, help="run the controller of this checkout instead")
    parser.add_argument(
        "--before", type=Path, help="also run the controller of this checkout, each table right before this one's"
    )
    args = parser.parse_args()
    print(f"idle tables, {args.seconds:g} s measured after {args.settle:g} s to settle")
    print(f"load average before: {_load()}")
    print()
    print(
        "| table | tree | controller process, % of a core | its process tree | target | simulators' processes "
        "| wake-ups/s (voluntary switches, all threads) | switches/s (all threads) | busiest thread, switches/s "
        "| threads | load average (1 min) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    trees: list[tuple[str, Path | None]] = [("this", args.source)]
    if args.before is not None:
        trees.insert(0, ("before", args.before))
    for mode, name in MODES.items():
        if args.table and mode not in args.table:
            continue
        for label, source in trees:
            r = measure(mode, args.seconds, args.settle, source)
            verdict = "met" if r["tree"] <= TARGET_PERCENT else "NOT met"
            sims = f"{r['sims']:.2f}%" if mode == "run" else "(in the process)"
            print(
                f"| {name} | {label} | {r['controller']:.2f}% | {r['tree']:.2f}% | <= {TARGET_PERCENT:g}% ({verdict}) "
                f"| {sims} | {r['wakeups']:.0f} | {r['switches']:.0f} | {r['busiest']:.0f} | {r['threads']:.0f} "
                f"| {os.getloadavg()[0]:.1f} |",
                flush=True,
            )
    print()
    print(f"load average after: {_load()}")
    return 0


def _load() -> str:
    return f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} cores)"


if __name__ == "__main__":
    sys.exit(main())
