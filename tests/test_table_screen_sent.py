"""The screen sent to the panel after every event is the screen of the table's state then, in
every game, also when a card placed while dealing is not made into a screen again (a duplicate,
an unreadable card, a card while held, a device link going down and up, a press in the deal)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from table_helpers import FedTable

from controller.configuration import config_dir, load_table
from controller.table.game_tables import GAME_TABLES
from controller.table.screen import render
from controller.vocab import deck
from drivers.link import LinkDown, LinkUp
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, CardUnreadable
from drivers.state import ShoeState

GAMES = ("mississippi_stud", "boston5", "pai_gow", "three_card_poker")
BUTTONS = ("confirm", "reveal", "next", "deal", "no_more_bets", "seat_1", "fold", "previous", "play")


def last_screen(t: FedTable) -> tuple[str, ...]:
    return next(args[0] for name, args in reversed(t.devices.commands) if name == "screen")


def fuzz_round(t: FedTable, rng: random.Random, spots: tuple[str, ...]) -> None:
    """One round's reports and presses, with faults among the cards, the screen checked after each."""

    def feed(event: Any) -> None:
        t.feed(event)
        assert last_screen(t) == render(t.m.display.state(), t.m.display.size), (type(event).__name__, t.m.phase)

    for seat in range(1, 4):
        for spot in spots:
            feed(t_spot(seat, spot, 1000))
    feed(press("no_more_bets"))
    for _ in range(6):  # pai gow: the starting position chosen, then confirmed
        feed(press(rng.choice(("next", "confirm"))))
    cards = list(deck(joker=t.m.DECK == 53))
    rng.shuffle(cards)
    dealt: list[str] = []
    for c in cards[:30]:
        fault = rng.random()
        if fault < 0.05 and dealt:  # a card read as one already dealt
            feed(CardDealt(device="shoe", card=rng.choice(dealt), index=t.shoe_index + 1, quality=100))
        elif fault < 0.08:
            feed(CardUnreadable(device="shoe", index=t.shoe_index + 1))
        elif fault < 0.11:
            feed(LinkDown(device="shoe", reason="cable"))
            feed(CardDealt(device="shoe", card=str(c), index=t.shoe_index + 1, quality=100))
            feed(LinkUp(device="shoe", boot_id=1, rebooted=False))
            feed(ShoeState(device="shoe", status="ok", cards_out=t.shoe_index))
            continue
        elif fault < 0.14:
            feed(press(rng.choice(BUTTONS)))
        elif fault < 0.16:
            feed(ButtonChanged(device="panel", button="supervisor_key", pressed=rng.random() < 0.5))
        elif fault < 0.18:
            feed(ButtonChanged(device="panel", button="confirm", pressed=False))
        feed(CardDealt(device="shoe", card=str(c), index=t.shoe_index + 1, quality=100))
        dealt.append(str(c))
    for _ in range(40):
        feed(press(rng.choice(BUTTONS)))


def t_spot(seat: int, spot: str, cents: int) -> Any:
    from drivers.bet_spots import SpotReport

    return SpotReport(device="spots", seat=seat, spot=spot, cents=cents)


def press(button: str) -> ButtonChanged:
    return ButtonChanged(device="panel", button=button, pressed=True)


@pytest.mark.parametrize("game", GAMES)
def test_the_screen_sent_is_the_screen_of_the_state_after_every_event(game: str) -> None:
    table = load_table(config_dir() / "bench" / f"{game}.yaml")
    cls = GAME_TABLES[game]
    for seed in range(12):
        t = FedTable(cls, table)
        fuzz_round(t, random.Random(seed), cls.REQUIRED_SPOTS)
