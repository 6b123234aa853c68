"""Running seeds: one (:func:`run_seed`), many on every core (:func:`run_seeds`), and a failing
one shrunk to the fewest faults that still break the same invariant (:func:`shrink`)."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import itertools
import logging
import multiprocessing
import multiprocessing.pool
import os
import shutil
import signal
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.configuration import TableConfig, config_dir, load_table
from controller.journal.compact import parsed_once
from drivers.framing import in_process
from hil.collector import set_aside
from hil.simulate.faults import CI_KINDS, FAULT_KINDS, Fault, schedule, source_text
from hil.simulate.invariants import Broken, check_chips, check_journal
from hil.simulate.liveness import play_on
from hil.simulate.model_check import check_rounds
from hil.simulate.seed_journal import read_seed_journal
from hil.simulate.stack import Stack, Stacker
from hil.simulate.swarm import Coverage, Reached, swarm_schedule
from hil.simulate.world import SWARM_WAIT_S, WAIT_S, SimView, Stuck, World

__all__ = [
    "SeedResult",
    "RunSummary",
    "run_seed",
    "run_seeds",
    "seed_folder",
    "shrink",
    "replay_command",
    "shrunk_row",
]

SEATS = 3
"""Seats in play each round."""

FRAMED_EVERY = 10
"""One seed in this many (those divisible by it) runs its links through the whole codec: each
frame COBS-encoded, CRC'd and decoded again, each reply fed in the pieces its line cuts it into.
The others (time compressed, issue 41 item 6) decode a frame this process just encoded by a look-up
(:func:`drivers.framing.in_process`) and feed each reply whole (:attr:`hil.wire.SimWire.whole`):
the same frames, counts and random draws, so the same journal, for about a third less CPU. The
codec stays under test in every run of ten seeds or more (and in its own tests)."""


def framed(seed: int) -> bool:
    """Whether seed ``seed`` runs its links through the whole codec (:data:`FRAMED_EVERY`)."""
    return seed % FRAMED_EVERY == 0


@dataclass
class SeedResult:
    """What one seed did: rounds played, events, simulated and CPU seconds, the faults injected,
    the invariant broken (``broken``: its name, ``detail``: what happened; empty when none), the
    journal's digest (sha256 of its bytes) and the finished rounds to re-settle."""

    game: str
    seed: int
    rounds: int = 0
    events: int = 0
    sim_seconds: float = 0.0
    cpu_seconds: float = 0.0
    faults: list[str] = field(default_factory=list)
    broken: str = ""
    detail: str = ""
    digest: str = ""
    crashes: int = 0
    resettle: list[tuple[int, dict[str, Any], str]] = field(default_factory=list)
    reached: list[Reached] = field(default_factory=list)
    """Each fault injected, with the step the table was at (the swarm's coverage)."""

    @property
    def ok(self) -> bool:
        return not self.broken


_TABLES: dict[str, TableConfig] = {}


def bench_table(game: str) -> TableConfig:
    """The bench's table config of ``game`` (loaded once per process)."""
    if game not in _TABLES:
        _TABLES[game] = load_table(config_dir() / "bench" / f"{game}.yaml")
    return _TABLES[game]


def _scratch() -> str | None:
    """Where a seed's journal is written: memory-backed ``/dev/shm`` when there is one (a seed's
    hundreds of synced commits cost little there), else the system's temporary folder."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


@contextlib.contextmanager
def seed_folder() -> Iterator[Path]:
    """A new folder for one seed's journal, removed afterwards, named by digits only
    (``tablectl-sim-<pid>-<n>``): a random name such as ``tmp-9h_x`` reads as a card in the log
    lines that name the journal's path, so the face-down check failed by chance (Boston 5 swarm
    seed 76), and a seed's run must depend on its seed alone."""
    base = Path(_scratch() or tempfile.gettempdir())
    for n in itertools.count():
        folder = base / f"tablectl-sim-{os.getpid()}-{n}"
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            continue
        break
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def replay_command(
    game: str,
    seed: int,
    kinds: Sequence[str],
    rounds: int,
    explicit: bool = False,
    liveness: int = 0,
    swarm: bool = False,
) -> str:
    """The one command that replays seed ``seed`` exactly. ``explicit``: the fault kinds named one
    by one, in order (``ci`` and ``all`` change meaning with the code); ``liveness``: the
    liveness phase's rounds; ``swarm``: the swarm's schedule (:mod:`.swarm`)."""
    named = set(kinds)
    text = ",".join(kinds) or "none"
    if not explicit:
        text = "all" if named == set(FAULT_KINDS) else "ci" if named == set(CI_KINDS) else text
    more = (f" --liveness {liveness}" if liveness else "") + (" --swarm" if swarm else "")
    return f"tablectl simulate --game {game} --seed {seed} --rounds {rounds} --faults {text}{more}"


def run_seed(
    game: str,
    seed: int,
    kinds: Sequence[str],
    rounds: int = 3,
    faults: list[Fault] | None = None,
    folder: Path | None = None,
    resettle: bool = False,
    tolerate: frozenset[str] = frozenset(),
    liveness: int = 0,
    swarm: bool = False,
    stack: Stack | None = None,
) -> SeedResult:
    """Play ``rounds`` rounds of ``game`` under seed ``seed`` with faults of ``kinds`` (or exactly
    ``faults``); the journal is written in ``folder`` (kept) or a temporary one. ``resettle``:
    re-settle each finished round in a separate process here (:func:`run_seeds` does it for
    many seeds at once). ``tolerate``: invariants not checked (a known bug's, to check the rest).
    ``liveness``: then stop the faults and play that many more rounds within a bound
    (:mod:`.liveness`). ``swarm``: the faults drawn by :func:`.swarm.swarm_schedule` (placed at the
    round's steps) instead of :func:`.faults.schedule` (``faults`` given: those), and the players'
    waits the swarm's (:data:`.world.SWARM_WAIT_S`). ``stack``: a stacked shoe for one round
    (:mod:`.stack`)."""
    from controller.table.resettle import canonical

    start = time.process_time()
    table = bench_table(game)
    if faults is None:
        faults = swarm_schedule(seed, game, tuple(kinds), rounds) if swarm else schedule(seed, tuple(kinds), rounds)
    result = SeedResult(game, seed)
    logger = logging.getLogger("tablectl")
    old = (logger.level, logger.propagate)
    # What lived before the seed (the modules, the configs, the hand tables, the caches) is set
    # aside from the collector while it plays: its collections walk only what the seed made.
    with set_aside():
        with seed_folder() as tmp:
            path = Path(folder or tmp) / f"{game}-{seed}.db"
            for old_file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                old_file.unlink(missing_ok=True)  # a seed replays from nothing: never onto its last run's journal
            world: World | None = None
            logger.setLevel(logging.INFO)
            logger.propagate = False
            # each journal block parsed once: the table started again after a crash and the checks at
            # the end read the same blocks again and again (the same records: :func:`parsed_once`)
            with contextlib.nullcontext() if framed(seed) else in_process(), parsed_once():
                try:
                    wait_s = SWARM_WAIT_S if swarm else WAIT_S
                    world = World(table, seed, faults, path, tolerate, wait_s=wait_s, framed=framed(seed))
                    logger.addHandler(world.watch)
                    _play(world, game, seed, rounds, liveness, stack)
                    world.close()
                    journal = read_seed_journal(path)  # read once for the checks at the end
                    world.check_cards(journal)
                    check_journal(path)
                    check_rounds(journal, table.path)  # against the reference model (issue 41)
                    for r in world.played:
                        if r.settlement is not None:
                            check_chips(r.number, r.record, r.settlement, table.catalog.wager_spots)
                            record = {**r.record, "table": str(table.path)}
                            result.resettle.append((r.number, record, canonical(r.settlement.to_json())))
                except Broken as exc:
                    result.broken, result.detail = exc.name, exc.detail
                except Exception as exc:
                    result.broken, result.detail = "error", _error_detail(exc)
                finally:
                    logger.setLevel(old[0])
                    logger.propagate = old[1]
                    if world is not None:
                        logger.removeHandler(world.watch)
                        _world_done(world, result)
                    if path.exists():
                        result.digest = hashlib.sha256(path.read_bytes()).hexdigest()
        # The seed's world is garbage now, in reference cycles: collected while the rest is still
        # set aside (left to the oldest generation, dead worlds piled up between its rare scans).
        world = None
        gc.collect()
    result.cpu_seconds = time.process_time() - start
    if resettle and result.ok and result.resettle:
        differ = _resettle(result.resettle)
        if differ:
            result.broken, result.detail = "resettle", differ
    return result


def _play(world: World, game: str, seed: int, rounds: int, liveness: int, stack: Stack | None = None) -> None:
    """The bench's players and dealer play ``rounds`` rounds at ``world`` (then the liveness phase's
    ``liveness``); then the faults end and the devices deliver what they hold."""
    from hil.bench import PLAYERS

    view = SimView(world)
    sims = {"shoe": world.shoe, "bet_spots": world.spots, "panel": world.panel}
    player = PLAYERS[game](view, sims, world.table, SEATS, seed, strategy="random")
    if stack is not None:
        player.arrange = Stacker(stack, world.table.path)
    try:
        view.wait(lambda x: x.step != "closed", "the table to open")
    except Stuck:
        pass
    world.wait_links()  # the dealer starts once the devices answer (or a while has passed)
    while len(world.played) < rounds:
        try:
            player.act()
        except Stuck:
            world.unstick()
    if liveness:
        play_on(world, player, liveness)
    world.settle_down()


def _error_detail(exc: Exception) -> str:
    """An unexpected error in words: its kind and where it was raised (never its text: it may name a card)."""
    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ is not None else []
    at = f" at {Path(where[0].filename).name}:{where[0].lineno} in {where[0].name}" if where else ""
    return f"{type(exc).__name__}{at}"


def _world_done(world: World, result: SeedResult) -> None:
    """What ``world`` did, into ``result`` (closed first when the seed broke)."""
    if result.broken:
        try:
            world.close()
        except Exception:
            pass
    result.rounds, result.events = len(world.played), world.events
    result.sim_seconds, result.crashes = world.now, world.crashes
    result.faults = list(world.faults_done)
    result.reached = list(world.reached)


def _resettle(rounds: list[tuple[int, dict[str, Any], str]]) -> str:
    """Re-settle ``rounds`` with `tablectl settle` in a separate process: what differs, in words ("" if none)."""
    from controller.table.resettle import Verifier

    verifier = Verifier()
    for number, record, expected in rounds:
        verifier.submit(number, record, expected)
    _, differ = verifier.close()
    if not differ:
        return ""
    why = verifier.stderr.strip().splitlines()[-1] if verifier.stderr.strip() else "a different settlement"
    return f"round(s) {', '.join(map(str, differ))} re-settle differently in a separate process ({why})"


def shrink(
    game: str, seed: int, kinds: Sequence[str], rounds: int, broken: str, budget: int = 200, swarm: bool = False
) -> tuple[list[Fault], SeedResult]:
    """The fewest of seed ``seed``'s faults that still break invariant ``broken`` (greedy: drop
    each fault in turn while the seed still breaks it), and the result of that scenario
    (``swarm``: of the swarm's schedule)."""
    faults = swarm_schedule(seed, game, tuple(kinds), rounds) if swarm else schedule(seed, tuple(kinds), rounds)
    check = broken == "resettle"
    last = run_seed(game, seed, kinds, rounds, faults, resettle=check, swarm=swarm)
    changed = True
    while changed and budget > 0:
        changed = False
        for i in range(len(faults)):
            if budget <= 0:
                break
            budget -= 1
            trial = faults[:i] + faults[i + 1 :]
            res = run_seed(game, seed, kinds, rounds, trial, resettle=check, swarm=swarm)
            if res.broken == broken:
                faults, last, changed = trial, res, True
                break
    return faults, last


def shrunk_row(
    game: str, seed: int, rounds: int, faults: list[Fault], result: SeedResult, replay: str, swarm: bool = False
) -> str:
    """A shrunk scenario as a row to paste into ``SHRUNK`` in tests/test_simulate.py (one
    parametrized test plays every row): ``found`` says ``replay`` (the command that found it), how
    far it shrank and the invariant ``result`` broke; ``why`` is left for the bug and its fix;
    ``swarm``: played as ``--swarm`` plays it (its players' waits the swarm's)."""
    listed = "".join(f"            {f.code()},\n" for f in faults)
    found = f"`{replay} --shrink` (shrunk to {len(faults)} fault(s)): `{result.broken}`: {result.detail}"
    named = f"{game}_seed_{seed}_{result.broken}"
    return (
        "    Shrunk(\n"
        f"        {source_text(game)},\n"
        f"        {seed},\n"
        f"        {rounds},\n"
        f"        (\n{listed}        ),\n"
        f"{_wrapped(found)}"
        f"{_wrapped(SHRUNK_WHY)}" + ("        swarm=True,\n" if swarm else "") + f"        name={source_text(named)},\n"
        "    ),\n"
    )


SHRUNK_WHY = "WHY: the bug (the table's or the checker's), its fix, and the test that has it alone"
"""What a printed row's ``why`` says until the engineer writes it."""


def _wrapped(text: str, width: int = 100) -> str:
    """``text`` as a row's argument: string literals of about ``width`` characters, one a line,
    cut after a space (Python joins them), ending in a comma."""
    parts: list[str] = []
    rest = text
    while len(rest) > width:
        cut = rest.rfind(" ", 0, width) + 1 or width
        parts.append(rest[:cut])
        rest = rest[cut:]
    parts.append(rest)
    return "".join(f"        {source_text(p)}\n" for p in parts[:-1]) + f"        {source_text(parts[-1])},\n"


@dataclass
class RunSummary:
    """Many seeds: how many ran and failed, rounds, events, CPU and wall seconds, re-settled rounds."""

    game: str
    seeds: int = 0
    rounds: int = 0
    events: int = 0
    crashes: int = 0
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    sim_seconds: float = 0.0
    workers: int = 1
    interrupted: bool = False
    """Stopped by Ctrl-C (SIGINT): the seeds counted are those that finished, the rest were dropped."""
    failed: list[SeedResult] = field(default_factory=list)
    resettled: int = 0
    differ: list[tuple[int, int]] = field(default_factory=list)
    """(seed, round) of each re-settled round that differs."""
    faults: dict[str, int] = field(default_factory=dict)
    coverage: Coverage = field(default_factory=lambda: Coverage("", ()))
    """Which (step, fault kind) pairs the seeds reached (:mod:`.swarm`)."""


def _job(args: tuple[str, int, tuple[str, ...], int, int, bool]) -> SeedResult:
    game, seed, kinds, rounds, liveness, swarm = args
    return run_seed(game, seed, kinds, rounds, liveness=liveness, swarm=swarm)


def _deaf_to_sigint() -> None:
    """A pool worker's start: Ctrl-C (SIGINT to the terminal's whole process group) is the parent's
    to act on (it ends the workers); a worker that took it would die with a traceback mid-seed."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _sigint_held() -> Iterator[None]:
    """While the pool's workers are forked (from the main thread): a SIGINT is noted, not raised,
    so a worker forked before its :func:`_deaf_to_sigint` never takes one; raised after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if came:
        raise KeyboardInterrupt


def run_seeds(
    game: str,
    seeds: Sequence[int],
    kinds: Sequence[str],
    rounds: int = 3,
    workers: int | None = None,
    progress: Callable[[SeedResult], object] | None = None,
    resettle: bool = True,
    liveness: int = 0,
    swarm: bool = False,
    into: RunSummary | None = None,
) -> RunSummary:
    """Run every seed of ``seeds`` on ``workers`` processes (default: every core); each finished
    round re-settled in a separate process (``tablectl settle``) when ``resettle``; ``liveness``:
    each seed's liveness phase, ``swarm``: the swarm's schedule (:func:`run_seed`). ``into``: a
    summary of earlier seeds to add these to (``tablectl simulate --hours`` runs batch after batch)."""
    from controller.table.resettle import Verifier

    workers = workers or os.cpu_count() or 1
    summary = into or RunSummary(game, workers=workers, coverage=Coverage(game, tuple(kinds)))
    jobs = [(game, seed, tuple(kinds), rounds, liveness, swarm) for seed in seeds]
    start = time.monotonic()
    pool: multiprocessing.pool.Pool | None = None
    verifier: Verifier | None = None
    numbers: dict[int, tuple[int, int]] = {}
    try:
        with _sigint_held():  # the workers are born deaf to Ctrl-C: only this process stops them
            pool = multiprocessing.get_context("fork").Pool(workers, _deaf_to_sigint) if workers > 1 else None
            verifier = Verifier() if resettle else None
        results = pool.imap_unordered(_job, jobs, chunksize=4) if pool is not None else map(_job, jobs)
        for res in results:
            summary.seeds += 1
            summary.rounds += res.rounds
            summary.events += res.events
            summary.crashes += res.crashes
            summary.cpu_seconds += res.cpu_seconds
            summary.sim_seconds += res.sim_seconds
            for kind in res.faults:
                summary.faults[kind] = summary.faults.get(kind, 0) + 1
            summary.coverage.add(res.reached)
            if not res.ok:
                summary.failed.append(res)
            if verifier is not None:
                for number, record, expected in res.resettle:
                    key = len(numbers)
                    numbers[key] = (res.seed, number)
                    verifier.submit(key, record, expected)
            res.resettle = []
            if progress is not None:
                progress(res)
    except KeyboardInterrupt:  # Ctrl-C: the seeds finished are the summary, those under way dropped
        summary.interrupted = True
        if pool is not None:
            pool.terminate()  # close() would wait for every seed queued; a dead worker's would never come
    finally:
        if pool is not None:
            if not summary.interrupted:
                pool.close()
            pool.join()
        if verifier is not None:
            checked, differ = verifier.close()
            summary.resettled += checked
            summary.differ += [numbers[k] for k in differ]
    summary.wall_seconds += time.monotonic() - start
    summary.failed.sort(key=lambda r: r.seed)
    return summary
