"""The mutation score (issue 41 item 7): plausible bugs put into the code one at a time, and which
of them the CI simulation catches, by which invariant.

Each mutant is data (:class:`Mutant`): a file, the exact text to replace (it must occur exactly
once), its replacement, and the bug in words. The tree is copied once to a temporary folder (as
:mod:`.guard` lays a working tree out: no ``.git``, no journals); each mutant is applied to the
copy, the CI simulation's seeds of its games are played there in a separate process that imports
only the copy's code (``--faults ci``, two rounds a seed, as ``tests/test_simulate.py`` plays
them), and the mutant is reverted, the file checked byte for byte. The checkout is never written::

    python -m hil.simulate.mutants                  # every mutant, the CI's 40 seeds a game
    python -m hil.simulate.mutants --seeds 10 --only pg_joker_wild,ms_deal_order
    python -m hil.simulate.mutants --list

A mutant is caught when a seed breaks an invariant (the first seed that does stops its run); it
survives when every seed passes. Exit 0 when at least ``--target`` percent (default 90) are caught
and every survivor is one named in :data:`EXPECTED_SURVIVORS` (with why), 1 otherwise, 2 on bad
arguments.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from hil.simulate.swarm import SWARM_ROUNDS

__all__ = [
    "Mutant",
    "MutantError",
    "MUTANTS",
    "EXPECTED_SURVIVORS",
    "Outcome",
    "copy_tree",
    "apply",
    "revert",
    "run_mutant",
    "main",
]

GAMES = ("boston5", "mississippi_stud", "pai_gow")
B5, MS, PG = ("boston5",), ("mississippi_stud",), ("pai_gow",)


@dataclass(frozen=True)
class Mutant:
    """One plausible bug: in ``path`` (relative to the tree), ``old`` (occurring exactly once)
    becomes ``new``; ``games``: the games whose CI seeds are played against it."""

    name: str
    path: str
    old: str
    new: str
    bug: str
    games: tuple[str, ...] = GAMES


MUTANTS: tuple[Mutant, ...] = (
    # --- payout odds and settlement ---------------------------------------------------------------
    Mutant(
        "ms_third_street_odds",
        "controller/game/mississippi_stud/_rules.py",
        "return [WagerResult(s, w[s], Result.WIN, odds.payout(w[s]), why) for s in _SPOTS]",
        'return [WagerResult(s, w[s], Result.WIN, w[s] if s == "third" else odds.payout(w[s]), why) for s in _SPOTS]',
        "Mississippi Stud: a winning third-street bet paid even money, not the hand's odds (35.11)",
        MS,
    ),
    Mutant(
        "ms_fold_forfeit",
        "controller/game/mississippi_stud/_rules.py",
        '_LOST = {street: ("ante", *STREETS[: STREETS.index(street)]) for street in STREETS}',
        '_LOST = {street: ("ante", *STREETS[: max(0, STREETS.index(street) - 1)]) for street in STREETS}',
        "Mississippi Stud: a fold at 5th street forfeits the ante and 3rd street bet but not the 4th's (35.10(g))",
        MS,
    ),
    Mutant(
        "b5_ante_paid",
        "controller/game/boston5/_rules.py",
        'WagerResult("ante", w["ante"], Result.RETURNED, 0, "player higher: the ante is returned (24.10(f)3)")',
        'WagerResult("ante", w["ante"], Result.WIN, w["ante"], "player higher: the ante is returned (24.10(f)3)")',
        "Boston 5: a player higher than the dealer is paid even money on the ante instead of its return (24.10(f)3)",
        B5,
    ),
    Mutant(
        "b5_ante_bonus_only_on_win",
        "controller/game/boston5/_rules.py",
        '    if row is not None and not row.odds.push:\n        why = f"ante bonus',
        '    if row is not None and not row.odds.push and player > dealer_value:\n        why = f"ante bonus',
        "Boston 5: the ante bonus paid only when the player beats the dealer, not whatever the comparison (24.11(c))",
        B5,
    ),
    Mutant(
        "b5_bonus_unexposed_paid",
        "controller/game/boston5/_rules.py",
        "    if not seat.exposed_bonus:\n        return WagerResult(",
        "    if not seat.exposed_bonus and False:\n        return WagerResult(",
        "Boston 5: a three-card bonus paid on a hand the player did not expose (24.10(a))",
        B5,
    ),
    Mutant(
        "pg_commission_not_taken",
        "controller/game/pai_gow/_rules.py",
        'return WagerResult("pai_gow", stake, Result.WIN, stake - fee, why, commission=fee)',
        'return WagerResult("pai_gow", stake, Result.WIN, stake, why, commission=fee)',
        "pai gow: a won wager paid even money with the commission recorded but not deducted",
        PG,
    ),
    Mutant(
        "pg_copy_to_player",
        "controller/game/pai_gow/_rules.py",
        "        high > dealer_high,",
        "        high >= dealer_high,",
        "pai gow: a copy (identical high hand) goes to the player, not the banker",
        PG,
    ),
    # --- deal order -------------------------------------------------------------------------------
    Mutant(
        "ms_deal_order",
        "controller/game/mississippi_stud/_machine.py",
        "number = sorted(seats)[placed // 2]",
        "number = sorted(seats)[placed % len(seats)]",
        "Mississippi Stud: the players' cards dealt one at a time round the table, not as 2-card stacks (35.9(d))",
        MS,
    ),
    Mutant(
        "b5_deal_order",
        "controller/game/boston5/_machine.py",
        "number = order[placed // 3]",
        "number = order[placed % len(order)]",
        "Boston 5: the first three cards dealt one at a time round the table, not as 3-card stacks (24.8(c))",
        B5,
    ),
    Mutant(
        "pg_deal_direction",
        "controller/game/pai_gow/_deal.py",
        '    if direction == "counterclockwise":\n        ring.reverse()',
        '    if direction != "counterclockwise":\n        ring.reverse()',
        "pai gow: the cards dealt in the direction opposite the configured one (31.8)",
        PG,
    ),
    Mutant(
        "pg_start_position",
        "controller/game/pai_gow/_deal.py",
        "return counting_order(count_direction, seats)[(value - 1) % positions]",
        "return counting_order(count_direction, seats)[value % positions]",
        "pai gow: the dice total counted with the dealer as 0, not 1: the first hand one position off (31.11)",
        PG,
    ),
    # --- the joker and the house way ----------------------------------------------------------------
    Mutant(
        "pg_joker_wild",
        "controller/hands/fast.py",
        "if s > best and s >> 20 in _JOKER_COMPLETES:",
        "if s > best:",
        "pai gow: the joker fully wild (any rank for pairs and trips), not an ace or a straight/flush filler",
        PG,
    ),
    Mutant(
        "pg_house_way_no_pair",
        "controller/game/pai_gow/_house_way.py",
        "return h.front([h.cards[1], h.cards[2]], ",
        "return h.front([h.cards[0], h.cards[1]], ",
        "pai gow house way: no pair sets the two highest cards in front, not the second and third",
        PG,
    ),
    Mutant(
        "pg_house_way_one_pair",
        "controller/game/pai_gow/_house_way.py",
        "h.best_two(h.others(h.of_rank(h.pairs[0], 2))),",
        "h.others(h.of_rank(h.pairs[0], 2))[-2:],",
        "pai gow house way: one pair sets the two lowest other cards in front, not the two highest",
        PG,
    ),
    # --- visibility -----------------------------------------------------------------------------------
    Mutant(
        "ms_community_a_street_early",
        "controller/game/mississippi_stud/__init__.py",
        'Reveal(Holder.COMMUNITY, frozenset({"fourth_street"}), 1,',
        'Reveal(Holder.COMMUNITY, frozenset({"third_street", "fourth_street"}), 1,',
        "Mississippi Stud: each community card turned a street early (35.10(d), (f))",
        MS,
    ),
    Mutant(
        "b5_bonus_hand_shown",
        "controller/game/boston5/__init__.py",
        'Reveal(Holder.SEAT, None, 3, "24.10(a): a bonus hand the player exposed", When.EXPOSED),',
        'Reveal(Holder.SEAT, None, 3, "24.10(a): a bonus hand the player exposed"),',
        "Boston 5: a player's three cards shown before settlement whether or not he exposed them (24.10(a))",
        B5,
    ),
    Mutant(
        "b5_hands_shown_at_the_reveal",
        "controller/game/boston5/__init__.py",
        'Reveal(Holder.SEAT, SETTLED_STEPS, None, "24.10(f): each hand in play turned in order", When.TURNED),',
        'Reveal(Holder.SEAT, SETTLED_STEPS, None, "24.10(f): each hand in play turned in order"),',
        "Boston 5: every player's hand face up at the dealer's reveal, before he turns each (24.10(f))",
        B5,
    ),
    Mutant(
        "pg_dealer_shown_while_setting",
        "controller/game/pai_gow/__init__.py",
        'Reveal(Holder.DEALER, frozenset({"setting"}) | SETTLED_STEPS,',
        'Reveal(Holder.DEALER, frozenset({"set_hands", "setting"}) | SETTLED_STEPS,',
        "pai gow: the dealer's hand face up while the players still set theirs (31.8, 11.9)",
        PG,
    ),
    # --- the journal before the act, late bets ----------------------------------------------------------
    Mutant(
        "engine_act_unjournaled",
        "controller/table/engine.py",
        "            self._refuse(event)\n            return\n        self._acted_on(event)",
        "            self._refuse(event)\n        self._acted_on(event)",
        "an event the journal refused is acted on anyway (journal before act)",
    ),
    Mutant(
        "late_bet_taken",
        "controller/table/_late_bets.py",
        "        self.pending.append((seat, spot, cents))\n",
        "        self.pending.append((seat, spot, cents))\n"
        "        if cents and seat in self._state.seats:\n"
        "            self._state.seats[seat].wagers[spot] = cents\n",
        "a late bet enters the round's wagers at once, without the supervisor's acceptance",
    ),
    Mutant(
        "late_change_after_deal",
        "controller/table/_late_bets.py",
        "        if dealt:  # e.g. a Mississippi Stud ante: it sets every street bet, on the player's own two cards\n"
        '            return f"a round already dealt: {self._closed(spot)}"\n',
        "",
        "a late change to a wager placed before the deal enters when the supervisor accepts it after the round's "
        "first card is out, if the seat's rules allow it (the pre-deal rule forgotten)",
    ),
    # --- meters, double settlement -----------------------------------------------------------------------
    Mutant(
        "meters_void_collected",
        "controller/journal/meters.py",
        "        if settlement is None:\n            continue\n",
        "        if settlement is None:\n"
        '            out[(scope, "collected")] += sum(entry["wagers"].values())\n'
        "            continue\n",
        "meters: a voided round's wagers counted as collected (they are returned)",
    ),
    Mutant(
        "meters_commission_paid",
        "controller/journal/meters.py",
        '                out[(s, "commission")] += w.get("commission", 0)',
        '                out[(s, "commission")] += w.get("commission", 0)\n'
        '                out[(s, "paid")] += w.get("commission", 0)',
        "meters: the pai gow commission counted as paid out as well as taken",
        PG,
    ),
    Mutant(
        "b5_bonus_paid_twice",
        "controller/game/boston5/_machine.py",
        "done = {step.text for step in self.bonus_steps}",
        "done: set[str] = set()",
        "double settlement: Boston 5's bonus, settled right after the exposure, asked again at the settlement",
        B5,
    ),
    Mutant(
        "fold_collected_twice",
        "controller/table/_settlement_walk.py",
        "steps = tuple(s for s in settlement.procedure if s.text not in done) if done else settlement.procedure",
        "steps = settlement.procedure",
        "a fold's wagers, collected when the seat folded, asked to be collected again at settlement",
        B5 + MS,
    ),
    # --- holds ------------------------------------------------------------------------------------------
    Mutant(
        "hold_forgotten_next_round",
        "controller/table/_links.py",
        '        if down:\n            self._holds.hold(f"link down: {down[0]}", HoldKind.LINK)',
        '        if down and not down:\n            self._holds.hold(f"link down: {down[0]}", HoldKind.LINK)',
        "a link still down when a round opens does not hold the new round",
    ),
    Mutant(
        "hold_released_one_device_back",
        "controller/table/_links.py",
        "        if self.device_links.why_not_back() is not None:\n            self.still_missing()",
        "        if False:\n            self.still_missing()",
        "a link hold ends when one device is back though another is still down",
    ),
    Mutant(
        "hold_cleared_while_down",
        "controller/table/_links.py",
        "            return self._intake.waiting_reason()\n        return self.why_not_resume()",
        "            return self._intake.waiting_reason()\n        return None",
        "the supervisor's clear fault resumes play while a device is still down or the shoe jammed",
    ),
    # --- recovery after a crash --------------------------------------------------------------------------
    Mutant(
        "recover_drops_last_event",
        "controller/table/runtime.py",
        "events = [r for r in journal.records(after) if r.event]",
        "events = [r for r in journal.records(after) if r.event][:-1]",
        "recovery after a crash replays every journaled event but the last",
    ),
    Mutant(
        "recover_round_number",
        "controller/table/_carry_over.py",
        'self._state.round_no = int(state["round_no"]) - 1',
        'self._state.round_no = int(state["round_no"])',
        "recovery after a crash reopens the table one round number on (the open round's number skipped)",
    ),
)
"""The mutants, each a plausible bug (issue 41 item 7 names the kinds)."""

EXPECTED_SURVIVORS: dict[str, str] = {}
"""Mutants the CI simulation does not catch, each with why (kept in step with docs/simulate.md)."""

# Played inside the copy (its own code only): one JSON line a seed, stops at the first broken one.
# The CI's seeds of two rounds, then the first of its swarm seeds of ten (``CI_SWARM_SEEDS``, less
# the open swarm findings), the targeted scenarios and the stacked shoes.
_PLAYER = """
import json, os, sys
import controller
from hil.simulate.faults import CI_KINDS
from hil.simulate.run import run_seed
from hil.simulate.stack import STACKED
from hil.simulate.swarm import CI_SWARM_SEEDS, LATE_SCENARIOS, SCENARIOS, SWARM_FINDINGS, SWARM_ROUNDS
tree = sys.argv[1]
if not controller.__file__.startswith(tree):
    sys.exit(f"the copy's code is not the one imported: {controller.__file__}")
mutated = os.path.join(tree, sys.argv[5])

def stop():  # the mutated file must be code the simulation ran, or the mutant tells nothing
    if not any(getattr(m, "__file__", None) == mutated for m in list(sys.modules.values())):
        sys.exit(f"{sys.argv[5]}: not imported by the simulation (the code moved?): the mutant tests nothing")
    sys.exit(0)

seeds, swarm_seeds = int(sys.argv[2]), int(sys.argv[4])
plays = [(game, seed, False) for game in sys.argv[3].split(",") for seed in range(1, seeds + 1)]
plays += [(game, seed, True) for game in sys.argv[3].split(",") for seed in CI_SWARM_SEEDS[game][:swarm_seeds]
          if (game, seed) not in SWARM_FINDINGS]
for game, seed, swarm in plays:
    res = run_seed(game, seed, CI_KINDS, rounds=SWARM_ROUNDS if swarm else 2, swarm=swarm)
    print(json.dumps({"game": game, "seed": seed, "swarm": swarm, "broken": res.broken, "detail": res.detail}),
          flush=True)
    if res.broken:
        stop()
late = [(game, seed, rounds, faults) for game, rows in LATE_SCENARIOS.items() for seed, rounds, faults in rows]
for game, seed, rounds, faults in [*SCENARIOS, *late] if swarm_seeds else ():
    if game in sys.argv[3].split(","):
        res = run_seed(game, seed, (), rounds=rounds, faults=list(faults))
        print(json.dumps({"game": game, "seed": seed, "swarm": "scenario", "broken": res.broken,
                          "detail": res.detail}), flush=True)
        if res.broken:
            stop()
for game, seed, rounds, stack in STACKED if swarm_seeds else ():
    if game in sys.argv[3].split(","):
        res = run_seed(game, seed, (), rounds=rounds, faults=[], stack=stack)
        print(json.dumps({"game": game, "seed": seed, "swarm": "stacked", "broken": res.broken,
                          "detail": res.detail}), flush=True)
        if res.broken:
            stop()
stop()
"""


@dataclass(frozen=True)
class Outcome:
    """What the simulation did with one mutant: ``invariant`` broken ("" when it survived), the
    game and seed that broke it, what it said, the seeds played, and the CPU seconds."""

    mutant: Mutant
    invariant: str = ""
    game: str = ""
    seed: int = 0
    detail: str = ""
    seeds_played: int = 0
    seconds: float = 0.0
    swarm: bool | str = False
    """Whether the seed that broke it was a swarm seed (``--swarm``), ``"scenario"``: one of
    :data:`.swarm.SCENARIOS`, or ``"stacked"``: one of :data:`.stack.STACKED`."""

    failed: str = ""
    """Why the seeds did not run to an answer (the player failed or timed out; the mutated file
    not imported): then the mutant is neither caught nor a survivor, and the run fails."""

    @property
    def caught(self) -> bool:
        return bool(self.invariant) and not self.failed


def copy_tree(source: Path, tree: Path) -> None:
    """Lay the working tree ``source`` out at ``tree`` as :mod:`.guard` does (no ``.git``, no
    virtual environment, no caches, no journals)."""
    if tree.exists():
        shutil.rmtree(tree)
    shutil.copytree(
        source,
        tree,
        symlinks=True,
        ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.db*", ".mypy_cache", ".ruff_cache"),
    )


class MutantError(ValueError):
    """A mutant's text does not occur exactly once where it should (the list has rotted)."""


def _once(text: str, part: str, what: str) -> None:
    count = text.count(part)
    if count != 1:
        raise MutantError(f"{what}: occurs {count} times, not once")


def apply(tree: Path, m: Mutant) -> str:
    """Put mutant ``m`` into ``tree``; returns the file's text before (for :func:`revert`)."""
    path = tree / m.path
    before = path.read_text(encoding="utf-8")
    _once(before, m.old, f"mutant {m.name}: {m.path}: its text")
    path.write_text(before.replace(m.old, m.new, 1), encoding="utf-8")
    return before


def revert(tree: Path, m: Mutant, before: str) -> None:
    """Take mutant ``m`` out of ``tree`` again: the file's text is exactly ``before`` (it must
    hold the mutant and nothing else changed since :func:`apply`)."""
    path = tree / m.path
    if path.read_text(encoding="utf-8") != before.replace(m.old, m.new, 1):
        raise MutantError(f"mutant {m.name}: {m.path}: changed since the mutant was applied")
    path.write_text(before, encoding="utf-8")
    for cache in (path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"):
        cache.unlink()


def run_mutant(tree: Path, m: Mutant, seeds: int, timeout_s: float = 900.0, swarm_seeds: int = 0) -> Outcome:
    """Apply ``m`` to ``tree``, play its games' first ``seeds`` CI seeds there, then its first
    ``swarm_seeds`` CI swarm seeds (:data:`.swarm.CI_SWARM_SEEDS`, ten rounds each), revert it."""
    before = apply(tree, m)
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _PLAYER, str(tree), str(seeds), ",".join(m.games), str(swarm_seeds), m.path],
            cwd=tree,
            env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0"},
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout_s,
        )
    except subprocess.TimeoutExpired:
        return Outcome(m, failed=f"no result in {timeout_s:.0f} s", seconds=time.monotonic() - start)
    finally:
        revert(tree, m, before)
    lines = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["(no output)"]
        return Outcome(m, failed=f"the seeds did not run: {tail[0]}", seeds_played=len(lines), seconds=seconds)
    broken = [x for x in lines if x["broken"]]
    if broken:
        b = broken[0]
        return Outcome(m, b["broken"], b["game"], int(b["seed"]), b["detail"], len(lines), seconds, b["swarm"])
    return Outcome(m, seeds_played=len(lines), seconds=seconds)


def _kind(o: Outcome) -> str:
    if o.swarm in ("scenario", "stacked"):
        return f"{'targeted' if o.swarm == 'scenario' else 'stacked'} scenario, "
    return "swarm " if o.swarm else ""


def _table(outcomes: Sequence[Outcome]) -> list[str]:
    rows = ["| mutant | bug | caught by | where |", "|---|---|---|---|"]
    for o in outcomes:
        if o.failed:
            rows.append(f"| `{o.mutant.name}` | {o.mutant.bug} | **did not run** | {o.failed} |")
        elif o.caught:
            where = f"{o.game} {_kind(o)}seed {o.seed}" if o.seed else ""
            rows.append(f"| `{o.mutant.name}` | {o.mutant.bug} | `{o.invariant}` | {where} |")
        else:
            why = EXPECTED_SURVIVORS.get(o.mutant.name, "not expected: a gap to look into")
            rows.append(f"| `{o.mutant.name}` | {o.mutant.bug} | **not caught** in {o.seeds_played} seeds | {why} |")
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: exit 0 when the score reaches ``--target`` with only expected survivors."""
    parser = argparse.ArgumentParser(prog="python -m hil.simulate.mutants", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=40, help="CI seeds a game, from 1 (default: 40, as CI)")
    parser.add_argument(
        "--swarm-seeds",
        type=int,
        default=40,
        help="the first N of each game's CI swarm seeds (hil/simulate/swarm.py CI_SWARM_SEEDS; ten rounds each, "
        "--swarm), played after --seeds (default: 40, all of them, as CI)",
    )
    parser.add_argument("--only", default="", help="mutants to run, comma-separated (default: all)")
    parser.add_argument("--workers", type=int, default=1, help="mutants played at once, each in its own copy (max 2)")
    parser.add_argument("--target", type=float, default=90.0, help="the percentage to reach (default: 90)")
    parser.add_argument("--tree", type=Path, default=Path.cwd(), help="the working tree to copy (default: here)")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    args = parser.parse_args(argv)
    if args.list:
        for m in MUTANTS:
            print(f"{m.name:32} {m.path}: {m.bug}")
        return 0
    if args.seeds < 1 or args.swarm_seeds < 0 or not 1 <= args.workers <= 2:
        parser.error("--seeds must be at least 1, --swarm-seeds 0 or more and --workers 1 or 2 (the machine is shared)")
    by_name = {m.name: m for m in MUTANTS}
    wanted = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in wanted if n not in by_name]
    if unknown:
        parser.error(f"unknown mutant(s): {', '.join(unknown)} (see --list)")
    chosen = [by_name[n] for n in wanted] if wanted else list(MUTANTS)
    if not (args.tree / "controller").is_dir():
        parser.error(f"--tree {args.tree}: not a tablectl working tree (no controller/)")
    for m in chosen:  # every text checked before anything runs
        try:
            _once((args.tree / m.path).read_text(encoding="utf-8"), m.old, f"mutant {m.name}: {m.path}: its text")
        except (OSError, MutantError) as exc:
            print(f"mutants: {exc}", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory(prefix="tablectl-mutants-") as tmp:
        trees = [Path(tmp) / f"tree{i}" for i in range(args.workers)]
        for t in trees:
            copy_tree(args.tree, t)
        free = list(trees)

        def one(m: Mutant, report: Callable[[Outcome], None] = lambda o: None) -> Outcome:
            tree = free.pop()
            try:
                outcome = run_mutant(tree, m, args.seeds, swarm_seeds=args.swarm_seeds)
            finally:
                free.append(tree)
            report(outcome)
            return outcome

        def tell(o: Outcome) -> None:
            said = f"caught by {o.invariant} ({o.game} {_kind(o)}seed {o.seed})" if o.caught else "NOT caught"
            said = f"DID NOT RUN: {o.failed}" if o.failed else said
            print(f"{o.mutant.name}: {said} [{o.seconds:.0f} s]", flush=True)

        with ThreadPoolExecutor(args.workers) as pool:
            outcomes = list(pool.map(lambda m: one(m, tell), chosen))
    caught = sum(o.caught for o in outcomes)
    score = 100.0 * caught / len(outcomes)
    print()
    print("\n".join(_table(outcomes)))
    print()
    print(
        f"mutation score: {caught} of {len(outcomes)} caught ({score:.0f}%), "
        f"{args.seeds} CI seeds a game (--faults ci, 2 rounds) and {args.swarm_seeds} CI swarm seeds (--swarm, "
        f"{SWARM_ROUNDS} rounds), {time.strftime('%Y-%m-%d', time.gmtime())}"
    )
    unexpected = [
        o.mutant.name for o in outcomes if not o.caught and not o.failed and o.mutant.name not in EXPECTED_SURVIVORS
    ]
    if unexpected:
        print(f"not caught and not expected: {', '.join(unexpected)}")
    failed = [o.mutant.name for o in outcomes if o.failed]
    if failed:
        print(f"did not run (neither caught nor missed; fix the mutant or the tree): {', '.join(failed)}")
    return 0 if score >= args.target and not unexpected and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
