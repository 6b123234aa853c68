"""What a simulated round costs (issue 41 item 6): CPU per round of ``tablectl simulate``, and where it goes.

Run ``python benchmarks/bench_simulate.py [--game G] [--seeds N] [--rounds R] [--swarm] [--profile] [--parts]``.
It plays seeds 1..N of each game (every ``ci`` fault kind, the default schedule or ``--swarm``'s) in
this one process, as ``run_seeds(..., workers=1, resettle=False)`` would, and prints for each game
the CPU seconds (``time.process_time``: user + system of this process), the rounds, events and
simulated seconds, the CPU a round and an event, beside the target of 5 ms a round, and what a
million rounds would take at that rate (an extrapolation: say so when quoting it).

``--profile`` runs the same under cProfile and sums each function's own time by where its code
lives: ``hil/simulate`` (the simulation: the world, its checks, the reference model), ``hil``
(the simulators, the wire, the bench's players), ``controller`` (the table), ``drivers`` (the link
protocol, framing), SQLite (the journal's statements) and the rest of the standard library: the
part a change to ``hil/simulate`` can cut, and the part that is the table's own.

``--parts`` plays the seeds again timing each part of a seed (the table's handling of events,
the checks after each, the links, the table's start, the checks at the end) by
``time.process_time`` around each call: CPU a round of each, and the rest.

``--against TREE`` plays the same seeds in another checkout too (``TREE``: its folder, e.g. a
``git worktree`` of the commit before a change), seed by seed in turn in two processes that stay
up, so that both sides meet the same load on a shared machine: the CPU a round of each, and
their ratio (this tree over ``TREE``).

Prints figures; asserts nothing. Needs nothing but the repository.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.game.registry import table_names
from hil.simulate.faults import CI_KINDS
from hil.simulate.run import run_seed

GAMES = table_names()
"""Every game dealt at a table (as CI's simulation plays them)."""
TARGET_MS = 5.0
"""CPU a simulated round may cost (issue 41 item 6)."""


def play(game: str, seeds: int, rounds: int, swarm: bool) -> tuple[float, int, int, float, int]:
    """CPU seconds, rounds, events, simulated seconds and failing seeds of seeds 1..``seeds``."""
    cpu, played, events, simulated, failed = 0.0, 0, 0, 0.0, 0
    for seed in range(1, seeds + 1):
        start = time.process_time()
        res = run_seed(game, seed, CI_KINDS, rounds=rounds, swarm=swarm)
        cpu += time.process_time() - start
        played, events, simulated = played + res.rounds, events + res.events, simulated + res.sim_seconds
        failed += not res.ok
    return cpu, played, events, simulated, failed


PARTS = (
    ("the table handling events (less the checks after each)", "hil.simulate.world", "World._drain"),
    ("the checks after every event", "hil.simulate.world", "World._check"),
    ("the links (protocol, device simulators, frames)", "hil.simulate.world", "World._run_links"),
    ("the table started (and after each crash)", "hil.simulate.world", "World._boot"),
    ("the checks at a seed's end: their journal read", "hil.simulate.run", "read_seed_journal"),
    ("the checks at a seed's end: cards", "hil.simulate.world", "World.check_cards"),
    ("the checks at a seed's end: journal verify", "hil.simulate.run", "check_journal"),
    ("the checks at a seed's end: the reference model", "hil.simulate.run", "check_rounds"),
)
"""The parts ``--parts`` times: (name, module, attribute). A part's time excludes the parts
called within it (the table's own time less the checks its observer runs, less a crash's start)."""


def parts(game: str, seeds: int, rounds: int, swarm: bool) -> None:
    """CPU a round of each of :data:`PARTS` (``time.process_time`` around each call, the parts
    called within it taken off), and the rest (the players, the clock, the schedule)."""
    import importlib

    spent: dict[str, float] = defaultdict(float)
    stack: list[float] = []  # the time of the parts called within the running one, per level
    restore: list[tuple[object, str, Callable[..., object]]] = []

    def timed(name: str, real: Callable[..., object]) -> Callable[..., object]:
        def call(*args: object, **kwargs: object) -> object:
            stack.append(0.0)
            start = time.process_time()
            try:
                return real(*args, **kwargs)
            finally:
                took = time.process_time() - start
                inner = stack.pop()
                spent[name] += took - inner
                if stack:
                    stack[-1] += took

        return call

    for name, module_name, attr in PARTS:
        module = importlib.import_module(module_name)
        owner_name, _, leaf = attr.rpartition(".")
        owner = getattr(module, owner_name) if owner_name else module
        real = getattr(owner, leaf)
        restore.append((owner, leaf, real))
        setattr(owner, leaf, timed(name, real))
    try:
        cpu, played, _, _, _ = play(game, seeds, rounds, swarm)
    finally:
        for owner, leaf, real in restore:
            setattr(owner, leaf, real)
    print(
        f"  {game}: CPU ms a round by part ({seeds} seeds, {played} rounds, {1000 * cpu / max(1, played):.1f} ms a round)"
    )
    for name, _, _ in PARTS:
        print(f"    {name:58} {1000 * spent[name] / max(1, played):6.1f}")
    rest = cpu - sum(spent.values())
    print(f"    {'the rest (the players, the clock, the schedule)':58} {1000 * rest / max(1, played):6.1f}")


def _where(filename: str) -> str:
    path = filename.replace("\\", "/")
    for part, name in (("/hil/simulate/", "hil/simulate"), ("/hil/", "hil (simulators, wire, players)")):
        if part in path:
            return name
    if "/controller/" in path:
        return "controller (the table)"
    if "/drivers/" in path:
        return "drivers (link protocol, framing)"
    if "sqlite3" in path:
        return "SQLite"
    return "standard library and the rest"


def profile(game: str, seeds: int, rounds: int, swarm: bool) -> None:
    """Each function's own time, summed by where its code lives."""
    prof = cProfile.Profile()
    prof.enable()
    play(game, seeds, rounds, swarm)
    prof.disable()
    stats = pstats.Stats(prof)
    by: dict[str, float] = defaultdict(float)
    for name, fp in stats.get_stats_profile().func_profiles.items():
        where = "SQLite" if "sqlite3" in name and fp.file_name == "~" else _where(fp.file_name)
        by[where] += fp.tottime
    total = sum(by.values()) or 1.0
    print(f"  profile of {game} ({seeds} seeds, under cProfile: {total:.2f} s):")
    for where, own in sorted(by.items(), key=lambda kv: -kv[1]):
        print(f"    {where:36} {own:7.2f} s  {100 * own / total:5.1f}%")
    stats.sort_stats("tottime").print_stats(12)


_WORKER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from hil.simulate.faults import CI_KINDS
from hil.simulate.run import run_seed
print("ready", flush=True)
for line in sys.stdin:
    game, seed, rounds, swarm = line.split()
    start = time.process_time()
    res = run_seed(game, int(seed), CI_KINDS, rounds=int(rounds), swarm=swarm == "1")
    print(time.process_time() - start, res.rounds, res.events, flush=True)
"""
"""Plays the seeds it is sent in the tree named by its argument: CPU seconds, rounds, events."""


def side_by_side(games: list[str], seeds: int, rounds: int, swarm: bool, against: Path) -> None:
    """Each game's seeds in this tree and in ``against``, seed by seed in turn."""
    here = Path(__file__).resolve().parent.parent
    trees = {"against": against.resolve(), "this tree": here}
    workers = {
        name: subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(tree)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for name, tree in trees.items()
    }
    try:
        for w in workers.values():
            assert w.stdin is not None and w.stdout is not None
            if w.stdout.readline().strip() != "ready":
                raise SystemExit(f"bench_simulate: a worker did not start ({trees})")
        print(f"side by side: {trees['against']} (against) and {here} (this tree), seed by seed in turn")
        print("| game | rounds | events | against: ms a round | this tree: ms a round | ratio |")
        print("|---|---|---|---|---|---|")
        for game in games:
            total = {name: [0.0, 0, 0] for name in workers}
            for seed in range(1, seeds + 1):
                for name in list(workers)[:: 1 if seed % 2 else -1]:  # who goes first alternates
                    w = workers[name]
                    assert w.stdin is not None and w.stdout is not None
                    w.stdin.write(f"{game} {seed} {rounds} {int(swarm)}\n")
                    w.stdin.flush()
                    cpu, played, events = w.stdout.readline().split()
                    total[name][0] += float(cpu)
                    total[name][1] += int(played)
                    total[name][2] += int(events)
            a, b = total["against"], total["this tree"]
            print(
                f"| {game} | {b[1]} | {b[2]:,} | {1000 * a[0] / max(1, a[1]):.1f} | "
                f"{1000 * b[0] / max(1, b[1]):.1f} | {b[0] / max(a[0], 1e-9):.2f} |"
            )
    finally:
        for w in workers.values():
            if w.stdin is not None:
                w.stdin.close()
            w.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=GAMES, action="append", help="a game (default: all three)")
    parser.add_argument("--seeds", type=int, default=20, help="seeds a game (default: 20)")
    parser.add_argument("--rounds", type=int, default=None, help="rounds a seed (default: 2, with --swarm 10)")
    parser.add_argument("--swarm", action="store_true", help="the swarm's schedule (tablectl simulate --swarm)")
    parser.add_argument("--profile", action="store_true", help="where the CPU goes (cProfile), by package")
    parser.add_argument("--against", type=Path, help="another checkout: its CPU a round beside this tree's")
    parser.add_argument("--parts", action="store_true", help="CPU a round by part (the table, the links, the checks)")
    args = parser.parse_args()
    rounds = args.rounds or (10 if args.swarm else 2)
    if args.against is not None:
        if not (args.against / "hil" / "simulate" / "run.py").is_file():
            parser.error(f"--against {args.against}: not a checkout of this repository (no hil/simulate/run.py)")
        side_by_side(args.game or list(GAMES), args.seeds, rounds, args.swarm, args.against)
        return
    schedule = "--swarm" if args.swarm else "the default schedule"
    print(f"{args.seeds} seeds a game of {rounds} rounds, every ci kind, {schedule}; target {TARGET_MS:.0f} ms a round")
    print("| game | CPU s | rounds | events | simulated s | ms a round | ms an event | 1,000,000 rounds | failed |")
    print("|---|---|---|---|---|---|---|---|---|")
    for game in args.game or GAMES:
        cpu, played, events, simulated, failed = play(game, args.seeds, rounds, args.swarm)
        per_round = 1000 * cpu / max(1, played)
        million_h = per_round * 1_000_000 / 1000 / 3600
        print(
            f"| {game} | {cpu:.2f} | {played} | {events:,} | {simulated:,.0f} | {per_round:.1f} | "
            f"{1000 * cpu / max(1, events):.3f} | {million_h:.1f} CPU h (extrapolated) | {failed} |"
        )
        if args.profile:
            profile(game, min(args.seeds, 10), rounds, args.swarm)
        if args.parts:
            parts(game, args.seeds, rounds, args.swarm)


if __name__ == "__main__":
    main()
