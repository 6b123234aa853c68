"""Targeted scenarios generated for the (step, fault kind) pairs the CI swarm set misses (issue 41 item 5).

The CI swarm seeds (:data:`.swarm.CI_SWARM_SEEDS`) and the hand-written scenarios
(:data:`.swarm.HELD_SCENARIOS`, :data:`.swarm.STEP_SCENARIOS`) leave a gap: pairs that can occur
and are not reached (``tests/ci_swarm_gaps.json``). This module closes it by search, not by hand:
for every place of the gap (a step, held or not) it builds short plays from a few recipes, each
placing the gap's kinds at the step (and, for a held place, a fault that makes the table hold
there first: a journal outage, the shoe's line pulled or a full disk as the step starts), plays
them, and keeps a play for the kinds that acted there (docs/simulate.md, "When a fault acted").
Kinds that act together at one place share one play (played again with only them, until what it
reaches is stable); the rest are tried one by one. One round a play, six for the stub count (it
comes after the fifth round).

The kept plays are data, ``hil/simulate/targets.json``, written by::

    python -m hil.simulate.targets --write [--game GAME] [--workers N]

and played by the CI swarm test beside the seeds, which checks that each still reaches every pair
it names (:data:`GENERATED`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from hil.simulate.faults import Fault
from hil.simulate.swarm import CI_SWARM_SEEDS, Reached

__all__ = ["TARGETS_FILE", "Target", "GENERATED", "load", "generate", "main"]

TARGETS_FILE = Path(__file__).with_name("targets.json")
"""The generated plays, per game (``python -m hil.simulate.targets --write``)."""

_GAPS_FILE = Path(__file__).resolve().parents[2] / "tests" / "ci_swarm_gaps.json"

_STUB_ROUND = 5
"""The stub is counted after every fifth round: a play for ``count_stub`` faults round 5 of six."""

_DEVICE = {
    "panel_outage": "panel",
    "key": "panel",
    "wrong_press": "panel",
    "void": "panel",
    "late_bet": "bet_spots",
}
"""The device a kind is placed on (the shoe unless named)."""

_HOLDERS = ("journal_error", "link_down", "disk_full", "early_card")
"""Faults that make the table hold as a step starts (the first write refused, the shoe's line
pulled, a card out of the shoe when none is expected)."""

_SEEDS = (1, 2, 3, 4, 5)


@dataclass(frozen=True, slots=True)
class Target:
    """One generated play: seed, rounds, its faults, and the pairs (``where``, kind) it reaches."""

    seed: int
    rounds: int
    faults: tuple[Fault, ...]
    reaches: tuple[tuple[str, str], ...]

    def to_json(self) -> dict[str, object]:
        return {
            "seed": self.seed,
            "rounds": self.rounds,
            "faults": [[f.at, f.kind, f.device, f.duration, f.value, f.step, f.edge, f.round_no] for f in self.faults],
            "reaches": [f"{w}: {k}" for w, k in self.reaches],
        }

    @staticmethod
    def from_json(data: dict[str, object]) -> Target:
        rows = data["faults"]
        reaches = data["reaches"]
        assert isinstance(rows, list) and isinstance(reaches, list)
        faults = tuple(
            Fault(float(a), str(k), str(d), float(u), int(v), step=str(s), edge=str(e), round_no=int(n))
            for a, k, d, u, v, s, e, n in rows
        )
        pairs = tuple((str(r).rsplit(": ", 1)[0], str(r).rsplit(": ", 1)[1]) for r in reaches)
        return Target(int(str(data["seed"])), int(str(data["rounds"])), faults, pairs)


def load(path: Path = TARGETS_FILE) -> dict[str, tuple[Target, ...]]:
    """The generated plays per game (none when the file is absent)."""
    if not path.exists():
        return {}
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {game: tuple(Target.from_json(t) for t in rows) for game, rows in raw.items()}


GENERATED: dict[str, tuple[Target, ...]] = load()
"""The generated plays the CI swarm test plays beside each game's seeds and scenarios."""

Play = tuple[int, int, tuple[Fault, ...], tuple[Fault, ...]]
"""A play tried: seed, rounds, the faults that help (make the hold, bring a state request, put a
late bet for the supervisor to decide on), the faults placed for the pairs."""


def _at(kind: str, step: str, edge: str, round_no: int, delay: float = 0.0, device: str = "") -> Fault:
    device = device or _DEVICE.get(kind, "shoe")
    return Fault(delay, kind, device, 1.0, 1, step=step, edge=edge, round_no=round_no)


def _helpers(step: str, edge: str, n: int) -> tuple[tuple[Fault, ...], ...]:
    """Faults that let others act at a step: none; the shoe's line pulled briefly (its whole state
    read when it comes back: a changed count, a refused or damaged answer); the shoe powered up again
    (the controller asks its state); chips put on a locked spot (a late bet the supervisor decides on);
    a card out of the shoe early (it carries the shoe's count: a count changed before it is seen)."""
    return (
        (),
        (Fault(0.02, "link_down", "shoe", 0.1, 1, step=step, edge=edge, round_no=n),),
        (Fault(0.02, "reboot", "shoe", 0.0, 1, step=step, edge=edge, round_no=n),),
        (Fault(0.0, "late_bet", "bet_spots", 1.0, 1, step=step, edge=edge, round_no=n),),
        (Fault(0.05, "early_card", "shoe", 1.0, 1, step=step, edge=edge, round_no=n),),
    )


def _plays(step: str, held: bool, kinds: Sequence[str]) -> Iterator[Play]:
    """The plays tried for ``kinds`` at ``step`` (held or not), likeliest first."""
    n, rounds = (_STUB_ROUND, _STUB_ROUND + 1) if step == "count_stub" else (1, 1)
    edge = "held" if held else "enter"
    holds: tuple[tuple[Fault, ...], ...] = ((),)
    if held:
        holds = tuple((Fault(0.0, by, "shoe", 1.0, 1, step=step, edge="enter", round_no=n),) for by in _HOLDERS)
    for helper in _helpers(step, edge, n):
        delay = 0.05 if helper and helper[0].kind == "late_bet" else 0.0
        for hold in holds:
            for seed in _SEEDS if not helper else _SEEDS[:2]:
                yield seed, rounds, (*hold, *helper), tuple(_at(k, step, edge, n, delay) for k in kinds)
    for hold in holds[:2]:
        for seed in _SEEDS[:2]:
            yield seed, rounds, hold, tuple(_at(k, step, edge, n, 0.1) for k in kinds)


def _acted(game: str, play: Play, step: str, held: bool) -> set[str] | None:
    """The kinds of ``play``'s placed faults that acted at ``step`` (held or not); None when an
    invariant broke."""
    from hil.simulate.run import run_seed

    seed, rounds, helpers, placed = play
    res = run_seed(game, seed, (), rounds=rounds, faults=[*helpers, *placed])
    if not res.ok:
        return None
    return {f.kind for f in placed if Reached(f.kind, step, held) in res.reached}


def _keep(game: str, step: str, held: bool, play: Play) -> Target | None:
    """``play`` reduced to its placed faults that act at the place, played again until what it
    reaches is stable; None when none does."""
    seed, rounds, helpers, placed = play
    for _ in range(4):
        acted = _acted(game, (seed, rounds, helpers, placed), step, held)
        if not acted:
            return None
        if acted == {f.kind for f in placed}:
            where = f"{step} (held)" if held else step
            return Target(seed, rounds, (*helpers, *placed), tuple((where, k) for k in sorted(acted)))
        placed = tuple(f for f in placed if f.kind in acted)
    return None


def generate_place(game: str, where: str, kinds: Sequence[str]) -> list[Target]:
    """Plays that reach as many of ``kinds`` at ``where`` as the recipes can: the kinds together,
    then what is left of them one by one."""
    held = where.endswith(" (held)")
    step = where.removesuffix(" (held)")
    left = list(kinds)
    out: list[Target] = []
    for play in _plays(step, held, left):
        if not left:
            break
        play = (*play[:3], tuple(f for f in play[3] if f.kind in left))
        target = _keep(game, step, held, play)
        if target is not None:
            out.append(target)
            left = [k for k in left if (where, k) not in target.reaches]
    for kind in list(left) if len(kinds) > 1 else ():
        for play in _plays(step, held, [kind]):
            target = _keep(game, step, held, play)
            if target is not None:
                out.append(target)
                left.remove(kind)
                break
    return out


def _game_job(args: tuple[str, dict[str, list[str]]]) -> tuple[str, list[Target]]:
    game, gaps = args
    found = [t for where, kinds in gaps.items() for t in generate_place(game, where, kinds)]
    return game, found


def generate(gaps: dict[str, dict[str, list[str]]], workers: int = 1) -> dict[str, list[Target]]:
    """Per game, the plays found for its gap (``gaps``: game -> place -> kinds)."""
    jobs = [(game, places) for game, places in gaps.items()]
    if workers <= 1:
        return dict(_game_job(j) for j in jobs)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return dict(pool.map(_game_job, jobs))


def dumps(data: Mapping[str, Sequence[Target]]) -> str:
    """The plays as :data:`TARGETS_FILE` holds them: a game per block, a play per line."""
    lines = ["{"]
    for i, (game, targets) in enumerate(data.items()):
        lines.append(f" {json.dumps(game)}: [")
        for j, t in enumerate(targets):
            lines.append("  " + json.dumps(t.to_json()) + ("," if j < len(targets) - 1 else ""))
        lines.append(" ]" + ("," if i < len(data) - 1 else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m hil.simulate.targets [--game GAME] [--workers N] [--write]``: search plays for the
    gap (``tests/ci_swarm_gaps.json``, less the pairs the plays kept already reach), print what they
    reach, and with ``--write`` add them to :data:`TARGETS_FILE`."""
    parser = argparse.ArgumentParser(prog="python -m hil.simulate.targets", description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", choices=sorted(CI_SWARM_SEEDS), help="a game (default: every one)")
    parser.add_argument("--workers", type=int, default=1, help="processes to search on, a game each (default 1)")
    parser.add_argument("--write", action="store_true", help="add the plays found to hil/simulate/targets.json")
    args = parser.parse_args(argv)
    all_gaps = json.loads(_GAPS_FILE.read_text(encoding="utf-8"))
    kept = {g: list(t) for g, t in load().items()}
    gaps: dict[str, dict[str, list[str]]] = {}
    for game in args.game or list(all_gaps):
        done = {p for t in kept.get(game, []) for p in t.reaches}
        places = {w: [k for k in ks if (w, k) not in done] for w, ks in all_gaps[game].items()}
        gaps[game] = {w: ks for w, ks in places.items() if ks}
    found = generate(gaps, args.workers)
    for game, targets in found.items():
        before = sum(len(k) for k in gaps[game].values())
        reached = sum(len(t.reaches) for t in targets)
        print(f"{game}: {reached} of {before} gap pairs reached by {len(targets)} plays")
        kept.setdefault(game, []).extend(targets)
    if args.write:
        TARGETS_FILE.write_text(dumps(kept), encoding="utf-8")
        print(f"written: {TARGETS_FILE.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
