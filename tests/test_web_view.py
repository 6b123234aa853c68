"""The table view model (controller.web.view) on table machines fed events directly: only revealed cards,
masked card text, what clears a hold."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

from table_helpers import FedTable

from controller.configuration import config_dir, load_table
from controller.game.boston5._machine import Boston5Table
from controller.game.mississippi_stud._machine import MississippiTable
from controller.web.view import HIDDEN, hold_clears, mask_cards, table_view
from drivers.shoe import CardDealt

MS = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
B5 = load_table(config_dir() / "bench" / "boston5.yaml")


def view(t: FedTable, config) -> dict:
    return table_view(t.snapshot(), config, {"shoe": "up"}, [])


def test_mask_cards_keeps_only_face_up_cards() -> None:
    assert mask_cards("duplicate card As (index 5), dealer: Kd JK 10s", {"Kd"}) == (
        f"duplicate card {HIDDEN} (index 5), dealer: Kd {HIDDEN} 10s"
    )
    assert (
        mask_cards("round 3: place your bets; seat 2 ante 5.00", set()) == "round 3: place your bets; seat 2 ante 5.00"
    )


def test_mississippi_community_cards_turn_one_by_one_and_hole_cards_stay_down() -> None:
    t = FedTable(MississippiTable, MS)
    t.spot(1, "ante", 500)
    t.press("no_more_bets")
    t.deal("As Kd 2c 3d 4h")
    v = view(t, MS)
    assert v["step"] == "third_street"
    assert v["seats"][0]["cards"] == [None, None] and v["dealer"]["cards"] == [None, None, None]
    text = json.dumps(v)
    for card in ("As", "Kd", "2c", "3d", "4h"):
        assert card not in text
    t.spot(1, "third", 500)
    t.press("reveal")
    v = view(t, MS)
    assert v["dealer"]["cards"] == ["2c", None, None]
    assert "3d" not in json.dumps(v) and "As" not in json.dumps(v)


def test_a_duplicate_card_hold_names_no_face_down_card() -> None:
    t = FedTable(MississippiTable, MS)
    t.spot(1, "ante", 500)
    t.press("no_more_bets")
    t.deal("As Kd")
    t.feed(CardDealt(device="shoe", card="As", index=3, quality=100))  # the shoe reads the ace again
    v = view(t, MS)
    assert v["step"] == "hold" and v["hold"] is not None
    assert "As" not in json.dumps(v)  # whether or not the reason names the card, the view does not
    assert "enters it" in v["hold"]["clears"]  # the panel's own words (its prompt)


def test_boston5_dealer_stays_down_when_every_player_folds() -> None:
    t = FedTable(Boston5Table, B5)
    t.spot(1, "ante", 500)
    t.spot(1, "first", 1000)
    t.press("no_more_bets")
    t.deal("As Ks Qs 2d 3d 4d")
    t.press("seat_1", "fold", "confirm")  # confirm: the notice of what the fold leaves to collect
    t.press("deal")
    v = view(t, B5)
    assert v["step"] in ("settlement", "betting")
    text = json.dumps(v)
    for card in ("As", "Ks", "Qs", "2d", "3d", "4d"):
        assert card not in text


def test_what_clears_each_hold() -> None:
    assert "link is back" in hold_clears("link down: shoe")
    assert hold_clears("misdeal: 5 cards remain, not 4 (supervisor: void)") == "supervisor key on: void"
    assert "clear fault" in hold_clears("stub count 30, expected 31")


def test_the_key_indicator_follows_the_live_key() -> None:
    """The page showed "key ON" always (``bool(table.supervisor)`` of an object): now the panel's last word."""
    from drivers.link import LinkDown
    from drivers.panel import ButtonChanged

    t = FedTable(MississippiTable, MS)
    assert view(t, MS)["supervisor"] is False
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    assert view(t, MS)["supervisor"] is True
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=False))
    assert view(t, MS)["supervisor"] is False
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.feed(LinkDown(device="panel", reason="unplugged"))  # authority never outlives its evidence
    assert view(t, MS)["supervisor"] is False


def test_a_void_on_a_stub_count_round_leaves_every_card_face_down_on_the_page() -> None:
    """After a void, the stub count showed the voided round's cards face up (count_stub taken for settled)."""
    from drivers.panel import ButtonChanged

    t = FedTable(MississippiTable, MS)
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    for _ in range(5):  # a void after the deal is a round dealt: the stub is counted after the fifth
        t.spot(1, "ante", 500)
        t.press("no_more_bets")
        t.deal("As Kd 2c 3d 4h")
        t.press("void")
        while t.snapshot().notices:
            t.press("confirm")
    v = view(t, MS)
    assert v["step"] == "count_stub"
    text = json.dumps(v)
    for card in ("As", "Kd", "2c", "3d", "4h"):
        assert card not in text


def test_a_pending_void_notice_and_a_hold_read_as_the_panel_does() -> None:
    """Issue 44 item 7: after a void the panel asks the dealer to read and confirm its notice (the
    wagers to return); the page said "Place your bets" in large type meanwhile. A hold's
    instruction is the panel's prompt, not a second one in other words."""
    from drivers.panel import ButtonChanged

    t = FedTable(MississippiTable, MS)
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.spot(1, "ante", 500)
    t.press("no_more_bets")
    t.deal("As Kd")
    t.press("void")
    snapshot = t.snapshot()
    assert snapshot.notices, "a void leaves a notice to confirm"
    v = view(t, MS)
    assert v["step_label"] != "Place your bets"
    assert snapshot.notices[0].title in v["step_label"] and v["notice"]["title"] == snapshot.notices[0].title
    while t.snapshot().notices:
        t.press("confirm")
    assert view(t, MS)["step_label"] == "Place your bets" and view(t, MS)["notice"] is None
    # held: the page's instruction is the panel's prompt
    t.spot(1, "ante", 500)
    t.press("no_more_bets")
    t.deal("As Kd")
    t.feed(CardDealt(device="shoe", card="As", index=3, quality=100))
    held = t.snapshot()
    assert held.hold is not None
    assert view(t, MS)["hold"]["clears"] == held.asked
