"""``tablectl diagram --game G``: the game's round machine as a Mermaid state diagram."""

from __future__ import annotations

import argparse
import sys

from controller.cli._args import Subparsers, command, description
from controller.cli._choices import GAMES

__all__ = ["register", "run"]


def register(sub: Subparsers) -> None:
    """Add the ``diagram`` sub-command to the ``tablectl`` parser."""
    p = command(sub, "diagram", run, help="print a game's round machine as Mermaid", description=description(__doc__))
    p.add_argument("--game", required=True, choices=GAMES, help="the game")


def run(args: argparse.Namespace) -> int:
    from controller.docgen.diagram import diagram

    sys.stdout.write(diagram(args.game))
    return 0
