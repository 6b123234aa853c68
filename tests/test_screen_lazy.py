"""A screen made only when it is read (devices without a screen of their own, the soak's) is, at
every read, the screen a table sending it after every event last sent: read after one event or
after several, in every game, with faults among the cards and presses out of turn."""

from __future__ import annotations

import random
from typing import Any

import pytest

from controller.configuration import config_dir, load_table
from controller.table.devices import RecordingDevices
from controller.table.events import OpenTable
from controller.table.game_tables import GAME_TABLES
from controller.vocab import deck
from drivers.bet_spots import SpotReport
from drivers.link import LinkDown, LinkUp
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, CardUnreadable
from drivers.state import ShoeState

GAMES = ("mississippi_stud", "boston5", "pai_gow", "three_card_poker")
BUTTONS = ("confirm", "reveal", "next", "deal", "no_more_bets", "seat_1", "fold", "previous", "play")


class ScreenlessDevices(RecordingDevices):
    """Devices with no screen of their own: the table makes its screen only when it is read."""

    shows_screen = False


def press(button: str) -> ButtonChanged:
    return ButtonChanged(device="panel", button=button, pressed=True)


def round_events(rng: random.Random, spots: tuple[str, ...], deck_size: int) -> list[Any]:
    """A round's reports and presses, with faults among the cards (a card read twice, an
    unreadable card, the shoe's link down and up, presses out of turn, the key)."""
    events: list[Any] = [SpotReport(device="spots", seat=s, spot=p, cents=1000) for s in range(1, 4) for p in spots]
    events.append(press("no_more_bets"))
    events += [press(rng.choice(("next", "confirm"))) for _ in range(6)]  # pai gow: its starting position
    cards = list(deck(joker=deck_size == 53))
    rng.shuffle(cards)
    index, dealt = 0, []
    for card in cards[:30]:
        fault = rng.random()
        if fault < 0.05 and dealt:
            events.append(CardDealt(device="shoe", card=rng.choice(dealt), index=index + 1, quality=100))
            index += 1
        elif fault < 0.08:
            events.append(CardUnreadable(device="shoe", index=index + 1))
            index += 1
        elif fault < 0.11:
            events.append(LinkDown(device="shoe", reason="cable"))
            events.append(LinkUp(device="shoe", boot_id=1, rebooted=False))
            events.append(ShoeState(device="shoe", status="ok", cards_out=index))
        elif fault < 0.14:
            events.append(press(rng.choice(BUTTONS)))
        elif fault < 0.16:
            events.append(ButtonChanged(device="panel", button="supervisor_key", pressed=rng.random() < 0.5))
        events.append(CardDealt(device="shoe", card=str(card), index=index + 1, quality=100))
        index += 1
        dealt.append(str(card))
    events += [press(rng.choice(BUTTONS)) for _ in range(40)]
    return events


@pytest.mark.parametrize("game", GAMES)
def test_the_screen_read_after_several_events_is_the_screen_made_after_each(game: str) -> None:
    table = load_table(config_dir() / "bench" / f"{game}.yaml")
    cls = GAME_TABLES[game]
    for seed in range(10):
        rng = random.Random(seed)
        eager_devices, lazy_devices = RecordingDevices(), ScreenlessDevices()
        eager, lazy = cls(table, eager_devices), cls(table, lazy_devices)
        eager.handle(OpenTable())
        lazy.handle(OpenTable())
        events = round_events(rng, cls.REQUIRED_SPOTS, cls.DECK)
        reads = 0
        for n, event in enumerate(events):
            eager.handle(event)
            lazy.handle(event)
            if rng.random() < 0.25 or n == len(events) - 1:  # read after one event, or after several
                reads += 1
                assert lazy.display.lines == eager.display.lines, (seed, n, type(event).__name__, eager.phase)
        made = sum(1 for name, _ in lazy_devices.commands if name == "screen")
        sent = sum(1 for name, _ in eager_devices.commands if name == "screen")
        assert made <= reads < len(events)  # made only when read (a read of an unchanged screen sends nothing)
        assert sent > made, (sent, made)  # the eager table sent screens the lazy one never made
