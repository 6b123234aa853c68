"""The dealer's screen made again only when something it is made of changed (``screen_version``)
is never stale: in the simulation, after every event the table handles, the screen last sent is
the screen of the table's state now (a screen made afresh). A collaborator that changes what the
screen shows without saying so leaves the dealer reading the last screen: this finds it.

Held, the screen is made after every event (what clears a hold is asked each time): only the
events the table handles while not held are compared."""

from __future__ import annotations

from typing import Any

import pytest

from controller.game.registry import table_names
from controller.table.round import RoundTable
from controller.table.screen import render
from hil.simulate.faults import CI_KINDS, SWARM_KINDS
from hil.simulate.run import run_seed

GAMES = table_names()
"""Every game dealt at a table."""

SEEDS = (1, 2)
"""Seeds whose faults and presses change each kind of thing the screen is made of (a game's
details, a card outside the deal, a notice or a detail page, a note that goes): checked once by
dropping each kind's ``screen_changed``."""


def _fresh_screen_after_each_event(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Compare, after each event the table handles, the screen last sent with a fresh one; the
    differences found, named by the event's kind and the round's step."""
    stale: list[str] = []
    handle = RoundTable.handle

    def checked(table: RoundTable, event: Any) -> None:
        handle(table, event)
        display = table.display
        if not display._target_shows or display._stale or not display._lines:
            return  # devices without a screen of their own, or nothing sent yet
        if table.state.phase is table.shape.common.hold:
            return
        fresh = render(display.state(), display.size)
        if fresh != display._lines:
            stale.append(f"{type(event).__name__} in {table.state.phase.value}: shown {display._lines}, now {fresh}")

    monkeypatch.setattr(RoundTable, "handle", checked)
    return stale


@pytest.mark.parametrize("game", GAMES)
def test_the_screen_shown_after_each_event_is_the_screen_of_the_table_now(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = _fresh_screen_after_each_event(monkeypatch)
    for seed in SEEDS:
        result = run_seed(game, seed, CI_KINDS, rounds=3)
        assert result.ok, f"seed {seed}: {result.broken}: {result.detail}"
        assert not stale, f"seed {seed}: {len(stale)} stale screens, the first: {stale[0]}"


@pytest.mark.parametrize("game", GAMES)
def test_the_screen_is_the_table_s_now_with_the_supervisor_voiding(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = _fresh_screen_after_each_event(monkeypatch)
    result = run_seed(game, 100, (*CI_KINDS, *SWARM_KINDS), rounds=3, swarm=True)
    assert result.ok, f"{result.broken}: {result.detail}"
    assert not stale, f"{len(stale)} stale screens, the first: {stale[0]}"
