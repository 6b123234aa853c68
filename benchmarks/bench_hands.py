"""Hand-evaluation speed: tablectl against treys, eval7 and pokerkit on the same random hands.

Run ``pip install -e '.[bench]'`` then ``python benchmarks/bench_hands.py [--hands N]``.
Prints hands per second for each evaluator and the ratios measured in this same run; it is
a benchmark, not a test, and asserts nothing about speed. Card conversion to each library's
own card type happens before timing, for every library alike.

Optionally ``--stream N`` pipes N hands through ``python -m controller rank`` and reports the
wall time and the child's peak memory (to show that ``tablectl rank`` streams).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.hands import BOSTON5, PAI_GOW, evaluate_best
from controller.hands.fast import evaluator_for
from controller.hands.rules import Wheel
from controller.vocab import ALL_CARDS, format_cards


def rate(fn: Callable[[], object], count: int, repeat: int = 3) -> float:
    """Best-of-``repeat`` hands per second for ``fn``, which evaluates ``count`` hands."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return count / best


def deal(rng: random.Random, n: int, size: int, deck_size: int = 52) -> list[list[int]]:
    """``n`` random hands of ``size`` distinct deck indices."""
    return [rng.sample(range(deck_size), size) for _ in range(n)]


def texts(hands: Sequence[Sequence[int]]) -> list[list[str]]:
    return [[str(ALL_CARDS[i]) for i in h] for h in hands]


def peers(h5: list[list[int]], h7: list[list[int]], n_slow: int) -> dict[str, float]:
    """Rates of the peer libraries that are installed (missing ones are skipped)."""
    out: dict[str, float] = {}
    t5, t7 = texts(h5), texts(h7)
    try:
        from treys import Card as TCard
        from treys import Evaluator as TEval

        te = TEval()
        c5 = [[TCard.new(c) for c in h] for h in t5]
        c7 = [[TCard.new(c) for c in h] for h in t7]
        out["treys 5-card"] = rate(lambda: [te.evaluate(h[:2], h[2:]) for h in c5], len(c5))
        out["treys 7-card"] = rate(lambda: [te.evaluate(h[:2], h[2:]) for h in c7], len(c7))
    except ImportError:
        print("treys not installed: pip install -e '.[bench]'", file=sys.stderr)
    try:
        import eval7

        e5 = [[eval7.Card(c) for c in h] for h in t5]
        e7 = [[eval7.Card(c) for c in h] for h in t7]
        out["eval7 5-card"] = rate(lambda: [eval7.evaluate(h) for h in e5], len(e5))
        out["eval7 7-card"] = rate(lambda: [eval7.evaluate(h) for h in e7], len(e7))
    except ImportError:
        print("eval7 not installed: pip install -e '.[bench]'", file=sys.stderr)
    try:
        from pokerkit import StandardHighHand

        p5 = ["".join(h) for h in t5[:n_slow]]
        p7 = [("".join(h[:2]), "".join(h[2:])) for h in t7[:n_slow]]
        out["pokerkit 5-card"] = rate(lambda: [StandardHighHand(h) for h in p5], len(p5), repeat=1)
        out["pokerkit 7-card"] = rate(lambda: [StandardHighHand.from_game(a, b) for a, b in p7], len(p7), repeat=1)
    except ImportError:
        print("pokerkit not installed: pip install -e '.[bench]'", file=sys.stderr)
    return out


def ours(h5: list[list[int]], h7: list[list[int]], h7j: list[list[int]], h7jj: list[list[int]]) -> dict[str, float]:
    """Rates of tablectl's scalar, value-object and batch paths."""
    for wheel in (Wheel.LOWEST, Wheel.SECOND_HIGHEST):  # fill the lazily built tables: steady state is measured
        evaluator_for(wheel).rank_table  # noqa: B018 (builds the table on first use)
        evaluator_for(wheel).complete_joker_tables()
    std = evaluator_for(Wheel.LOWEST).strength
    paigow = evaluator_for(Wheel.SECOND_HIGHEST).strength
    out = {
        "tablectl 5-card": rate(lambda: [std(h) for h in h5], len(h5)),
        "tablectl 7-card": rate(lambda: [std(h) for h in h7], len(h7)),
        "tablectl 7-card, 53-card deck": rate(lambda: [paigow(h) for h in h7j], len(h7j)),
        "tablectl 7-card, joker in hand": rate(lambda: [paigow(h) for h in h7jj], len(h7jj)),
    }
    c7 = [[ALL_CARDS[i] for i in h] for h in h7]
    out["tablectl 7-card HandValue"] = rate(lambda: [evaluate_best(h, BOSTON5) for h in c7], len(c7))
    try:
        import numpy as np

        from controller.hands.batch import strengths

        a5, a7, a7j = np.array(h5), np.array(h7), np.array(h7j)
        strengths(a7[:10])
        strengths(a7j[:10], Wheel.SECOND_HIGHEST)
        out["tablectl batch 5-card"] = rate(lambda: strengths(a5), len(a5))
        out["tablectl batch 7-card"] = rate(lambda: strengths(a7), len(a7))
        out["tablectl batch 7-card, 53-card deck"] = rate(lambda: strengths(a7j, Wheel.SECOND_HIGHEST), len(a7j))
    except ImportError:
        print("numpy not installed: the batch path is skipped", file=sys.stderr)
    return out


def stream(n: int, rng: random.Random) -> None:
    """Pipe ``n`` seven-card pai gow hands through ``tablectl rank`` and report time and memory."""
    lines = [format_cards(ALL_CARDS[i] for i in h) + "\n" for h in deal(rng, 10_000, 7, 53)]
    cmd = [sys.executable, "-m", "controller", "rank", "--game", PAI_GOW.game]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    assert proc.stdin is not None
    marks = {n // 10, n - 1}
    peaks = []
    for i in range(n):
        proc.stdin.write(lines[i % len(lines)])
        if i in marks:
            proc.stdin.flush()
            time.sleep(0.5)  # let the child catch up before reading its peak
            peaks.append(peak_kib(proc.pid) / 1024)
    proc.stdin.close()
    code = proc.wait()
    elapsed = time.perf_counter() - start
    print(
        f"\ntablectl rank, {n:,} lines on stdin: {elapsed:.1f} s, {n / elapsed:,.0f} lines/s, "
        f"peak memory {peaks[0]:.0f} MiB after {n // 10:,} lines, {peaks[-1]:.0f} MiB after {n:,}; exit {code}"
    )


def peak_kib(pid: int) -> int:
    """The peak resident memory of process ``pid`` since it started its program (Linux VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=50_000, help="random hands per evaluator")
    parser.add_argument("--slow-hands", type=int, default=2_000, help="hands for the slowest peer (pokerkit)")
    parser.add_argument("--stream", type=int, default=0, metavar="N", help="also pipe N lines through tablectl rank")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    h5, h7 = deal(rng, args.hands, 5), deal(rng, args.hands, 7)
    h7j = deal(rng, args.hands, 7, 53)
    h7jj = [rng.sample(range(52), 6) + [52] for _ in range(args.hands // 5)]
    rates = {**peers(h5, h7, args.slow_hands), **ours(h5, h7, h7j, h7jj)}
    width = max(map(len, rates))
    print(f"{'evaluator':<{width}}  {'hands/s':>12}  {'vs treys':>9}  {'vs eval7':>9}")
    for name, r in rates.items():
        size = "5-card" if "5-card" in name else "7-card"
        vs = [rates.get(f"{peer} {size}") for peer in ("treys", "eval7")]
        cols = [f"{r / v:8.2f}x" if v else f"{'-':>9}" for v in vs]
        print(f"{name:<{width}}  {r:>12,.0f}  {cols[0]}  {cols[1]}")
    if args.stream:
        stream(args.stream, rng)


if __name__ == "__main__":
    main()
