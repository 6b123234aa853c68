"""``settle_record`` alone, CPU time per round, on the rounds ``bench_table.py`` plays.

Run ``python benchmarks/bench_settle.py [--rounds N] [--passes P] [--tree DIR]``. Each game's
table plays ``N`` of the bench's rounds (``bench_table``'s own event makers, seed 1) after ``N``
other rounds played and settled untimed (seed 2: what both look up on first use is filled), then
``settle_record`` settles the played rounds' records ``P`` times; the best pass is printed. With
``--tree DIR`` the code is imported from ``DIR`` (another checkout: a revision before a change),
so that two revisions are compared by running this file alternately on each, on the same rounds.

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=300)
    p.add_argument("--passes", type=int, default=5)
    p.add_argument("--tree", type=Path, default=HERE.parent, help="the checkout whose code is measured")
    p.add_argument("--game", action="append", choices=["mississippi_stud", "boston5", "pai_gow"])
    args = p.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    import controller  # from --tree, first: bench_table puts this checkout on the path
    from controller.configuration import config_dir, load_table
    from controller.game.record import settle_record

    sys.path.append(str(HERE))
    import bench_table as bt  # the event makers only

    print(f"code from {Path(controller.__file__).parent.parent}")

    makers = {"mississippi_stud": bt.mississippi_events, "boston5": bt.boston5_events, "pai_gow": bt.pai_gow_events}
    for game in args.game or ["mississippi_stud", "pai_gow"]:
        make = makers[game]
        table = load_table(config_dir() / "bench" / f"{game}.yaml")
        cls = bt.GAME_TABLES[game]
        bt.warm_up(cls, table, make, args.rounds)
        played: list[Any] = []
        model = cls(table, bt.RecordingDevices(), on_round=played.append)
        engine = bt.Engine(model.handle)
        model.open_table()
        rng = random.Random(1)
        for _ in range(args.rounds):
            for event in make(rng):
                engine.step(event)
            while model.phase.value == "count_stub":
                engine.step(bt.ShoeStatus(device="shoe", stub_count=model.stub.expected, deck_size=model.DECK))
        records = [r.record for r in played]
        best = float("inf")
        for _ in range(args.passes):
            start = time.process_time()
            for record in records:
                settle_record(record, table)
            best = min(best, (time.process_time() - start) / len(records))
        print(f"{game:<18} settle_record {best * 1000:.3f} ms per round ({len(records)} rounds, best of {args.passes})")


if __name__ == "__main__":
    main()
