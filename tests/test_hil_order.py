"""Events of different devices in the order they happened, over real ptys (issue 40 item 2):
the real controller and drivers against the simulators, the panel's link made slow so that the
card dealt after "no more bets" reaches the controller first. docs/protocol.md, section 5.1."""

from __future__ import annotations

import time
from pathlib import Path

from hil_table import PATIENT_LINKS, HilTable, shoe, wait

from controller.configuration import config_dir, load_table

TABLE = load_table(config_dir() / "bench" / "mississippi_stud.yaml")


def test_a_card_polled_before_the_press_made_first_is_taken_after_it(tmp_path: Path) -> None:
    with HilTable(TABLE, tmp_path, link_base=PATIENT_LINKS) as t:  # the slow panel is never taken for a silent one
        t.spot(1, "ante", 500)
        t.spot(4, "ante", 1000)
        t.load(shoe("As Ad Kc Qd 7h 8h 2c"))
        panel = t.servers["panel"].faults
        panel.drop_in = 1.0  # the panel's link slow: its requests go unanswered for now
        t.panel.press("no_more_bets")  # the dealer presses ...
        time.sleep(0.005)  # (a later millisecond on the devices' clocks)
        shoe_link = t.runtime.drivers["shoe"].link
        received = shoe_link.stats.events
        t.shoe.deal(1)  # ... then deals: the shoe's link brings the card first
        wait(lambda: shoe_link.stats.events > received, "the card to reach the controller")
        assert t.count("CardDealt") == 0  # held: the panel has not reported past it
        panel.drop_in = 0.0
        t.settled("CardDealt", 0, 1)
        kinds = [r.kind for r in t.journal.records(t.first_seq) if r.kind in ("ButtonChanged", "CardDealt")]
        assert kinds == ["ButtonChanged", "ButtonChanged", "CardDealt"]  # the press first, as it happened
        assert t.snap.hold is None and t.snap.dealt == 1  # the first card of the deal, no hold
