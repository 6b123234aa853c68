"""HIL, issue 11 items 1-3: devices that restart without memory, the state request after every
link-up, and the panel's whole-screen command. Real drivers, simulators on real ptys."""

from __future__ import annotations

import queue
from pathlib import Path

from hil_helpers import of, wait_for
from test_hil_link import FAST, panel_served, served, spots_served

from drivers.bet_spots import SpotReport
from drivers.link import CommandResult, DeviceFault, LinkDown, LinkUp
from drivers.panel import ButtonChanged, PanelDriver
from drivers.shoe import CardDealt, ShoeDriver
from drivers.state import PanelState, ShoeState, SpotsState
from hil.devices import BetSpotSim, PanelSim, ShoeSim

# --- 1. boot identity and restarts ----------------------------------------------------------------


def test_a_restart_without_memory_loses_no_bet_report_and_is_a_fault(tmp_path: Path) -> None:
    q: queue.Queue = queue.Queue()
    sim = BetSpotSim(address=2)
    with spots_served(sim, q, link=tmp_path / "ttySPOTS") as (server, spots):
        wait_for(q, of(SpotsState))
        for seat in range(1, 7):
            sim.place(seat, "ante", 100 * seat)
        wait_for(q, lambda e: isinstance(e, SpotReport) and e.seat == 6)
        old_boot = sim.boot_id
        server.disconnect()
        sim.restart()  # power lost: no memory, numbering from 1 again
        assert sim.boot_id != old_boot and sim.next_event_no == 1
        server.reconnect()
        for n in range(10):
            sim.place(1, "bonus", 500 + n)
        events = wait_for(q, lambda e: isinstance(e, SpotReport) and e.cents == 509)
        reports = [e.cents for e in events if isinstance(e, SpotReport)]
        assert reports == [500 + n for n in range(10)]  # none taken for "already seen"
        assert [e.event_no for e in events if isinstance(e, SpotReport)] == list(range(1, 11))
        faults = [e for e in events if isinstance(e, DeviceFault)]
        assert any(f.kind == "events_reset" and f"{sim.boot_id:08x}" in f.error for f in faults)
        up = next(e for e in events if isinstance(e, LinkUp))
        assert up.rebooted and up.boot_id == sim.boot_id
        assert spots.stats.resets == 1


def test_a_restart_that_keeps_its_boot_id_is_still_caught(tmp_path: Path) -> None:
    """A device maker's bug: numbering from 1 again under the same boot id. The events arrive
    anyway, and the reset is a fault."""
    q: queue.Queue = queue.Queue()
    sim = BetSpotSim(address=2)
    with spots_served(sim, q, link=tmp_path / "ttySPOTS") as (server, _):
        for n in range(5):
            sim.place(2, "ante", 100 + n)
        wait_for(q, lambda e: isinstance(e, SpotReport) and e.cents == 104)
        server.disconnect()
        boot = sim.boot_id
        sim.restart()
        sim.boot_id = boot
        server.reconnect()
        for n in range(3):
            sim.place(2, "ante", 200 + n)
        events = wait_for(q, lambda e: isinstance(e, SpotReport) and e.cents == 202)
        assert [e.cents for e in events if isinstance(e, SpotReport)] == [200, 201, 202]
        assert any(isinstance(e, DeviceFault) and e.kind == "events_reset" for e in events)


def test_boot_ids_are_random_32_bit_and_new_on_every_power_up() -> None:
    sims = [PanelSim() for _ in range(20)]
    boots = {s.boot_id for s in sims}
    assert len(boots) == 20 and all(0 < b < 2**32 for b in boots)
    sim = sims[0]
    seen = {sim.boot_id}
    for _ in range(10):
        sim.restart()
        seen.add(sim.boot_id)
        sim.reboot()
        seen.add(sim.boot_id)
    assert len(seen) == 21 and sim.boots == 21


# --- 2. the state request ---------------------------------------------------------------------------


def test_after_every_link_up_the_spots_state_arrives_after_the_link_up(tmp_path: Path) -> None:
    q: queue.Queue = queue.Queue()
    sim = BetSpotSim(address=2)
    sim.place(1, "ante", 500)
    with spots_served(sim, q, link=tmp_path / "ttySPOTS") as (server, _):
        events = wait_for(q, of(SpotsState))
        kinds = [type(e) for e in events]
        assert kinds.index(LinkUp) < kinds.index(SpotReport) < kinds.index(SpotsState)  # older events first
        assert events[-1].spots == ((1, "ante", 500),)
        server.disconnect()
        wait_for(q, of(LinkDown))
        sim.put(3, "ante", 2500)  # chips placed while the link was down: no report reaches us
        sim.put(1, "ante", 0)
        server.reconnect()
        events = wait_for(q, of(SpotsState))
        assert any(isinstance(e, LinkUp) for e in events)
        assert events[-1].spots == ((3, "ante", 2500),) and events[-1].boot_id == sim.boot_id


def test_a_state_bigger_than_a_frame_comes_in_parts_and_whole() -> None:
    q: queue.Queue = queue.Queue()
    sim = BetSpotSim(address=2)
    names = ("ante", "third_street", "fourth_street", "fifth_street", "bonus", "envy_marker")
    for seat in range(1, 8):
        for name in names:
            sim.put(seat, name, seat * 1000 + len(name))
    with spots_served(sim, q) as (_, spots):
        state = wait_for(q, of(SpotsState))[-1]
        assert sorted(state.spots) == sorted((s, n, s * 1000 + len(n)) for s in range(1, 8) for n in names)
        assert len(sim._parts) > 1  # it did not fit one frame
        assert spots.stats.faults == 0


def test_panel_and_shoe_state_after_link_up_and_after_a_restart(tmp_path: Path) -> None:
    q: queue.Queue = queue.Queue()
    panel_sim = PanelSim(address=3, lines=4, columns=40)
    shoe_sim = ShoeSim(["As", "Kd", "Qh", "Jc"])
    panel_sim.key(True)
    with (
        served(panel_sim, "pty", link=tmp_path / "ttyPANEL") as (panel_server, panel_url),
        served(shoe_sim, "pty") as (_, shoe_url),
        PanelDriver("panel", panel_url, q, address=3, config=FAST),
        ShoeDriver("shoe", shoe_url, q, address=1, config=FAST) as shoe,
    ):
        events = wait_for(q, of(PanelState))
        assert any(isinstance(e, ButtonChanged) and e.button == "supervisor_key" for e in events)
        state = events[-1]
        assert (state.key_on, state.held, state.lines, state.columns) == (True, (), 4, 40)
        shoe.configure_deck(53)
        wait_for(q, lambda e: isinstance(e, CommandResult) and e.command == "configure_deck")
        shoe_sim.deal(2)
        wait_for(q, lambda e: isinstance(e, CardDealt) and e.index == 2)
        panel_server.disconnect()
        wait_for(q, lambda e: isinstance(e, LinkDown) and e.device == "panel")
        panel_sim.key(False, report=False)  # turned off while unreachable
        panel_sim.restart()
        panel_sim.hold("seat_3")
        panel_server.reconnect()
        state = wait_for(q, of(PanelState))[-1]
        assert (state.key_on, state.held) == (False, ("seat_3",))
        shoe_sim.restart()  # the shoe forgets its count and its deck setting; the cards stay
        shoe_state = wait_for(q, of(ShoeState))[-1]
        assert (shoe_state.status, shoe_state.cards_out, shoe_state.stub_count, shoe_state.deck_size) == (
            "ok",
            0,
            2,
            52,
        )
        shoe_sim.deal(1)
        card = wait_for(q, of(CardDealt))[-1]
        assert (card.card, card.index, card.event_no) == ("Qh", 1, 1)


# --- 3. the display ---------------------------------------------------------------------------------


def test_a_screen_replaces_the_whole_display_and_the_sim_keeps_its_history() -> None:
    q: queue.Queue = queue.Queue()
    sim = PanelSim(address=3, lines=4, columns=20)
    with panel_served(sim, q) as (_, panel):
        state = wait_for(q, of(PanelState))[-1]
        assert (state.lines, state.columns) == (4, 20)
        panel.screen(("Place your bets", "Seat 3: ante 5.00", "", "key: off"))
        wait_for(q, lambda e: isinstance(e, CommandResult) and e.command == "screen")
        assert sim.screen == ("Place your bets", "Seat 3: ante 5.00", "", "key: off")
        panel.screen(("No more bets",))
        result = wait_for(q, lambda e: isinstance(e, CommandResult) and e.command == "screen")[-1]
        assert result.ok and sim.screen == ("No more bets", "", "", "")  # replaced, not queued
        panel.display(2, "old command works")
        wait_for(q, lambda e: isinstance(e, CommandResult) and e.command == "display")
        assert sim.screen == ("No more bets", "old command works", "", "")
        panel.screen(("x" * 21,))  # wider than the display
        events = wait_for(q, lambda e: isinstance(e, DeviceFault) and e.command == "screen")
        assert [e.status for e in events if isinstance(e, CommandResult)] == [2]
        panel.screen(("a", "b", "c", "d", "e"))  # more lines than it has
        wait_for(q, lambda e: isinstance(e, DeviceFault) and e.command == "screen")
        assert sim.screen == ("No more bets", "old command works", "", "")
        history = [lines for _, lines in sim.screens]
        assert history == [
            ("Place your bets", "Seat 3: ante 5.00", "", "key: off"),
            ("No more bets", "", "", ""),
            ("No more bets", "old command works", "", ""),
        ]
        stamps = [at for at, _ in sim.screens]
        assert stamps == sorted(stamps)


def test_a_device_that_garbles_its_state_answer_is_a_fault_and_polling_goes_on() -> None:
    q: queue.Queue = queue.Queue()
    sim = PanelSim(address=3)
    sim.state_body = lambda: (b"\x07", None)  # type: ignore[method-assign] # too short for a panel state
    with panel_served(sim, q):
        fault = wait_for(q, lambda e: isinstance(e, DeviceFault) and e.kind == "state")[-1]
        assert "state answer" in fault.error
        sim.press("deal")
        assert wait_for(q, of(ButtonChanged))[-1].button == "deal"
