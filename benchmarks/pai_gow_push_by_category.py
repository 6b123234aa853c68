"""Where the Foxwoods house way's push rate differs from the Bally's Atlantic City way's.

``python benchmarks/pai_gow_push_by_category.py --rounds 50000 --seed 3`` deals rounds as
``controller.par.pai_gow_main`` does (seven hands of seven from the 53-card deck: the dealer and
six players) and sets every hand by both ways, so the two ways are compared on the same cards.
It prints two Markdown tables:

* the push rate by the player's hand category (the Foxwoods rule that set it), each way against
  a dealer set the same way;
* the push-rate gap taken apart by which hands the two ways set differently: neither hand, only
  the player's, only the dealer's, or both, by the rules that decided (Foxwoods rule / Bally's
  rule). A row's contribution is its share of player hands times its push-rate difference, so
  the contributions add up to the whole gap.

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.game.pai_gow import Decision, house_way
from controller.hands.paigow import HandSet
from controller.vocab import deck

PLAYERS = 6


@dataclass
class Tally:
    """Player hands in one row, and how many pushed under each way."""

    hands: int = 0
    push_a: int = 0
    push_b: int = 0


def pushes(player: HandSet, dealer: HandSet) -> bool:
    """Whether the player wins exactly one of the two hands (ties go to the dealer)."""
    return (player.high.strength > dealer.high.strength) != (player.low.strength > dealer.low.strength)


def low_cards(d: Decision) -> frozenset[int]:
    return frozenset(c.index for c in d.set.low.cards)


def differs(a: Decision, b: Decision) -> str | None:
    """``None`` if both ways set the hand alike, else the two rules' texts."""
    if low_cards(a) == low_cards(b):
        return None
    return f"{a.text} / {b.text}"


def simulate(way_a: str, way_b: str, rounds: int, seed: int) -> tuple[dict[str, Tally], dict[str, Tally]]:
    """(tallies by the player's category under ``way_a``, tallies by where the ways differ)."""
    a, b = house_way(way_a), house_way(way_b)
    cards = list(deck(joker=True))
    rng = random.Random(seed)
    by_category: dict[str, Tally] = {}
    by_difference: dict[str, Tally] = {}
    for _ in range(rounds):
        rng.shuffle(cards)
        hands = [cards[7 * i : 7 * i + 7] for i in range(PLAYERS + 1)]
        set_a = [a.set(h) for h in hands]
        set_b = [b.set(h) for h in hands]
        dealer_diff = differs(set_a[0], set_b[0])
        for p in range(1, PLAYERS + 1):
            push_a = pushes(set_a[p].set, set_a[0].set)
            push_b = pushes(set_b[p].set, set_b[0].set)
            player_diff = differs(set_a[p], set_b[p])
            if player_diff is None and dealer_diff is None:
                where = "set alike on both sides"
            elif dealer_diff is None:
                where = f"player set differently: {player_diff}"
            elif player_diff is None:
                where = f"dealer set differently: {dealer_diff}"
            else:
                where = "both set differently"
            category = set_a[p].rule.split(".", 1)[1]
            for table, key in ((by_category, category), (by_difference, where)):
                t = table.setdefault(key, Tally())
                t.hands += 1
                t.push_a += push_a
                t.push_b += push_b
    return by_category, by_difference


def table(rows: dict[str, Tally], total: int, name_a: str, name_b: str, head: str) -> list[str]:
    lines = [
        f"| {head} | share of hands | push, {name_a} | push, {name_b} | contribution to the gap (points) |",
        "|---|---:|---:|---:|---:|",
    ]
    for key, t in sorted(rows.items(), key=lambda kv: -kv[1].hands):
        share = t.hands / total
        gap = (t.push_a - t.push_b) / total * 100
        lines.append(f"| {key} | {share:.3%} | {t.push_a / t.hands:.2%} | {t.push_b / t.hands:.2%} | {gap:+.3f} |")
    pa = sum(t.push_a for t in rows.values()) / total
    pb = sum(t.push_b for t in rows.values()) / total
    lines.append(f"| all | 100% | {pa:.2%} | {pb:.2%} | {(pa - pb) * 100:+.3f} |")
    return lines


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=50_000)
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--way-a", default="foxwoods")
    p.add_argument("--way-b", default="ballys_ac")
    args = p.parse_args()
    start = time.process_time()
    by_category, by_difference = simulate(args.way_a, args.way_b, args.rounds, args.seed)
    total = args.rounds * PLAYERS
    print(f"{args.rounds:,} rounds, {total:,} player hands, seed {args.seed}, {time.process_time() - start:.0f} CPU s")
    print()
    print("\n".join(table(by_category, total, args.way_a, args.way_b, f"player's hand ({args.way_a} rule)")))
    print()
    print("\n".join(table(by_difference, total, args.way_a, args.way_b, "which hands the ways set differently")))


if __name__ == "__main__":
    main()
