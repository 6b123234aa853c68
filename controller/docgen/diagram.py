"""Mermaid diagrams of the games' round machines, generated from the machines' own tables."""

from __future__ import annotations

from transitions.extensions import GraphMachine

from controller.game.registry import definition
from controller.table.game_tables import GAME_TABLES
from controller.table.phases import Common

__all__ = ["diagram"]

MACHINES = GAME_TABLES
"""Games with a round machine (each game's definition names it, its ``STATES`` and ``TRANSITIONS``)."""


class _Model:
    """A bare model: the diagram needs the states and transitions only."""


def diagram(game: str) -> str:
    """The Mermaid state diagram of ``game``'s round machine."""
    game_def = definition(game)
    machine = GraphMachine(
        model=_Model(),
        states=list(game_def.phases()),
        transitions=game_def.machine().TRANSITIONS,
        initial=Common.CLOSED,
        auto_transitions=False,
        graph_engine="mermaid",
        title=f"{game} round",
    )
    return str(machine.get_graph().draw(None)).rstrip() + "\n"
