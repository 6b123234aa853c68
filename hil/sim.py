"""``python -m hil.sim KIND [--pty | --socket]``: run one simulated device on its own.

Prints the path (or URL) it serves on the first line, so a bench engineer can point a real
controller or a terminal at it, then serves until interrupted. ``--script`` plays a scenario
(hil/scenario.py) against it; ``--cards`` loads a shoe; ``--state`` keeps its events and
numbering in a file across runs; fault options inject link faults.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from controller.configuration import ConfigError
from controller.host import Wakeup
from hil.devices import SIMULATORS, ShoeSim
from hil.faults import Faults
from hil.scenario import load_scenario
from hil.serve import PtyServer, SocketServer

__all__ = ["main"]

_ADDRESSES = {"shoe": 1, "bet_spots": 2, "panel": 3}


def main(argv: list[str] | None = None) -> int:
    """Run a simulator until SIGINT or SIGTERM; returns the exit status."""
    p = argparse.ArgumentParser(prog="python -m hil.sim", description=__doc__.splitlines()[0])
    p.add_argument("kind", choices=sorted(SIMULATORS))
    where = p.add_mutually_exclusive_group()
    where.add_argument("--pty", action="store_true", help="serve on a new pty (the default)")
    where.add_argument("--socket", action="store_true", help="serve on socket://127.0.0.1:PORT")
    p.add_argument("--link", type=Path, help="also make this symlink to the pty")
    p.add_argument("--address", type=int, help="device address (default: shoe 1, bet_spots 2, panel 3)")
    p.add_argument("--state", type=Path, help="state file for events and numbering")
    p.add_argument("--cards", default="", help='shoe card order, e.g. "As Kd Qh"')
    p.add_argument("--script", type=Path, help="a scenario YAML file to play once serving")
    for fault in ("flip", "drop", "drop_in", "duplicate", "split", "garbage"):
        p.add_argument(
            f"--{fault.replace('_', '-')}",
            type=float,
            default=0.0,
            metavar="P",
            help=f"probability of {fault} per frame",
        )
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    address = args.address or _ADDRESSES[args.kind]
    cls = SIMULATORS[args.kind]
    device = (
        cls(cards=args.cards.split(), address=address, state_file=args.state)
        if cls is ShoeSim
        else cls(address=address, state_file=args.state)
    )
    faults = Faults(args.flip, args.drop, args.drop_in, args.duplicate, args.split, args.garbage, seed=args.seed)
    scenario = None
    if args.script:
        try:
            scenario = load_scenario(args.script, {args.kind: args.kind})
        except ConfigError as exc:
            print(f"python -m hil.sim: {exc}", file=sys.stderr)
            return 2
    server = SocketServer(device, faults) if args.socket else PtyServer(device, faults, args.link)
    with Wakeup() as done:  # set by SIGTERM or SIGINT on whichever thread takes it (the server's too)
        done.on_signals(signal.SIGTERM, signal.SIGINT)
        try:
            print(server.start(), flush=True)
            if scenario is not None:
                scenario.run({args.kind: device})
            done.wait()
        finally:
            server.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
