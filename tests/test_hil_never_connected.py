"""Issue 32, over real ptys: a device missing from start-up holds the table at open with its
reason, as a link that goes down mid-round does; the panel never says to deal while it is missing.
The shoe's port does not exist when the controller starts (the bet spots' and the panel's
simulators do); bets are placed and "no more bets" pressed meanwhile, two things at once; then
the shoe is plugged in and the round goes on."""

from __future__ import annotations

from pathlib import Path

from hil_table import wait

from controller.configuration import config_dir, load_table
from controller.table.runtime import TableRuntime
from hil.devices import BetSpotSim, PanelSim, ShoeSim
from hil.serve import PtyServer

TABLE = load_table(config_dir() / "bench" / "mississippi_stud.yaml")


def test_the_shoe_missing_from_start_up_holds_the_table_at_open(tmp_path: Path) -> None:
    spots, panel, shoe = BetSpotSim(address=2), PanelSim(address=3, lines=4, columns=40), ShoeSim(address=1)
    servers = {
        "bet_spots": PtyServer(spots, link=tmp_path / "bet_spots"),
        "panel": PtyServer(panel, link=tmp_path / "panel"),
    }
    urls = {role: server.start() for role, server in servers.items()}
    urls["shoe"] = str(tmp_path / "shoe")  # nothing there yet
    runtime = TableRuntime(TABLE, urls)
    shoe_server = PtyServer(shoe, link=tmp_path / "shoe")
    try:
        runtime.start()
        missing = f"never connected: shoe: cannot open port {urls['shoe']}: No such file or directory"
        wait(lambda: runtime.snapshot.hold is not None and runtime.snapshot.hold.reason == missing, "the hold at open")
        snap = runtime.snapshot
        assert snap.step == "hold" and snap.hold is not None and snap.hold.held_from == "betting"
        assert snap.hold.clears == "by itself when the shoe link comes up; or supervisor key on: void"
        spots.place(1, "ante", 500)
        spots.place(4, "ante", 1000)
        wait(lambda: runtime.snapshot.wagers() == {1: {"ante": 500}, 4: {"ante": 1000}}, "the bets, while held")
        panel.press("no_more_bets")
        wait(lambda: any("HOLD" in " ".join(lines) for _, lines in panel.screens), "the hold on the panel")
        assert runtime.snapshot.step == "hold"
        shown = [" ".join(lines) for _, lines in list(panel.screens)]  # while the shoe is missing
        assert not any("deal" in text for text in shown), shown
        shoe_server.start()  # plugged in: the link comes up, its state is read, the hold ends by itself
        wait(lambda: runtime.snapshot.step == "betting", "the hold to end", timeout=120)
        panel.press("no_more_bets")
        wait(lambda: runtime.snapshot.step == "no_more_bets", "no more bets")
        wait(lambda: "deal the cards" in " ".join(panel.screen), "the panel to say deal")
    finally:
        runtime.stop()
        for server in (*servers.values(), shoe_server):
            server.close()
