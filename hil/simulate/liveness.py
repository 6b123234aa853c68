"""Liveness (issue 41 item 4): once the faults stop, the table goes on. After the last fault's
effect ends, the round open then and ``N`` more rounds must finish within a bound of simulated
time, and every hold must clear the way it names: a hold that ends by itself (a device back, the
shoe ok) without anyone's press, within :data:`HOLD_S`; a hold for the supervisor once he takes
the way on it offers."""

from __future__ import annotations

from typing import Any

from hil.simulate.invariants import HOLD_S, Broken
from hil.simulate.world import Stuck, World

__all__ = ["ROUND_BOUND_S", "HOLD_S", "Liveness", "play_on"]

ROUND_BOUND_S = 120.0
"""Simulated seconds each round may take once the faults stopped (a round takes about half a
second without faults; a supervisor's hold a few more)."""


class Liveness:
    """The liveness phase of ``world``: starts when every fault's effect has ended."""

    def __init__(self, world: World, rounds: int) -> None:
        self.world = world
        s = world.runtime.snapshot
        open_round = s.step not in ("closed", "betting", "round_complete")
        self.start_played = len(world.played)
        self.target = self.start_played + rounds + (1 if open_round else 0)
        self.start = world.now
        self.bound = world.now + ROUND_BOUND_S * (rounds + 1)
        self.holds: dict[tuple[int, str], float] = {}

    def done(self) -> bool:
        """The open round and the rounds asked for have finished."""
        return len(self.world.played) >= self.target

    def check(self) -> None:
        """Raises :class:`Broken` (``liveness``) when the bound has passed or a hold that ends by
        itself has stayed on too long."""
        world = self.world
        s = world.runtime.snapshot
        hold = s.hold
        if hold is not None:
            first = self.holds.setdefault((s.round_no, hold.reason), world.now)
            if hold.by_itself and world.now - first > HOLD_S:
                raise Broken(
                    "liveness",
                    f"round {s.round_no}: a hold that clears by itself ({hold.reason}; clears: {hold.clears}) still "
                    f"on {world.now - first:.0f} s after the faults stopped, every device back",
                )
        if world.now > self.bound:
            finished = len(world.played) - self.start_played
            where = f"round {s.round_no} at {s.step}" + (f", held: {hold.reason}" if hold is not None else "")
            raise Broken(
                "liveness",
                f"{finished} of {self.target - self.start_played} rounds finished in {self.bound - self.start:.0f} "
                f"simulated s after the last fault ({where})",
            )


def play_on(world: World, player: Any, rounds: int) -> None:
    """The liveness phase: stop the faults, then ``player`` plays until the open round and
    ``rounds`` more have finished, checked after every action."""
    world.stop_faults()
    live = Liveness(world, rounds)
    while not live.done():
        try:
            player.act()
        except Stuck:
            world.unstick()
        live.check()
