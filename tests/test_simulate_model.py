"""The simulation against the reference model, the liveness phase and ``--seeds`` reporting
(issue 41 items 2-4)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cli_helpers import cli
from simulate_helpers import simulate_failing

from controller.game.registry import table_names
from hil.simulate.faults import CI_KINDS, FAULT_KINDS
from hil.simulate.invariants import Broken
from hil.simulate.liveness import HOLD_S, ROUND_BOUND_S, Liveness
from hil.simulate.run import replay_command, run_seed

GAMES = table_names()
"""Every game dealt at a table (the registry's), Three Card Poker included."""


@pytest.mark.parametrize("game", GAMES)
def test_after_the_faults_stop_the_open_round_and_n_more_finish(game: str) -> None:
    res = run_seed(game, 5, CI_KINDS, rounds=2, liveness=3)
    assert res.ok, f"{res.broken}: {res.detail}"
    assert res.rounds >= 5


def _world(step: str, hold: Any = None) -> Any:
    snapshot = SimpleNamespace(step=step, round_no=7, hold=hold)
    return SimpleNamespace(runtime=SimpleNamespace(snapshot=snapshot), played=[], now=100.0)


def test_liveness_breaks_when_rounds_do_not_finish_within_the_bound() -> None:
    world = _world("third_street")
    live = Liveness(world, 2)
    assert live.target == 3  # the open round and two more
    world.now += ROUND_BOUND_S * 3 - 1
    live.check()
    world.now += 2
    with pytest.raises(Broken, match="liveness: 0 of 3 rounds finished .* \\(round 7 at third_street\\)"):
        live.check()


def test_liveness_breaks_when_a_hold_that_clears_by_itself_stays_on() -> None:
    hold = SimpleNamespace(reason="link down: shoe", clears="the shoe back", by_itself=True)
    world = _world("betting", hold)
    live = Liveness(world, 1)
    assert live.target == 1
    live.check()
    world.now += HOLD_S + 1
    with pytest.raises(Broken, match="clears by itself \\(link down: shoe"):
        live.check()
    held = Liveness(_world("betting", SimpleNamespace(reason="void?", clears="key", by_itself=False)), 1)
    held.world.now += HOLD_S + 1
    held.check()  # a hold for the supervisor: only the round bound applies


def test_the_replay_command_names_the_kinds_one_by_one_when_asked() -> None:
    short = "all" if set(CI_KINDS) == set(FAULT_KINDS) else "ci"  # every kind runs in CI once none is open
    assert replay_command("boston5", 3, CI_KINDS, 2).endswith(f"--faults {short}")
    explicit = replay_command("boston5", 3, CI_KINDS, 2, explicit=True, liveness=4)
    assert f"--faults {','.join(CI_KINDS)} --liveness 4" in explicit


def test_seeds_prints_every_failure_as_found_with_an_explicit_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug put in (a community card turned a street early): every failing seed is printed, each
    with the command that replays it naming its fault kinds, not ``ci``."""
    out = simulate_failing(monkeypatch, (1, 2, 3), "--seeds", "3")
    assert "--faults ci " not in out and "--faults all " not in out and "failed seeds: 1, 2, 3" in out
    code, _, err = cli("simulate", "--seed", "1", "--liveness", "-1")
    assert code == 2 and "--liveness must be 0 or more" in err


def test_a_card_read_again_takes_the_place_of_its_misread_in_the_deal_order() -> None:
    """Found by pai gow seed 138 (`--rounds 6 --faults ci --liveness 2`): a card read as one
    already dealt was read again after later cards; the model dealt it last, the table (rightly)
    where it came out of the shoe."""
    from hil.simulate.model_check import in_deal_order

    log = [
        (1, "As", "seat 1"),
        (2, "Jc", "read as a card already dealt: read again or entered by the supervisor"),
        (3, "Kd", "dealer"),
        (4, "7c", "burned: no place in the deal"),
        (2, "5s", "seat 2"),
        (5, "??", "unreadable: read again or entered by the supervisor"),
    ]
    assert in_deal_order(log) == [(1, "As", "seat 1"), (2, "5s", "seat 2"), (3, "Kd", "dealer")]
    # Boston 5 seed 156 (the same run): the first card dealt while held, accepted once the count
    # had started over (a second card numbered 1 burned)
    held = [
        (1, "Jc", "waiting for the supervisor (dealt while held)"),
        (2, "7c", "seat 2"),
        (1, "Jc", "seat 2"),
        (1, "Ts", "burned: no place in the deal"),
    ]
    assert in_deal_order(held) == [(1, "Jc", "seat 2"), (2, "7c", "seat 2")]


def test_the_envy_pass_counts_a_premium_hands_bonus_as_the_marker_is() -> None:
    """Found by pai gow seeds 78 and 87 (`--rounds 6`, every CI kind): 11.15(d)3 settles, from
    the dealer's right, each seat with an envy marker or with a bonus wager and a premium hand.
    The table's procedure names the second a "premium" step; the check took only "envy" steps
    and said the table had left a seat out (the table was right)."""
    from hil.reference.games import Expected
    from hil.simulate.model_check import _compare

    def step(phase: str, seat: int) -> dict[str, Any]:
        return {"phase": phase, "seat": seat}

    exp = Expected(order=[5, 4], envy_order=[5, 4, 3])
    turned = [step("pai_gow", 5), step("pai_gow", 4)]
    side = [step("bonus_insurance", 5), step("bonus_insurance", 4), step("bonus_insurance", 3)]
    # seat 5: a premium hand with a bonus under the envy minimum; seat 4: a marker; seat 3: both
    last = [step("premium", 5), step("envy", 4), step("envy", 3), step("premium", 3)]
    _compare(6, exp, {"seats": {}, "procedure": [*turned, *side, *last]})
    with pytest.raises(Broken, match=r"the envy pass \(11.15\(d\)3\) settles \[4, 3\], the rules say \[5, 4, 3\]"):
        _compare(6, exp, {"seats": {}, "procedure": [*turned, *side, *last[1:]]})
    with pytest.raises(Broken, match="an envy step before every bonus"):
        _compare(6, exp, {"seats": {}, "procedure": [*turned, side[0], *last, *side[1:]]})


def _snapshot(**fields: Any) -> Any:
    base = {"game": "boston5", "round_no": 4, "step": "settlement", "asked": "", "settlement_step": 0, "steps_left": 0}
    return SimpleNamespace(**{**base, **fields})


def test_what_was_settled_during_the_round_is_not_asked_again_at_its_settlement() -> None:
    """A fold's collection (24.10(b), 35.10(a)) and Boston 5's bonus (24.10(a)) are settled when
    they happen; the settlement asking them again is a wager collected or paid twice (the mutants
    fold_collected_twice and b5_bonus_paid_twice went unseen before this check)."""
    from hil.simulate.invariants import check_settled_once

    check_settled_once(_snapshot(asked="seat 3: Ace high: pay first 10.00, second 10.00; ante bonus 5.00"))
    check_settled_once(_snapshot(step="third_street", asked="seat 2: folds at third street: collect ante 5.00"))
    with pytest.raises(Broken, match="a fold collected when it folded"):
        check_settled_once(_snapshot(asked="seat 2: folds at third street: collect ante 5.00"))
    bonus = "seat 1: three-card hand not exposed (24.10(a)): collect bonus 5.00"
    with pytest.raises(Broken, match="a step the dealer was asked before the settlement"):
        check_settled_once(_snapshot(asked=bonus, steps_left=2), {bonus})
    check_settled_once(_snapshot(asked=bonus, steps_left=2))  # not asked before (a late bonus accepted)
    with pytest.raises(Broken, match="a step the dealer was asked before the settlement"):
        check_settled_once(_snapshot(asked=bonus), {bonus})  # the sole step left shown again (fixed)


def test_a_held_round_never_resumes_with_a_link_down(tmp_path: Path) -> None:
    """The mutants hold_cleared_while_down and hold_released_one_device_back resumed play with a
    device still down, and nothing said so."""
    from hil.simulate.run import bench_table
    from hil.simulate.world import World

    world = World(bench_table("boston5"), 1, [], tmp_path / "j.db")
    try:
        held = _snapshot(step="hold", held_from="betting")
        resumed = _snapshot(step="betting", held_from=None)
        world.down = set()
        world._check_resume(held)
        world._check_resume(resumed)  # every device up: fine
        world.down = {"shoe"}
        world._check_resume(held)
        with pytest.raises(Broken, match="play resumes in betting while shoe is down"):
            world._check_resume(resumed)
        world._check_resume(held)
        world._check_resume(_snapshot(round_no=5, step="betting", held_from=None))  # a void: the next round
    finally:
        world.close()


def test_a_card_unread_before_the_shoe_count_starts_over_holds_no_place_of_the_new_count() -> None:
    """Found by Boston 5 and Mississippi Stud seed 150 (`--rounds 6`, every CI kind; shrunk: a
    journal outage, a wrong press, a card left unread): a card left the shoe unread as number 14
    of the last round's count, reported in the next round before the shoe's count started over;
    the round's 14th card of the new count took its place in the model's deal order (dealt first,
    to the wrong seat), and the model called the seat's cards shown at the showdown face down."""
    from hil.simulate.model_check import in_deal_order

    log = [
        (14, "??", "unreadable: read again or entered by the supervisor"),
        (1, "Qs", "seat 2"),
        (2, "6d", "dealer"),
        (14, "5c", "seat 6"),
    ]
    assert in_deal_order(log) == [(1, "Qs", "seat 2"), (2, "6d", "dealer"), (14, "5c", "seat 6")]


# Three Card Poker seed 201 (`--rounds 2 --faults ci`), round 1: seat 3 plays 3h 3c 3s, seat 5
# folds 4s 7s 2d, seat 6 plays 8h 7c Ks against the dealer's 3d Kh Qc.
_DEAL_201 = "3h 3c 3s 4s 7s 2d 8h 7c Ks 3d Kh Qc".split()
_PLACES_201 = [*["seat 3"] * 3, *["seat 5"] * 3, *["seat 6"] * 3, *["dealer"] * 3]
_HELD = "waiting for the supervisor (dealt while held)"
_BURNED = "burned: no place in the deal"


def _held_then_restarted(waits: int) -> list[tuple[int, str, str]]:
    """The table's log of the round when card ``waits`` and those after it came out while the
    table held, the shoe's count started over (two cards numbered 1 and 2, burned: the deal was
    complete) and then the supervisor accepted the waiting cards: the first waiting card is logged
    again in its place, the ones after it take theirs in the log (as seed 201's log reads)."""
    log = [(i, c, to) for i, (c, to) in enumerate(zip(_DEAL_201, _PLACES_201, strict=True), start=1)]
    log[waits - 1] = (waits, _DEAL_201[waits - 1], _HELD)
    return [*log, (1, "9c", _BURNED), (waits, _DEAL_201[waits - 1], _PLACES_201[waits - 1]), (2, "2h", _BURNED)]


@pytest.mark.parametrize("waits", range(1, len(_DEAL_201) + 1))
def test_a_card_dealt_while_held_keeps_its_place_when_the_shoe_count_starts_over(waits: int) -> None:
    """Found by `tablectl simulate --game three_card_poker --seed 201 --rounds 2 --faults ci`
    (count_restart, disk_full, wrong_press): `model_hidden`, round 1, settlement: seat 6's 8h
    called face down. The cards dealt while the table held waited for the supervisor; the shoe's
    count started over before he accepted them, and the model forgot every card waiting, so the
    waiting card (3c) was dealt last and every card after it one place early: 8h to seat 5, which
    folded. The table was right (seat 6 played; its hand is turned at the settlement). A read set
    aside (keyed by its number only) still holds no place of the new count; a card dealt while
    held is the same card, number and face, when it is accepted. Each card of the deal waiting."""
    from hil.simulate.model_check import in_deal_order

    got = in_deal_order(_held_then_restarted(waits))
    assert [(c, to) for _, c, to in got] == list(zip(_DEAL_201, _PLACES_201, strict=True))  # the burned cards dropped


def _seat(number: int, folded: bool, played: bool) -> Any:
    wagers = {"ante": 1000, **({"play": 1000} if played else {})}
    return SimpleNamespace(
        number=number, wagers=wagers, folded_at="play" if folded else None, exposed=False, violation=False
    )


@pytest.mark.parametrize("held", [False, True])
@pytest.mark.parametrize("step", ["dealing", "play", "settlement", "count_stub"])
def test_the_watch_keeps_only_the_folded_hand_down_after_a_held_deal_and_a_count_restart(step: str, held: bool) -> None:
    """Seed 201's round at each step, held there or not: the table's view (nothing before the
    decisions; then the dealer's hand and each hand played once the dealer turned it, never the
    folded seat 5's) passes the watch; a view naming a card of seat 5's hand is a leak the watch
    finds. At the settlement the dealer has reached seat 3 (his reveal, then seat 6, then seat 3:
    counterclockwise from his right); before he reached any, their hands are face down too."""
    from hil.simulate.model_check import VisibilityWatch
    from hil.simulate.run import bench_table

    decided = step in ("settlement", "count_stub")
    seats = (_seat(3, False, decided), _seat(5, decided, False), _seat(6, False, decided))
    shown = " ".join(_DEAL_201[:3] + _DEAL_201[6:]) if decided else ""
    hold = SimpleNamespace(held_from=step) if held else None
    asked = "seat 3: pay ante 5.00" if step == "settlement" else None
    snapshot = SimpleNamespace(
        round_no=1, step="hold" if held else step, hold=hold, game_view=None, seats=seats, shown=shown, asked=asked
    )
    hands = SimpleNamespace(round_no=1, log=_held_then_restarted(2))
    watch = VisibilityWatch(bench_table("three_card_poker").path)
    if step == "settlement":  # the dealer's reveal, then seat 6's and seat 3's steps
        at = SimpleNamespace(**{**vars(snapshot), "step": step, "hold": None, "shown": "", "asked": "dealer: reveals"})
        watch.observe(at, hands, {})
        assert watch.hidden == frozenset(_DEAL_201[:9])  # the dealer's three only face up
        for seat in (6, 3):  # seat 3's step shown before it holds (a hold asks for its fault)
            watch.observe(SimpleNamespace(**{**vars(at), "asked": f"seat {seat}: pay ante 5.00"}), hands, {})
    watch.observe(snapshot, hands, {})
    assert watch.hidden == (frozenset({"4s", "7s", "2d"}) if decided else frozenset(_DEAL_201))
    leaked = SimpleNamespace(**{**vars(snapshot), "shown": f"{shown} 7s"})
    with pytest.raises(Broken, match="names a card the rules keep face down"):
        watch.observe(leaked, hands, {})


def test_an_event_acted_on_though_the_journal_refused_it_is_found() -> None:
    """The mutation score's ``engine_act_unjournaled`` (journal before act): a card the journal
    refused is acted on at once; its device sends it again (the refusal moved its window back),
    so the table takes it again at each resend and the round's record holds the one report many
    times over. No check looked at how often (the ``cards`` check took a record's card as a report
    if the journal held it at all): the mutant survived the CI's seeds. The record's cards now
    each take one report journaled before the record (`hil/simulate/model_check.py`). Passes as
    the table is; the bug put in is found."""
    from controller.table.engine import Engine

    fixed = run_seed("boston5", 5, CI_KINDS, rounds=2)
    assert fixed.ok, f"{fixed.broken}: {fixed.detail}"

    def acted_on_anyway(self: Engine, event: object) -> None:  # the mutant's text, as a method
        if not self._append(event):
            self._refuse(event)
        self._acted_on(event)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Engine, "_record", acted_on_anyway)
        found = run_seed("boston5", 5, CI_KINDS, rounds=2)
    assert found.broken == "cards", f"{found.broken}: {found.detail}"
    assert "more often than the journal's reports of it" in found.detail
