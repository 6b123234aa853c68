"""What a table carries from one round to the next, and across a restart: the snapshot the
runtime journals as each round starts (the round number, the key, the chips on the spots, the
shoe's count and its jam or open door, the rounds since the stub was counted, the devices whose
link is down), and the table opened again from it."""

from __future__ import annotations

from typing import Any

from controller.table._bet_board import BetBoard
from controller.table._dealer_screen import DealerScreen
from controller.table._device_state import DeviceLinks
from controller.table._round_state import Fire, RoundState
from controller.table._shoe_faults import ShoeFaults
from controller.table._sign_in import SignIns
from controller.table._stub_count import STUB_EVERY, StubCount
from controller.table._supervisor import SupervisorKey
from controller.table.card_ledger import CardLedger

__all__ = ["CarryOver"]


class CarryOver:
    """The table's state between rounds, as a snapshot and back: read from its parts, and the
    table opened again from it (``open_table`` fires the machine's trigger)."""

    def __init__(
        self,
        state: RoundState,
        key: SupervisorKey,
        board: BetBoard,
        ledger: CardLedger,
        stub: StubCount,
        shoe_faults: ShoeFaults,
        display: DealerScreen,
        open_table: Fire,
        signins: SignIns | None = None,
        links: DeviceLinks | None = None,
    ) -> None:
        self._state, self._key, self._board, self._ledger = state, key, board, ledger
        self._stub, self._shoe_faults, self._display, self._open_table = stub, shoe_faults, display, open_table
        self._signins = signins
        self._links = links

    def snapshot(self) -> dict[str, Any]:
        """What the table carries from one round to the next (taken as a round starts)."""
        faults = self._shoe_faults
        out = {
            "round_no": self._state.round_no,
            "supervisor": self._key.on,
            "spots": [[seat, spot, cents] for (seat, spot), cents in sorted(self._board.levels.items())],
            "shoe_count": self._ledger.shoe_count,
            "rounds_dealt": self._stub.rounds_dealt,
            "shoe_faults": {"jammed": faults.jammed, "door_open": faults.door_open},
        }
        if self._signins is not None and self._signins.required:  # a table without a roster: as before
            out["signin"] = self._signins.snapshot()
        links = self._links
        if links is not None and (down := sorted(d for d, why in links.pending.items() if why == links.DOWN)):
            out["links_down"] = down  # the round opens held for them (none down: as before)
        return out

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
        """Start from a snapshot: the closed table opens again at the snapshot's round.

        The key (and, with a roster, the supervisor signed in) is taken as the snapshot journaled
        it, for the replay of the open round only: the replay must reproduce what the journal
        proves, so an act journaled as done with the key on before the round's first record is
        done again, not refused. The runtime turns the key off once the replay is over
        (``resend_requests``): after a restart the panel must report it again, and the
        supervisor sign in again (authority never outlives its evidence)."""
        self._state.round_no = int(state["round_no"]) - 1
        self._key.on = bool(state.get("supervisor", False))
        for seat, spot, cents in state.get("spots", []):
            self._board.report(seat, spot, cents)
        self._ledger.shoe_count = int(state.get("shoe_count", 0))
        # older snapshots: the rounds since the last count follow from the round number
        self._stub.rounds_dealt = int(state.get("rounds_dealt", (int(state["round_no"]) - 1) % STUB_EVERY))
        faults = state.get("shoe_faults", {})  # older snapshots: none known (the shoe's state read says)
        shoe = self._shoe_faults
        shoe.jammed, shoe.door_open = bool(faults.get("jammed")), bool(faults.get("door_open"))
        signin = state.get("signin")
        if self._signins is not None and isinstance(signin, dict):
            self._signins.restore(signin)
        links = self._links
        down = state.get("links_down", [])  # older snapshots: none known
        if links is not None and isinstance(down, list):
            # the round opened held for them: its replay holds as it did (a press refused then is
            # refused again), and their link-up and state read in the round end the hold again
            links.pending.update({str(device): links.DOWN for device in down})
        self._open_table()
        self._display.show()
