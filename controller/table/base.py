"""Kept importable for code written before the split: the round machine's model is
:mod:`controller.table.round` (and its collaborators), the shared states :mod:`.phases`."""

from controller.table.round_data import RoundResult

__all__ = ["RoundResult"]
