"""The table's path for the events that change little: CPU per event through ``Engine.step``.

Run ``python benchmarks/bench_event_path.py [--events N]`` from a checkout; run it in two checkouts
one after the other to compare revisions. For a bench table of pai gow and of Mississippi Stud, opened
for its first round (the devices replaced by ``RecordingDevices``, the journal in memory), it steps
``N`` events of one kind at a time and prints the CPU microseconds per event (process time, the
best of 5 runs, since the machine is shared):

* a spot report while betting (a chip placed and taken off again, seat after seat);
* a press let go (journaled; it changes nothing);
* a device's reply to a command (journaled; the table does not act on it).

What is measured is the engine's record and the round's dispatch, the bet board and the wagers
(and the screen shown again where it did not change): the path of :meth:`RoundTable.handle`.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.configuration import config_dir, load_table
from controller.table.devices import RecordingDevices
from controller.table.engine import Engine
from controller.table.game_tables import GAME_TABLES
from controller.table.runtime import freeze_start_up
from drivers.bet_spots import SpotReport
from drivers.link_events import CommandResult
from drivers.panel import ButtonChanged

MAIN = {"pai_gow": "pai_gow", "mississippi_stud": "ante"}
"""Each game measured, with its main wager's spot."""


def events_of(spot: str, n: int) -> dict[str, list[object]]:
    """``n`` events of each kind measured."""
    return {
        "spot report (betting)": [
            SpotReport(device="spots", seat=1 + i % 6, spot=spot, cents=1000 * (i % 2)) for i in range(n)
        ],
        "press let go": [ButtonChanged(device="panel", button="next", pressed=False) for _ in range(n)],
        "reply to a command": [CommandResult(device="panel", command="lamp", status=0) for _ in range(n)],
    }


def per_event_us(engine: Engine, events: Sequence[object], runs: int = 5) -> float:
    """The best of ``runs``: CPU microseconds per event stepped."""
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        for event in events:
            engine.step(event)
        best = min(best, (time.process_time() - start) / len(events) * 1e6)
    return best


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--events", type=int, default=40_000, help="events of each kind a run (default 40,000)")
    args = parser.parse_args(argv)
    print(f"{'CPU per event, best of 5':<48} {'us':>6}")
    for game, spot in MAIN.items():
        table = load_table(config_dir() / "bench" / f"{game}.yaml")
        model = GAME_TABLES[game](table, RecordingDevices(), on_round=lambda result: None)
        engine = Engine(model.handle)
        model.open_table()
        freeze_start_up()
        for kind, events in events_of(spot, args.events).items():
            print(f"{game + ': ' + kind:<48} {per_event_us(engine, events):>6.2f}")


if __name__ == "__main__":
    main()
