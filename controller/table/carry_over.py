"""What a table carries from one round to the next, and across a restart: the snapshot the
runtime journals as each round starts (the round number, the key, the chips on the spots, the
shoe's count and its jam or open door, the rounds since the stub was counted), and the table opened again from it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller.table.stub_count import STUB_EVERY

if TYPE_CHECKING:
    from controller.table.round import RoundTable

__all__ = ["CarryOver"]


class CarryOver:
    """``table``'s state between rounds, as a snapshot and back."""

    def __init__(self, table: RoundTable) -> None:
        self.table = table

    def snapshot(self) -> dict[str, Any]:
        """What the table carries from one round to the next (taken as a round starts)."""
        t = self.table
        return {
            "round_no": t.round_no,
            "supervisor": t.supervisor.key_on,
            "spots": [[seat, spot, cents] for (seat, spot), cents in sorted(t.board.levels.items())],
            "shoe_count": t.ledger.shoe_count,
            "rounds_dealt": t.stub.rounds_dealt,
            "shoe_faults": {"jammed": t.shoe_faults.jammed, "door_open": t.shoe_faults.door_open},
        }

    @staticmethod
    def opening(round_no: int) -> dict[str, Any]:
        """The snapshot of a table that opens at ``round_no`` carrying nothing (no chips, no shoe
        count, no fault, the key off): a journal's first round after a change of game."""
        return {
            "round_no": round_no,
            "supervisor": False,
            "spots": [],
            "shoe_count": 0,
            "rounds_dealt": 0,
            "shoe_faults": {"jammed": False, "door_open": False},
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Start from a snapshot: the closed table opens again at the snapshot's round (the key
        counts as off: the panel must report it again after a restart)."""
        t = self.table
        t.round_no = int(state["round_no"]) - 1
        for seat, spot, cents in state.get("spots", []):
            t.board.report(seat, spot, cents)
        t.ledger.shoe_count = int(state.get("shoe_count", 0))
        # older snapshots: the rounds since the last count follow from the round number
        t.stub.rounds_dealt = int(state.get("rounds_dealt", (int(state["round_no"]) - 1) % STUB_EVERY))
        faults = state.get("shoe_faults", {})  # older snapshots: none known (the shoe's state read says)
        t.shoe_faults.jammed, t.shoe_faults.door_open = bool(faults.get("jammed")), bool(faults.get("door_open"))
        t.open_table()
        t.display.show()
