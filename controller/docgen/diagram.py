"""Mermaid diagrams of the games' round machines, generated from the machines' own tables."""

from __future__ import annotations

from typing import Any

from transitions.extensions import GraphMachine

from controller.table import boston5, mississippi_stud, pai_gow

__all__ = ["MACHINES", "diagram"]

MACHINES: dict[str, Any] = {"mississippi_stud": mississippi_stud, "boston5": boston5, "pai_gow": pai_gow}
"""Games with a round machine: the module holding its ``Phase`` states and ``TRANSITIONS``."""


class _Model:
    """A bare model: the diagram needs the states and transitions only."""


def diagram(game: str) -> str:
    """The Mermaid state diagram of ``game``'s round machine."""
    module = MACHINES[game]
    machine = GraphMachine(
        model=_Model(),
        states=module.Phase,
        transitions=module.TRANSITIONS,
        initial=module.Phase.CLOSED,
        auto_transitions=False,
        graph_engine="mermaid",
        title=f"{game} round",
    )
    return str(machine.get_graph().draw(None)).rstrip() + "\n"
