"""``tablectl soak``: play ROUNDS rounds at the real table machines, engine and settlement in process
(devices faked at the device interface, the bench's players), on every core; print each wager spot's
hold beside the par sheet's 95% interval and a combined test of every spot against par (allowing for
their correlation; a right par fails 1 run in 1,000), and re-settle a sample of rounds with
`tablectl settle` in a separate process. Exit 1 when a re-settled round differs or the combined test
fails."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from controller.cli._choices import GAMES

if TYPE_CHECKING:
    from hil.hold_summary import ParSheetLike
    from hil.soak import SoakResult

__all__ = ["options", "run", "memory_line"]


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl soak``'s options to its parser ``p``."""
    p.add_argument("--game", default="mississippi_stud", choices=GAMES, help="the game")
    p.add_argument("--config", help="a bench table config (default: config/bench/GAME.yaml)")
    p.add_argument("--rounds", type=int, default=10_000, help="rounds to play in all")
    p.add_argument("--seats", type=int, default=6, help="seats in play each round")
    p.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    p.add_argument(
        "--seed", type=int, default=1, help="seeds the shuffles and the players: the same seed plays the same rounds"
    )
    p.add_argument(
        "--verify-every",
        type=int,
        default=100,
        metavar="K",
        help="re-settle every K-th round from its record in a separate process (1: every round, 0: none)",
    )
    p.add_argument(
        "--strategy",
        default="par",
        choices=("par", "random"),
        help="par: the players play the par sheet's strategy (default); random: legal random decisions, for fuzzing",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar (there is none when not on a terminal)")


def soak_lines(
    result: SoakResult, sheet: ParSheetLike | None, played: str | None = None, order: Sequence[str] = ()
) -> list[str]:
    """The soak's summary lines."""
    from hil.hold_summary import summary_lines

    t = result.tally
    per_round_ms = 1000 * result.cpu_seconds / t.rounds if t.rounds else 0.0
    lines = [
        f"rounds      {t.rounds:,} ({t.voids} void) in {result.wall_seconds:.1f} s wall "
        f"({t.rounds / result.wall_seconds if result.wall_seconds else 0:,.0f}/s on {result.workers} workers); "
        f"{result.cpu_seconds:.1f} CPU s, {per_round_ms:.3f} ms CPU per round "
        f"({1000 / per_round_ms if per_round_ms else 0:,.0f} rounds/s per core)",
    ]
    lines += summary_lines(t, sheet, played, order)
    verdict = f"{len(result.differ)} differ" + (
        f" (rounds {', '.join(map(str, result.differ[:10]))})" if result.differ else ""
    )
    lines.append(
        f"settlement  {result.verified:,} rounds re-settled from their records by `tablectl settle` "
        f"in a separate process: {verdict}" + (f"; {result.verify_error}" if result.verify_error else "")
    )
    lines.append(memory_line(result))
    return lines


def memory_line(result: SoakResult) -> str:
    """Resident memory of the run: each process's peak, and the largest process's over the run."""
    m = result.memory

    def mb(n: int) -> str:
        return f"{n / 1e6:,.0f}"

    workers = " / ".join(mb(v) for _, v in sorted(m.worker_peaks.items()))
    over = ", ".join(f"{mb(v)} at {r:,}" for r, v in m.samples)
    return (
        f"memory      peak RSS {mb(m.peak)} MB (parent {mb(m.parent_peak)}"
        + (f", workers {workers}" if workers else "")
        + (f", re-settling {mb(m.settle_peak)}" if m.settle_peak else "")
        + f"); largest process, MB at rounds played: {over}"
    )


def run(args: argparse.Namespace) -> int:
    """Run ``tablectl soak``; 0 when every re-settled round matches what the table paid and the
    combined test of the holds against par passes (or is not made: no par sheet, too few rounds,
    or the players played another strategy than the sheet's)."""
    from tqdm import tqdm

    from controller.configuration import ConfigError, config_dir, load_table
    from hil.hold_summary import combined, par_for
    from hil.progress import logging_above
    from hil.soak import SoakError, players_take_strategy, run_soak

    try:
        table = load_table(args.config or config_dir() / "bench" / f"{args.game}.yaml")
    except ConfigError as exc:
        print(f"tablectl soak: {exc}", file=sys.stderr)
        return 2
    if table.game != args.game and args.config:
        args.game = table.game
    problems = []
    if not 1 <= args.seats <= table.seats:
        problems.append(f"--seats must be 1 to {table.seats}")
    if args.rounds < 1:
        problems.append("--rounds must be at least 1")
    if args.workers is not None and args.workers < 1:
        problems.append("--workers must be at least 1")
    if args.verify_every < 0:
        problems.append("--verify-every must be 0 or more")
    if problems:
        for p in problems:
            print(f"tablectl soak: {p}", file=sys.stderr)
        return 2
    sheet = par_for(table)  # first: a paytable not yet kept is computed once here, not once in every worker
    tqdm.monitor_interval = 0  # no monitor thread: the bar is updated from this thread only
    try:
        with (
            tqdm(total=args.rounds, unit="round", disable=True if args.quiet else None, file=sys.stderr) as bar,
            logging_above(bar),  # what is logged is written above the bar, not into its line
        ):
            result = run_soak(
                table,
                args.rounds,
                args.seats,
                args.seed,
                workers=args.workers,
                verify_every=args.verify_every,
                strategy=args.strategy,
                progress=bar.update,
            )
    except SoakError as exc:
        print(f"tablectl soak: {exc}", file=sys.stderr)
        return 1
    played = None if args.strategy == "par" and players_take_strategy(table.game) else args.strategy
    if played == "par":  # players without a par strategy yet: their own heuristics
        played = "the bench players' own rules"
    print(f"{table.name}: soak, {args.seats} seats, seed {args.seed}, strategy {args.strategy}")
    for line in soak_lines(result, sheet, played, order=table.catalog.wager_spots):
        print("  " + line)
    compare = sheet is not None and (played is None or played == sheet.strategy)
    verdict = combined(result.tally, sheet) if compare else None
    failed = verdict is not None and verdict.failed
    return 0 if not result.differ and not result.verify_error and not failed else 1
