"""The real controller over real ptys against simulated devices: faults mid-round."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from deadlines import STATE_TIMEOUT_S

from controller.configuration import config_dir, load_table
from controller.table.runtime import TableRuntime
from hil.devices import BetSpotSim, PanelSim, ShoeSim
from hil.serve import PtyServer


def wait(cond: Callable[[], bool], what: str, timeout: float = STATE_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.005)


def test_shoe_link_lost_mid_deal_holds_and_the_round_resumes_when_it_returns(tmp_path: Path) -> None:
    table = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
    sims = {"shoe": ShoeSim(address=1), "bet_spots": BetSpotSim(address=2), "panel": PanelSim(address=3)}
    servers = {role: PtyServer(sim, link=tmp_path / role) for role, sim in sims.items()}
    urls = {role: s.start() for role, s in servers.items()}
    runtime = TableRuntime(table, urls)
    runtime.latest.share_hands = True  # the cards dealt, face down or not, to check the deal
    try:
        runtime.start()
        wait(lambda: runtime.snapshot.step == "betting", "betting")
        sims["bet_spots"].place(1, "ante", 500)
        sims["bet_spots"].place(2, "ante", 500)
        wait(lambda: len(runtime.snapshot.seats) == 2, "the bets")
        sims["panel"].press("no_more_bets")
        wait(lambda: runtime.snapshot.step == "no_more_bets", "no more bets")
        shoe = sims["shoe"]
        shoe.load("As Kd 9c 9d 2h 7s Qc".split())
        shoe.deal(3)
        wait(lambda: runtime.snapshot.dealt == 3, "three cards")
        servers["shoe"].disconnect()  # the shoe's cable is pulled mid-deal
        wait(lambda: runtime.snapshot.step == "hold", "the hold")
        hold = runtime.snapshot.hold
        assert hold is not None and hold.reason == "link down: shoe" and hold.by_itself
        wait(  # over its own link
            lambda: (
                sims["panel"].display.get(1, "").startswith("R1 HOLD dealing")
                and "why: link down: shoe" in " ".join(sims["panel"].display.values())
            ),
            "the panel to show the hold",
        )
        shoe.deal(4)  # dealt while the link is down: kept on the device until delivered
        servers["shoe"].reconnect()
        wait(lambda: runtime.snapshot.step == "third_street", "the round to resume and the deal to finish")
        deal = runtime.latest.hands()
        assert deal is not None and deal.of(2) == ("9c", "9d") and deal.dealer == ("2h", "7s", "Qc")
        assert "shoe back: resume" in runtime.snapshot.recent
    finally:
        runtime.stop()
        for s in servers.values():
            s.close()


@pytest.mark.parametrize(("game", "spot"), [("mississippi_stud", "ante"), ("boston5", "ante"), ("pai_gow", "pai_gow")])
def test_chips_on_a_spot_before_the_table_opens_are_bets_of_its_first_round(
    tmp_path: Path, game: str, spot: str
) -> None:
    """The spots' state at link-up can reach the controller's queue before the table opens (a
    loaded machine): it is still taken after the opening, as bets, never as late bets."""
    table = load_table(config_dir() / "bench" / f"{game}.yaml")
    sims = {"shoe": ShoeSim(address=1), "bet_spots": BetSpotSim(address=2), "panel": PanelSim(address=3)}
    sims["bet_spots"].chips[(2, spot)] = 500  # already on the spot when the controller starts
    servers = {role: PtyServer(sim, link=tmp_path / role) for role, sim in sims.items()}
    urls = {role: s.start() for role, s in servers.items()}
    runtime = TableRuntime(table, urls)
    spots = runtime.drivers["bet_spots"]
    start_spots = spots.start

    def start_and_report() -> None:
        """The worst order: the bet spots' state is queued before the runtime goes on."""
        start_spots()
        queued = runtime.engine.queue.queue
        wait(lambda: any(type(e).__name__ == "SpotsState" for e in list(queued)), "the spots' state queued")

    spots.start = start_and_report
    try:
        runtime.start()
        wait(lambda: runtime.snapshot.step == "betting" and runtime.snapshot.wagers() == {2: {spot: 500}}, "the bet")
        assert not any("late bet" in line for line in runtime.snapshot.recent)
    finally:
        runtime.stop()
        for s in servers.values():
            s.close()


def test_a_controller_stuck_on_an_event_is_not_alive_while_events_wait(tmp_path: Path) -> None:
    """The watchdog's check: a controller thread that runs but handles nothing while events wait
    is stuck (it was alive at every look: the count it compared with was never updated)."""
    table = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
    sims = {"shoe": ShoeSim(address=1), "bet_spots": BetSpotSim(address=2), "panel": PanelSim(address=3)}
    servers = {role: PtyServer(sim, link=tmp_path / role) for role, sim in sims.items()}
    urls = {role: s.start() for role, s in servers.items()}
    runtime = TableRuntime(table, urls)
    stuck, inside, release = threading.Event(), threading.Event(), threading.Event()

    def block(event: object) -> None:
        if stuck.is_set():
            inside.set()
            release.wait(timeout=STATE_TIMEOUT_S)

    runtime.observers.append(block)
    try:
        runtime.start()
        wait(lambda: runtime.snapshot.step == "betting", "betting")
        stuck.set()
        runtime.post_link_stats()  # the controller takes the first and stays in the observer
        assert inside.wait(timeout=STATE_TIMEOUT_S), "the controller to take an event"
        runtime.post_link_stats()  # these wait
        runtime.alive()  # a look: what it has handled so far
        assert not runtime.alive()
        stuck.clear()
        release.set()
        wait(runtime.engine.queue.empty, "the events that waited to be handled")
        assert runtime.alive()
    finally:
        release.set()
        runtime.stop()
        for s in servers.values():
            s.close()
