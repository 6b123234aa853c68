"""The dealer's screen is made again only when something it is made of changed (the round's
``screen_version``): a change of each thing it is made of is shown, in each state where it can
change (each street, held or not), and a report that changes nothing shown does not make it again."""

from __future__ import annotations

from typing import Any

import pytest
from table_helpers import FedTable, bench_table

from controller.table.events import DevicesExpected
from controller.table.game_tables import GAME_TABLES
from controller.table.screen import render
from controller.vocab import deck
from drivers.bet_spots import SpotReport
from drivers.link import LinkDown, LinkUp
from drivers.panel import ButtonChanged
from drivers.state import ShoeState

STREETS = ("third", "fourth", "fifth")
COMMUNITY = "2c 3d 4h 5s 6c 7d 8h 9s Tc"


def last_screen(t: FedTable) -> tuple[str, ...]:
    return next(args[0] for name, args in reversed(t.devices.commands) if name == "screen")


def shown(t: FedTable, event: Any) -> tuple[str, ...]:
    """Feed ``event``; the screen sent is the screen of the table's state now (else the change
    was not said: the screen would still be the last one). Returns the state's texts."""
    t.feed(event)
    state = t.m.display.state()
    assert last_screen(t) == render(state, t.m.display.size), (type(event).__name__, t.m.phase)
    return (state.prompt, *state.details, *state.notes, state.hold)


def spot(seat: int, spot: str, cents: int) -> SpotReport:
    return SpotReport(device="spots", seat=seat, spot=spot, cents=cents)


def key(on: bool) -> ButtonChanged:
    return ButtonChanged(device="panel", button="supervisor_key", pressed=on)


def mississippi_at(street: str, held: bool) -> FedTable:
    """Three seats at ``street`` street (each earlier street bet by all), held by the shoe's link
    down when ``held``."""
    t = FedTable(GAME_TABLES["mississippi_stud"], bench_table("mississippi_stud"))
    for seat in (1, 2, 3):
        t.spot(seat, "ante", 500)
    t.press("no_more_bets")
    t.deal(COMMUNITY)
    for earlier in STREETS[: STREETS.index(street)]:
        for seat in (1, 2, 3):
            t.spot(seat, earlier, 500)
        t.press("reveal")
    assert t.m.phase.value == f"{street}_street"
    if held:
        shown(t, LinkDown(device="shoe", reason="cable"))
        assert t.m.phase.value == "hold"
    return t


@pytest.mark.parametrize("held", (False, True), ids=("not_held", "held"))
@pytest.mark.parametrize("street", STREETS)
def test_a_street_bet_is_shown(street: str, held: bool) -> None:
    """The game's details: the seats still to act at the street."""
    t = mississippi_at(street, held)
    if not held:
        assert "waiting: seats 1, 2, 3" in shown(t, spot(1, "ante", 700))  # a late bet
        assert "waiting: seats 2, 3" in shown(t, spot(1, street, 1000))
        assert "waiting: seat 3" in shown(t, spot(2, street, 500))
        return
    # while held the screen says what clears the hold; the bets are taken, shown once it ends
    assert not any(text.startswith("waiting") for text in shown(t, spot(1, street, 1000)))
    shown(t, spot(2, street, 500))
    shown(t, LinkUp(device="shoe", boot_id=1, rebooted=False))
    assert "waiting: seat 3" in shown(t, ShoeState(device="shoe", status="ok", cards_out=9))


@pytest.mark.parametrize("held", (False, True), ids=("not_held", "held"))
@pytest.mark.parametrize("street", STREETS)
def test_a_late_bet_the_key_and_the_supervisor_are_shown(street: str, held: bool) -> None:
    """The late bets pending, the key (what the supervisor may do with it) and an action done."""
    t = mississippi_at(street, held)
    late = "late bet: seat 2 ante 10.00 not accepted"
    assert late in shown(t, spot(2, "ante", 1000))
    supervisor = "supervisor: next accepts the first, previous refuses it"
    assert supervisor in shown(t, key(True))
    assert supervisor not in shown(t, key(False))
    assert supervisor in shown(t, key(True))
    assert late not in shown(t, ButtonChanged(device="panel", button="previous", pressed=True))


@pytest.mark.parametrize("held", (False, True), ids=("not_held", "held"))
@pytest.mark.parametrize("street", STREETS)
def test_a_note_is_shown_and_goes_with_the_next_event(street: str, held: bool) -> None:
    """The screen's own texts: a note for the event handled, gone at the next."""
    t = mississippi_at(street, held)
    note = f"correct: seat 1 {street}: must be 1x, 2x or 3x the ante 5.00"
    assert note in shown(t, spot(1, street, 700))
    assert note not in shown(t, spot(2, street, 500))


@pytest.mark.parametrize("street", STREETS)
def test_a_device_connecting_is_shown(street: str) -> None:
    """The devices' links: the devices not connected yet (a round recovered), one by one."""
    t = mississippi_at(street, held=False)
    assert "wait: bet_spots, panel, shoe not connected yet" in shown(
        t, DevicesExpected(devices=("bet_spots", "panel", "shoe"), reread=False, since=0.0)
    )
    assert "wait: bet_spots, panel not connected yet" in shown(t, LinkUp(device="shoe", boot_id=1, rebooted=False))
    assert "wait: bet_spots, panel not connected yet" in shown(t, ShoeState(device="shoe", status="ok", cards_out=9))
    assert "wait: bet_spots not connected yet" in shown(t, LinkUp(device="panel", boot_id=1, rebooted=False))


@pytest.mark.parametrize("street", STREETS)
def test_a_hold_and_its_end_are_shown(street: str) -> None:
    """The step and the hold: held, then back where it was held."""
    t = mississippi_at(street, held=False)
    assert "link down: shoe" in shown(t, LinkDown(device="shoe", reason="cable"))
    shown(t, LinkUp(device="shoe", boot_id=1, rebooted=False))
    texts = shown(t, ShoeState(device="shoe", status="ok", cards_out=9))
    assert t.m.phase.value == f"{street}_street" and "link down: shoe" not in texts


def test_the_wagers_to_correct_are_shown_while_betting() -> None:
    """The wagers' problems: shown at "no more bets", each press checks them again."""
    t = FedTable(GAME_TABLES["mississippi_stud"], bench_table("mississippi_stud"))
    shown(t, spot(1, "ante", 500))
    texts = shown(t, spot(2, "ante", 1))
    assert not any(text.startswith("correct:") for text in texts)  # a report in betting shows no wager
    texts = shown(t, ButtonChanged(device="panel", button="no_more_bets", pressed=True))
    assert any(text.startswith("correct: seat 2 ante") for text in texts)
    shown(t, spot(2, "ante", 500))
    texts = shown(t, ButtonChanged(device="panel", button="no_more_bets", pressed=True))
    assert t.m.phase.value != "betting" and not any(text.startswith("correct:") for text in texts)


def test_a_report_that_changes_nothing_shown_does_not_make_the_screen_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chip placed while betting changes nothing the screen shows: the screen is not made."""
    t = FedTable(GAME_TABLES["mississippi_stud"], bench_table("mississippi_stud"))
    t.spot(1, "ante", 500)
    made: list[object] = []
    state = t.m.display.state
    monkeypatch.setattr(t.m.display, "state", lambda: made.append(1) or state())
    t.spot(2, "ante", 500)
    t.spot(3, "ante", 1000)
    assert made == []
    t.press("no_more_bets")
    assert made and last_screen(t) == render(state(), t.m.display.size)


def test_a_second_wager_is_shown_boston5() -> None:
    """Boston 5's details: the seats still to place their second wager (or fold)."""
    t = FedTable(GAME_TABLES["boston5"], bench_table("boston5"))
    for seat in (1, 2, 3):
        t.spot(seat, "ante", 500)
        t.spot(seat, "first", 1000)
    t.press("no_more_bets")
    t.deal(" ".join(str(c) for c in deck()[:12]))
    t.press("next")  # no bonus hand exposed
    assert t.m.phase.value == "second_wager"
    shown(t, spot(1, "second", 1000))
    assert "waiting: seats 2, 3" in last_screen(t)  # on the screen sent (one page)
    shown(t, spot(2, "second", 1000))
    assert "waiting: seat 3" in last_screen(t)


def test_a_play_decision_is_shown_three_card_poker() -> None:
    """Three Card Poker's details: the seats still to play or fold."""
    t = FedTable(GAME_TABLES["three_card_poker"], bench_table("three_card_poker"))
    for seat in (1, 3):
        t.spot(seat, "ante", 500)
    t.press("no_more_bets")
    t.deal("Ah Kh Qh 7c 4d 2s 9d 9s 3c")
    assert t.m.phase.value == "play"
    assert "waiting: seats 1, 3" in last_screen(t)
    shown(t, spot(1, "play", 500))
    assert "waiting: seat 3" in last_screen(t)  # on the screen sent (one page)


# --- each collaborator says when what the screen is made of changes ------------------------------


def mississippi() -> FedTable:
    return FedTable(GAME_TABLES["mississippi_stud"], bench_table("mississippi_stud"))


def says_so(t: FedTable, change: Any) -> None:
    """``change()`` counts as a change of what the screen is made of."""
    before = t.m.state.screen_version
    change()
    assert t.m.state.screen_version > before


@pytest.mark.parametrize("name", ("phase", "round_no", "seats", "held_from", "hold_reason"))
def test_each_field_of_the_round_the_screen_shows_counts_itself(name: str) -> None:
    t = mississippi()
    says_so(t, lambda: setattr(t.m.state, name, getattr(t.m.state, name)))


def test_a_card_placed_does_not_count() -> None:
    t = mississippi()
    before = t.m.state.screen_version
    t.m.state.dealt += 1
    assert t.m.state.screen_version == before


def test_the_screen_s_own_texts_and_pages_say_so() -> None:
    from controller.table.screen import DisplaySize

    t = mississippi()
    display = t.m.display
    says_so(t, lambda: display.shown("a text"))
    display.note("a note")
    says_so(t, display.new_event)
    display.note_until_pressed("confirm", "press confirm again")
    says_so(t, lambda: display.pressed("confirm"))
    says_so(t, display.clear_until_pressed)
    display.notify("a step", ("line",) * 9, blocking=True)
    says_so(t, lambda: display.button("next"))
    says_so(t, lambda: display.button("previous"))
    says_so(t, display.drop_steps)
    says_so(t, lambda: display.resize(DisplaySize(5, 30)))


def test_the_details_paged_say_so() -> None:
    t = mississippi_at("third", held=False)
    for seat in (1, 2, 3):  # late bets: more details than a page
        t.spot(seat, "ante", 700)
    says_so(t, lambda: t.m.display.button("next"))


def test_each_device_link_change_says_so() -> None:
    t = mississippi()
    links = t.m.links.device_links
    says_so(t, lambda: links.expect(("shoe", "panel")))
    says_so(t, lambda: links.cannot_connect("panel", "no port"))
    says_so(t, lambda: links.up("shoe"))
    says_so(t, lambda: links.state_read("shoe"))
    says_so(t, lambda: links.down("shoe"))
    says_so(t, lambda: links.journal_outage(("bet_spots",)))


def test_the_key_says_so() -> None:
    t = mississippi()
    says_so(t, lambda: t.m.key.reported(True))
    says_so(t, t.m.key.lost)
    says_so(t, lambda: t.m.key.reported(True))
    says_so(t, lambda: t.m.key.reported(False))


def test_a_late_bet_resolved_and_a_supervisor_action_say_so() -> None:
    t = mississippi_at("third", held=False)
    t.spot(2, "ante", 1000)
    t.m.key.reported(True)
    says_so(t, lambda: t.m.late.resolve(False, lambda reason, journal=None: None))
    t.spot(2, "ante", 500)
    says_so(t, lambda: t.m.supervisor.attempt("refuse late bet", "previous"))


def test_the_wagers_checked_say_so() -> None:
    t = mississippi()
    t.spot(1, "ante", 500)
    says_so(t, t.m.wagers.valid)


@pytest.mark.parametrize("street", STREETS)
def test_a_report_in_play_says_so_mississippi(street: str) -> None:
    t = mississippi_at(street, held=False)
    says_so(t, lambda: t.m.on_SpotReport(spot(1, street, 500)))


def test_a_game_button_and_a_card_outside_the_deal_say_so() -> None:
    t = mississippi_at("third", held=False)
    says_so(t, lambda: t.m.on_ButtonChanged(ButtonChanged(device="panel", button="seat_1", pressed=True)))
    t.m.selected_seat = None  # a fold with no seat selected: the game's own button, nothing else done
    says_so(t, lambda: t.m.on_ButtonChanged(ButtonChanged(device="panel", button="fold", pressed=True)))
    from drivers.shoe import CardDealt

    says_so(t, lambda: t.m.handle(CardDealt(device="shoe", card="Js", index=10, quality=100)))


def test_pai_gow_s_set_shown_says_so() -> None:
    import random

    from drivers.shoe import ShoeStatus

    t = FedTable(GAME_TABLES["pai_gow"], bench_table("pai_gow"))
    for seat in range(1, 7):
        t.spot(seat, "pai_gow", 1000)
    t.press("no_more_bets", *["next"] * 5, "confirm")
    cards = list(deck(joker=True))
    random.Random(1).shuffle(cards)
    t.deal(" ".join(str(c) for c in cards[:49]))
    t.feed(ShoeStatus(device="shoe", stub_count=4, deck_size=53))
    for _ in range(3):  # the hands checked, the dealer's step confirmed: a seat's set shown
        if t.m.set_shown:
            break
        t.press("confirm")
    assert t.m.phase.value == "setting" and t.m.set_shown
    says_so(t, lambda: t.m.show_option(t.m.setting[len(t.m.sets)], "again"))
    says_so(t, t.m.show_next_set)
    says_so(t, lambda: t.m.on_SpotReport(spot(1, "pai_gow", 500)))
