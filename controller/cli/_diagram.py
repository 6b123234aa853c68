"""``tablectl diagram --game G``: the game's round machine as a Mermaid state diagram."""

from __future__ import annotations

import argparse
import sys

from controller.cli._args import description
from controller.cli._choices import GAMES

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``diagram`` sub-command to the ``tablectl`` parser."""
    p = sub.add_parser("diagram", help="print a game's round machine as Mermaid", description=description(__doc__))
    p.add_argument("--game", required=True, choices=GAMES, help="the game")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from controller.docgen.diagram import diagram

    sys.stdout.write(diagram(args.game))
    return 0
