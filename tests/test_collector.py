"""The garbage collector's share of a table (issue 42 item 5): ``tablectl run`` freezes what its
start made, a long run keeps no more objects for the collector round after round, and a process
that plays many tables (the simulation's seeds, the soak's chunks) sets aside what lived before
each one and gives it back after."""

from __future__ import annotations

import gc
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hil_helpers import run_script

from controller.configuration import config_dir, load_table
from controller.table.devices import RecordingDevices
from controller.table.engine import Engine
from controller.table.game_tables import GAME_TABLES
from drivers.shoe import ShoeStatus
from hil.collector import set_aside

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_table  # noqa: E402  (the bench's rounds: the same events a round as it measures)

EVENTS: dict[str, Callable[[random.Random], list[Any]]] = {
    "mississippi_stud": bench_table.mississippi_events,
    "boston5": bench_table.boston5_events,
    "pai_gow": bench_table.pai_gow_events,
}

RUN_AND_STOP = """
import gc, os, signal, threading, time
from controller.cli import main
from deadlines import STATE_TIMEOUT_S
from hil_helpers import served_table

seen = []

def watch():
    # the start-up frozen (or the deadline passed), then stopped as systemd stops it
    deadline = time.monotonic() + STATE_TIMEOUT_S
    while gc.get_freeze_count() == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    seen.append(gc.get_freeze_count())
    os.kill(os.getpid(), signal.SIGTERM)

with served_table(folder) as config:
    threading.Thread(target=watch, daemon=True).start()
    code = main(["run", "--config", str(config), "--allow-unapproved", "--journal", str(folder / "j.db")])
print("exit", code, "frozen", seen[0])
"""


def test_tablectl_run_freezes_what_its_start_made(tmp_path: Path) -> None:
    """``tablectl run`` in a process of its own, on ptys: once its table has started, what the
    start made (config, paytables, hand tables, drivers) is out of the collector's scans."""
    out = run_script(RUN_AND_STOP, tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    words = out.stdout.split()
    assert words[:2] == ["exit", "0"], out.stdout + out.stderr[-3000:]
    assert int(words[3]) > 10_000, f"{words[3]} objects frozen after the start"


def _tracked_after(game: str, rounds: list[int]) -> list[int]:
    """Objects the collector tracks after each count of rounds in ``rounds`` (cumulative) at one
    table with its engine's in-memory journal, the bench's rounds, nothing of a round kept."""
    table = load_table(config_dir() / "bench" / f"{game}.yaml")
    model: Any = GAME_TABLES[game](table, RecordingDevices(), on_round=lambda result: None)
    engine = Engine(model.handle)
    model.open_table()
    rng = random.Random(5)
    counts, played = [], 0
    for upto in rounds:
        for _ in range(upto - played):
            for event in EVENTS[game](rng):
                engine.step(event)
            while model.phase.value == "count_stub":
                engine.step(ShoeStatus(device="shoe", stub_count=model.stub.expected, deck_size=model.DECK))
        played = upto
        gc.collect()
        counts.append(len(gc.get_objects()))
    return counts


@pytest.mark.parametrize("game", sorted(EVENTS))
def test_a_long_run_keeps_no_more_objects_for_the_collector_round_after_round(game: str) -> None:
    """Between N and 2N rounds the objects the collector walks grow by no more than a few a
    round (the screen's and records' bounded caches filling); a record kept as a tuple holding
    its dict, or anything else kept a round, walked by every full collection, grows them by tens."""
    n = 100
    _, at_n, at_2n = _tracked_after(game, [20, 20 + n, 20 + 2 * n])
    assert (at_2n - at_n) / n < 20, f"{at_2n - at_n} more objects tracked over {n} rounds"


def test_set_aside_freezes_what_lived_before_and_gives_it_back() -> None:
    """What lives before the block is not scanned during it and is scanned again after; a caller
    that had frozen some keeps it frozen."""
    gc.unfreeze()  # a test run before in this process may have frozen what it made
    gc.collect()
    before: list[object] = []
    with set_aside():
        assert gc.get_freeze_count() > 0
        assert not any(o is before for o in gc.get_objects())
        made: list[object] = []
        assert any(o is made for o in gc.get_objects())
    assert gc.get_freeze_count() == 0
    assert any(o is before for o in gc.get_objects())
    gc.freeze()
    try:
        with set_aside():
            pass
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_a_simulated_seed_sets_aside_what_lived_before_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """While a seed plays, what lived before it is frozen; after it, given back, and the seed's
    world collected (not left for the oldest generation's rare scans)."""
    import hil.simulate.run as sim_run
    from hil.simulate.world import World

    gc.unfreeze()
    gc.collect()
    frozen_while: list[int] = []
    play = sim_run._play

    def watched(world: Any, *args: Any) -> None:
        frozen_while.append(gc.get_freeze_count())
        play(world, *args)

    monkeypatch.setattr(sim_run, "_play", watched)
    result = sim_run.run_seed("mississippi_stud", 1, (), rounds=1)
    assert result.ok, result.detail
    assert frozen_while and frozen_while[0] > 1_000, frozen_while
    assert gc.get_freeze_count() == 0
    assert not [o for o in gc.get_objects() if isinstance(o, World)], "the seed's world outlived it"
