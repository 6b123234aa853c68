"""Simulate the pai gow main wager (house way against house way) for ``controller/par/_pai_gow_data.py``.

``python benchmarks/par_pai_gow_main.py --way foxwoods --rounds 1700000 --seed 14 --chunk 50000``
prints a JSON line of cumulative counts after each chunk (so a long run can be stopped and
its last line used). Seven hands of seven per round: the dealer and six players.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.par.pai_gow_main import main_edge, simulate_main


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--way", default="foxwoods")
    p.add_argument("--rounds", type=int, default=1_700_000)
    p.add_argument("--seed", type=int, default=14)
    p.add_argument("--chunk", type=int, default=50_000)
    args = p.parse_args()
    total = None
    start = time.process_time()
    done = 0
    while done < args.rounds:
        n = min(args.chunk, args.rounds - done)
        counts = simulate_main(args.way, n, seed=args.seed * 1_000_003 + done)
        total = counts if total is None else total + counts
        done += n
        edge, _, interval = main_edge(total, 5)
        line = {"way": args.way, "seed": args.seed, "chunk": args.chunk, **asdict(total)}
        line["cpu_s"] = round(time.process_time() - start, 1)
        line["edge_5pct"] = edge
        line["interval95"] = interval
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
