"""Where a soak round's CPU goes: the table handling the events (``Engine.step``), the snapshots
and hands the players read (built on demand), and the rest (the players, the fake devices, the
soak's own loop). Each part timed with ``time.process_time`` around its calls over
``play_chunk``, after a warm chunk; run it from a tree with ``PYTHONPATH`` at that tree to
measure that tree's code (docs/benchmarks.md, "The soak's own part of a round").

    PYTHONPATH=. python benchmarks/bench_soak_parts.py --game mississippi_stud --chunks 5
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import controller.table.latest as latest
from controller.configuration import config_dir
from controller.table.engine import Engine
from hil.soak import CHUNK, ChunkJob, play_chunk

PARTS = ("step", "snapshots", "hands")


def timed(owner: Any, name: str, part: str, cpu: dict[str, float], calls: dict[str, int]) -> None:
    """Wrap ``owner.name`` to add its CPU seconds and calls to ``part``."""
    inner: Callable[..., Any] = getattr(owner, name)
    clock = time.process_time

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = clock()
        try:
            return inner(*args, **kwargs)
        finally:
            cpu[part] += clock() - start
            calls[part] += 1

    setattr(owner, name, wrapper)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="mississippi_stud")
    parser.add_argument("--chunks", type=int, default=5, help=f"chunks of {CHUNK} rounds timed")
    args = parser.parse_args()
    config = str((config_dir() / "bench" / f"{args.game}.yaml").resolve())
    cpu = dict.fromkeys(PARTS, 0.0)
    calls = dict.fromkeys(PARTS, 0)
    timed(Engine, "step", "step", cpu, calls)
    timed(latest, "build_snapshot", "snapshots", cpu, calls)
    timed(latest, "build_hands", "hands", cpu, calls)
    play_chunk(ChunkJob(config, 6, 1, 0, 20, 0, 0))  # warm: the config, the hand tables
    cpu.update(dict.fromkeys(PARTS, 0.0))
    calls.update(dict.fromkeys(PARTS, 0))
    start = time.process_time()
    for i in range(args.chunks):
        play_chunk(ChunkJob(config, 6, 1, i + 1, CHUNK, i * CHUNK, 0))
    rounds = args.chunks * CHUNK
    total = (time.process_time() - start) * 1000 / rounds
    ms = {part: cpu[part] * 1000 / rounds for part in PARTS}
    print(
        f"{args.game} ({Path(config).name}), {rounds} rounds: {total:.3f} ms CPU a round; "
        f"the table's step {ms['step']:.3f}; snapshots {ms['snapshots']:.3f} ({calls['snapshots'] / rounds:.1f} a round); "
        f"hands {ms['hands']:.3f} ({calls['hands'] / rounds:.1f} a round); "
        f"the rest (players, fake devices, the soak's loop) {total - sum(ms.values()):.3f}"
    )


if __name__ == "__main__":
    main()
