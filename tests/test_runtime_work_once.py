"""The runtime's path does its work once (issue 41 item 6, issue 42 item 5): what a deal plan
answered before does not change what it answers now; the players' log of cards is made once per
card and still follows the card ledger when an entry is replaced or a round begins; a snapshot
published with nobody waiting wakes a reader who waits later."""

from __future__ import annotations

import itertools
import random
import threading
from dataclasses import replace

import pytest
from table_helpers import FedTable

from controller.configuration import config_dir, load_table
from controller.game.definition import Holder
from controller.game.mississippi_stud._machine import MississippiTable
from controller.game.registry import definition, table_names
from controller.table.latest import LatestSnapshot
from controller.table.snapshot_build import build_hands, build_snapshot
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt


def _questions(game: str) -> list[tuple[str, tuple[tuple[int, tuple[str, ...], bool, bool], ...], tuple[int, ...]]]:
    """Every step of ``game``'s round with two seats of a few cards each: folded or not, exposed or
    not, turned or not (the second seat folded, so that in play depends on the first)."""
    plan = definition(game).deal
    named = {s.name for s in definition(game).steps} | {s for r in plan.reveals if r.steps for s in r.steps}
    steps = sorted(named | {"hold", "settlement", "void", "count_stub"})
    per_seat = plan.cards_to(Holder.SEAT)
    hand_a = tuple(["As", "Kd", "Qh", "Jc", "Ts", "9d", "8h"][:per_seat])
    hand_b = tuple(["2s", "3d", "4h", "5c", "6s", "7d", "JK"][:per_seat])
    out = []
    for step, folded, exposed, turned, held in itertools.product(
        steps, (False, True), (False, True), ((), (1,), (1, 2)), range(1, per_seat + 1)
    ):
        seats = ((1, hand_a[:held], folded, exposed), (2, hand_b, True, False))
        out.append((step, seats, turned))
    return out


@pytest.mark.parametrize("game", table_names())
def test_a_deal_plan_answers_as_a_fresh_one_whatever_it_answered_before(game: str) -> None:
    """The plan remembers how many cards each kind of hand shows in a step: asked in a shuffled
    order (each step, folded or not, exposed or not, turned or not, each number of cards held), it
    answers as a plan that was never asked anything (a remembered answer of another seat's
    conditions, or of the shared hand when no seat is in play, would differ)."""
    plan = definition(game).deal
    questions = _questions(game)
    random.Random(game).shuffle(questions)
    dealer = ("Ah", "Ad", "Ac", "Ks", "Kh", "Kc", "Qs")[: plan.cards_to(plan.shared)]
    for step, seats, turned in questions:
        fresh = replace(plan)  # remembers nothing yet
        for shown_dealer in (dealer[:1], dealer):
            asked = plan.shown(step, seats, shown_dealer, turned)
            assert asked == fresh.shown(step, seats, shown_dealer, turned), (step, seats, turned)


def _card(text: str, index: int) -> CardDealt:
    return CardDealt(device="shoe", card=text, index=index, quality=100)


def _expected_log(t: FedTable) -> tuple[tuple[int, str, str], ...]:
    """The log of cards as the round's card list has it now (``tablectl recall``'s)."""
    return tuple((int(e["index"]), str(e["card"]), str(e["to"])) for e in t.m.card_log)


def test_the_players_log_follows_the_ledger_through_a_replaced_entry_and_a_new_round() -> None:
    """Mississippi Stud: the log of the cards reported, after every event, is the round's card list
    now: a card added, a card waiting for the supervisor and then placed (its entry replaced in
    place), the round ended, and the next round's first cards (fewer entries than the last)."""
    t = FedTable(MississippiTable, load_table(config_dir() / "bench" / "mississippi_stud.yaml"))
    events: list[object] = []
    for seat in (1, 4):
        t.spot(seat, "ante", 500)
    t.press("no_more_bets")
    events += [_card("As", 1), _card("Ad", 2), _card("6c", 2)]  # a repeated number: it waits
    events += [ButtonChanged(device="panel", button="supervisor_key", pressed=True)]
    events += [ButtonChanged(device="panel", button="confirm", pressed=True)]  # placed: replaced in place
    events += [ButtonChanged(device="panel", button="supervisor_key", pressed=False)]
    events += [_card(c, i) for i, c in enumerate(["Kc", "Qc", "Jc", "Tc"], start=3)]
    seen_waiting = seen_placed = False
    for event in events:
        t.feed(event)
        log = build_hands(t.m).log
        assert log == _expected_log(t), event
        seen_waiting |= any(to.startswith("waiting") for _, _, to in log)
        seen_placed |= seen_waiting and not any(to.startswith("waiting") for _, _, to in log)
    assert seen_waiting and seen_placed
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("void")  # the round ends: the next one begins with no card
    assert t.snapshot().round_no == 2, t.snapshot().step
    assert build_hands(t.m).log == _expected_log(t) == ()
    for seat in (1, 4):
        t.spot(seat, "ante", 500)
    t.press("no_more_bets")
    t.feed(_card("2h", 1))
    assert build_hands(t.m).log == _expected_log(t) != ()


def test_the_players_hands_follow_their_cards_into_the_next_round() -> None:
    """Mississippi Stud, two rounds dealt alike (two seats, as many cards to each place, other
    cards), the hands read after every card of the first and only once the second is dealt (a
    reader that reads when it needs to, as the soak's players do): they are the cards each seat
    and the community hold now, never the last round's (a hand's texts are kept only while its
    cards stay the same)."""
    t = FedTable(MississippiTable, load_table(config_dir() / "bench" / "mississippi_stud.yaml"))
    rounds = (["As", "Kd", "Qh", "Jc", "Ts", "9d", "8h"], ["2s", "3d", "4h", "5c", "6s", "7d", "8c"])
    for number, dealt in enumerate(rounds, start=1):
        assert t.snapshot().round_no == number
        for seat in (1, 4):
            t.spot(seat, "ante", 500)
        t.press("no_more_bets")
        for i, text in enumerate(dealt, start=1):
            t.feed(_card(text, i))
            if number == 1 or i == len(dealt):
                hands = build_hands(t.m)
                assert hands.hands == tuple((n, tuple(map(str, s.cards))) for n, s in sorted(t.m.seats.items()))
                assert hands.dealer == tuple(map(str, t.m.community))
        assert {c for _, cards in hands.hands for c in cards} | set(hands.dealer) == set(dealt)
        t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
        t.press("void")


def test_a_reader_waiting_is_woken_by_the_next_snapshot() -> None:
    """A snapshot published with nobody waiting notifies nobody; a reader that waits after it is
    woken by the next one (never left to its timeout)."""
    table = FedTable(MississippiTable, load_table(config_dir() / "bench" / "mississippi_stud.yaml"))
    latest = LatestSnapshot()
    latest.publish(build_snapshot(table.m, 1))  # nobody waits
    in_wait = threading.Event()
    cond = latest._cond  # the reader's wait, seen from here
    real_wait = cond.wait

    def wait(timeout: float | None = None) -> bool:
        in_wait.set()
        return real_wait(timeout)

    cond.wait = wait  # type: ignore[method-assign]
    got: list[int] = []
    thread = threading.Thread(
        target=lambda: got.append(latest.wait(lambda s: s.version >= 2, "version 2", timeout=600.0).version),
        daemon=True,
    )
    thread.start()
    assert in_wait.wait(120)
    latest.publish(build_snapshot(table.m, 2))
    thread.join(120)  # generous: woken at once, else only after its 600 s
    assert not thread.is_alive() and got == [2]
