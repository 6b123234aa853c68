"""What a table carries from one round to the next, and across a restart: the snapshot the
runtime journals as each round starts (the round number, the key, the chips on the spots, the
shoe's count and its jam or open door, the rounds since the stub was counted, the devices not
up (down, never connected, not read again) and those to read again after a restart), and the
table opened again from it."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
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
        if links is not None and links.pending:  # down, never connected, or not read again yet (none: as before)
            out["links_not_up"] = dict(sorted(links.pending.items()))
        if links is not None and links.rereads:  # a restart's devices not read again yet, and its time
            out["links_reread"] = {"devices": sorted(links.rereads), "since": links.stopped_until}
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

    @staticmethod
    def problem(state: dict[str, Any], devices: Iterable[str]) -> str | None:
        """What is wrong with a snapshot read back at a restart for a table of ``devices`` (None:
        nothing): a value the restore converts that is not what the table wrote (a journal damaged
        or edited) would stop the start with a traceback, or replay the round from a wrong number,
        count or board. Keys absent, as in older snapshots, are nothing."""

        def count(value: object, least: int) -> bool:
            return isinstance(value, int) and not isinstance(value, bool) and value >= least

        round_no = state.get("round_no")
        if not count(round_no, 1):
            return f"round_no {json.dumps(round_no)} is not a round number (a whole number from 1)"
        spots = state.get("spots", [])
        if not (
            isinstance(spots, list)
            and all(
                isinstance(s, list) and len(s) == 3 and count(s[0], 1) and isinstance(s[1], str) and count(s[2], 0)
                for s in spots
            )
        ):
            return f"spots {json.dumps(spots)} is not a list of [seat, spot, cents] (seat from 1, cents from 0)"
        for key in ("shoe_count", "rounds_dealt"):
            if key in state and not count(state[key], 0):
                return f"{key} {json.dumps(state[key])} is not a count (a whole number from 0)"
        if "supervisor" in state and not isinstance(state["supervisor"], bool):
            return f"supervisor {json.dumps(state['supervisor'])} is not true or false"
        faults = state.get("shoe_faults", {})
        if not (isinstance(faults, dict) and all(isinstance(v, bool) for v in faults.values())):
            return f"shoe_faults {json.dumps(faults)} does not map the shoe's faults to true or false"
        if "signin" in state and not isinstance(state["signin"], dict):
            return f"signin {json.dumps(state['signin'])} is not an object"
        return CarryOver.links_problem(state, devices)

    @staticmethod
    def links_problem(state: dict[str, Any], devices: Iterable[str]) -> str | None:
        """What is wrong with the snapshot's ``links_not_up`` (older snapshots: ``links_down`` and
        ``links_not_back``) or ``links_reread`` for a table of ``devices`` (None: nothing; absent,
        as in older snapshots, is nothing): a round held for a device the table does not have would
        never end, and one not read would replay free."""
        down, not_back, known = state.get("links_down", []), state.get("links_not_back", {}), sorted(devices)
        not_up = state.get("links_not_up", {})
        if not (isinstance(not_up, dict) and all(d in known and _written_why(w) for d, w in not_up.items())):
            return (
                f"links_not_up {json.dumps(not_up)} does not map this table's devices ({', '.join(known)}) to why "
                f"they are not up ({_WHYS})"
            )
        if not (isinstance(down, list) and all(isinstance(d, str) and d in known for d in down)):
            return f"links_down {json.dumps(down)} is not a list of this table's devices ({', '.join(known)})"
        if not (isinstance(not_back, dict) and all(d in known and isinstance(w, str) for d, w in not_back.items())):
            return (
                f"links_not_back {json.dumps(not_back)} does not map this table's devices ({', '.join(known)}) to why"
            )
        reread = state.get("links_reread", {"devices": [], "since": 0.0})
        devices_, since = (reread.get("devices"), reread.get("since")) if isinstance(reread, dict) else (None, None)
        if not (
            isinstance(devices_, list)
            and all(isinstance(d, str) and d in known for d in devices_)
            and isinstance(since, (int, float))
            and not isinstance(since, bool)
            and math.isfinite(since)
            and set(reread) == {"devices", "since"}
        ):
            return (
                f"links_reread {json.dumps(reread)} is not the devices of this table ({', '.join(known)}) "
                "to read again and the time of the start (a number)"
            )
        return None

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
        if links is not None:
            # down (the round opened held for them: a press refused then is refused again, and their
            # link-up and state read in the round end the hold again), never connected (held if it
            # said why; "no more bets" refused while one is missing) or not read again yet: the
            # replay refuses and holds as the round did
            links.pending.update(_not_up(state))
        reread = state.get("links_reread")  # older snapshots: none known
        if links is not None and isinstance(reread, dict):
            # opened after a restart before these were read again: what they report that happened
            # before the start was done while the table was stopped, in the replay as it was live
            links.restarted(tuple(str(d) for d in reread["devices"]), float(reread["since"]))
        self._open_table()
        self._display.show()


def _not_up(state: dict[str, Any]) -> dict[str, str]:
    """The snapshot's devices not up as its round opened, and why: its ``links_not_up``; older
    snapshots named those down in ``links_down`` and the others in ``links_not_back`` (neither:
    none known)."""
    down, not_back = state.get("links_down", []), state.get("links_not_back", {})
    not_up = {str(device): DeviceLinks.DOWN for device in down} if isinstance(down, list) else {}
    if isinstance(not_back, dict):
        not_up.update({str(device): str(why) for device, why in not_back.items()})
    now = state.get("links_not_up", {})
    if isinstance(now, dict):
        not_up.update({str(device): str(why) for device, why in now.items()})
    return not_up


_WHYS = ", ".join(
    json.dumps(why)
    for why in (
        DeviceLinks.DOWN,
        DeviceLinks.NEVER,
        f"{DeviceLinks.NEVER}: ...",
        DeviceLinks.UNREAD,
        DeviceLinks.REREAD,
    )
)
"""Why a device is not up, as the table writes it."""


def _written_why(why: object) -> bool:
    """Whether ``why`` is a reason the table writes for a device not up (:class:`DeviceLinks`)."""
    return isinstance(why, str) and (
        why in (DeviceLinks.DOWN, DeviceLinks.NEVER, DeviceLinks.UNREAD, DeviceLinks.REREAD)
        or why.startswith(f"{DeviceLinks.NEVER}: ")
    )
