"""Record the (step, fault kind) pairs the CI swarm set reaches (issue 41 item 5).

The CI swarm test (``tests/test_simulate_swarm.py``) plays each game's CI swarm seeds
(:data:`.swarm.CI_SWARM_SEEDS`, ten rounds each) and targeted scenarios (:data:`.swarm.HELD_SCENARIOS`,
:data:`.swarm.STEP_SCENARIOS`, :data:`.swarm.LATE_SCENARIOS`, and those generated for the gap,
:data:`.targets.GENERATED`) and fails when they no longer reach a pair recorded in
``tests/ci_swarm_pairs.json``. A change that moves the world's draws or where faults act on purpose
records them again with::

    python -m hil.simulate.ci_pairs --write            # every game; --game GAME for one, --workers N
    python -m hil.simulate.ci_pairs --dump DIR         # play, print and keep the pairs in DIR; then
    python -m hil.simulate.ci_pairs --from DIR --write # write them without playing again

which plays the same set, checks that no pair reached is one :mod:`.impossible_pairs` says cannot
occur, writes the pairs reached, and prints per game the pairs reached, those that cannot occur and
those left (that can occur and the set does not reach: the gap, written to
``tests/ci_swarm_gaps.json`` so that the CI test checks every pair is one of the three).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from hil.simulate.faults import CI_KINDS, SWARM_KINDS
from hil.simulate.impossible_pairs import IMPOSSIBLE, every_pair
from hil.simulate.run import run_seed, run_seeds
from hil.simulate.swarm import CI_SWARM_SEEDS, SWARM_FINDINGS, SWARM_ROUNDS, Coverage, targeted
from hil.simulate.targets import GENERATED

__all__ = ["PAIRS_FILE", "GAPS_FILE", "reach", "gaps", "dumps", "main"]

_TESTS = Path(__file__).resolve().parents[2] / "tests"
PAIRS_FILE = _TESTS / "ci_swarm_pairs.json"
"""The pairs the CI set reaches, per game and place (``step`` or ``step (held)``)."""
GAPS_FILE = _TESTS / "ci_swarm_gaps.json"
"""The pairs that can occur and the CI set does not reach, per game and place."""


def reach(game: str, workers: int = 1) -> Coverage:
    """What the CI set of ``game`` reaches: its CI swarm seeds and targeted scenarios, as the CI
    swarm test plays them (raises ``RuntimeError`` naming a seed or scenario that breaks an invariant)."""
    summary = run_seeds(
        game, CI_SWARM_SEEDS[game], CI_KINDS, rounds=SWARM_ROUNDS, workers=workers, resettle=False, swarm=True
    )
    failed = [f"seed {r.seed}: {r.broken}: {r.detail}" for r in summary.failed if (game, r.seed) not in SWARM_FINDINGS]
    if failed:
        raise RuntimeError(f"{game}: " + "; ".join(failed))
    for seed, rounds, faults in targeted(game):
        res = run_seed(game, seed, (), rounds=rounds, faults=list(faults))
        if not res.ok:
            raise RuntimeError(f"{game}: targeted scenario {faults[-1].code()}: {res.broken}: {res.detail}")
        summary.coverage.add(res.reached)
    for target in GENERATED.get(game, ()):
        res = run_seed(game, target.seed, (), rounds=target.rounds, faults=list(target.faults))
        if not res.ok:
            raise RuntimeError(f"{game}: generated scenario {target.faults[-1].code()}: {res.broken}: {res.detail}")
        summary.coverage.add(res.reached)
    return summary.coverage


def pairs_of(coverage: Coverage) -> dict[str, list[str]]:
    """The pairs ``coverage`` reached, per place in the round's order, kinds sorted."""
    places = coverage.places()
    reached = {(w, k) for (w, k), n in coverage.reached.items() if n}
    extra = sorted({w for w, _ in reached} - set(places))
    return {
        w: sorted(k for w2, k in reached if w2 == w) for w in (*places, *extra) if any(w2 == w for w2, _ in reached)
    }


def gaps(game: str, reached: dict[str, list[str]]) -> dict[str, list[str]]:
    """The pairs of ``game`` that can occur and are not in ``reached``, per place."""
    got = {(w, k) for w, kinds in reached.items() for k in kinds}
    impossible = IMPOSSIBLE[game]
    out: dict[str, list[str]] = {}
    for where, kind in every_pair(game):
        if (where, kind) not in got and kind not in impossible.get(where, {}):
            out.setdefault(where, []).append(kind)
    return out


def dumps(data: dict[str, dict[str, list[str]]]) -> str:
    """``data`` as the recorded files hold it: a game per block, a place per line."""
    lines = ["{"]
    for i, (game, places) in enumerate(data.items()):
        lines.append(f" {json.dumps(game)}: {{")
        for j, (where, kinds) in enumerate(places.items()):
            comma = "," if j < len(places) - 1 else ""
            lines.append(f"  {json.dumps(where)}: {json.dumps(kinds)}{comma}")
        lines.append(" }" + ("," if i < len(data) - 1 else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m hil.simulate.ci_pairs [--game GAME] [--workers N] [--write]``."""
    parser = argparse.ArgumentParser(prog="python -m hil.simulate.ci_pairs", description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", choices=sorted(CI_SWARM_SEEDS), help="a game (default: every one)")
    parser.add_argument("--workers", type=int, default=1, help="processes to play the seeds on (default 1)")
    parser.add_argument("--from", dest="source", type=Path, help="the pairs a run dumped into this folder (--dump)")
    parser.add_argument("--dump", type=Path, help="also write each game's pairs reached into this folder")
    parser.add_argument("--write", action="store_true", help="write tests/ci_swarm_pairs.json and ci_swarm_gaps.json")
    args = parser.parse_args(argv)
    games = args.game or list(CI_SWARM_SEEDS)
    pairs = json.loads(PAIRS_FILE.read_text(encoding="utf-8"))
    holes = json.loads(GAPS_FILE.read_text(encoding="utf-8")) if GAPS_FILE.exists() else {}
    wrong = []
    for game in games:
        was = sum(len(k) for k in pairs.get(game, {}).values())
        if args.source is not None:  # a run's pairs dumped before (--dump): not played again
            reached = json.loads((args.source / f"{game}.json").read_text(encoding="utf-8"))
        else:
            reached = pairs_of(reach(game, args.workers))
        if args.dump:
            args.dump.mkdir(parents=True, exist_ok=True)
            (args.dump / f"{game}.json").write_text(json.dumps(reached, indent=1), encoding="utf-8")
        for where, kinds in reached.items():
            wrong += [
                f"{game} {where}: {k}: {IMPOSSIBLE[game][where][k]}"
                for k in kinds
                if k in IMPOSSIBLE[game].get(where, {})
            ]
        pairs[game], holes[game] = reached, gaps(game, reached)
        every = len(every_pair(game))
        impossible = sum(len(k) for k in IMPOSSIBLE[game].values())
        print(
            f"{game}: {sum(len(k) for k in reached.values())} pairs reached (recorded before: {was}), "
            f"{impossible} cannot occur, {sum(len(k) for k in holes[game].values())} can and are not reached "
            f"(of {every}: {len(CI_KINDS) - 1 + len(SWARM_KINDS)} kinds at {every // (len(CI_KINDS) - 1 + len(SWARM_KINDS))} places)"
        )
    if wrong:
        print("reached, though listed as impossible (hil/simulate/impossible_pairs.py):", *wrong, sep="\n  ")
        return 1
    if args.write:
        order = list(CI_SWARM_SEEDS)
        PAIRS_FILE.write_text(dumps({g: pairs[g] for g in order if g in pairs}), encoding="utf-8")
        GAPS_FILE.write_text(dumps({g: holes.get(g, {}) for g in order}), encoding="utf-8")
        print(f"written: {PAIRS_FILE.name}, {GAPS_FILE.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
