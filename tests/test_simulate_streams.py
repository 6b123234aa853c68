"""The simulated world's random streams (hil/simulate/streams.py, issue 41 items 5 and 6): each line,
each device and each fault draws from a stream of its own, so that one more draw on one line (a
link polled once more: a timing fix, the idle pace) leaves every other line's losses and cuts,
every device's boot ids and every fault's choices where they were."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Callable, Sequence

import pytest

from hil.simulate.faults import CI_KINDS, Fault
from hil.simulate.run import run_seed
from hil.simulate.streams import stream, stream_name
from hil.simulate.swarm import swarm_schedule
from hil.simulate.world import World

GAME, SEED, ROUNDS = "mississippi_stud", 3, 4
"""A swarm seed whose lines all lose requests now and then (so each draws on every exchange)."""


class _Tap(random.Random):
    """Passes every draw on to ``inner`` (the same draws, in the same order) and writes down what
    it gave: :class:`random.Random`'s other methods all draw through these two."""

    def __init__(self, inner: random.Random, values: list[float | int]) -> None:
        super().__init__(0)
        self.inner, self.values = inner, values

    def random(self) -> float:
        value = self.inner.random()
        self.values.append(value)
        return value

    def getrandbits(self, k: int, /) -> int:
        value = self.inner.getrandbits(k)
        self.values.append(value)
        return value


def _drawn(monkeypatch: pytest.MonkeyPatch, perturb: Callable[[World], None] | None) -> dict[str, list[float | int]]:
    """What each line, device and fault of the seed drew, by who drew it (``perturb``: done to the
    world once, after its table first started, before any link ran)."""
    drawn: dict[str, list[float | int]] = {}
    boot, fault_rng = World._boot, World._fault_rng

    def tapped_boot(world: World) -> None:
        first = not hasattr(world, "runtime")
        boot(world)
        if first:
            if perturb is not None:
                perturb(world)
            for role, sim in world.sims.items():
                assert sim.rng is not None
                sim.rng = _Tap(sim.rng, drawn.setdefault(f"boot {role}", []))
        for role, wire in world.wires.items():
            wire.rng = _Tap(wire.rng, drawn.setdefault(f"line {role}", []))

    def tapped_fault_rng(world: World, fault: Fault) -> random.Random:
        return _Tap(fault_rng(world, fault), drawn.setdefault(f"fault {fault.code()}", []))

    with monkeypatch.context() as m:
        m.setattr(World, "_boot", tapped_boot)
        m.setattr(World, "_fault_rng", tapped_fault_rng)
        result = run_seed(GAME, SEED, CI_KINDS, rounds=ROUNDS, swarm=True)
    assert result.ok, f"{result.broken}: {result.detail}"
    return drawn


def _one_more_draw_on_the_shoes_line(world: World) -> None:
    world.wires["shoe"].rng.random()


def _apart(a: Sequence[float | int], b: Sequence[float | int]) -> int | None:
    """The first draw where ``a`` and ``b`` differ, or None when one begins the other (a stream
    drawn more or fewer times, the table having gone on otherwise)."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)


def test_one_more_draw_on_one_line_moves_no_other_lines_device_or_fault_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    schedule = swarm_schedule(SEED, GAME, CI_KINDS, ROUNDS)
    plain = _drawn(monkeypatch, None)
    shifted = _drawn(monkeypatch, _one_more_draw_on_the_shoes_line)
    assert _apart(plain["line shoe"], shifted["line shoe"]) == 0  # the perturbation took
    others = sorted(set(plain) & set(shifted) - {"line shoe"})
    assert {"line bet_spots", "line panel"} <= set(others) and any(k.startswith("fault ") for k in others)
    assert all(len(plain[k]) > 10 for k in ("line bet_spots", "line panel")), "the lines drew little: pick another seed"
    moved = {k: i for k in others if (i := _apart(plain[k], shifted[k])) is not None}
    assert not moved, f"draws moved by one more draw on the shoe's line (stream: first draw apart): {moved}"
    assert swarm_schedule(SEED, GAME, CI_KINDS, ROUNDS) == schedule  # the fault schedule: its own streams


def test_a_stream_is_named_by_the_seed_the_game_and_what_draws() -> None:
    assert stream_name(7, "boston5", "line", "shoe") == "world/boston5/7/line/shoe"
    assert stream(7, "boston5", "line", "shoe").random() == stream(7, "boston5", "line", "shoe").random()
    draws = {stream(7, g, "line", "shoe").random() for g in ("boston5", "pai_gow")}
    draws |= {stream(s, "boston5", n).random() for s in (7, 8) for n in ("line", "boot")}
    assert len(draws) == 6  # the game, the seed and the name each make another stream
    with pytest.raises(ValueError, match="a stream needs a name"):
        stream_name(7, "boston5")


def test_a_stream_is_the_same_under_any_hash_seed() -> None:
    code = "from hil.simulate.streams import stream; print(stream(7, 'boston5', 'line', 'shoe').random())"
    for hashseed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert float(out.stdout) == stream(7, "boston5", "line", "shoe").random()


def test_a_swarm_seed_writes_the_same_journal_under_any_hash_seed() -> None:
    """The replay is checked across ``PYTHONHASHSEED`` values: a seed played in processes of other
    hash seeds (as ``--seeds``' workers and a replay command's process are) writes the same bytes."""
    code = (
        "from hil.simulate.faults import CI_KINDS; from hil.simulate.run import run_seed; "
        f"r = run_seed({GAME!r}, {SEED}, CI_KINDS, rounds={ROUNDS}, swarm=True); print(r.ok, r.digest)"
    )
    here = run_seed(GAME, SEED, CI_KINDS, rounds=ROUNDS, swarm=True)
    assert here.ok and here.faults, f"{here.broken}: {here.detail}"
    for hashseed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.split() == ["True", here.digest], (
            f"PYTHONHASHSEED={hashseed}: {out.stdout}{out.stderr[-2000:]}"
        )
