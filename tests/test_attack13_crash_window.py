"""Attack on a controller started again after a crash (docs/journal.md, docs/protocol.md section 5):
a device's event is taken once, never dropped, when the controller died between the fault the
link reports about that event and the event itself.

The link reports a break in a device's event numbers (``events_reset``: a device started again
under a new boot without memory; ``events_gap``: numbers skipped) as a ``DeviceFault`` naming
the event's number, journaled just *before* the event. Found by `tablectl simulate --game boston5
--seeds 60 --first 7100 --swarm --faults all` (seed 7105): the shoe restarted without memory
during the first deal, its first card after the restart came, the fault was journaled, and the
controller crashed before the card was. Started again, the table read the fault's event number
as the last event journaled, and the card the shoe sent again was dropped as a duplicate: a card
that left the shoe, never journaled, the round dealt without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from journal_helpers import events_journal

from controller.table.journal_files import journaled_event_windows
from hil.simulate.faults import Fault
from hil.simulate.run import run_seed

OLD, NEW = 0x7A583F72, 0x85AC42CA


def test_boston5_a_crash_between_the_shoes_restart_fault_and_its_first_card_loses_no_card() -> None:
    """The shrunk case of seed 7105: the shoe restarts without memory as the first deal ends, the
    controller dies as the final deal starts (between the ``events_reset`` fault and the card)."""
    faults = [
        Fault(0.035, "crash", "panel", 2.92, 2, step="final_deal", edge="enter", round_no=7),
        Fault(0.058, "restart", "shoe", 1.65, 3, step="first_deal", edge="leave", round_no=7),
    ]
    result = run_seed("boston5", 7105, (), rounds=10, faults=faults, resettle=True, swarm=True)
    assert result.ok, f"{result.broken}: {result.detail}"


def _card(no: int, index: int) -> tuple[str, dict[str, object]]:
    return "CardDealt", {"event_no": no, "index": index, "card": "As", "quality": 100}


def _fault(kind: str, no: int) -> tuple[str, dict[str, object]]:
    return "DeviceFault", {"event_no": no, "kind": kind, "error": "numbers broke", "command": ""}


@pytest.mark.parametrize(
    ("records", "window"),
    [
        pytest.param(
            [("LinkUp", {"boot_id": OLD, "rebooted": False}), _card(121, 12)]
            + [("LinkUp", {"boot_id": NEW, "rebooted": True}), _fault("events_reset", 1)],
            (NEW, 0),
            id="restart-fault-then-crash",
        ),
        pytest.param(
            [("LinkUp", {"boot_id": OLD, "rebooted": False}), _card(5, 1), _fault("events_gap", 8)],
            (OLD, 5),
            id="gap-fault-then-crash",
        ),
        pytest.param(
            [("LinkUp", {"boot_id": OLD, "rebooted": False}), _card(5, 1), _fault("bad_event", 6)],
            (OLD, 6),
            id="bad-event-in-the-events-place",
        ),
    ],
)
def test_a_fault_journaled_ahead_of_its_event_is_not_the_event(
    tmp_path: Path, records: list[tuple[str, dict[str, object]]], window: tuple[int, int]
) -> None:
    """The window a controller started again gives the shoe's link: a fault that names the event
    it came with but is not that event (``events_reset``, ``events_gap``) leaves the event to be
    taken when the device sends it again; a ``bad_event`` fault is delivered in the event's place
    (the event was journaled as it)."""
    events_journal(tmp_path / "j.db", records, "shoe")
    assert journaled_event_windows(tmp_path / "j.db", {"shoe"}) == {"shoe": window}
