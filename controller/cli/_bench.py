"""``tablectl bench``: start the simulators on ptys, the real controller on them, and simulated players
and dealer; print a summary at the end."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from controller.cli._args import bounded_int, positive_int
from controller.cli._choices import FAULT_PROFILES, GAMES, STRATEGIES
from controller.cli._floor import forwarder_for
from controller.cli._journal import BENCH_JOURNAL_DIR
from controller.cli._status import CONNECTED_STATES
from controller.cli._webopts import add_web_arguments, web_attach

if TYPE_CHECKING:
    from controller.floor.forwarder import LinkStatus

__all__ = ["options", "run"]


def floor_line(table_id: str, link: LinkStatus, journal: Path | str) -> str:
    """The floor link's truth for the summary: never connected (and why), or its state; the
    backlog counted from the journal (not from what the forwarder saw); the last error."""
    from controller.journal.outbox import Outbox

    outbox = Outbox(journal)
    try:
        backlog = outbox.backlog()
    finally:
        outbox.close()
    error = f", last error: {link.error}" if link.error else ""
    if not link.acked and not link.published and link.state.value not in CONNECTED_STATES:
        return f"floor       {table_id}: never connected{error}; backlog {backlog} records (counted from the journal)"
    stored = f", stored by the floor up to record {link.stored}" if getattr(link, "stored", 0) else ""
    return (
        f"floor       {table_id}: {link.state.value}, acknowledged up to record {link.acked}{stored}, "
        f"backlog {backlog} records (counted from the journal){error}"
    )


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl bench``'s options to its parser ``p``."""
    p.add_argument("--game", default="mississippi_stud", choices=GAMES, help="the game")
    p.add_argument("--config", help="a bench table config (default: config/bench/GAME.yaml)")
    p.add_argument("--seats", type=positive_int(7), default=6, help="seats in play each round")
    p.add_argument("--rounds", type=bounded_int(0, 10_000_000), default=20, help="rounds to play, 0 to 10,000,000")
    p.add_argument(
        "--seed",
        type=bounded_int(0, 2**63 - 1),
        default=1,
        help="seeds the shuffles, the players and the dealer: the same seed plays the same rounds",
    )
    p.add_argument("--faults", default="none", choices=FAULT_PROFILES, help="link fault profile")
    p.add_argument(
        "--journal",
        help=f"the journal (default: the config's journal.path, else {BENCH_JOURNAL_DIR}/GAME.db); "
        "an open round left in it is finished first",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="--rounds is the number of finished rounds the journal should hold: "
        "a run killed and started again with the same arguments ends as one never stopped",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--strategy",
        default="par",
        choices=STRATEGIES,
        help="par: the players play the par sheet's strategy (default); random: legal random decisions, for fuzzing",
    )
    add_web_arguments(p)
    p.add_argument(
        "--manual",
        action="store_true",
        help="with --web: no simulated players; the page's controls drive the simulators "
        "(until --rounds are played or Ctrl-C)",
    )


def run(args: argparse.Namespace) -> int:
    """Run ``tablectl bench``; 0 when every round wanted was played and settled as `tablectl settle`
    settles its record; 1 on a failure (the summary is printed all the same, its reason in one
    line on stderr); 130 or 143 when SIGINT or SIGTERM stopped it (the summary too)."""
    from controller.configuration import ConfigError, config_dir, load_table
    from controller.journal import JournalError
    from controller.table.runtime import freeze_start_up
    from hil.bench import StopSignals, run_bench
    from hil.hold_summary import par_for

    try:
        table = load_table(args.config or config_dir() / "bench" / f"{args.game}.yaml")
    except ConfigError as exc:
        print(f"tablectl bench: {exc}", file=sys.stderr)
        return 2
    missing = [role for role in ("shoe", "bet_spots", "panel") if role not in table.devices]
    if missing:
        print(
            f"tablectl bench: {table.path}: devices: a bench table names its simulated devices "
            f"(shoe, bet_spots, panel, each with url sim://NAME); missing: {', '.join(missing)}",
            file=sys.stderr,
        )
        return 2
    served = [
        f"{table.path}:{device.line}: devices.{role}: url {device.url[:120]!r}: the bench serves its own simulators "
        f"and would not use this port (a bench config names them: url sim://{role})"
        for role, device in table.devices.items()
        if not device.url.startswith("sim://")
    ]
    if served:
        for line in served:
            print(f"tablectl bench: {line}", file=sys.stderr)
        return 2
    if not 1 <= args.seats <= table.seats:
        print(f"tablectl bench: --seats must be 1 to {table.seats}", file=sys.stderr)
        return 2
    try:
        attach = web_attach(args, bench=True)
    except ValueError as exc:
        print(f"tablectl bench: {exc}", file=sys.stderr)
        return 2
    if args.manual and attach is None:
        print("tablectl bench: --manual needs --web (the page drives the simulators)", file=sys.stderr)
        return 2
    from hil.bench import bench_dealer_badge

    try:
        bench_dealer_badge(table)  # a table with a roster: the bench's dealer signs in by badge
    except ValueError as exc:
        print(f"tablectl bench: {exc}", file=sys.stderr)
        return 2
    journal = args.journal or table.journal.path or str(BENCH_JOURNAL_DIR / f"{table.game}.db")
    try:
        forwarder = forwarder_for(table, journal, drain_on_stop_s=30.0)
    except ValueError as exc:
        print(f"tablectl bench: {exc}", file=sys.stderr)
        return 2
    try:
        with StopSignals() as stop:
            summary = run_bench(
                table,
                args.seats,
                args.rounds,
                args.seed,
                args.faults,
                progress=not args.quiet,
                journal_path=journal,
                resume=args.resume,
                strategy=args.strategy,
                services=[forwarder] if forwarder is not None else [],
                attach=attach,
                after_start=freeze_start_up,  # one table in this process: its start-up never scanned again
                manual=args.manual,
                stop=stop,
            )
    except (JournalError, OSError) as exc:
        print(f"tablectl bench: {exc}", file=sys.stderr)
        return 2
    summary.par = par_for(table)
    strategy = getattr(args, "strategy", "par")
    summary.played = None if strategy == "par" else strategy  # holds are checked against par only under its strategy
    print(f"{table.name}: {args.seats} seats, seed {args.seed}, faults {args.faults}")
    for line in summary.lines():
        print("  " + line)
    keyed = f"--config {args.config} " if table.journal.hmac_key_file and args.config else ""  # its key checks it
    print(f"  journal     {journal} (tablectl recall {keyed}--journal {journal})")
    if forwarder is not None and table.floor is not None:
        print("  " + floor_line(table.floor.table_id, forwarder.status(), journal))
    status = summary.exit_status
    if status:
        print(f"tablectl bench: {summary.result()}", file=sys.stderr)
    return status
