"""The snapshot's queries (``can_*`` / ``why_not_*``) answer from the snapshot alone, in the
states where each applies: betting, dealing, a hold for a link (key off and on, device not back
and back), settlement."""

from __future__ import annotations

from table_helpers import FedTable

from controller.configuration import config_dir, load_table
from controller.game.mississippi_stud._machine import MississippiTable
from drivers.link import LinkDown, LinkUp
from drivers.panel import ButtonChanged, PanelState
from drivers.shoe import ShoeState

MS = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
SPOTS = ("ante", "third", "fourth", "fifth", "bonus")


def test_bets_only_while_betting_is_open() -> None:
    t = FedTable(MississippiTable, MS)
    s = t.snapshot()
    assert s.can_bet(1, "ante", SPOTS) and not s.can_bet(9, "ante", SPOTS)
    assert s.why_not_bet(1, "river", SPOTS) == "river: not a spot of mississippi_stud"
    t.spot(1, "ante", 500)
    t.press("no_more_bets")
    s = t.snapshot()
    assert (
        s.step == "no_more_bets"
        and s.why_not_bet(1, "ante") == "betting is closed (no_more_bets): a change is a late bet"
    )
    assert s.why_not_confirm() == "nothing to confirm in no_more_bets"


def test_a_hold_for_a_link_and_who_may_clear_it() -> None:
    t = FedTable(MississippiTable, MS)
    t.spot(1, "ante", 500)
    t.press("no_more_bets")
    t.deal("As Kd")
    t.feed(LinkDown(device="shoe", reason="unplugged"))
    s = t.snapshot()
    assert s.step == "hold" and s.hold is not None and s.hold.by_itself and s.hold.who == "device or supervisor"
    assert s.why_not_void() == "the supervisor's key is needed" and not s.can_clear_fault()
    assert "the table holds (link down: shoe)" in (s.why_not_press("reveal") or "")
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    s = t.snapshot()
    assert s.key_on and s.can_void()
    assert s.why_not_clear_fault() == "a device is not back: shoe: link down"
    t.feed(LinkUp(device="shoe", boot_id=1, rebooted=False))
    assert t.snapshot().why_not_clear_fault() == "a device is not back: shoe: back, its state not read yet"
    t.feed(ShoeState(device="shoe", cards_out=2))
    s = t.snapshot()
    assert s.step == "dealing" and s.hold is None  # back by itself: the hold ended
    assert s.why_not_clear_fault() == "the table does not hold"
    t.feed(LinkDown(device="panel", reason="unplugged"))
    assert not t.snapshot().key_on  # authority never outlives its evidence
    t.feed(PanelState(device="panel", key_on=False))


def test_settlement_steps_are_confirmed() -> None:
    t = FedTable(MississippiTable, MS)
    t.spot(1, "ante", 500)
    t.press("no_more_bets")
    t.deal("As Ad 2c 3d 4h")
    for street in ("third", "fourth", "fifth"):
        t.spot(1, street, 500)
        t.press("reveal")
    s = t.snapshot()
    assert s.step == "settlement" and s.can_confirm() and s.confirm_step
    assert s.steps_left >= 1 and s.face_up() == {"2c", "3d", "4h"}  # the community cards: no hand turned yet
    t.press("confirm")  # 35.10(i): seat 1's hand turned at its own step
    s = t.snapshot()
    assert s.asked.startswith("seat 1:") and s.face_up() == {"As", "Ad", "2c", "3d", "4h"}
