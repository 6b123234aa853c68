"""``tablectl diagram --game G``: the game's round machine as a Mermaid state diagram."""

from __future__ import annotations

import argparse
import sys

from controller.cli._choices import GAMES

__all__ = ["options", "run"]


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl diagram``'s options to its parser ``p``."""
    p.add_argument("--game", required=True, choices=GAMES, help="the game")


def run(args: argparse.Namespace) -> int:
    from controller.docgen.diagram import diagram

    sys.stdout.write(diagram(args.game))
    return 0
