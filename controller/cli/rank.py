"""``tablectl rank``: rank hands given as arguments or one per line on standard input.

Prints one JSON object per hand: ``{"cards", "category", "best", "strength"}`` (and
``qualifies`` for ``--kind bonus``). A hand that cannot be read or ranked is reported on
standard error with its line (or argument) number and skipped; the exit status is then 2.
Standard input is read line by line, so any number of lines runs in constant memory.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from typing import IO

from controller.cards import CardError, parse_cards
from controller.hands import RULES, HandError, Kind, rank_hand, rules_for

__all__ = ["register", "run", "rank_lines"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``rank`` sub-command to the ``tablectl`` parser."""
    p = sub.add_parser(
        "rank",
        help="rank poker hands and print them as JSON lines",
        description=(
            'Rank hands for a game. Each argument is one hand (quote it: "As Kd Th 9c 2s"); if every '
            "argument is a single card they form one hand. With no arguments, read one hand per line "
            "from standard input (blank lines and lines starting with # are skipped). The kind defaults "
            "to what the number of cards implies: 2 low, 3 three, 5 five, 7 seven."
        ),
    )
    p.add_argument("--game", required=True, choices=sorted(RULES), help="whose ranking rules to use")
    p.add_argument("--kind", choices=[k.value for k in Kind], help="what kind of hand each line is")
    p.add_argument("cards", nargs="*", metavar="CARDS", help='a hand, e.g. "As Kd Th 9c 2s" or AsKdTh9c2s')
    p.set_defaults(run=run)


def _argument_hands(args: list[str]) -> Iterator[tuple[str, str]]:
    if len(args) > 1 and all(len(a.strip()) <= 3 and " " not in a.strip() for a in args):
        yield "arguments", " ".join(args)
        return
    for n, a in enumerate(args, start=1):
        yield f"argument {n}", a


def _stdin_hands(stream: IO[str]) -> Iterator[tuple[str, str]]:
    for n, line in enumerate(stream, start=1):
        text = line.strip()
        if text and not text.startswith("#"):
            yield f"line {n}", text


def rank_lines(hands: Iterable[tuple[str, str]], game: str, kind: Kind | None, out: IO[str], err: IO[str]) -> int:
    """Rank each ``(where, text)`` hand, writing JSON lines to ``out`` and problems to ``err``.

    Returns the number of hands that could not be ranked.
    """
    rules = rules_for(game)
    bad = 0
    dumps = json.dumps
    write = out.write
    for where, text in hands:
        try:
            value = rank_hand(parse_cards(text), rules, kind)
        except (CardError, HandError) as exc:
            bad += 1
            err.write(f"tablectl rank: {where}: {exc}\n")
            continue
        write(dumps(value.to_json()) + "\n")
    return bad


def run(args: argparse.Namespace) -> int:
    """Run ``tablectl rank`` with parsed ``args``; 0 if every hand was ranked, else 2."""
    hands = _argument_hands(args.cards) if args.cards else _stdin_hands(sys.stdin)
    kind = Kind(args.kind) if args.kind else None
    bad = rank_lines(hands, args.game, kind, sys.stdout, sys.stderr)
    sys.stdout.flush()
    return 2 if bad else 0
