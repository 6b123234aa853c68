"""Kept importable for code written before the split: the round machine's model is
:mod:`controller.table.round` (and its collaborators), the shared states :mod:`.phases`."""

from controller.table._stub_count import STUB_EVERY
from controller.table.phases import common_transitions, in_play_states
from controller.table.round import RoundTable
from controller.table.round_data import RoundResult, Seat

__all__ = ["Seat", "RoundResult", "RoundTable", "common_transitions", "in_play_states", "STUB_EVERY"]
