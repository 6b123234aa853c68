"""An ``early_card`` fault placed while the table holds from a step that expects no card (betting,
"no more bets", settlement) deals its card: the dealer pulls a card during the hold, and the table
journals it and keeps it for the supervisor (docs/dealer-guide.md, "N cards dealt while held"). It
dealt nothing before, yet counted as that held step's coverage (docs/simulate.md, "Swarm faults")."""

from __future__ import annotations

import pytest

from hil.simulate import world as world_module
from hil.simulate.faults import Fault
from hil.simulate.run import run_seed
from hil.simulate.swarm import Reached, held_at
from hil.simulate.world import World

HELD = [
    ("mississippi_stud", 1, "no_more_bets"),
    ("mississippi_stud", 1, "settlement"),
    ("boston5", 1, "no_more_bets"),
    ("boston5", 2, "settlement"),
    ("pai_gow", 3, "settlement"),
    ("three_card_poker", 1, "no_more_bets"),
    ("three_card_poker", 2, "settlement"),
]
"""(game, seed, step) where a journal outage as the step begins holds the table from it (one round
each): betting held so in no seed tried (1-5), nor pai gow's "no more bets"."""


@pytest.mark.parametrize(("game", "seed", "step"), HELD, ids=[f"{g}-{s}" for g, _, s in HELD])
def test_an_early_card_placed_in_a_hold_leaves_the_shoe_and_every_invariant_holds(
    game: str, seed: int, step: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checked with the world's old rule put back (no card while held): nothing dealt."""
    dealt: list[tuple[str, int]] = []
    early = world_module._INJECT["early_card"]

    def counted(world: World, fault: Fault, end: float) -> None:
        before = len(world.shoe.reports)
        early(world, fault, end)
        dealt.append((world.runtime.snapshot.step, len(world.shoe.reports) - before))

    monkeypatch.setitem(world_module._INJECT, "early_card", counted)
    result = run_seed(game, seed, (), rounds=1, faults=list(held_at(step, "early_card")), swarm=True)
    assert result.ok, f"{result.broken}: {result.detail}"
    assert Reached("early_card", step, True) in result.reached
    assert dealt == [("hold", 1)]  # the card left the shoe while the table held (the cards check: journaled once)
