"""The soak's own part of a round does its work once and plays the same rounds: the device
events made once per process play what events made anew play; a shoe shuffled from the deck's
texts holds the cards in the order the deck's cards shuffled the same way are in; a player reads
the hands once for a step in which no card is dealt."""

from __future__ import annotations

import random
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest
from call_counts import count_calls

import controller.table.latest as latest
import hil.soak as soak
from controller.configuration import config_dir, load_table
from controller.vocab import deck
from drivers.bet_spots import SpotReport
from drivers.messages import DeviceEvent
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt
from hil.bench import PLAYERS

GAMES = ("mississippi_stud", "boston5", "pai_gow", "three_card_poker")


def job(game: str, rounds: int, strategy: str = "random", seed: int = 5) -> soak.ChunkJob:
    path = str((config_dir() / "bench" / f"{game}.yaml").resolve())
    return soak.ChunkJob(path, 6, seed, 2, rounds, 0, 1, strategy)


def _report(event: object) -> object:
    """What a device reported: the event but when it was made (an event made once keeps the
    time it was first made; the table reads it only for an event made during an outage)."""
    return replace(event, at=0.0) if isinstance(event, DeviceEvent) else event


@pytest.mark.parametrize("game", GAMES)
def test_the_events_made_once_play_the_rounds_events_made_anew_play(game, monkeypatch):
    """A card dealt, chips placed and a press recur round after round: each is made once and
    sent again. The rounds, records and settlements are those of a soak making every event anew,
    and every event sent is the report its device was asked for (the card at its place in the
    deal, the seat's spot and amount, the button)."""
    sent: list[object] = []
    step = soak._Link.send

    def send(self: Any, event: object) -> None:
        sent.append(event)
        step(self, event)

    monkeypatch.setattr(soak._Link, "send", send)
    once = soak.play_chunk(job(game, 10))
    assert {type(e) for e in sent} >= {CardDealt, SpotReport, ButtonChanged}
    recurring = [e for e in sent if isinstance(e, ButtonChanged) and e.button == "confirm"]
    assert len(recurring) > 10 and all(e is recurring[0] for e in recurring)
    monkeypatch.setattr(soak, "_dealt", lambda c, i: CardDealt(device="shoe", card=c, index=i, quality=100))
    monkeypatch.setattr(soak, "_placed", lambda n, spot, c: SpotReport(device="bet_spots", seat=n, spot=spot, cents=c))
    monkeypatch.setattr(soak, "_pressed", lambda b: ButtonChanged(device="panel", button=b, pressed=True))
    anew_sent = len(sent)
    anew = soak.play_chunk(job(game, 10))
    assert [_report(e) for e in sent[anew_sent:]] == [_report(e) for e in sent[:anew_sent]]
    assert once.tally == anew.tally and once.tally.rounds == 10
    assert once.verify == anew.verify and len(once.verify) == 10


@pytest.mark.parametrize("joker", [False, True])
def test_a_shoe_shuffled_from_texts_holds_the_cards_shuffled_from_the_deck(joker):
    """Each round's shoe is shuffled from the deck's texts: the order is the one the deck's
    cards take under the same generator (written from the rule: the same shuffle of the same
    length gives the same permutation)."""
    table = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
    loaded: list[list[str]] = []
    shoe = SimpleNamespace(load=lambda cards: loaded.append(list(cards)), dealt=0)
    sims = {"shoe": shoe, "bet_spots": None, "panel": None}
    no_view: Any = None  # a shoe's order is drawn from the round's number alone
    player = PLAYERS[table.game](no_view, sims, table, 6, 11)
    for number in range(1, 30):
        s: Any = SimpleNamespace(deck_size=53 if joker else 52, round_no=number, dealt=0)
        player.load_shoe(s)
        cards = list(deck(joker=joker))
        random.Random(f"11/{number}/shoe").shuffle(cards)
        assert loaded[-1] == [str(c) for c in cards]
    assert len({tuple(x) for x in loaded}) == 29


@pytest.mark.parametrize("game", ["boston5", "three_card_poker"])
def test_the_players_read_the_hands_once_for_a_step_without_a_deal(game, monkeypatch):
    """Each decision acted on (an exposed hand, a second wager, a play) is an event, after which
    a soak's hands are made again: a player reads them once for the step (the cards do not
    change in it), not once for each seat (Boston 5 made them 7.1 times a round)."""
    made = count_calls(monkeypatch, latest, "build_hands")
    played = soak.play_chunk(job(game, 20, "par"))
    assert played.tally.rounds == 20
    steps = 2 if game == "boston5" else 1  # Boston 5: the bonus and the second wager
    assert 0 < made[0] <= steps * 20
