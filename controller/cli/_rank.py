"""``tablectl rank``: rank hands for a game. Each argument is one hand (quote it: "As Kd Th 9c 2s"); if
every argument is a single card they form one hand. With no arguments, read one hand per line from
standard input (blank lines and lines starting with # are skipped). The kind defaults to what the
number of cards implies: 2 low, 3 three, 5 five, 7 seven.

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
from typing import IO, TYPE_CHECKING

from controller.cli._choices import HAND_KINDS, RULES_GAMES

if TYPE_CHECKING:
    from controller.hands import Kind

__all__ = ["options", "run", "rank_lines"]


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl rank``'s options to its parser ``p``."""
    p.add_argument("--game", required=True, choices=RULES_GAMES, help="whose ranking rules to use")
    p.add_argument("--kind", choices=HAND_KINDS, help="what kind of hand each line is")
    p.add_argument("cards", nargs="*", metavar="CARDS", help='a hand, e.g. "As Kd Th 9c 2s" or AsKdTh9c2s')


def _argument_hands(args: list[str]) -> Iterator[tuple[str, str]]:
    if len(args) > 1 and all(len(a.strip()) <= 3 and " " not in a.strip() for a in args):
        yield "arguments", " ".join(args)
        return
    for n, a in enumerate(args, start=1):
        yield f"argument {n}", a


MAX_LINE = 1000
"""The longest input line read as a hand (a hand is at most 7 cards of 3 characters and spaces)."""


class _Input:
    """Standard input's lines, bytes decoded one line at a time: a line too long or not UTF-8
    is reported by its number, and the hands counted (none at all is an error)."""

    def __init__(self, stream: IO[bytes], err: IO[str]) -> None:
        self.stream, self.err = stream, err
        self.hands = self.bad = self.lines = 0

    def __iter__(self) -> Iterator[tuple[str, str]]:
        n = 0
        while True:
            raw = self.stream.readline(MAX_LINE + 1)
            if not raw:
                return
            n += 1
            self.lines = n
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                self.bad += 1
                self.err.write(f"tablectl rank: line {n}: longer than {MAX_LINE} characters: not a hand\n")
                while raw and not raw.endswith(b"\n"):  # skip the rest of the line, a piece at a time
                    raw = self.stream.readline(64 * 1024)
                continue
            try:
                text = raw.decode("utf-8").strip()
            except UnicodeDecodeError as exc:
                self.bad += 1
                self.err.write(f"tablectl rank: line {n}: not UTF-8 text (byte 0x{raw[exc.start]:02x})\n")
                continue
            if text and not text.startswith("#"):
                self.hands += 1
                yield f"line {n}", text


def rank_lines(hands: Iterable[tuple[str, str]], game: str, kind: Kind | None, out: IO[str], err: IO[str]) -> int:
    """Rank each ``(where, text)`` hand, writing JSON lines to ``out`` and problems to ``err``.

    Returns the number of hands that could not be ranked.
    """
    from controller.game.registry import definition
    from controller.hands import HandError, rank_hand
    from controller.vocab import CardError, parse_cards

    rules = definition(game).rules
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
    from controller.hands import Kind

    kind = Kind(args.kind) if args.kind else None
    if args.cards:
        bad = rank_lines(_argument_hands(args.cards), args.game, kind, sys.stdout, sys.stderr)
    else:
        stdin = _Input(sys.stdin.buffer, sys.stderr)
        bad = rank_lines(stdin, args.game, kind, sys.stdout, sys.stderr) + stdin.bad
        if not stdin.hands and not stdin.bad:
            what = f"{stdin.lines} blank or comment lines" if stdin.lines else "nothing"
            sys.stderr.write(f"tablectl rank: <stdin>: no hands to rank: standard input held {what}\n")
            bad = 1
    sys.stdout.flush()
    return 2 if bad else 0
