"""CPU of one idle link's exchange in process: a POLL answered by an ACK, side by side for checkouts.

``python benchmarks/bench_idle_exchange.py [--code OTHER_CHECKOUT ...] [--seconds S] [--runs N]``

One :class:`~drivers.protocol.LinkProtocol` and a :class:`~hil.devices.PanelSim` joined by a
:class:`~hil.wire.SimWire` as ``tablectl simulate`` joins them (frames looked up in process,
replies fed whole, the link's pace turned before each step and stirred at each tick, as at a
busy table: a POLL every 50 ms), run every 25 ms of simulated time for ``S`` seconds: the
exchange most of a simulated round's link work is (issue 41 item 6). Each checkout (this one
first, then each ``--code``) runs in its own process, all of them in turn ``N`` times, so that
they meet the same load; printed: CPU microseconds a reply (``time.process_time``, the least of
the runs and the median) and the replies. It asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

_CHILD = """
import json, random, sys, time
sys.path.insert(0, sys.argv[1])
from drivers.framing import in_process
from drivers.link_pace import LinkPace
from drivers.protocol import LinkProtocol
from hil.devices import PanelSim
from hil.wire import Line, SimWire

seconds = float(sys.argv[2])
with in_process():
    clock = [0.0]
    device = PanelSim(address=3)
    device.clock = lambda: clock[0]
    protocol = LinkProtocol("panel", 3)
    pace = LinkPace(protocol)
    pace.start(0.0)
    wire = SimWire(protocol, device, random.Random(1), Line(), deliver=lambda _: None, whole=True, pace=pace)
    start = time.process_time()
    for i in range(1, int(seconds / 0.025) + 1):
        t = clock[0] = i * 0.025
        pace.stir(t)
        wire.run(t)
    cpu = time.process_time() - start
print(json.dumps([cpu, protocol.stats.frames_ok]))
"""


def _once(code: Path, seconds: float) -> tuple[float, int]:
    """CPU seconds and replies of one run of ``code``'s link, in a process of its own."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(code), str(seconds)], check=True, capture_output=True, text=True
    ).stdout
    cpu, replies = json.loads(out)
    return float(cpu), int(replies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, action="append", default=[], help="another checkout, side by side")
    parser.add_argument("--seconds", type=float, default=100.0, help="simulated seconds a run (default: 100)")
    parser.add_argument("--runs", type=int, default=7, help="runs of each checkout, in turn (default: 7)")
    args = parser.parse_args()
    codes = [HERE, *(path.resolve() for path in args.code)]
    per_reply: dict[Path, list[float]] = {code: [] for code in codes}
    replies: dict[Path, int] = {}
    for _ in range(args.runs):
        for code in codes:
            cpu, replies[code] = _once(code, args.seconds)
            per_reply[code].append(1e6 * cpu / max(1, replies[code]))
    print(f"one idle link in process, {args.seconds:g} simulated s a run, {args.runs} runs each in turn")
    print("| checkout | replies | us of CPU a reply, least | median |")
    print("|---|---|---|---|")
    for code in codes:
        values = per_reply[code]
        print(f"| {code} | {replies[code]} | {min(values):.1f} | {statistics.median(values):.1f} |")


if __name__ == "__main__":
    main()
