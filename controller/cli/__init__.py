"""The ``tablectl`` command line: one sub-command per module in this package (private where nothing
outside the package uses it: ``_run``, ``_bench``, ...)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from controller.cli import (
    _bench,
    _diagram,
    _export,
    _floor,
    _floorweb,
    _holds,
    _houseway,
    _journal,
    _meters,
    _par,
    _rank,
    _recall,
    _roster,
    _run,
    _settle,
    _simulate,
    _soak,
    _status,
    _webserve,
    _webtoken,
)
from controller.cli._args import Parser

__all__ = ["main", "build_parser"]

_COMMANDS = (
    _bench,
    _soak,
    _simulate,
    _run,
    _status,
    _recall,
    _meters,
    _export,
    _holds,
    _journal,
    _roster,
    _diagram,
    _rank,
    _settle,
    _houseway,
    _par,
    _floor,
    _floorweb,
    _webtoken,
    _webserve,
)
"""``floorweb`` after ``floor``: it adds ``web`` under the ``floor`` command; ``webserve`` after
``webtoken``: it adds ``serve`` under ``web``."""


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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command registered."""
    parser = Parser(
        prog="tablectl",
        description="Controller for live-dealer casino table games (Boston 5 stud, Mississippi Stud, pai gow poker).",
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in _COMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tablectl`` with ``argv`` (default: the process arguments); returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
        return 0
