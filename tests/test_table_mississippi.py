"""The Mississippi Stud table machine, event by event (35.9, 35.10), the engine, and bench rounds
over real ptys with the controller's settlement checked against `tablectl settle`."""

from __future__ import annotations

import contextlib
import io
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from table_helpers import FedTable

from controller.cli import main as tablectl
from controller.configuration import config_dir, load_table
from controller.game.mississippi_stud._machine import TRANSITIONS, MississippiTable, Phase
from controller.game.record import settle_record
from controller.table.engine import Engine, TimerExpired
from controller.table.phases import Common
from controller.wagers import Step
from drivers.link import LinkDown, LinkUp
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, CardUnreadable
from drivers.state import ShoeState

TABLE = load_table(config_dir() / "bench" / "mississippi_stud.yaml")


class Table(FedTable):
    """The MississippiTable machine fed events directly."""

    def __init__(self) -> None:
        super().__init__(MississippiTable, TABLE)


def play_to_third(t: Table, cards: str = "As Ad Kc Qd 7h 8h 2c", seats=((1, 500), (4, 1000))) -> None:
    for seat, ante in seats:
        t.spot(seat, "ante", ante)
    t.press("no_more_bets")
    t.deal(cards)


def test_clean_round_deals_in_order_and_settles_as_tablectl_settle() -> None:
    t = Table()
    play_to_third(t)
    assert t.m.phase is Phase.THIRD_STREET
    assert [str(c) for c in t.m.seats[1].cards] == ["As", "Ad"]  # 35.9(d): the first stack to the dealer's left
    assert [str(c) for c in t.m.seats[4].cards] == ["Kc", "Qd"]
    assert [str(c) for c in t.m.community] == ["7h", "8h", "2c"]  # 35.9(e): then the community cards
    for street in ("third", "fourth", "fifth"):
        t.spot(1, street, 1000)
        t.spot(4, street, 1000)
        t.press("reveal")
    assert t.m.phase is Common.SETTLEMENT
    while t.m.phase is Common.SETTLEMENT:
        t.press("confirm")
    result = t.m.rounds[-1]
    expected = settle_record(result.record, TABLE)
    assert result.settlement.to_json() == expected.to_json()
    assert [s.text for s in expected.procedure] == [
        p for p in t.m.display.prompts if p in {s.text for s in expected.procedure}
    ]
    assert t.m.phase is Common.BETTING and t.m.round_no == 2


def test_community_cards_are_never_shown_before_they_are_revealed() -> None:
    t = Table()
    play_to_third(t)
    assert not any(c in p for p in t.m.display.prompts for c in ("7h", "8h", "2c"))
    t.spot(1, "third", 500)
    t.spot(4, "third", 1000)
    t.press("reveal")
    assert any("7h" in p for p in t.m.display.prompts) and not any("8h" in p or "2c" in p for p in t.m.display.prompts)


@pytest.mark.parametrize("street", ["third", "fourth", "fifth"])
def test_fold_at_every_street(street: str) -> None:
    t = Table()
    play_to_third(t)
    for s in ("third", "fourth", "fifth"):
        t.spot(1, s, 500)
        if s == street:
            t.press("seat_4", "fold", "confirm")  # the fold's collection, confirmed before the reveal
        elif t.m.seats[4].folded_at is None:
            t.spot(4, s, 1000)
        t.press("reveal")
    while t.m.phase is Common.SETTLEMENT:
        t.press("confirm")
    record = t.m.rounds[-1].record
    assert record["seats"]["4"]["folded_at"] == street
    lost = t.m.rounds[-1].settlement.seat(4).net
    assert lost == -1000 * (1 + ("third", "fourth", "fifth").index(street))


def test_reveal_waits_for_every_seat() -> None:
    t = Table()
    play_to_third(t)
    t.spot(1, "third", 500)
    t.press("reveal")
    assert t.m.phase is Phase.THIRD_STREET and t.m.display.prompts[-1] == "cannot reveal: waiting for seat 4"


def test_wagers_that_break_the_rules_are_shown_and_block_the_deal() -> None:
    t = Table()
    t.spot(2, "ante", 100)  # under the table minimum
    t.spot(3, "bonus", 100)  # a bonus without an ante
    t.corrections_asked(
        "correct: seat 2 ante: 1.00 is outside 5.00-100.00",
        "correct: seat 3 bonus: needs an ante",
    )
    t.spot(2, "ante", 500)
    t.spot(3, "ante", 500)
    t.press("no_more_bets")
    assert t.m.phase is Common.NO_MORE_BETS and t.m.display.prompts[-1] == "no more bets: deal the cards"


def test_street_bets_must_be_one_to_three_times_the_ante() -> None:
    t = Table()
    play_to_third(t)
    t.spot(1, "third", 700)
    assert "third" not in t.m.seats[1].acted
    assert t.m.display.prompts[-1] == "correct: seat 1 third: must be 1x, 2x or 3x the ante 5.00"


def test_late_and_removed_bets_are_not_accepted() -> None:
    t = Table()
    play_to_third(t)
    t.spot(2, "ante", 500)  # a seat not in the round
    t.spot(1, "ante", 0)  # chips taken off a locked spot
    assert t.m.late.noted == ["late bet: seat 2 ante 5.00 not accepted", "removed bet: seat 1 ante 0.00 not accepted"]
    assert ("lamp", (2, "ante", "flash_late")) in t.devices.commands
    assert ("lamp", (1, "ante", "flash_removed")) in t.devices.commands
    assert t.m.seats[1].wagers["ante"] == 500 and 2 not in t.m.seats


@pytest.mark.parametrize(
    "bad, reason",
    [
        (lambda t: t.feed(CardUnreadable(device="shoe", index=3)), "unreadable card"),
        (lambda t: t.deal("As"), "duplicate card: seat 4 card 1"),
    ],
)
def test_card_faults_hold_the_table_and_a_supervisor_voids(bad, reason: str) -> None:
    t = Table()
    for seat in (1, 4):
        t.spot(seat, "ante", 500)
    t.press("no_more_bets")
    t.deal("As Ad")
    bad(t)
    assert t.m.phase is Common.HOLD and reason in t.m.holds.reason and "As" not in t.m.holds.reason
    t.press("void")
    assert t.m.phase is Common.HOLD  # void needs the supervisor key
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("void")
    assert t.m.phase is Common.BETTING and t.m.rounds[-1].settlement is None
    assert "void: seat 1: return ante 5.00" in t.m.display.prompts


def test_a_card_when_none_is_expected_holds() -> None:
    t = Table()
    play_to_third(t)
    t.deal("9s")
    assert t.m.phase is Common.HOLD and "dealt when none was expected" in t.m.holds.reason


def test_link_lost_mid_deal_holds_and_resumes_where_it_was() -> None:
    t = Table()
    for seat in (1, 4):
        t.spot(seat, "ante", 500)
    t.press("no_more_bets")
    t.deal("As Ad Kc")
    t.feed(LinkDown(device="shoe", reason="no reply"))
    assert t.m.phase is Common.HOLD and t.m.display.prompts[-1] == "HOLD: link down: shoe"
    t.feed(LinkUp(device="shoe", boot_id=1, rebooted=False))
    assert t.m.phase is Common.HOLD  # back, but its state not read again yet
    t.feed(ShoeState(device="shoe", status="ok", cards_out=3))
    assert t.m.phase is Phase.DEALING
    for i, c in enumerate("Qd 7h 8h 2c".split(), start=4):
        t.feed(CardDealt(device="shoe", card=c, index=i, quality=100))
    assert t.m.phase is Phase.THIRD_STREET and [str(c) for c in t.m.seats[4].cards] == ["Kc", "Qd"]


def test_supervisor_clears_a_fault() -> None:
    t = Table()
    play_to_third(t)
    t.deal("9s")
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("clear_fault")  # refused: the card that left the shoe waits for a decision
    assert t.m.phase is Common.HOLD and t.m.display.prompts[-1].startswith(
        "clear fault refused: 1 card dealt while held"
    )
    t.press("confirm")  # accepted: it has no place in the deal, so it is burned (and recorded)
    assert t.m.phase is Phase.THIRD_STREET
    assert t.m.card_log[-1] == {"index": 8, "card": "9s", "to": "burned: no place in the deal"}


def test_a_round_replayed_from_its_events_gives_the_same_state_prompts_and_settlement() -> None:
    t = Table()
    play_to_third(t)
    for street in ("third", "fourth", "fifth"):
        t.spot(1, street, 1500)
        if street == "fourth":
            t.press("seat_4", "fold")
        elif t.m.seats[4].folded_at is None:
            t.spot(4, street, 1000)
        t.press("reveal")
    t.press("confirm", "confirm")
    again = Table()
    for event in t.events:
        again.m.handle(event)
    assert again.m.phase == t.m.phase and again.m.display.prompts == t.m.display.prompts
    assert again.devices.commands == t.devices.commands
    assert [r.settlement.to_json() for r in again.m.rounds] == [r.settlement.to_json() for r in t.m.rounds]


def test_the_machine_is_configured_strictly() -> None:
    m = Table().m.machine
    assert not m.auto_transitions and m.has_queue
    assert {tr["trigger"] for tr in TRANSITIONS} >= {"no_more_bets", "reveal", "confirm", "hold", "resume", "void"}


# --- the engine ----------------------------------------------------------------------------------


def _wait_until(cond: Callable[[], bool], what: str) -> None:
    """Wait for another thread to bring about ``cond`` (generous: a loaded machine only delays it)."""
    deadline = time.monotonic() + 60
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.005)


def test_engine_journals_each_event_before_acting_and_runs_on_one_thread() -> None:
    seen: list[tuple[str, int]] = []
    timers: list[tuple[float, Callable[[], None]]] = []
    engine: Engine

    def handle(event: object) -> None:
        seen.append((threading.current_thread().name, len(list(engine.journal.records()))))
        if event == "boom":
            raise RuntimeError("bad event")

    def start_timer(delay_s: float, call: Callable[[], None]) -> Callable[[], None]:
        timers.append((delay_s, call))  # fired below, by the test, once "b" is handled
        return lambda: None

    engine = Engine(handle, start_timer=start_timer)
    engine.start()
    engine.post("a")
    engine.post("boom")
    engine.after(0.2, "tick")
    engine.post("b")
    _wait_until(lambda: len(seen) == 3, "a, boom and b handled")
    assert [delay for delay, _ in timers] == [0.2]
    timers[0][1]()  # the timer expires: the timer's thread posts its event
    _wait_until(lambda: len(seen) == 4, "the timer's event handled")
    engine.stop()
    assert all(name == "controller" for name, _ in seen)
    assert [n for _, n in seen] == [1, 2, 4, 5]  # journaled before handled; the error is record 3
    kinds = [r.kind for r in engine.journal.records()]
    assert kinds == ["str", "str", "ControllerError", "str", "TimerExpired"]
    assert TimerExpired("tick").name == "tick"


def test_the_engines_real_timer_posts_its_event_and_stop_cancels_the_rest() -> None:
    handled: list[object] = []
    engine = Engine(handled.append)
    engine.start()
    engine.after(0.0, "now")
    engine.after(3600.0, "never")  # cancelled by stop
    _wait_until(lambda: len(handled) == 1, "the timer's event")
    engine.stop()
    assert [e.name for e in handled if isinstance(e, TimerExpired)] == ["now"]
    _wait_until(
        lambda: not [t for t in threading.enumerate() if isinstance(t, threading.Timer) and t.is_alive()],
        "the cancelled timer's thread to end",
    )


# --- over real ptys -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "game, faults",
    [
        ("mississippi_stud", "none"),
        ("mississippi_stud", "noisy"),
        ("boston5", "none"),
        ("boston5", "noisy"),
        ("pai_gow", "none"),
        ("pai_gow", "noisy"),
    ],
)
def test_bench_rounds_over_ptys_settle_as_tablectl_settle(game: str, faults: str) -> None:
    from hil.bench import run_bench

    summary = run_bench(
        load_table(config_dir() / "bench" / f"{game}.yaml"), seats=4, rounds=3, seed=5, faults=faults, progress=False
    )
    assert summary.rounds == 3 and summary.mismatches == 0 and summary.handle > 0
    assert summary.latencies


def play_round(t: Table) -> None:
    """One clean round for seats 1 and 4, every street bet at 1x."""
    play_to_third(t)
    for street in ("third", "fourth", "fifth"):
        t.spot(1, street, 500)
        t.spot(4, street, 1000)
        t.press("reveal")
    while t.m.phase is Common.SETTLEMENT:
        t.press("confirm")


def test_stub_count_every_fifth_round_and_a_mismatch_holds() -> None:
    from drivers.shoe import ShoeStatus

    t = Table()
    for _ in range(4):
        play_round(t)
        assert t.m.phase is Common.BETTING
    assert ("stub_count", ()) not in t.devices.commands
    play_round(t)
    assert t.m.phase is Common.COUNT_STUB and ("stub_count", ()) in t.devices.commands
    assert t.m.display.prompts[-1] == "count the stub: 45 cards expected, then confirm"  # 52 - 2 x 2 - 3
    t.feed(ShoeStatus(device="shoe", stub_count=44, deck_size=52))
    assert t.m.phase is Common.HOLD and t.m.display.prompts[-1] == "HOLD: stub count 44, expected 45"
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("clear_fault")
    assert t.m.phase is Common.COUNT_STUB
    t.press("confirm")  # the dealer recounted by hand
    assert t.m.phase is Common.BETTING and t.m.round_no == 6
    for _ in range(5):
        play_round(t)
    t.feed(ShoeStatus(device="shoe", stub_count=45, deck_size=52))
    assert t.m.phase is Common.BETTING and t.m.round_no == 11


def test_supervisor_accepts_or_refuses_late_bet_changes_with_a_journaled_reason() -> None:
    audit: list[tuple[str, dict]] = []
    t = Table()
    t.m.audit = lambda kind, data: audit.append((kind, data))
    # The late bonus was accepted at third street before late16: a wager placed before the deal
    # now enters only before the first card (tests/test_late_pre_deal_wagers.py).
    t.spot(1, "ante", 500)
    t.spot(4, "ante", 1000)
    t.press("no_more_bets")
    t.spot(1, "bonus", 100)  # a late bonus before the first card
    t.press("next")
    assert "bonus" not in t.m.seats[1].wagers  # nothing happens without the key
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("next")  # accept the late bonus: no card is out yet
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=False))
    t.deal("As Ad Kc Qd 7h 8h 2c")
    t.spot(4, "ante", 0)  # the ante removed
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("next")  # try to accept the removed ante: refused, the round is dealt
    assert t.m.seats[1].wagers["bonus"] == 100 and t.m.seats[4].wagers["ante"] == 1000
    assert [d["action"] for k, d in audit if k == "SupervisorAction"] == ["late bet accepted", "late bet refused"]
    assert "cannot enter a round already dealt" in audit[-1][1]["reason"]


def test_an_unreadable_card_is_corrected_by_reading_it_again_with_the_key() -> None:
    audit: list[tuple[str, dict]] = []
    t = Table()
    t.m.audit = lambda kind, data: audit.append((kind, data))
    for seat in (1, 4):
        t.spot(seat, "ante", 500)
    t.press("no_more_bets")
    t.deal("As Ad")
    t.feed(CardUnreadable(device="shoe", index=3))
    assert t.m.phase is Common.HOLD and ("panel_lamp", ("clear_fault", True)) in t.devices.commands
    t.feed(CardDealt(device="shoe", card="Kc", index=3, quality=90))
    assert t.m.phase is Common.HOLD and "supervisor's key is needed" in t.m.display.prompts[-1]
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.feed(CardDealt(device="shoe", card="Kc", index=3, quality=90))
    assert t.m.phase is Phase.DEALING and [str(c) for c in t.m.seats[4].cards] == ["Kc"]
    assert audit[-1][1]["action"] == "card corrected" and ("panel_lamp", ("clear_fault", False)) in t.devices.commands
    for i, c in enumerate("Qd 7h 8h 2c".split(), start=4):
        t.feed(CardDealt(device="shoe", card=c, index=i, quality=100))
    assert t.m.phase is Phase.THIRD_STREET


def test_an_error_inside_a_machine_callback_is_named_on_the_hold_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    t = Table()

    def broken() -> None:
        raise ZeroDivisionError("no")

    monkeypatch.setattr(t.m, "wagers_valid", broken)
    t.m.no_more_bets()  # the transition's condition raises inside transitions' queued processing
    assert t.m.holds.reason == "controller error: ZeroDivisionError"
    assert t.m.machine_error == "ZeroDivisionError"


def _tablectl_settle(record: dict[str, object], tmp_path: Path) -> dict[str, object]:
    """``tablectl settle`` on the round record as the table wrote it."""
    path = tmp_path / "round.json"
    path.write_text(json.dumps({**record, "table": str(TABLE.path)}))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert tablectl(["settle", str(path)]) == 0
    return dict(json.loads(out.getvalue()))


def _finish(t: Table, from_street: str) -> None:
    """Seat 4 bets every street from ``from_street`` on, seat 1 (if in play) too; then settlement."""
    for s in STREETS[STREETS.index(from_street) :]:
        for seat, cents in ((1, 500), (4, 1000)):
            if t.m.seats[seat].folded_at is None and s not in t.m.seats[seat].acted:
                t.spot(seat, s, cents)
        t.press("reveal")
    while t.m.phase is Common.SETTLEMENT:
        t.press("confirm")


STREETS = ("third", "fourth", "fifth")


def keyed() -> Table:
    """Seat 1 (ante 5.00, bonus 1.00) and seat 4 (ante 10.00) dealt, and the supervisor's key on."""
    t = Table()
    t.spot(1, "ante", 500)
    t.spot(1, "bonus", 100)
    t.spot(4, "ante", 1000)
    t.press("no_more_bets")
    t.deal("As Ad Kc Kd 7h 8h 8c")
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    return t


def keyed_at(street: str) -> Table:
    """Seat 1 (ante 5.00, bonus 1.00) and seat 4 (ante 10.00) dealt, the supervisor's key on, and
    both seats' bets of every street before ``street`` placed and revealed: the table at ``street``."""
    t = keyed()
    for s in STREETS[: STREETS.index(street)]:
        t.spot(1, s, 500)
        t.spot(4, s, 1000)
        t.press("reveal")
    return t


@pytest.mark.parametrize("bet_first", [True, False], ids=["after-the-street-bet", "before-the-street-bet"])
@pytest.mark.parametrize("street", STREETS)
def test_communication_violation_collects_every_wager_and_the_table_settles(
    street: str, bet_first: bool, tmp_path: Path
) -> None:
    """35.10(c) at each street, with the seat's bet on that street placed or not: every wager of the
    seat (the bonus and the street's bet too) is collected at once; the other seats settle normally,
    and `tablectl settle` pays the round as the table did."""
    t = keyed_at(street)
    if bet_first:
        t.spot(1, street, 1000)
    t.press("seat_1", "settle")
    bets = [f"{s} {'10.00' if s == street else '5.00'}" for s in STREETS[: STREETS.index(street) + bet_first]]
    collect = ", ".join(["ante 5.00", "bonus 1.00", *bets])
    step = f"seat 1: communication violation (35.10(c)): collect {collect}; discard the cards"
    assert t.m.display.prompts[-1] == step
    while t.m.display.steps_pending():  # a long step is paged: confirm on its last page
        t.press("confirm")
    _finish(t, street)
    result = t.m.rounds[-1]
    assert t.m.phase is Common.BETTING and result.settlement is not None, t.m.holds.reason
    assert result.settlement.seat(1).net == -(500 + 100 + 500 * STREETS.index(street) + 1000 * bet_first)
    alone = settle_record({**result.record, "seats": {"4": result.record["seats"]["4"]}}, TABLE)
    assert result.settlement.seat(4) == alone.seat(4) and alone.seat(4).net == 8000  # two pair 2:1: the rest settles
    assert _tablectl_settle(result.record, tmp_path) == result.settlement.to_json()
    assert step not in t.m.display.prompts[t.m.display.prompts.index(step) + 1 :]  # never asked again


@pytest.mark.parametrize("street", ["fourth", "fifth"])
def test_communication_violation_on_a_folded_seat_collects_its_bonus(street: str, tmp_path: Path) -> None:
    """A seat that folded at 3rd street keeps its bonus in play; a violation marked later forfeits it."""
    t = keyed()
    t.press("seat_1", "fold", "confirm")
    for s in STREETS[: STREETS.index(street)]:
        t.spot(4, s, 1000)
        t.press("reveal")
    t.press("seat_1", "settle")
    step = "seat 1: communication violation (35.10(c)): collect bonus 1.00"
    assert t.m.display.prompts[-1] == step
    while t.m.display.steps_pending():  # a long step is paged: confirm on its last page
        t.press("confirm")
    _finish(t, street)
    result = t.m.rounds[-1]
    assert result.settlement is not None, t.m.holds.reason
    assert result.record["seats"]["1"]["violation_at"] == street
    assert result.settlement.seat(1).net == -600  # the community pair of 8s would pay the bonus: forfeit
    assert _tablectl_settle(result.record, tmp_path) == result.settlement.to_json()
    t.press("seat_4", "settle")  # once settled, nothing


@pytest.mark.parametrize("order", ["fold-then-violation", "violation-then-fold"])
@pytest.mark.parametrize("street", STREETS)
def test_a_fold_and_a_violation_in_the_same_street_settle(street: str, order: str, tmp_path: Path) -> None:
    """Issue 32: a fold and a 35.10(c) violation in the same street, in either order, at each
    street (a player folds and shows his cards to a neighbour still deciding): every wager of the
    seat is collected, once, and never returned; the other seat settles normally; `tablectl
    settle` pays the round as the table did."""
    t = keyed_at(street)
    before = [f"{s} 5.00" for s in STREETS[: STREETS.index(street)]]
    actions = (("fold",), ("settle",)) if order == "fold-then-violation" else (("settle",), ("fold",))
    for action in actions:
        t.press("seat_1", *action)
        while t.m.display.steps_pending():
            t.press("confirm")
    collected = [line for line in t.m.display.prompts if line.startswith("seat 1: ") and "collect" in line]
    if order == "fold-then-violation":
        assert collected == [
            f"seat 1: folds at {street} street: collect {', '.join(['ante 5.00', *before])}; discard the cards",
            "seat 1: communication violation (35.10(c)): collect bonus 1.00",
        ]
    else:  # the violation collects everything; the fold after it changes nothing
        assert collected == [
            "seat 1: communication violation (35.10(c)): collect "
            f"{', '.join(['ante 5.00', 'bonus 1.00', *before])}; discard the cards"
        ]
    _finish(t, street)
    result = t.m.rounds[-1]
    assert t.m.phase is Common.BETTING and result.settlement is not None, t.m.holds.reason
    assert result.settlement.seat(1).net == -(500 + 100 + 500 * STREETS.index(street))
    assert not any(w.result.value == "push" for w in result.settlement.seat(1).wagers)  # nothing returned
    alone = settle_record({**result.record, "seats": {"4": result.record["seats"]["4"]}}, TABLE)
    assert result.settlement.seat(4) == alone.seat(4)  # the rest of the table settles normally
    assert _tablectl_settle(result.record, tmp_path) == result.settlement.to_json()
    shown = t.m.display.prompts[t.m.display.prompts.index(collected[-1]) + 1 :]
    assert not any(line.startswith("seat 1: ") and "collect" in line for line in shown)  # never asked again


def test_an_observer_failure_logs_the_events_kind_and_number_never_its_card(caplog: pytest.LogCaptureFixture) -> None:
    """A face-down card is in a CardDealt's repr, and may be in the error's text: neither is logged."""
    from controller.table.runtime import TableRuntime

    runtime = TableRuntime(TABLE, {role: "loop://" for role in TABLE.devices})

    def screen(event: object) -> None:
        raise ValueError(f"cannot draw {event!r}")

    runtime.observers.append(screen)
    with caplog.at_level("ERROR"):
        runtime._handle(CardDealt(device="shoe", card="Qh", index=1, quality=100))
    assert "observer " in caplog.text and "screen failed on CardDealt (record 0): ValueError" in caplog.text
    assert "Qh" not in caplog.text


def test_a_handler_failure_logs_the_events_kind_and_number_never_its_card(caplog: pytest.LogCaptureFixture) -> None:
    def handle(event: object) -> None:
        raise RuntimeError(f"bad event {event!r}")

    engine = Engine(handle)
    engine.start()
    with caplog.at_level("ERROR"):
        engine.post(CardDealt(device="shoe", card="Qh", index=1, quality=100))
        _wait_until(lambda: "failed" in caplog.text, "the failure logged")
    engine.stop()
    assert "controller: handling CardDealt (record 1) failed: RuntimeError" in caplog.text
    assert "Qh" not in caplog.text


def test_a_round_that_cannot_settle_holds_with_its_problem_in_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 32: the hold's reason names the record's problem in words (``seat 1 violation at``),
    never a record path (``$.seats.1.violation_at``); with a second problem, how many more."""
    record, broken = MississippiTable.round_record, [False]

    def round_record(table: MississippiTable) -> dict:
        r = record(table)
        if broken[0]:
            r["seats"]["1"]["violation_at"] = "third"  # without a violation, and no fold either
            r["seats"]["4"]["folded_at"] = "sixth"
        return r

    # the game's hook, as the table's parts are given it when the table is made
    monkeypatch.setattr(MississippiTable, "round_record", round_record)
    t = Table()
    for seat in (1, 4):
        t.spot(seat, "ante", 500)
    t.press("no_more_bets")
    t.deal("As Ad Kc Kd 7h 8h 8c")
    broken[0] = True
    _finish(t, "third")
    assert t.m.phase is Common.HOLD
    reason = t.m.holds.reason
    assert reason.startswith("cannot settle: seat 1 violation at: ") and reason.endswith("(and 1 more)"), reason
    assert "$" not in reason and "_" not in reason


# --- work a press does once (issue 42 item 5): a reveal's conditions asked by the machine alone
# (again only to say why it did not reveal); the walk makes each step's text when it is asked

STREETS = ("third", "fourth", "fifth")


def counted(table: object, name: str) -> list[int]:
    """Count the calls of ``table``'s method ``name`` from now on (the machine's conditions are
    looked up on the model by name, so the count sees them too)."""
    calls = [0]
    method: Callable[..., Any] = getattr(table, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return method(*args, **kwargs)

    setattr(table, name, counting)
    return calls


def mississippi_at_third() -> Table:
    t = Table()
    play_to_third(t, seats=((1, 500), (4, 1000)))
    assert t.m.phase is Phase.THIRD_STREET
    return t


def at_street(street: str) -> Table:
    """A table at ``street``: seats 1 and 4 bet every street before it."""
    t = mississippi_at_third()
    for s in STREETS[: STREETS.index(street)]:
        t.spot(1, s, 500)
        t.spot(4, s, 1000)
        t.press("reveal")
    assert t.m.phase is Phase[f"{street.upper()}_STREET"]
    return t


@pytest.mark.parametrize("street", STREETS)
def test_a_reveal_asks_whether_every_seat_acted_once(street: str) -> None:
    t = at_street(street)
    t.spot(1, street, 500)
    t.spot(4, street, 1000)
    acted, pending = counted(t.m, "all_acted"), counted(t.m.display, "steps_pending")
    shown = len(t.m.display.prompts)
    t.press("reveal")
    assert t.m.phase is not Phase[f"{street.upper()}_STREET"]
    assert (acted[0], pending[0]) == (1, 1)  # the machine's conditions, nothing asked before them
    assert not any(p.startswith("cannot reveal") for p in t.m.display.prompts[shown:])


@pytest.mark.parametrize("street", STREETS)
def test_a_refused_reveal_still_says_who_it_waits_for(street: str) -> None:
    t = at_street(street)
    t.spot(4, street, 1000)
    t.press("reveal")
    assert t.m.phase is Phase[f"{street.upper()}_STREET"]
    assert t.m.display.prompts[-1] == "cannot reveal: waiting for seat 1"


@pytest.mark.parametrize("street", STREETS)
def test_a_refused_reveal_still_asks_for_the_fold_to_be_confirmed(street: str) -> None:
    t = at_street(street)
    t.spot(1, street, 500)
    t.press("seat_4", "fold")  # its collection shown, to be confirmed before the next reveal
    t.press("reveal")
    assert t.m.phase is Phase[f"{street.upper()}_STREET"]
    assert "cannot reveal: confirm the collection first" in t.m.display.prompts[-2:]
    t.press("confirm", "reveal")
    assert t.m.phase is not Phase[f"{street.upper()}_STREET"]


def test_a_reveal_with_no_street_to_reveal_notes_nothing() -> None:
    t = Table()
    t.spot(1, "ante", 500)
    shown = len(t.m.display.prompts)
    t.press("reveal")
    assert t.m.phase is Common.BETTING and t.m.display.prompts[shown:] == []


@pytest.fixture
def texts_made(monkeypatch: pytest.MonkeyPatch) -> dict[int, int]:
    """How many times each settlement step's text was made (by the step's id), from now on."""
    made: dict[int, int] = {}
    make = Step._make_text

    def counting(step: Step) -> str:
        made[id(step)] = made.get(id(step), 0) + 1
        return make(step)

    monkeypatch.setattr(Step, "_make_text", counting)
    return made


def test_a_walk_with_nothing_done_makes_each_step_text_when_it_is_asked(texts_made: dict[int, int]) -> None:
    t = mississippi_at_third()
    for s in STREETS:
        t.spot(1, s, 500)
        t.spot(4, s, 1000)
        if s == "fifth":
            texts_made.clear()
        t.press("reveal")
    walk = t.m.walk
    assert walk.settlement is not None and walk.steps is walk.settlement.procedure  # nothing left out
    assert sum(texts_made.values()) == 1  # the first step, asked: no other step's text read to leave steps out
    for asked in range(2, len(walk.steps) + 1):
        t.press("confirm")
        assert sum(texts_made.values()) == asked
    t.press("confirm")
    assert t.m.phase is Common.BETTING


def test_a_walk_leaves_out_the_steps_done_during_the_round() -> None:
    t = mississippi_at_third()
    t.spot(1, "third", 500)
    t.press("seat_4", "fold", "confirm")  # its collection done during the round
    for s in STREETS:
        if s != "third":
            t.spot(1, s, 500)
        t.press("reveal")
    walk = t.m.walk
    assert walk.settlement is not None
    folded = [step.text for step in walk.settlement.procedure if step.seat == 4]
    assert folded and not any(step.text in folded for step in walk.steps)
    assert len(walk.steps) == len(walk.settlement.procedure) - len(folded)


def test_each_step_text_is_made_once_a_round(texts_made: dict[int, int]) -> None:
    made = texts_made
    t = mississippi_at_third()
    for s in STREETS:
        t.spot(1, s, 500)
        t.spot(4, s, 1000)
        t.press("reveal")
    while t.m.phase is Common.SETTLEMENT:
        t.press("confirm")
    texts = [s.text for s in t.m.rounds[-1].settlement.procedure]
    assert texts and all(p in t.m.display.prompts for p in texts)
    assert made and set(made.values()) == {1}


@pytest.mark.parametrize("street", STREETS)
@pytest.mark.parametrize("hold", ["stray card", "unreadable card"])
def test_a_reveal_while_held_still_asks_for_the_fold_to_be_confirmed(street: str, hold: str) -> None:
    # no street to reveal while held: the machine ignores the press, and the screen still names
    # the fold's collection to confirm first (as at 4e441b3: a press answered, never silently dropped)
    t = at_street(street)
    t.spot(1, street, 500)
    t.press("seat_4", "fold")
    if hold == "stray card":
        t.deal("9s")  # one card more than the deal: the table holds for it
    else:
        t.feed(CardUnreadable(device="shoe", index=t.shoe_index + 1))
    assert t.m.phase is Common.HOLD and t.m.display.steps_pending()
    shown = len(t.m.display.prompts)
    t.press("reveal")
    assert t.m.phase is Common.HOLD
    assert t.m.display.prompts[shown:] == ["cannot reveal: confirm the collection first"]


def test_a_reveal_while_held_with_nothing_to_confirm_notes_nothing() -> None:
    t = at_street("third")
    t.deal("9s")
    assert t.m.phase is Common.HOLD
    shown = len(t.m.display.prompts)
    t.press("reveal")
    assert t.m.phase is Common.HOLD and t.m.display.prompts[shown:] == []
