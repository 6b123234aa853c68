"""``tablectl houseway``: set seven pai gow cards (the joker is JK) into a high and a low hand by a
house way.

Prints the high and low hands and the rule that decided, as one JSON object (``--text`` for
a line a person reads). A bad hand is reported on standard error and the exit status is 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from controller.cli._choices import HOUSE_WAYS
from controller.game import hand_name

__all__ = ["options", "run"]


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl houseway``'s options to its parser ``p``."""
    p.add_argument("cards", nargs="+", metavar="CARDS", help='seven cards, e.g. "As Ad Kc Kd 7h 4s JK"')
    p.add_argument("--way", default="foxwoods", choices=HOUSE_WAYS, help="the house way (default: foxwoods)")
    p.add_argument("--text", action="store_true", help="print a line for people instead of JSON")


def run(args: argparse.Namespace) -> int:
    """Run ``tablectl houseway``; 0 when set, 2 for a bad hand."""
    from controller.game.pai_gow import house_way
    from controller.hands import HandError
    from controller.vocab import CardError, format_cards, parse_cards

    try:
        cards = parse_cards(" ".join(args.cards))
        decision = house_way(args.way).set(cards)
    except (CardError, HandError) as exc:
        print(f"tablectl houseway: {exc}", file=sys.stderr)
        return 2
    if args.text:
        s = decision.set
        rule = hand_name(decision.rule)  # "Bally's AC: straight or flush"
        way, _, short = rule.partition(": ")
        said = way if decision.text.startswith(f"{short}:") else rule  # the text names the rule already
        print(
            f"high {format_cards(s.high.best)} ({hand_name(s.high.category.value)}) / low {format_cards(s.low.best)} "
            f"({hand_name(s.low.category.value)}): {said}: {decision.text}"
        )
    else:
        print(json.dumps({"cards": format_cards(cards), "way": args.way, **decision.to_json()}))
    return 0
