"""The simulation paces an idle table's links as the product's runner does (docs/protocol.md,
section 4.1; issue 41 item 6, an idle link costs nothing): after ``idle_after_s`` of nothing but
polls and empty answers every link polls at ``idle_poll_interval_s``, and a press, a card, a
chip or a command brings every link back to its poll interval at once, through the drivers' own
:class:`~drivers.link_pace.LinkPace` (the expectations of tests/test_link_loop.py's idle test,
in the simulated world, on the simulated clock)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from drivers.panel import PanelDriver
from hil.simulate import run as sim_run
from hil.simulate.world import LINK, TICK, World

FAST, IDLE = LINK.poll_interval_s, LINK.idle_poll_s


def _world(tmp_path: Path) -> World:
    """A Mississippi Stud table of seed 1, no fault, every line clean (each poll answered once),
    every device seen up."""
    world = World(sim_run.bench_table("mississippi_stud"), 1, [], tmp_path / "journal.db")
    for line in world.lines.values():
        line.drop = 0.0
    world.wait_links()
    assert not world.down
    return world


def _paced(world: World) -> set[float]:
    return {wire.protocol.poll_interval_s for wire in world.wires.values()}


def _run_until(world: World, done: Callable[[], bool], limit: float, what: str) -> None:
    """Run the world on tick by tick until ``done`` (at most ``limit`` simulated seconds)."""
    end = world.now + limit
    while not done():
        assert world.now < end, f"not {what} within {limit} simulated seconds"
        world.advance(TICK)


def _replies(world: World) -> dict[str, int]:
    return {role: wire.protocol.stats.frames_ok for role, wire in world.wires.items()}


def _idle(world: World) -> None:
    """Run on with nothing happening at the table until every link polls at the idle pace."""
    _run_until(world, lambda: _paced(world) == {IDLE}, LINK.idle_after_s + 1.0, "every link at the idle pace")


def test_an_idle_tables_links_are_polled_at_the_products_idle_interval(tmp_path: Path) -> None:
    """A table just opened polls at its interval; after ``idle_after_s`` of nothing every link
    polls every ``idle_poll_interval_s``: ten idle simulated seconds are fifty polls a link
    (each answered), not two hundred."""
    world = _world(tmp_path)
    try:
        assert FAST < IDLE
        assert _paced(world) == {FAST}  # a table just opened is not idle
        _idle(world)
        assert world.now >= LINK.idle_after_s
        before = _replies(world)
        world.advance(10.0)
        polled = {role: n - before[role] for role, n in _replies(world).items()}
        assert all(abs(n - 10.0 / IDLE) <= 2 for n in polled.values()), polled
        assert _paced(world) == {IDLE}
    finally:
        world.close()


def _press(world: World) -> None:
    world.panel.press("no_more_bets")


def _card(world: World) -> None:
    world.shoe.deal(1)


def _chip(world: World) -> None:
    world.spots.place(1, "ante", 500)


def _command(world: World) -> None:
    panel = world.runtime.drivers["panel"]
    assert isinstance(panel, PanelDriver)
    panel.beep(50)


@pytest.mark.parametrize("stir", [_press, _card, _chip, _command], ids=["press", "card", "chip", "command"])
def test_anything_at_the_table_brings_every_link_back_to_its_interval_at_once(
    stir: Callable[[World], None], tmp_path: Path
) -> None:
    """A press on the panel, a card out of the shoe, a chip on a spot (each an event on one link)
    or a command the table queues for the panel brings all three links back to their poll
    interval, not that link's alone (the event order waits for every device's report), within
    one idle poll; then they are polled at the interval (the poll after the wake is not an idle
    one); and the table goes idle again after ``idle_after_s`` of nothing."""
    world = _world(tmp_path)
    try:
        _idle(world)
        stir(world)
        stirred_at = world.now
        _run_until(world, lambda: _paced(world) == {FAST}, IDLE + TICK, "every link back at its poll interval")
        assert world.now - stirred_at <= IDLE + TICK
        before = _replies(world)
        world.advance(1.0)
        polled = {role: n - before[role] for role, n in _replies(world).items()}
        assert all(n >= 1.0 / FAST - 3 for n in polled.values()), polled
        _idle(world)
    finally:
        world.close()
