"""The ``tablectl`` command line: one table of sub-commands (:data:`COMMANDS`), each living in a module of
this package (private where nothing outside the package uses it: ``_run``, ``_bench``, ...) that gives
its options and its ``run`` and is imported only when its command is chosen."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from controller.cli._args import Command, Parser, add_command

__all__ = ["COMMANDS", "main", "build_parser"]

_FLOOR_WEB = Command("web", "the pit view in a browser, from the floor store", "controller.cli._floorweb")
_WEB = (
    Command("token", "make a 128-bit token for --web-token", "controller.cli._webtoken", paragraphs=2),
    Command("serve", "serve a table's views from its socket", "controller.cli._webserve"),
)

COMMANDS = (
    Command(
        "bench",
        "run a bench table: simulated devices on ptys, the real controller, simulated players",
        "controller.cli._bench",
    ),
    Command(
        "soak",
        "play many rounds at the real table machines in process, on every core; hold per spot against par",
        "controller.cli._soak",
    ),
    Command(
        "simulate",
        "the whole table in one process under a simulated clock, with faults drawn from a seed",
        "controller.cli._simulate",
    ),
    Command("run", "run the real table from a config", "controller.cli._run"),
    Command(
        "status", "each device's link state and counters of a running table, from its journal", "controller.cli._status"
    ),
    Command(
        "recall",
        "show finished rounds: seats, wagers, cards in dealt order, inputs, faults, settlement",
        "controller.cli._recall",
    ),
    Command(
        "meters",
        "rounds, wagers by spot, paid, collected, commission, bonus and envy paid, voids, late bets, faults",
        "controller.cli._meters",
    ),
    Command(
        "export",
        "a day or a range of rounds as CSV or JSON lines, one row per wager, for the regulator",
        "controller.cli._export",
        paragraphs=2,
    ),
    Command(
        "holds",
        "the table's holds in a shift: why, what was tried, how each cleared, by whom, how long",
        "controller.cli._holds",
        paragraphs=2,
    ),
    Command("journal", "check a table's journal, prune its old rounds, or back it up", "controller.cli._journal"),
    Command("roster", "hash a PIN for the roster; check a roster file", "controller.cli._roster", paragraphs=2),
    Command("diagram", "print a game's round machine as Mermaid", "controller.cli._diagram"),
    Command("rank", "rank poker hands and print them as JSON lines", "controller.cli._rank"),
    Command("settle", "settle a round record and print every wager's result as JSON", "controller.cli._settle"),
    Command("houseway", "set seven pai gow cards by a house way", "controller.cli._houseway"),
    Command(
        "par",
        "par sheet: the house edge of each wager at a table, every paytable line, the strategy assumed",
        "controller.cli._par",
    ),
    Command(
        "floor",
        "the floor: every table's rounds in one PostgreSQL store, through NATS JetStream",
        "controller.cli._floor",
        (_FLOOR_WEB,),
    ),
    Command("web", "the browser views' tools", commands=_WEB),
)
"""Every sub-command of ``tablectl``, in the order its help lists them: a name, its one-line help,
and the module it lives in, imported only when the command is chosen (pip's ``commands_dict``)."""


def _version() -> str:
    from importlib import metadata  # here, not at start: it costs more than parsing does

    try:
        return metadata.version("tablectl")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


class _VersionAction(argparse.Action):
    """argparse's ``version`` action, with the version looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        kwargs.setdefault("help", "show program's version number and exit")
        super().__init__(option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> NoReturn:
        print(f"{parser.prog} {_version()}")
        parser.exit()


def build_parser(lazy: bool = False) -> argparse.ArgumentParser:
    """The argument parser of every sub-command; ``lazy``, a sub-command's module is imported and its
    parser completed only once the command line names it (what ``tablectl`` itself does)."""
    parser = Parser(
        prog="tablectl",
        description="Controller for live-dealer casino table games (Boston 5 stud, Mississippi Stud, pai gow poker).",
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        add_command(sub, command, lazy)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tablectl`` with ``argv`` (default: the process arguments); returns the exit status."""
    args = build_parser(lazy=True).parse_args(argv)
    try:
        return int(args.run(args))
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
        return 0
