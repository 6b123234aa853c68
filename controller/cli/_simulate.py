"""``tablectl simulate``: play a few rounds at the real table (machine, engine, journal, settlement,
snapshot, screen) with simulated devices behind the real link protocol, the bench's players and
dealer and a supervisor, in one process and one thread under a simulated clock; faults are drawn
from the seed and invariants checked after every event. One seed (--seed) replays exactly; many
(--seeds) run on every core. Exit 1 when an invariant breaks or a re-settled round differs.

How the simulation works, and what it checks: docs/simulate.md."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from controller.cli._choices import GAMES

if TYPE_CHECKING:
    from hil.simulate.run import RunSummary, SeedResult
    from hil.simulate.swarm import Coverage

__all__ = ["options", "run", "summary_lines"]


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl simulate``'s options to its parser ``p``."""
    p.add_argument("--game", default="mississippi_stud", choices=GAMES, help="the game (default: mississippi_stud)")
    p.add_argument("--seed", type=int, default=None, help="run this one seed and say what it did (default: none)")
    p.add_argument(
        "--seeds",
        type=int,
        default=None,
        metavar="N",
        help="run N seeds from --first on every core (default: none, one seed)",
    )
    p.add_argument("--first", type=int, default=1, help="the first seed of --seeds or --hours (default: 1)")
    p.add_argument(
        "--hours",
        type=float,
        default=None,
        metavar="H",
        help="run seeds from --first on, batch after batch on every core, until H hours have passed or it is "
        "stopped (Ctrl-C): each failure shown as it is found, the summary of the seeds finished at the end "
        "(default: none)",
    )
    p.add_argument("--rounds", type=int, default=None, help="rounds each seed plays (default: 2, with --swarm 10)")
    p.add_argument(
        "--faults",
        default="all",
        help="the fault kinds to inject, comma-separated, or all, ci (all but the kinds of known and open bugs) or "
        "none; --list-faults names them (default: all)",
    )
    p.add_argument(
        "--swarm",
        action="store_true",
        help="swarm faults: per seed a random subset of the kinds and a random density, each fault placed at a step "
        "of a round (entered, left or held from) instead of at a time; prints which (step, fault kind) pairs the run "
        "reached (default: off, faults at random times of the first rounds)",
    )
    p.add_argument(
        "--coverage-json",
        default=None,
        metavar="PATH",
        help="write the (step, fault kind) pairs reached and not reached to PATH as JSON (default: none)",
    )
    p.add_argument("--workers", type=int, default=None, help="processes for --seeds (default: every core)")
    p.add_argument(
        "--liveness",
        type=int,
        default=0,
        metavar="N",
        help="after the seed's rounds, stop the faults: the open round and N more must finish within a bound and "
        "every hold clear the way it names (default: 0, no liveness phase)",
    )
    p.add_argument(
        "--shrink",
        action="store_true",
        help="for a failing --seed: drop faults while it still fails and print the rest as a row of SHRUNK in "
        "tests/test_simulate.py (default: off)",
    )
    p.add_argument(
        "--journal-dir",
        default=None,
        help="keep the journal of a --seed run in this folder (default: a temporary folder, removed)",
    )
    p.add_argument("--list-faults", action="store_true", help="list the fault kinds and exit (default: off)")
    p.add_argument("--quiet", action="store_true", help="no progress bar (default: a bar on a terminal)")


def seed_lines(res: SeedResult) -> list[str]:
    """What one seed did, in words."""
    faults = ", ".join(sorted(set(res.faults))) or "none"
    lines = [
        f"seed {res.seed}: {res.rounds} rounds, {res.events} events, {res.sim_seconds:.1f} s simulated, "
        f"{res.cpu_seconds * 1000:.0f} ms CPU; faults injected: {len(res.faults)} ({faults}); crashes {res.crashes}",
    ]
    if res.ok:
        lines.append("every invariant held")
    else:
        lines.append(f"broken: {res.broken}: {res.detail}")
    return lines


def summary_lines(s: RunSummary) -> list[str]:
    """What many seeds did, in words."""
    per_seed = 1000 * s.cpu_seconds / s.seeds if s.seeds else 0.0
    lines = [
        f"seeds       {s.seeds:,} of {s.game} in {s.wall_seconds:.1f} s wall on {s.workers} workers, "
        f"{s.cpu_seconds:.1f} CPU s ({per_seed:.1f} ms a seed)",
        f"played      {s.rounds:,} rounds, {s.events:,} events, {s.sim_seconds:,.0f} s simulated, "
        f"{s.crashes:,} crashes recovered",
        "faults      " + (", ".join(f"{k} {n:,}" for k, n in sorted(s.faults.items())) or "none"),
        f"settlement  {s.resettled:,} rounds re-settled by `tablectl settle` in a separate process: "
        f"{len(s.differ)} differ"
        + (f" ({', '.join(f'seed {a} round {b}' for a, b in s.differ[:5])})" if s.differ else ""),
        f"failed      {len(s.failed):,} seeds",
    ]
    return lines


def run(args: argparse.Namespace) -> int:
    """Run ``tablectl simulate``; 0 when every invariant held in every seed."""
    from hil.simulate.faults import FAULT_KINDS, SWARM_KINDS

    if args.list_faults:
        for kind, what in FAULT_KINDS.items():
            print(f"{kind:16} {what}")
        for kind, what in SWARM_KINDS.items():
            print(f"{kind:16} {what} (drawn by --swarm only; not in all or ci)")
        return 0
    problems, kinds = _checked(args)
    if problems:
        for p in problems:
            print(f"tablectl simulate: {p}", file=sys.stderr)
        return 2
    if args.seeds is None and args.hours is None:
        return _one(args, args.seed if args.seed is not None else args.first, kinds)
    return _many(args, kinds)


def _checked(args: argparse.Namespace) -> tuple[list[str], tuple[str, ...]]:
    """What is wrong with the arguments (nothing: an empty list), and the fault kinds asked for.
    Sets the default number of rounds (a swarm plays more)."""
    from hil.simulate.faults import parse_kinds

    problems = []
    try:
        kinds = parse_kinds(args.faults)
    except ValueError as exc:
        problems.append(f"--faults: {exc}")
        kinds = ()
    if args.rounds is None:
        from hil.simulate.swarm import SWARM_ROUNDS

        args.rounds = SWARM_ROUNDS if args.swarm else 2
    if args.rounds < 1:
        problems.append("--rounds must be at least 1")
    if args.coverage_json is not None and not Path(args.coverage_json).resolve().parent.is_dir():
        problems.append(f"--coverage-json {args.coverage_json}: its folder does not exist")
    if args.seeds is not None and args.seeds < 1:
        problems.append("--seeds must be at least 1")
    if args.seeds is not None and args.seed is not None:
        problems.append("give --seed or --seeds, not both")
    if args.hours is not None and (args.seeds is not None or args.seed is not None):
        problems.append("give --hours or --seed(s), not both")
    if args.hours is not None and not args.hours > 0:
        problems.append("--hours must be more than 0")
    if args.liveness < 0:
        problems.append("--liveness must be 0 or more")
    if args.workers is not None and args.workers < 1:
        problems.append("--workers must be at least 1")
    if args.journal_dir is not None and not Path(args.journal_dir).is_dir():
        problems.append(f"--journal-dir {args.journal_dir}: not a folder")
    return problems, kinds


def _one(args: argparse.Namespace, seed: int, kinds: tuple[str, ...]) -> int:
    from hil.simulate.run import replay_command, run_seed, shrink, shrunk_row

    folder = Path(args.journal_dir) if args.journal_dir else None
    res = run_seed(
        args.game, seed, kinds, args.rounds, folder=folder, resettle=True, liveness=args.liveness, swarm=args.swarm
    )
    for line in seed_lines(res):
        print(line)
    if args.swarm or args.coverage_json:
        _coverage(args, kinds, [res])
    if folder is not None:
        print(f"journal     {folder / f'{args.game}-{seed}.db'}")
    if res.ok:
        return 0
    replay = replay_command(
        args.game, seed, kinds, args.rounds, explicit=True, liveness=args.liveness, swarm=args.swarm
    )
    print(f"replay      {replay}")
    if args.shrink:
        faults, last = shrink(args.game, seed, kinds, args.rounds, res.broken, swarm=args.swarm)
        print(f"shrunk to {len(faults)} fault(s), still broken: {last.broken}: {last.detail}")
        print()
        print("a row of SHRUNK in tests/test_simulate.py (write its why; one parametrized test plays every row):")
        print()
        print(shrunk_row(args.game, seed, args.rounds, faults, last, replay, swarm=args.swarm))
    return 1


def _many(args: argparse.Namespace, kinds: tuple[str, ...]) -> int:
    from tqdm import tqdm

    from hil.simulate.run import replay_command, run_seeds

    tqdm.monitor_interval = 0  # no monitor thread: the bar is updated from this thread only

    def seen(res: SeedResult) -> None:
        bar.update(1)
        if not res.ok:  # each failure as it is found, with the kinds named one by one (issue 41)
            replay = replay_command(
                args.game, res.seed, kinds, args.rounds, explicit=True, liveness=args.liveness, swarm=args.swarm
            )
            bar.write(f"seed {res.seed}: {res.broken}: {res.detail}\n  replay: {replay} --shrink", file=sys.stdout)

    total = args.seeds if args.hours is None else None
    stopped = ""
    with tqdm(total=total, unit="seed", disable=True if args.quiet else None, file=sys.stderr) as bar:
        if args.hours is None:
            seeds = range(args.first, args.first + args.seeds)
            summary = run_seeds(
                args.game,
                seeds,
                kinds,
                args.rounds,
                args.workers,
                progress=seen,
                liveness=args.liveness,
                swarm=args.swarm,
            )
            if summary.interrupted:
                stopped = f"stopped     by Ctrl-C: {summary.seeds:,} of {args.seeds:,} seeds finished"
        else:
            summary, stopped = _for_hours(args, kinds, seen)
    if stopped:
        print(stopped)
    for line in summary_lines(summary):
        print(line)
    if args.swarm or args.coverage_json:
        _write_coverage(args, summary.coverage)
    if summary.failed:
        print("  failed seeds: " + ", ".join(str(r.seed) for r in summary.failed))
    if summary.interrupted and args.hours is None:
        return 130  # --seeds cut short: not the run asked for (--hours ends by Ctrl-C as planned)
    return 0 if not summary.failed and not summary.differ else 1


HOURS_BATCH = 50
"""Seeds a worker plays in each batch of ``--hours`` (a stop loses at most the batch under way)."""


def _for_hours(
    args: argparse.Namespace, kinds: tuple[str, ...], seen: Callable[[SeedResult], None]
) -> tuple[RunSummary, str]:
    """``--hours``: batch after batch of seeds from ``--first`` on until the hours have passed or
    Ctrl-C; the summary of the batches finished, and how the run stopped."""
    import os
    import time

    from hil.simulate.run import RunSummary, run_seeds
    from hil.simulate.swarm import Coverage

    workers = args.workers or os.cpu_count() or 1
    summary = RunSummary(args.game, workers=workers, coverage=Coverage(args.game, kinds))
    deadline = time.monotonic() + args.hours * 3600
    first = args.first
    try:
        while time.monotonic() < deadline and not summary.interrupted:
            batch = range(first, first + HOURS_BATCH * workers)
            run_seeds(
                args.game,
                batch,
                kinds,
                args.rounds,
                workers,
                progress=seen,
                liveness=args.liveness,
                swarm=args.swarm,
                into=summary,
            )
            first = batch.stop
    except KeyboardInterrupt:  # between two batches (one under way notes it in the summary)
        summary.interrupted = True
    if summary.interrupted:
        return summary, f"stopped     by Ctrl-C: {summary.seeds:,} seeds from {args.first} finished"
    return summary, f"stopped     after {args.hours:g} h: seeds {args.first}-{first - 1} finished"


def _coverage(args: argparse.Namespace, kinds: tuple[str, ...], results: list[SeedResult]) -> None:
    from hil.simulate.swarm import Coverage

    coverage = Coverage(args.game, kinds)
    for res in results:
        coverage.add(res.reached)
    _write_coverage(args, coverage)


def _write_coverage(args: argparse.Namespace, coverage: Coverage) -> None:
    """Print the coverage report; with ``--coverage-json``, write it there too."""
    for line in coverage.lines():
        print(line)
    if args.coverage_json:
        Path(args.coverage_json).write_text(coverage.dumps() + "\n", encoding="utf-8")
        print(f"coverage    written to {args.coverage_json}")
