"""A simulated run reads no real clock: the panel's screen history and the table's event latencies
are stamped with the simulated clock, so the same seed gives the same history (docs/simulate.md,
"Time")."""

from __future__ import annotations

from pathlib import Path

from hil.simulate.faults import Fault
from hil.simulate.run import bench_table
from hil.simulate.world import World


def _screens_and_latencies(folder: Path) -> tuple[list[tuple[float, tuple[str, ...]]], list[float]]:
    """Seed 3 of Boston 5 for two simulated seconds, the panel restarted (its memory gone) in the
    middle: every screen the panel showed, with its stamps, and the table's event latencies."""
    world = World(bench_table("boston5"), 3, [Fault(0.8, "restart", "panel", 0.1, 1)], folder / "j.db")
    try:
        world.advance(2.0)
        return list(world.panel.screens), list(world.runtime.latencies)
    finally:
        world.close()


def test_the_same_seed_gives_the_same_panel_screen_history_and_latencies(tmp_path: Path) -> None:
    """PanelSim stamped each screen (and the blank one after a restart) with ``time.time()``, and the
    table each event's latency with it: two runs of one seed differed (checked with the real clock
    put back)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    screens, latencies = _screens_and_latencies(tmp_path / "a")
    assert (screens, latencies) == _screens_and_latencies(tmp_path / "b")
    assert len(screens) > 2 and ("",) * 4 in [lines for _, lines in screens]  # the restart's blank screen
    stamps = [at for at, _ in screens]
    assert stamps == sorted(stamps) and stamps[-1] < 1_002.0  # the panel's own clock: from 0-1,000 s on
    assert latencies and all(abs(x) < 2.0 for x in latencies)  # simulated seconds, not the real clock's
