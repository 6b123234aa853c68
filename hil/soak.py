"""The soak: the real table machines, engine and settlement in process, on every core.

What ``tablectl soak`` runs. The devices are faked at the device interface (the events a driver
would put on the queue go straight into the engine; the commands the table sends are dropped,
except the shoe's stub count and the random starting number, which are answered as the real
devices answer them), and the bench's own players (``hil.bench.PLAYERS``) make the
decisions, so a soak plays what a bench plays, only without ptys and in many processes.

The players read the table only through its snapshots (:class:`OnDemandSnapshot`: built on
this thread, once per event handled and only when a player reads), as they do at the bench; the
soak's carry none of the dealer's texts (the screen, the recent texts, the prompt: there is no
screen here and no player reads them), so the dealer's screen is never made.

A run is cut into chunks of :data:`CHUNK` rounds, each played at a fresh table with its own seed
drawn from the run's seed and the chunk's number; a chunk's result (a :class:`HoldTally` in
whole cents) does not depend on which process played it, so a run gives the same figures on
one worker or many. Every ``verify_every``-th round's record and settlement come back too, for
the re-settlement check (``tablectl settle --lines`` in a separate process).

Button releases are not sent (the table acts on presses; only the supervisor key's release
matters, and the soak never turns it).
"""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
import random
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.configuration import TableConfig, load_table
from controller.journal.records import JournalRecord
from controller.table.base import RoundResult
from controller.table.engine import Engine, StartDrawn
from controller.table.events import OpenTable
from controller.table.latest import OnDemandSnapshot
from controller.table.resettle import Verifier, canonical
from drivers.bet_spots import SpotReport
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, ShoeStatus
from hil.collector import set_aside
from hil.hold_summary import HoldTally

__all__ = ["CHUNK", "ChunkJob", "ChunkResult", "MemorySamples", "SoakError", "SoakResult", "play_chunk", "run_soak"]

CHUNK = 100
"""Rounds per chunk: the unit of work a process plays at one fresh table."""


def chunk_seed(seed: int, chunk: int) -> int:
    """The seed of chunk ``chunk`` of a run seeded ``seed`` (independent of the worker count)."""
    return int.from_bytes(hashlib.sha256(f"soak/{seed}/{chunk}".encode()).digest()[:8], "big")


class _CountingJournal:
    """The soak's journal: numbers each record and keeps none (a chunk's rounds come back through
    ``on_round``; keeping every event of a million rounds would only cost memory and collection)."""

    def __init__(self) -> None:
        self.seq = 0

    def append(self, kind: str, data: dict[str, Any], event: bool = False) -> int:
        self.seq += 1
        return self.seq

    def records(self, after: int = 0) -> Iterator[JournalRecord]:
        return iter(())


class _Link:
    """Steps each device event through the engine at once, then any answers the devices queued."""

    def __init__(self) -> None:
        self.engine: Engine | None = None
        self.pending: deque[object] = deque()

    def send(self, event: object) -> None:
        assert self.engine is not None
        self.engine.step(event)
        while self.pending:
            self.engine.step(self.pending.popleft())


# The soak's device events are made once per process and sent again whenever the same report
# recurs (the same card at the same place in the deal, the same chips on a spot, the same press):
# an event is frozen and its fields are the whole report. Its ``at`` is when it was first made;
# the table reads ``at`` only for an event made while a link was down or the journal could not
# be written (neither happens here) and the soak's journal keeps no record. Making each anew was
# a fifth of the soak's own time a round (docs/benchmarks.md, soak13).
_DEALT: dict[tuple[str, int], CardDealt] = {}
_PLACED: dict[tuple[int, str, int], SpotReport] = {}
_PRESSED: dict[str, ButtonChanged] = {}


def _dealt(card: str, index: int) -> CardDealt:
    event = _DEALT.get((card, index))
    if event is None:
        event = _DEALT[card, index] = CardDealt(device="shoe", card=card, index=index, quality=100)
    return event


def _placed(seat: int, spot: str, cents: int) -> SpotReport:
    event = _PLACED.get((seat, spot, cents))
    if event is None:
        event = _PLACED[seat, spot, cents] = SpotReport(device="bet_spots", seat=seat, spot=spot, cents=cents)
    return event


def _pressed(button: str) -> ButtonChanged:
    event = _PRESSED.get(button)
    if event is None:
        event = _PRESSED[button] = ButtonChanged(device="panel", button=button, pressed=True)
    return event


class _Shoe:
    """The shoe as the players use it: ``load`` a card order, ``deal`` cards one by one."""

    def __init__(self, link: _Link) -> None:
        self.link, self.dealt = link, 0
        self.cards: list[str] = []

    def load(self, cards: list[str]) -> None:
        self.cards, self.dealt = list(cards), 0

    def deal(self, n: int = 1) -> None:
        send, cards, dealt = self.link.send, self.cards, self.dealt
        for index in range(dealt + 1, dealt + n + 1):
            self.dealt = index
            send(_dealt(cards[index - 1], index))


class _Spots:
    def __init__(self, link: _Link) -> None:
        self.send = link.send

    def place(self, seat: int, spot: str, cents: int) -> None:
        self.send(_placed(seat, spot, cents))


class _Panel:
    def __init__(self, link: _Link) -> None:
        self.send = link.send

    def press(self, button: str) -> None:
        self.send(_pressed(button))


class _Devices:
    """The table's commands: the display, lamps and lock dropped; the stub count and the starting
    number answered (after the event being handled, as a device's answer would come)."""

    shows_screen = False
    """No screen here: the table makes its screen only when a snapshot reads it."""

    def __init__(self, link: _Link, shoe: _Shoe, deck_size: int, rng: random.Random) -> None:
        self.link, self.shoe, self.deck_size, self.rng = link, shoe, deck_size, rng

    def display(self, line: int, text: str) -> None:
        pass

    def screen(self, lines: tuple[str, ...]) -> None:
        pass

    def lamp(self, seat: int, spot: str, state: str) -> None:
        pass

    def lock_spots(self, locked: bool) -> None:
        pass

    def panel_lamp(self, button: str, on: bool) -> None:
        pass

    def request_stub_count(self) -> None:
        left = max(0, len(self.shoe.cards) - self.shoe.dealt)
        self.link.pending.append(ShoeStatus(device="shoe", stub_count=left, deck_size=self.deck_size))

    def draw_start(self) -> None:
        self.link.pending.append(StartDrawn(self.rng.randint(1, 7)))


@dataclass(frozen=True, slots=True)
class ChunkJob:
    """One chunk of a run: the table config's path, seats in play, its rounds and numbers."""

    config: str
    seats: int
    seed: int
    chunk: int
    rounds: int
    first_round: int
    """The run's number of the chunk's first round (0-based): which rounds are verified."""
    verify_every: int
    strategy: str | None = None


@dataclass
class ChunkResult:
    """What a chunk played: its tally, CPU seconds, and the records of the rounds to verify
    (record with its table path, and the digest of the table's settlement)."""

    chunk: int
    tally: HoldTally
    cpu_seconds: float
    verify: list[tuple[int, dict[str, Any], str]] = field(default_factory=list)
    rss: int = 0
    """The playing process's resident memory in bytes when the chunk was done (after collecting)."""
    pid: int = 0


_TABLES: dict[str, TableConfig] = {}


def _table(path: str) -> TableConfig:
    if path not in _TABLES:  # each process loads a config once
        _TABLES[path] = load_table(path)
    return _TABLES[path]


def players_take_strategy(game: str) -> bool:
    """Whether the bench's players of ``game`` take a ``strategy`` (par or random)."""
    import inspect

    from hil.bench import PLAYERS

    return "strategy" in inspect.signature(PLAYERS[game]).parameters


def _make_player(
    table: TableConfig, view: OnDemandSnapshot, sims: dict[str, Any], seats: int, seed: int, strategy: str | None
) -> Any:
    from hil.bench import PLAYERS

    make = PLAYERS[table.game]
    if strategy is not None and players_take_strategy(table.game):
        player = make(view, sims, table, seats, seed, strategy=strategy)
    else:
        player = make(view, sims, table, seats, seed)
    player.in_order = True  # every event is stepped through the engine when sent
    return player


class SoakError(RuntimeError):
    """A chunk could not be played to the end (a table that stuck or failed): which chunk, and why."""


def play_chunk(job: ChunkJob) -> ChunkResult:
    """Play one chunk at a fresh in-process table; the same job always gives the same result.
    Raises :class:`SoakError` naming the chunk, its rounds and the seed when the table fails."""
    # What lives before the chunk (the config, the hand tables, the caller's own objects) is set
    # aside from the collector while the chunk plays (:func:`hil.collector.set_aside`): its
    # collections, and the full one after it, scan only the chunk's objects (a full collection
    # scanned every cache again: about a tenth of a one-process soak's time).
    with set_aside():
        try:
            result = _play_chunk(job)
        except Exception as exc:
            last = job.first_round + job.rounds - 1
            raise SoakError(
                f"chunk {job.chunk} (rounds {job.first_round}-{last} of the run seeded {job.seed}): "
                f"{type(exc).__name__}: {exc}"
            ) from None
        # The chunk's table is garbage now, in reference cycles (the machine and its collaborators
        # point back at it): collected here, or a worker's rarely collected oldest generation holds
        # about a hundred chunks' tables (0.8 MB each) before it is scanned.
        start = time.process_time()
        gc.collect()
        result.cpu_seconds += time.process_time() - start
    result.rss, result.pid = rss_bytes(), os.getpid()
    return result


def rss_bytes(pid: int | None = None) -> int:
    """A process's resident memory now, in bytes (this one's by default; this one's peak where
    /proc is not there, 0 for another's)."""
    try:
        with open(f"/proc/{pid or 'self'}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        if pid is not None:
            return 0
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _play_chunk(job: ChunkJob) -> ChunkResult:
    from controller.table.game_tables import GAME_TABLES

    start = time.process_time()
    table = _table(job.config)
    seed = chunk_seed(job.seed, job.chunk)
    played: list[RoundResult] = []
    link = _Link()
    shoe = _Shoe(link)
    cls: Any = GAME_TABLES[table.game]
    devices = _Devices(link, shoe, cls.DECK, random.Random(seed))
    model = cls(table, devices, on_round=played.append)
    link.engine = Engine(model.handle, journal=_CountingJournal())
    sims = {"shoe": shoe, "bet_spots": _Spots(link), "panel": _Panel(link)}
    engine = link.engine
    # no screen here and no player reads the dealer's texts: the screen is never made, nor its
    # texts masked (an eighth to a seventh of a round's CPU)
    view = OnDemandSnapshot(model, lambda: engine.processed, texts=False)
    player = _make_player(table, view, sims, job.seats, seed, job.strategy)
    link.send(OpenTable())
    while len(played) < job.rounds:
        player.act()
        error = view.get().machine_error
        if error is not None:
            raise RuntimeError(f"the table's machine failed: {error}")
    tally = HoldTally()
    verify = []
    for i, r in enumerate(played[: job.rounds]):
        settlement = r.settlement
        tally.add(r.record, settlement)
        n = job.first_round + i
        if job.verify_every and n % job.verify_every == 0 and settlement is not None:  # a void paid nothing
            verify.append((n, {**r.record, "table": str(table.path)}, canonical(settlement.to_json())))
    return ChunkResult(job.chunk, tally, time.process_time() - start, verify)


@dataclass
class SoakResult:
    """A whole soak: the merged tally, rounds re-settled and those that differ, CPU and wall time."""

    tally: HoldTally
    workers: int
    wall_seconds: float
    cpu_seconds: float
    verified: int = 0
    differ: list[int] = field(default_factory=list)
    verify_error: str = ""
    memory: MemorySamples = field(default_factory=lambda: MemorySamples())


@dataclass
class MemorySamples:
    """Resident memory over a run: each process's peak sampled (the parent, every worker) and
    the largest process's at :data:`SAMPLES` points spread over the run (rounds done, bytes)."""

    parent_peak: int = 0
    worker_peaks: dict[int, int] = field(default_factory=dict)
    """By process id."""
    settle_peak: int = 0
    """The re-settling `tablectl settle` process's."""
    samples: list[tuple[int, int]] = field(default_factory=list)
    every: int = 1
    """Chunks between samples."""
    _chunks: int = 0
    _rounds: int = 0
    _largest: int = 0

    def add(self, res: ChunkResult, settle_pid: int | None = None) -> None:
        """A chunk came back: its process's memory then, and this process's (and the re-settling
        process's) now."""
        parent = rss_bytes()
        self.parent_peak = max(self.parent_peak, parent)
        if settle_pid is not None:
            self.settle_peak = max(self.settle_peak, rss_bytes(settle_pid))
        if res.pid:
            self.worker_peaks[res.pid] = max(self.worker_peaks.get(res.pid, 0), res.rss)
        self._chunks += 1
        self._rounds += res.tally.rounds
        self._largest = max(self._largest, parent, res.rss)
        if self._chunks % self.every == 0:
            self.samples.append((self._rounds, self._largest))
            self._largest = 0

    @property
    def peak(self) -> int:
        """The largest process's peak (bytes)."""
        return max([self.parent_peak, self.settle_peak, *self.worker_peaks.values()])


SAMPLES = 10
"""How many points of a run its memory line shows."""


def _worker_init() -> None:
    """A worker's garbage collector: what it inherited is frozen (never scanned again). Its
    thresholds are CPython's, as ``tablectl run``'s are: a soak measures the table the way it runs
    (rarer young collections saved under 2% of a round, 2026-12-07, docs/benchmarks.md)."""
    gc.freeze()


def _worker_play(job: ChunkJob) -> ChunkResult:
    """A worker's chunk: played, then what outlives it (the config, the caches) frozen too, so
    the next chunk's full collection scans only that chunk's objects (it scanned every cache
    again: half the collection's time)."""
    result = play_chunk(job)
    gc.freeze()
    return result


def jobs_for(
    config: str, seats: int, rounds: int, seed: int, verify_every: int, strategy: str | None
) -> list[ChunkJob]:
    """The chunks of a run of ``rounds`` rounds."""
    return [
        ChunkJob(config, seats, seed, i, min(CHUNK, rounds - first), first, verify_every, strategy)
        for i, first in enumerate(range(0, rounds, CHUNK))
    ]


def run_soak(
    table: TableConfig,
    rounds: int,
    seats: int,
    seed: int,
    workers: int | None = None,
    verify_every: int = 100,
    strategy: str | None = None,
    progress: Callable[[int], object] | None = None,
) -> SoakResult:
    """Play ``rounds`` rounds on ``workers`` processes (default: every core); ``progress`` is
    told the rounds each finished chunk played. Every ``verify_every``-th round (0: none) is
    re-settled by `tablectl settle` in a separate process."""
    workers = workers or os.cpu_count() or 1
    jobs = jobs_for(str(Path(table.path).resolve()), seats, rounds, seed, verify_every, strategy)
    tally = HoldTally()
    cpu = 0.0
    start = time.monotonic()
    memory = MemorySamples(every=max(1, len(jobs) // SAMPLES))
    # forked before any thread of ours starts (the verifier's reader); fork keeps multiprocessing's
    # resource tracker out of it
    pool = multiprocessing.get_context("fork").Pool(workers, _worker_init) if workers > 1 else None
    verifier = Verifier() if verify_every else None
    ok = False
    try:
        results = pool.imap_unordered(_worker_play, jobs) if pool is not None else map(play_chunk, jobs)
        for res in results:
            cpu += res.cpu_seconds
            # merged as they come (integer sums: any order gives the same), none kept
            tally.merge(res.tally)
            memory.add(res, verifier.proc.pid if verifier is not None else None)
            if verifier is not None:
                for number, record, expected in res.verify:
                    verifier.submit(number, record, expected)
                res.verify = []
            if progress is not None:
                progress(res.tally.rounds)
        ok = True
    finally:
        if pool is not None:
            if ok:
                pool.close()
            else:
                pool.terminate()
            pool.join()
        checked, differ = verifier.close() if verifier is not None else (0, [])
    result = SoakResult(tally, workers, time.monotonic() - start, cpu, checked, differ, memory=memory)
    if verifier is not None and verifier.proc.returncode not in (0, None):
        result.verify_error = verifier.stderr.strip().splitlines()[-1] if verifier.stderr.strip() else "failed"
    return result
