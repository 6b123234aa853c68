"""HIL, issue 11 items 5 and 6: commands answered ``busy`` are sent again with a bounded backoff
(and a command that finally fails is a DeviceFault naming it); late replies never pass for the
answer to a newer request. Real drivers, simulators on real ptys."""

from __future__ import annotations

import queue
from dataclasses import replace

from deadlines import STATE_TIMEOUT_S
from hil_helpers import of, wait_for
from test_hil_link import FAST, served

from drivers.bet_spots import BetSpotDriver
from drivers.link import CommandResult, DeviceFault
from drivers.panel import ButtonChanged, PanelDriver
from drivers.state import PanelState, SpotsState
from hil.devices import BetSpotSim, PanelSim
from hil.faults import Faults


def results(events: list, command: str) -> list[int]:
    return [e.status for e in events if isinstance(e, CommandResult) and e.command == command]


def test_a_busy_lamp_command_is_sent_again_until_done() -> None:
    q: queue.Queue = queue.Queue()
    sim = BetSpotSim(address=2)
    with served(sim, "pty") as (_, url), BetSpotDriver("spots", url, q, address=2, config=FAST) as spots:
        wait_for(q, of(SpotsState))
        sim.busy_next = 3
        spots.set_lamp(3, "ante", "accepted")
        spots.set_lamp(3, "ante", "open")  # queued behind it: must not overtake
        events = wait_for(q, lambda e: isinstance(e, CommandResult) and e.command == "lamp")
        events += wait_for(q, lambda e: isinstance(e, CommandResult) and e.command == "lamp")
        assert results(events, "lamp") == [0, 0]
        assert sim.lamps == {(3, "ante"): "open"}  # in order: the busy one first, then the later one
        assert [c for c, _ in sim.commands] == ["lamp", "lamp"]
        assert spots.stats.busy == 3 and spots.stats.commands_failed == 0
        assert not any(isinstance(e, DeviceFault) for e in events)


def test_a_command_busy_for_too_long_is_a_fault_naming_it_and_polling_goes_on() -> None:
    q: queue.Queue = queue.Queue()
    sim = PanelSim(address=3)
    config = replace(FAST, busy_retries=4, busy_backoff_s=0.05, busy_backoff_max_s=0.2)
    with served(sim, "pty") as (_, url), PanelDriver("panel", url, q, address=3, config=config) as panel:
        wait_for(q, of(PanelState))
        sim.busy_next = 1000
        panel.lamp("clear_fault", True)
        sim.press("deal")  # events still arrive while the command waits
        events = wait_for(q, lambda e: isinstance(e, DeviceFault) and e.kind == "command_failed")
        fault = events[-1]
        assert (fault.device, fault.command) == ("panel", "lamp") and "busy after 5 tries" in fault.error
        assert results(events, "lamp") == [3]
        assert any(isinstance(e, ButtonChanged) and e.button == "deal" for e in events)
        assert panel.stats.busy == 5 and panel.stats.commands_failed == 1 and sim.lamps == {}
        sim.busy_next = 0
        panel.lamp("clear_fault", True)  # the link goes on
        assert results(wait_for(q, lambda e: isinstance(e, CommandResult)), "lamp") == [0]
        assert sim.lamps == {17: True}


def test_a_nak_and_no_answer_are_command_failures_too() -> None:
    q: queue.Queue = queue.Queue()
    sim = PanelSim(address=3)
    faults = Faults()
    with (
        served(sim, "pty", faults) as (_, url),
        PanelDriver("panel", url, q, address=3, config=replace(FAST, link_down_s=5.0)) as panel,
    ):
        wait_for(q, of(PanelState))
        sim.nak_commands = True
        panel.beep(10)
        fault = wait_for(q, of(DeviceFault))[-1]
        assert (fault.kind, fault.command) == ("command_failed", "beep") and "NAK" in fault.error
        sim.nak_commands = False
        faults.drop_in = 1.0
        panel.beep(10)
        events = wait_for(q, of(DeviceFault))
        assert results(events, "beep") == [255] and "no answer" in events[-1].error
        faults.drop_in = 0.0
        assert panel.stats.naks == 1 and panel.stats.commands_failed == 2


def test_a_late_reply_with_the_same_low_sequence_byte_is_not_taken_for_the_answer() -> None:
    """An old reply whose sequence number matches the new request's in its low 8 bits (as after an
    8-bit sequence number wraps) arrives instead of the answer: it is dropped and counted, the
    request is sent again, and the command really runs."""
    q: queue.Queue = queue.Queue()
    sim = PanelSim(address=3)
    faults = Faults(stale=1)
    with served(sim, "pty", faults) as (_, url), PanelDriver("panel", url, q, address=3, config=FAST) as panel:
        wait_for(q, of(PanelState))
        panel.lamp("deal", True)
        wait_for(q, lambda e: isinstance(e, CommandResult) and e.command == "lamp")
        for _ in range(300):
            panel.beep(1)
        got = 0
        while got < 300:
            event = q.get(timeout=STATE_TIMEOUT_S)
            if isinstance(event, CommandResult) and event.command == "beep":
                assert event.ok
                got += 1
        assert faults.injected.get("stale") == 1
        assert sim.beeps == 300  # every beep answered "done" really ran
        assert panel.stats.stale >= 1
