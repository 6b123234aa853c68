"""Table controller throughput and latency, beside a bare ``transitions`` machine.

Run ``python benchmarks/bench_table.py [--rounds N] [--repeat N] [--only in-process]``. Measured in one run:

* rounds per CPU second in process (CPU time, since the machine is shared): a 6-seat Mississippi
  Stud table, a 6-seat Boston 5 table and a 7-position pai gow table (6 seats and the dealer) driven event by event through the engine, the devices replaced by in-memory
  fakes at the device interface (``RecordingDevices``); beside a bare ``transitions`` machine
  firing as many triggers per round as ours fired (counted with ``prepare_event``), and beside
  the mandated floor: that bare machine plus ``settle_record`` alone (what ``tablectl settle``
  runs), with the ratio of ours to it (target 0.5x) and of the soak's path to it (target 0.4x);
* controller-added latency per event (journal + machine), p50 / p99;
* the table's snapshot built after each event (what the runtime publishes), CPU per event beside
  the event's own handling;
* the runtime's path (:func:`runtime_path`): the same rounds with each press let go and a device's
  reply after every event, through ``TableRuntime``'s engine, drivers and snapshot: CPU per round,
  and how many events had their snapshot built (a reply or a release publishes the last again);
* the soak's path in one process (the bench's players too), CPU per round, and ``tablectl soak``
  on every core: wall and CPU time;
* rounds/s over ptys: the bench table (simulators, real drivers, simulated players);
* peak RSS and time to ready of ``tablectl bench`` run as its own process.

Once the measured table has started, what the start made is frozen out of the garbage
collector's scans (:func:`~controller.table.runtime.freeze_start_up`, as ``tablectl run`` and
``tablectl bench`` do: the bench measures the table the product's way, and what the product does
with the collector the bench does, no more); the floor is measured after it in the same process.
The collector runs at CPython's thresholds, as in ``tablectl run``. Of a round played in process
only its record is kept (what the floor settles): the product keeps nothing of a finished round.

Before it measures, the hand tables are completed (they fill on each hand's first look-up) and each
game plays and settles 200 other rounds untimed (:func:`warm_up`): the floor settles the rounds the
table played, after it, and would otherwise reuse what the table had just looked up for the first time.

Each game's in-process figures are ``--repeat`` interleaved pairs (default 5) on the same rounds:
our table, then the floor settling the rounds it just played, then our table again ... each in CPU
time. The lines print the medians (rounds per CPU second, ``settle_record``, the floor) and the
median of the pairs' ratios, with their spread (lowest-highest ratio): a load that moves during the
run moves one pair, not the whole figure, and the spread says how far to trust it. ``--only
in-process`` prints those lines alone (no snapshot, runtime, soak, pty or start-up rows), for a
quick comparison of two trees.

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# its helpers from tests/, by bare name as the tests import them (tests/ is no package)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from cli_helpers import tablectl_process
from transitions import Machine

from controller.configuration import TableConfig, config_dir, load_table
from controller.game.record import settle_record
from controller.table.devices import RecordingDevices
from controller.table.engine import Engine
from controller.table.events import OpenTable
from controller.table.game_tables import GAME_TABLES
from controller.table.runtime import RuntimePorts, TableRuntime, freeze_start_up
from controller.vocab import deck
from drivers.bet_spots import SpotReport
from drivers.link import CommandResult
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, ShoeStatus


def press(b: str) -> ButtonChanged:
    return ButtonChanged(device="panel", button=b, pressed=True)


def mississippi_events(rng: random.Random) -> list[Any]:
    """One 6-seat Mississippi round as the devices would report it."""
    cards = list(deck())
    rng.shuffle(cards)
    ev: list[Any] = [SpotReport(device="spots", seat=s, spot="ante", cents=500) for s in range(1, 7)]
    ev.append(press("no_more_bets"))
    ev += [CardDealt(device="shoe", card=str(c), index=i, quality=100) for i, c in enumerate(cards[:15], start=1)]
    for street in ("third", "fourth", "fifth"):
        ev += [SpotReport(device="spots", seat=s, spot=street, cents=500) for s in range(1, 7)]
        ev.append(press("reveal"))
    ev += [press("confirm")] * 8  # dealer's community step + 6 seats + spare presses are ignored
    return ev


def boston5_events(rng: random.Random) -> list[Any]:
    """One 6-seat Boston 5 round: every seat ante and first wager, three with a bonus (one of them
    exposed), five second wagers and one fold."""
    cards = list(deck())
    rng.shuffle(cards)
    ev: list[Any] = []
    for s in range(1, 7):
        ev += [SpotReport(device="spots", seat=s, spot="ante", cents=500)]
        ev += [SpotReport(device="spots", seat=s, spot="first", cents=1000)]
        if s % 2:
            ev += [SpotReport(device="spots", seat=s, spot="bonus", cents=500)]
    ev.append(press("no_more_bets"))
    ev += [CardDealt(device="shoe", card=str(c), index=i, quality=100) for i, c in enumerate(cards[:21], start=1)]
    ev += [press("seat_1"), press("next")]  # seat 1 exposes its bonus hand
    ev += [press("confirm")] * 3  # the bonus steps (spare presses are ignored)
    ev += [press("seat_6"), press("fold"), press("confirm")]  # seat 6 folds; its collection confirmed
    ev += [SpotReport(device="spots", seat=s, spot="second", cents=1000) for s in range(1, 6)]
    ev.append(press("deal"))
    ev += [CardDealt(device="shoe", card=str(c), index=i, quality=100) for i, c in enumerate(cards[21:33], start=22)]
    ev += [press("confirm")] * 8  # the settlement steps (spare presses are ignored)
    return ev


def pai_gow_events(rng: random.Random) -> list[Any]:
    """One pai gow round with six seats and the dealer."""
    cards = list(deck(joker=True))
    rng.shuffle(cards)
    ev: list[Any] = [SpotReport(device="spots", seat=s, spot="pai_gow", cents=1000) for s in range(1, 7)]
    ev += [press("no_more_bets"), *[press("next")] * 5, press("confirm")]
    ev += [CardDealt(device="shoe", card=str(c), index=i, quality=100) for i, c in enumerate(cards[:49], start=1)]
    ev.append(ShoeStatus(device="shoe", stub_count=4, deck_size=53))
    ev += [press("confirm")] * 6  # each seat's set: the house way
    ev += [press("confirm")] * 10  # the settlement steps (spare presses are ignored)
    return ev


def warm_up(cls: type, table: TableConfig, make, rounds: int) -> None:  # type: ignore[no-untyped-def]
    """Play and settle ``rounds`` other rounds first, untimed: what both paths look up on first
    use and keep (the hands' first look-ups, the settlement's kept results) is filled for both,
    rather than by the table for the floor (the floor settles the rounds the table played)."""
    played: list[Any] = []
    model = cls(table, RecordingDevices(), on_round=played.append)
    engine = Engine(model.handle)
    model.open_table()
    rng = random.Random(2)
    for _ in range(rounds):
        for e in make(rng):
            engine.step(e)
        while model.phase.value == "count_stub":
            engine.step(ShoeStatus(device="shoe", stub_count=model.stub.expected, deck_size=model.DECK))
    for result in played:
        settle_record(result.record, table)


@dataclass(frozen=True)
class Pair:
    """One interleaved measurement: our table's rounds, then the floor's on the rounds it played."""

    ours: float  # rounds per CPU second of our table
    bare: float  # rounds per CPU second of a bare machine firing as many triggers
    settle_s: float  # CPU seconds a round of ``settle_record`` on the rounds just played
    per_event: list[float]  # controller-added seconds per event (perf_counter)
    triggers: int  # triggers fired a round

    @property
    def floor(self) -> float:
        """Rounds per CPU second of the mandated floor: the bare machine plus the settlement."""
        return 1 / (1 / self.bare + self.settle_s)

    @property
    def ratio(self) -> float:
        """Ours over the floor of the same pair."""
        return self.ours / self.floor


def play_ours(
    cls: type, table: TableConfig, rounds_events: list[list[Any]]
) -> tuple[float, list[float], int, list[Any]]:
    """Our table through ``rounds_events``: rounds per CPU second, seconds per event, triggers a
    round, and the records of the rounds played (for the floor to settle). Only the records are
    kept: ``tablectl run`` keeps nothing of a finished round in memory, and a whole result kept
    (its steps, its settlement: about 37 objects the collector walks at each full collection,
    against 8 for the record) was the bench's own cost, charged to the table."""
    rounds = len(rounds_events)
    played: list[dict[str, Any]] = []
    model = cls(table, RecordingDevices(), on_round=lambda result: played.append(result.record))
    triggers = [0]
    model.machine.prepare_event.append(lambda *_: triggers.__setitem__(0, triggers[0] + 1))  # every trigger fired
    engine = Engine(model.handle)
    model.open_table()
    freeze_start_up()  # as `tablectl run` does once its table has started
    per_event: list[float] = []
    start = time.process_time()  # CPU time: the machine is shared, wall time measures the neighbours too
    for events in rounds_events:
        for e in events:
            t0 = time.perf_counter()
            engine.step(e)
            per_event.append(time.perf_counter() - t0)
        while model.phase.value == "count_stub":  # the stub count every fifth round
            engine.step(ShoeStatus(device="shoe", stub_count=model.stub.expected, deck_size=model.DECK))
    elapsed = time.process_time() - start
    assert len(played) == rounds, (len(played), model.phase, model.display.prompts[-3:])
    return rounds / elapsed, per_event, triggers[0] // rounds, played


def settle_played(table: TableConfig, played: list[dict[str, Any]]) -> float:
    """CPU seconds a round of the settlement alone, as `tablectl settle` computes it, on the
    records ``played``."""
    start = time.process_time()
    for record in played:
        settle_record(record, table)
    return (time.process_time() - start) / len(played)


def in_process(cls: type, table_path: Path, make, rounds: int, repeat: int = 1) -> tuple[list[Pair], int]:  # type: ignore[no-untyped-def]
    """``repeat`` interleaved pairs on the same rounds (ours, the floor, ours, the floor ...), after
    one warm-up: a neighbour's burst then slows one or two measurements, not one side of every
    ratio. Each pair and the events a round."""
    table = load_table(table_path)
    warm_up(cls, table, make, min(rounds, 200))
    rng = random.Random(1)
    rounds_events = [make(rng) for _ in range(rounds)]
    pairs: list[Pair] = []
    for _ in range(repeat):
        ours, per_event, triggers, played = play_ours(cls, table, rounds_events)
        settle_s = settle_played(table, played)
        bare = bare_transitions(triggers, rounds)
        pairs.append(Pair(ours, bare, settle_s, per_event, triggers))
    return pairs, sum(len(e) for e in rounds_events) // rounds


def snapshot_cost(cls: type, table_path: Path, make, rounds: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """CPU microseconds per event of the table's snapshot (``build_snapshot``, what the runtime
    publishes after every event) and of handling the event itself, on the same rounds."""
    from controller.table.snapshot_build import build_snapshot

    table = load_table(table_path)
    rng = random.Random(1)
    rounds_events = [make(rng) for _ in range(rounds)]
    model = cls(table, RecordingDevices())
    engine = Engine(model.handle)
    model.open_table()
    freeze_start_up()
    handled = built = 0.0
    events = 0
    for round_events in rounds_events:
        for e in round_events:
            t0 = time.process_time()
            engine.step(e)
            t1 = time.process_time()
            build_snapshot(model, events)
            built += time.process_time() - t1
            handled += t1 - t0
            events += 1
        while model.phase.value == "count_stub":
            engine.step(ShoeStatus(device="shoe", stub_count=model.stub.expected, deck_size=model.DECK))
    return built / events * 1e6, handled / events * 1e6


def with_replies(events: list[Any]) -> list[Any]:
    """``events`` as a table with devices journals them: each press let go after it, and a
    device's reply to a command after every event (about as many as a simulated round has)."""
    out: list[Any] = []
    for e in events:
        out.append(e)
        if isinstance(e, ButtonChanged) and e.pressed:
            out.append(ButtonChanged(device=e.device, button=e.button, pressed=False))
        out.append(CommandResult(device="panel", command="SHOW", status=0))
    return out


def runtime_path(table_path: Path, make, rounds: int) -> tuple[float, int, float]:  # type: ignore[no-untyped-def]
    """The table as ``tablectl run`` drives it, in process: the runtime's engine (journal in
    memory), its drivers' commands encoded (never sent: loopback links not started), and the
    snapshot published after every event; the rounds :func:`with_replies`. CPU milliseconds a
    round, events a round, and the share of events whose snapshot was built (the rest published
    the last one again)."""
    import controller.table.runtime as runtime_module

    table = load_table(table_path)
    rng = random.Random(1)
    rounds_events = [with_replies(make(rng)) for _ in range(rounds)]
    runtime = TableRuntime(
        table, {role: "loop://" for role in table.devices}, ports=RuntimePorts(status_file=False, fold_rounds=False)
    )
    built = [0]
    build = runtime_module.build_snapshot

    def counted(*args: Any) -> Any:
        built[0] += 1
        return build(*args)

    setattr(runtime_module, "build_snapshot", counted)  # noqa: B010 (counted for the figure, put back after)
    try:
        runtime.publish()
        engine, model = runtime.engine, runtime.round
        engine.step(OpenTable())
        freeze_start_up()
        built[0] = events = 0
        start = time.process_time()
        for round_events in rounds_events:
            for e in round_events:
                engine.step(e)
            events += len(round_events)
            while model.phase.value == "count_stub":
                engine.step(ShoeStatus(device="shoe", stub_count=model.stub.expected, deck_size=model.DECK))
                events += 1
        elapsed = time.process_time() - start
    finally:
        setattr(runtime_module, "build_snapshot", build)  # noqa: B010
    return elapsed * 1000 / rounds, len(rounds_events[0]), built[0] / events


class _S(Enum):
    A = "a"
    B = "b"


def bare_transitions(triggers: int, rounds: int) -> float:
    """Rounds/s of a bare queued machine flipping between two states ``triggers`` times per round."""

    class M:
        pass

    m = M()
    Machine(
        model=m,
        states=_S,
        transitions=[{"trigger": "go", "source": _S.A, "dest": _S.B}, {"trigger": "go", "source": _S.B, "dest": _S.A}],
        initial=_S.A,
        auto_transitions=False,
        queued=True,
    )
    start = time.process_time()
    for _ in range(rounds * triggers):
        m.go()  # type: ignore[attr-defined]
    return rounds / (time.process_time() - start)


def soak_cpu_per_round(path: Path, rounds: int) -> float:
    """CPU milliseconds per round of the soak's path in this process: the bench's players, the
    table machine, engine (in-memory journal) and settlement, devices faked at the interface."""
    from hil.soak import CHUNK, ChunkJob, play_chunk

    config = str(path.resolve())
    play_chunk(ChunkJob(config, 6, 1, 0, 20, 0, 0))  # warm: config loaded, hand tables built
    chunks = max(1, rounds // CHUNK)
    start = time.process_time()
    for i in range(chunks):
        play_chunk(ChunkJob(config, 6, 1, i + 1, CHUNK, i * CHUNK, 0))
    return (time.process_time() - start) * 1000 / (chunks * CHUNK)


def soak_all_cores(path: Path, rounds: int) -> None:
    """``tablectl soak`` (6-seat Mississippi Stud) on every core: wall and CPU time, and what a
    million rounds would take at that rate."""
    import os

    from hil.soak import run_soak

    workers = os.cpu_count() or 1
    result = run_soak(load_table(path), rounds, 6, seed=1, workers=workers, verify_every=100)
    cpu_ms = 1000 * result.cpu_seconds / rounds
    rate = rounds / result.wall_seconds
    print(
        f"\ntablectl soak, Mississippi Stud 6 seats, {rounds:,} rounds on {workers} workers: "
        f"{result.wall_seconds:.1f} s wall ({rate:,.0f} rounds/s), {result.cpu_seconds:.1f} CPU s "
        f"({cpu_ms:.3f} ms per round, {1000 / cpu_ms:,.0f} rounds/s per core); "
        f"a million rounds: {1e6 / rate / 60:.1f} min at this wall rate, "
        f"{1e6 * cpu_ms / 1000 / workers / 60:.1f} min on {workers} idle cores; "
        f"{result.verified} re-settled in a separate process, {len(result.differ)} differ"
    )


def pct(values: list[float]) -> str:
    q = statistics.quantiles(values, n=100)
    return f"p50 {q[49] * 1000:.3f} ms, p99 {q[98] * 1000:.3f} ms"


def spread(ratios: list[float]) -> str:
    """How far the pairs' ratios lie apart: how much to trust their median (three decimals here:
    the column's two hide a step of 5%)."""
    if len(ratios) == 1:
        return f"{ratios[0]:.3f}x, one pair: no spread"
    low, high, median = min(ratios), max(ratios), statistics.median(ratios)
    return (
        f"median {median:.3f}x of {len(ratios)} interleaved pairs, spread {low:.3f}x-{high:.3f}x, "
        f"{(high - low) / median:.0%} of the median"
    )


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"at least 1, not {value}")
    return value


ONLY_IN_PROCESS = "in-process"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=2000)
    p.add_argument("--pty-rounds", type=int, default=30)
    p.add_argument("--soak-rounds", type=int, default=20_000, help="rounds of `tablectl soak` on every core (0: skip)")
    p.add_argument(
        "--repeat",
        type=positive,
        default=5,
        help="interleaved pairs (ours, the floor, ours, the floor ...) of each game's in-process figures; "
        "the medians are printed, and the ratios' spread (default 5)",
    )
    p.add_argument(
        "--only",
        choices=[ONLY_IN_PROCESS],
        help="measure only the in-process rounds beside the floor (no snapshot, runtime, soak, pty or start-up rows)",
    )
    args = p.parse_args()
    if args.rounds < 2:
        p.error("--rounds: at least 2 (the per-event percentiles need two events)")
    quick = args.only == ONLY_IN_PROCESS
    from controller.hands.fast import evaluator_for
    from controller.hands.rules import Wheel

    for wheel in Wheel:  # the hand tables are built once per process; time to ready counts that
        evaluator = evaluator_for(wheel)
        # filled on each hand's first look-up otherwise: complete, so that neither path pays for them
        evaluator.rank_table  # noqa: B018
        evaluator.complete_joker_tables()
    bench = config_dir() / "bench"
    print(
        f"{'in process (rounds per CPU second)':<36} {'rounds/s':>10} {'events/round':>13} {'triggers/round':>15}   controller-added per event"
    )
    for name, cls, make, game in (
        ("Mississippi Stud, 6 seats", GAME_TABLES["mississippi_stud"], mississippi_events, "mississippi_stud"),
        ("Boston 5, 6 seats", GAME_TABLES["boston5"], boston5_events, "boston5"),
        ("pai gow, 7 positions", GAME_TABLES["pai_gow"], pai_gow_events, "pai_gow"),
    ):
        path = bench / f"{game}.yaml"
        pairs, n_events = in_process(cls, path, make, args.rounds, args.repeat)
        rate = statistics.median(pair.ours for pair in pairs)
        bare = statistics.median(pair.bare for pair in pairs)
        settle_s = statistics.median(pair.settle_s for pair in pairs)
        floor = statistics.median(pair.floor for pair in pairs)
        ratios = [pair.ratio for pair in pairs]
        n_triggers = pairs[0].triggers
        per_event = [t for pair in pairs for t in pair.per_event]
        print(f"{name:<36} {rate:>10,.0f} {n_events:>13} {n_triggers:>15}   {pct(per_event)}")
        print(
            f"{'  bare transitions, same triggers':<36} {bare:>10,.0f} {'':>13} {n_triggers:>15}   (ours / bare {rate / bare:.2f}x)"
        )
        print(
            f"{'  bare transitions + settlement only':<36} {floor:>10,.0f} {'':>13} {'':>15}   (settle_record {settle_s * 1000:.3f} ms per round)"
        )
        print(
            f"{'  ours / that floor (target 0.5x)':<36} {statistics.median(ratios):>9.2f}x {'':>13} {'':>15}   "
            f"(the mandated floor: the same triggers + the settlement; {spread(ratios)})"
        )
        if quick:
            continue
        snap_us, event_us = snapshot_cost(cls, path, make, min(args.rounds, 500))
        print(
            f"{'  snapshot after each event':<36} {'':>10} {'':>13} {'':>15}   "
            f"(CPU {snap_us:.1f} us per event beside {event_us:.1f} us handling it: {snap_us / event_us:.2f}x)"
        )
        runtime_ms, runtime_events, built_share = runtime_path(path, make, min(args.rounds, 500))
        print(
            f"{'  runtime path (+ replies, releases)':<36} {1000 / runtime_ms:>10,.0f} {runtime_events:>13} {'':>15}   "
            f"(CPU {runtime_ms:.3f} ms per round; snapshot built after {built_share:.0%} of the events)"
        )
        cpu_ms = soak_cpu_per_round(bench / f"{game}.yaml", min(args.rounds, 1000))
        print(
            f"{'  soak path, one process (+ players)':<36} {1000 / cpu_ms:>10,.0f} {'':>13} {'':>15}   "
            f"(CPU {cpu_ms:.3f} ms per round, so rounds per CPU second)"
        )
        print(f"{'  soak path / the floor (target 0.4x)':<36} {1000 / cpu_ms / floor:>9.2f}x")
    if quick:
        return
    if args.soak_rounds:
        soak_all_cores(bench / "mississippi_stud.yaml", args.soak_rounds)
    for game in ("mississippi_stud", "pai_gow"):
        # /usr/bin/time -f %M: the peak RSS of the bench process itself, not of this one
        journal = (
            Path(tempfile.mkdtemp(prefix="bench-table-")) / "journal.db"
        )  # the durable journal, as the bench runs by default
        cmd = [
            "/usr/bin/time",
            "-f",
            "%M",
            *tablectl_process("bench", "--game", game, "--rounds", args.pty_rounds, "--quiet", "--journal", journal),
        ]
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - start
        rounds_line = next(line for line in proc.stdout.splitlines() if "rounds" in line and " in " in line)
        peak_mib = int(proc.stderr.strip().splitlines()[-1]) / 1024
        print(
            f"\nover ptys, {game}: {rounds_line.strip()}; process wall time {wall:.1f} s, peak RSS {peak_mib:.0f} MiB"
        )
    ready = subprocess.run(
        [
            sys.executable,
            "-c",
            "import time; t = time.perf_counter(); "
            "from controller.table.runtime import TableRuntime; from controller.configuration import load_table, config_dir; "
            "from controller.hands.fast import evaluator_for; from controller.hands.rules import Wheel; "
            "load_table(config_dir() / 'bench' / 'pai_gow.yaml'); evaluator_for(Wheel.SECOND_HIGHEST); "
            "print(time.perf_counter() - t)",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    print(f"time to ready (imports, config and paytables loaded, hand tables built): {float(ready):.2f} s")


if __name__ == "__main__":
    main()
