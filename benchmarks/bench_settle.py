"""``settle_record`` alone, CPU time per round, on the rounds ``bench_table.py`` plays.

Run ``python benchmarks/bench_settle.py [--rounds N] [--passes P] [--tree DIR]``. Each game's
table plays ``N`` of the bench's rounds (``bench_table``'s own event makers, seed 1) after ``N``
other rounds played and settled untimed (seed 2: what both look up on first use is filled), then
``settle_record`` settles the played rounds' records ``P`` times; the best pass is printed. With
``--tree DIR`` the code is imported from ``DIR`` (another checkout: a revision before a change),
so that two revisions are compared by running this file alternately on each, on the same rounds.

Pai gow is measured twice: on ``bench_table``'s rounds (the pai gow wager alone at every seat:
the line reported since the first figures, kept comparable) and on a realistic mix
(:func:`pai_gow_mix_events`: some seats with the bonus, an envy marker or insurance), which reads
every hand's bonus lines and keeps every hand on the layout, as a busy table does.

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


MIX = {1: {"bonus": 100}, 2: {"bonus": 500, "insurance": 100}, 4: {"insurance": 200}, 5: {"bonus": 1000}}
"""The optional wagers of the mixed pai gow rounds, by seat: a bonus, two envy markers (a bonus of
``envy_minimum`` or more), insurance; seats 3 and 6 bet the pai gow wager alone."""


def pai_gow_mix_events(rng: random.Random) -> list[Any]:
    """:func:`bench_table.pai_gow_events` with the optional wagers of :data:`MIX` placed with
    the pai gow wagers (and presses enough for the extra settlement steps)."""
    import bench_table as bt

    events = bt.pai_gow_events(rng)
    extra = [bt.SpotReport(device="spots", seat=s, spot=k, cents=c) for s, w in MIX.items() for k, c in w.items()]
    # 11.15(c): the dealer places an envy marker before a bonus of envy_minimum or more
    extra += [bt.SpotReport(device="spots", seat=s, spot="envy_marker", cents=1) for s in (2, 5)]
    bets = sum(1 for e in events if isinstance(e, bt.SpotReport))
    return [*events[:bets], *extra, *events[bets:], *[bt.press("confirm")] * 16]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=300)
    p.add_argument("--passes", type=int, default=5)
    p.add_argument("--tree", type=Path, default=HERE.parent, help="the checkout whose code is measured")
    p.add_argument("--game", action="append", choices=["mississippi_stud", "boston5", "pai_gow", "pai_gow_mix"])
    args = p.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    import controller  # from --tree, first: bench_table puts this checkout on the path
    from controller.configuration import config_dir, load_table
    from controller.game.record import settle_record

    sys.path.append(str(HERE))
    import bench_table as bt  # the event makers only

    print(f"code from {Path(controller.__file__).parent.parent}")

    makers = {
        "mississippi_stud": bt.mississippi_events,
        "boston5": bt.boston5_events,
        "pai_gow": bt.pai_gow_events,
        "pai_gow_mix": pai_gow_mix_events,
    }
    for game in args.game or ["mississippi_stud", "pai_gow", "pai_gow_mix"]:
        make = makers[game]
        table = load_table(config_dir() / "bench" / f"{game.removesuffix('_mix')}.yaml")
        cls = bt.GAME_TABLES[table.game]
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
        if len(played) != args.rounds:
            raise SystemExit(f"{game}: {len(played)} of {args.rounds} rounds played to their end")
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
