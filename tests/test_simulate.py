"""``tablectl simulate`` (hil/simulate/): the whole table in one thread under a simulated clock.

Same seed, same journal byte for byte; a fault kind's failure is found, replayed and shrunk; the
seeds of each game run clean with every fault kind (a kind whose bug is known and not yet fixed
would be listed in one place, ``hil.simulate.faults.KNOWN_BUG_KINDS``: none is); each failure the
simulation found, as a case."""

from __future__ import annotations

import ast
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_helpers import cli

from controller.game.registry import table_names
from hil.simulate.faults import (
    CI_KINDS,
    FAULT_KINDS,
    KNOWN_BUG_KINDS,
    OPEN_FINDINGS,
    OWN_STREAM_KINDS,
    Fault,
    parse_kinds,
    schedule,
)
from hil.simulate.run import (
    SHRUNK_WHY,
    SeedResult,
    bench_table,
    replay_command,
    run_seed,
    run_seeds,
    shrink,
    shrunk_row,
)
from hil.simulate.world import World

GAMES = table_names()
"""Every game dealt at a table (the registry's order)."""
BENCH = Path(__file__).resolve().parent.parent / "config" / "bench"


@pytest.mark.parametrize("game", GAMES)
def test_the_same_seed_writes_the_same_journal_byte_for_byte(game: str) -> None:
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        first = run_seed(game, 12, CI_KINDS, rounds=2, folder=Path(a))
        second = run_seed(game, 12, CI_KINDS, rounds=2, folder=Path(b))
        assert first.ok, f"{first.broken}: {first.detail}"
        assert first.faults, "the seed injected no fault: pick another"
        assert (Path(a) / f"{game}-12.db").read_bytes() == (Path(b) / f"{game}-12.db").read_bytes()
    assert first.digest == second.digest and first.events == second.events


def test_a_journal_outage_writes_the_same_journal_in_any_folder() -> None:
    """The simulated I/O error names the journal by its file name: with a journal outage (in CI
    since its finding was fixed) a seed's journal is the same byte for byte wherever it is written
    (the refactor guard plays each side in its own temporary folders)."""
    faults = [Fault(0.3, "journal_error", "panel", 1.0, 0)]
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        first = run_seed("pai_gow", 4, (), rounds=1, faults=faults, folder=Path(a))
        second = run_seed("pai_gow", 4, (), rounds=1, faults=faults, folder=Path(b))
        assert second.digest == first.digest
        assert first.ok and "journal_error" in first.faults, f"{first.broken}: {first.detail}"
        assert (Path(a) / "pai_gow-4.db").read_bytes() == (Path(b) / "pai_gow-4.db").read_bytes()


def _never_connected_bug_put_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 32 item 5's bug put back: 'no more bets' taken with a device never connected."""
    from controller.table._links import LinkReconciler

    monkeypatch.setattr(LinkReconciler, "expected", lambda self, e: None)


def test_a_device_never_connected_holds_and_the_bug_is_found_replayed_and_shrunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 32 item 5: with the shoe missing from start-up the panel said deal. Fixed, the seed
    holds every invariant; with the bug put back it is found by the kind alone, with its replay
    command."""
    faults = [Fault(0.0, "never_connected", "shoe", 5.0, 1), Fault(0.3, "wrong_press", "panel", 0.5, 1)]
    fixed = run_seed("mississippi_stud", 7, (), rounds=1, faults=faults)
    assert fixed.ok, f"{fixed.broken}: {fixed.detail}"
    _never_connected_bug_put_back(monkeypatch)
    found = run_seed("mississippi_stud", 7, (), rounds=1, faults=faults)
    assert found.broken == "deal_while_down" and "shoe" in found.detail
    assert replay_command("mississippi_stud", 7, ["never_connected"], 1) == (
        "tablectl simulate --game mississippi_stud --seed 7 --rounds 1 --faults never_connected"
    )


def test_shrink_keeps_only_the_faults_that_still_break_the_invariant(monkeypatch: pytest.MonkeyPatch) -> None:
    from hil.simulate import run as run_module

    _never_connected_bug_put_back(monkeypatch)
    scheduled = [
        Fault(0.0, "never_connected", "shoe", 5.0, 1),
        Fault(0.2, "jam", "shoe", 0.5, 1),
        Fault(0.4, "wrong_press", "panel", 0.1, 1),
    ]
    monkeypatch.setattr(run_module, "schedule", lambda seed, kinds, rounds: list(scheduled))
    first = run_seed("mississippi_stud", 7, (), rounds=1, faults=scheduled)
    assert not first.ok
    faults, last = shrink("mississippi_stud", 7, ("never_connected", "jam", "wrong_press"), 1, first.broken)
    assert [f.kind for f in faults] == ["never_connected"] and last.broken == first.broken
    replay = replay_command("mississippi_stud", 7, ("never_connected", "jam", "wrong_press"), 1, explicit=True)
    _the_printed_row_replays(shrunk_row("mississippi_stud", 7, 1, faults, last, replay), faults, last)


def _the_printed_row_replays(row: str, faults: list[Fault], last: SeedResult) -> None:
    """``--shrink``'s row parses as a row of ``SHRUNK`` (as pasted), and evaluated here it is a
    :class:`Shrunk` whose faults are the shrunk ones and break the same invariant again."""
    assert row.startswith("    Shrunk(\n") and row.endswith("    ),\n") and "WHY: " in row
    ast.parse(f"SHRUNK: tuple[Shrunk, ...] = (\n{row})\n")
    case = eval(row.strip().removesuffix(","), globals())
    assert isinstance(case, Shrunk) and case.faults == tuple(faults) and case.why == SHRUNK_WHY
    assert f"--seed {last.seed} " in case.found and f"`{last.broken}`" in case.found
    again = run_seed(case.game, case.seed, (), rounds=case.rounds, faults=list(case.faults), swarm=case.swarm)
    assert (again.broken, again.faults) == (last.broken, last.faults)


def test_the_fault_kinds_are_named_once_and_the_ci_run_leaves_out_only_the_known_bugs() -> None:
    assert set(KNOWN_BUG_KINDS) <= set(FAULT_KINDS)
    assert set(CI_KINDS) == set(FAULT_KINDS) - set(KNOWN_BUG_KINDS) - set(OPEN_FINDINGS)
    assert parse_kinds("all") == tuple(FAULT_KINDS) and parse_kinds("none") == ()
    with pytest.raises(ValueError, match="unknown fault kind 'nope'"):
        parse_kinds("jam,nope")
    plan = schedule(3, CI_KINDS, 2)
    assert plan == schedule(3, CI_KINDS, 2) and {f.kind for f in plan} <= set(CI_KINDS)


def test_found_boston5_a_seat_whose_chips_were_taken_back_does_not_block_no_more_bets(tmp_path: Path) -> None:
    """Found by `tablectl simulate --game boston5 --seed 6 --rounds 3 --faults all`: an ante placed
    alone (a late chip during a journal outage) made "no more bets" refused ("correct: seat 5:
    needs an ante and a first wager"); taking the chips back left the seat, empty, still refused."""
    world = World(bench_table("boston5"), 1, [], tmp_path / "j.db")
    world.advance(0.5)
    world.spots.place(2, "ante", 500)
    world.spots.place(2, "first", 1000)
    world.spots.place(5, "ante", 500)
    world.advance(0.5)
    world.panel.press("no_more_bets")
    world.advance(0.5)
    assert world.runtime.snapshot.step == "betting"  # refused: seat 5 has no first wager
    world.spots.place(5, "ante", 0)
    world.advance(0.5)
    world.panel.press("no_more_bets")
    world.advance(0.5)
    s = world.runtime.snapshot
    world.close()
    assert s.step == "no_more_bets" and s.wagers() == {2: {"ante": 500, "first": 1000}}


@dataclass(frozen=True)
class Shrunk:
    """A failing seed the simulation found, shrunk to the faults that broke it on the revision that
    found it: ``found`` is the command and the invariant, ``why`` the bug and its fix; ``swarm``:
    found by ``--swarm`` and played with its waits (its faults placed at steps); ``resettle``: every
    round settled again and compared; ``name``: the case's id (else game, seed and faults)."""

    game: str
    seed: int
    rounds: int
    faults: tuple[Fault, ...]
    found: str
    why: str
    swarm: bool = False
    resettle: bool = True
    name: str = ""


SHRUNK: tuple[Shrunk, ...] = (
    Shrunk(
        "pai_gow",
        14,
        2,
        (
            Fault(0.3, "journal_error", "panel", 2.51, 3),
            Fault(0.511, "journal_error", "bet_spots", 2.54, 2),
            Fault(0.688, "reboot", "panel", 2.27, 3),
            Fault(0.7, "reboot", "panel", 0.35, 2),
        ),
        "--game pai_gow --seed 14 --rounds 2 --faults journal_error,reboot: stuck in betting",
        "a wager placed during the outage made the players' bets differ from theirs, and the dealer, reading "
        '"correct: seat 1 bonus 5.00: place its envy marker", took the bonus wager away instead of placing the '
        "marker (11.15(c)); the dealer (World.unstick) now places a marker asked for",
    ),
    Shrunk(
        "pai_gow",
        176,
        6,
        (
            Fault(0.0, "never_connected", "shoe", 2.29, 3),
            Fault(1.153, "wrong_press", "bet_spots", 2.8, 1),
            Fault(1.281, "journal_error", "shoe", 1.74, 2),
        ),
        "--game pai_gow --seed 176 --rounds 6 --faults ci: stuck in betting",
        "a chip a wrong press put on a spot, then seat_3 pressed during a journal outage: the table counted chips "
        "no player wanted and the players waited for the table's wagers to be exactly theirs; the players now take "
        "such chips off (Player.on_betting in hil/bench.py; this case fails without it)",
    ),
    Shrunk(
        "pai_gow",
        137,
        2,
        (Fault(0.3, "journal_error", "bet_spots", 2.1, 2),),
        "--game pai_gow --seed 137 --rounds 2 --faults ci: stuck in betting",
        "a voided round's chips left on, counted by the table and wanted by no player (as seed 176)",
    ),
    Shrunk(
        "mississippi_stud",
        195,
        6,
        (
            Fault(0.396, "reboot", "bet_spots", 2.96, 1),
            Fault(0.556, "journal_error", "shoe", 0.29, 3),
            Fault(1.455, "duplicate_card", "shoe", 1.91, 1),
            Fault(1.756, "unreadable_card", "panel", 0.89, 3),
        ),
        "--game mississippi_stud --seed 195 --rounds 6 --faults ci (shrunk on ae2bace): error in _third_street",
        "after a bet-spots reboot and a journal outage, seats 2 and 5's antes were counted once the first card was "
        "at seat 6 and the deal went by the new seat order (35.9(d)); the round now holds in betting until every "
        "device is read again and a chip counts only in the step it was placed in",
    ),
    Shrunk(
        "boston5",
        77,
        6,
        (
            Fault(0.3, "journal_error", "bet_spots", 1.43, 2),
            Fault(0.645, "link_down", "bet_spots", 2.72, 3),
        ),
        "--game boston5 --seed 77 --rounds 6 --faults ci (and seeds 32, 90): deal_while_down",
        "deal pressed during a journal outage is not acted on, and its press-again note stayed on the screen while "
        "the bet spots' link was down; the note now waits until every device's link is up",
    ),
    Shrunk(
        "pai_gow",
        123,
        6,
        (
            Fault(0.325, "wrong_press", "shoe", 1.05, 1),
            Fault(0.881, "panel_outage", "panel", 2.76, 2),
            Fault(1.021, "link_down", "bet_spots", 2.86, 3),
            Fault(2.157, "journal_error", "shoe", 1.81, 3),
            Fault(2.175, "unreadable_card", "bet_spots", 2.51, 3),
            Fault(2.354, "disk_full", "panel", 1.16, 1),
        ),
        "--game pai_gow --seed 123 --rounds 6 --faults ci: deal_while_down",
        "a card unreadable after the round's last card held the table with a reason saying 'dealt beyond the deal' "
        "while the bet spots' link was down; it now says 'after the round's last card'",
    ),
    Shrunk(
        "boston5",
        150,
        6,
        (
            Fault(0.3, "journal_error", "shoe", 0.51, 1),
            Fault(0.548, "wrong_press", "bet_spots", 1.71, 3),
            Fault(1.878, "reboot", "panel", 2.49, 2),
            Fault(1.885, "crash", "panel", 0.68, 1),
        ),
        "--game boston5 --seed 150 --rounds 6 --faults <every ci kind>: stuck in betting",
        "the panel rebooted with presses it kept, the controller crashed and restored the panel's window from its "
        "journal, took the kept presses and left the new boot behind; the boot a device runs now is never left "
        "behind (drivers/protocol.py; tests/test_link_protocol.py has the link alone)",
    ),
    Shrunk(
        "mississippi_stud",
        150,
        6,
        (
            Fault(0.3, "journal_error", "shoe", 0.51, 1),
            Fault(0.548, "wrong_press", "bet_spots", 1.71, 3),
            Fault(1.878, "reboot", "panel", 2.49, 2),
            Fault(1.993, "panel_outage", "panel", 3.63, 1),
            Fault(2.256, "crash", "panel", 2.77, 2),
        ),
        "--game mississippi_stud --seed 150 --rounds 6 --faults <every ci kind>: stuck",
        "Boston 5 seed 150's loss (a device's new boot left behind after a reboot and a crash), here an "
        "unreadable-card hold waiting for the panel",
    ),
    Shrunk(
        "pai_gow",
        85,
        6,
        (
            Fault(0.0, "never_connected", "shoe", 0.84, 3),
            Fault(1.157, "reboot", "shoe", 2.72, 1),
            Fault(2.13, "crash", "panel", 1.97, 3),
        ),
        "--game pai_gow --seed 85 --rounds 6 --faults <every ci kind>: stuck",
        "Boston 5 seed 150's loss, here held 'journal written again' in dealing",
    ),
    Shrunk(
        "boston5",
        150,
        6,
        (
            Fault(0.3, "journal_error", "shoe", 0.51, 1),
            Fault(0.548, "wrong_press", "bet_spots", 1.71, 3),
            Fault(1.836, "unreadable_card", "panel", 0.55, 2),
        ),
        "--game boston5 --seed 150 --rounds 6 --faults <every ci kind>, its stall fixed: model_hidden",
        "the reference model's deal order was wrong after a card unread before a shuffle "
        "(tests/test_simulate_model.py has it alone)",
    ),
    Shrunk(
        "pai_gow",
        9,
        10,
        (Fault(0.019, "journal_error", "bet_spots", 1.78, 1, step="no_more_bets", edge="enter", round_no=2),),
        "`tablectl simulate --game pai_gow --seed 9 --swarm --faults ci` (swarm schedule of the first sim commit;"
        " shrunk to one fault): `model_hidden`, round 2, setting",
        "The journal outage's burst deals a card from the last round's shoe (number 50) as the new round's first;"
        " the new shoe's cards wait for the supervisor (their count repeats), and the sixth, the same Jh, is read"
        " as a card already dealt as the supervisor accepts them. The table counted that read as the ledger's "
        "last entry though it kept its own place, so the next confirm placed the cards that came out after it "
        "first and the card entered took the round's last place; the model gives it the sixth place (31.8). The "
        "model was right: the cards after it now wait until it is entered (`controller/table/_card_intake.py`, "
        "issue 41 item 2; every dealing state: tests/test_table_shoe_faults.py).",
        resettle=False,
        name="pai_gow_a_card_read_again_after_a_journal_outage_at_no_more_bets",
    ),
    Shrunk(
        "boston5",
        33,
        10,
        (
            Fault(0.195, "unreadable_card", "shoe", 1.32, 3, step="final_deal", edge="leave", round_no=8),
            Fault(0.247, "crash", "shoe", 1.0, 3, step="second_wager", edge="enter", round_no=9),
        ),
        "`tablectl simulate --game boston5 --seed 33 --swarm --faults ci` (shrunk to two faults): "
        "`error`, IndexError in `controller/game/boston5/_machine.py` `on_card`",
        'A card left the shoe unread after round 8\'s final deal and was reported once round 9 had "no more bets";'
        " the supervisor entered it as seat 1's first card, but the deal had not started (only a card taken from "
        "the shoe started it), so the game took it as a final card. Fixed in `controller/table/_card_intake.py` "
        "(issue 41 item 1; each state: tests/test_table_shoe_faults.py).",
        resettle=False,
        name="boston5_a_card_left_unread_between_two_rounds_entered_as_the_first_card",
    ),
    Shrunk(
        "pai_gow",
        46,
        10,
        (
            Fault(0.0, "never_connected", "shoe", 2.74, 1),
            Fault(0.126, "disk_full", "shoe", 2.71, 3, step="set_hands", edge="leave", round_no=3),
            Fault(0.183, "disk_full", "panel", 0.23, 2, step="count_stub", edge="leave", round_no=5),
            Fault(0.031, "restart", "bet_spots", 1.2, 2, step="settlement", edge="leave", round_no=5),
        ),
        "`tablectl simulate --game pai_gow --seed 46 --swarm --faults ci` (shrunk on the revision before issue 41"
        " item 2's fix): `model_hidden`, round 6, setting: the dealer's hand shown held a card the rules deal to "
        "an empty position, never turned up",
        "As pai gow seed 9: a card of the last round's shoe dealt during a disk-full outage, the new shoe's twin "
        "read as a card already dealt as the supervisor accepted the waiting cards, the cards after it placed "
        "before it (issue 41 items 2 and 4).",
        swarm=True,
        resettle=False,
        name="pai_gow_seed_46_a_card_of_the_last_shoe_then_its_twin_read_as_dealt",
    ),
    Shrunk(
        "boston5",
        179,
        10,
        (
            Fault(0.057, "disk_full", "shoe", 1.14, 2, step="settlement", edge="enter", round_no=3),
            Fault(0.108, "restart", "panel", 0.79, 1, step="bonus", edge="enter", round_no=4),
            Fault(0.208, "restart", "shoe", 1.46, 2, step="no_more_bets", edge="enter", round_no=6),
            Fault(0.047, "restart", "panel", 1.32, 2, step="settlement", edge="enter", round_no=8),
            Fault(0.109, "unreadable_card", "panel", 0.32, 1, step="settlement", edge="leave", round_no=8),
        ),
        "`tablectl simulate --game boston5 --seed 67 --rounds 10 --faults ci --swarm` (shrunk to two faults): "
        "`model_hidden`, round 5, settlement: a seat's card shown that the model keeps face down",
        "A card of round 4's stub left the shoe unread (number 19) as round 5's \"no more bets\" was pressed; the "
        "supervisor cleared the hold, and the new deck's cards came numbered from 1. The table took the "
        "unreadable read as seat 1's first card and the new count as a break in the middle of the round, so the "
        "card entered for the read went to seat 1 and every card of the new deck one place on. The model was "
        "right (24.8(c): the new deck's first card is the first player's; the stub goes to the discard rack "
        "unexposed, 24.8(d)): the read is now burned (`controller/table/_card_intake.py`; each game: "
        "tests/test_table_shoe_faults.py). Since the world draws from streams apart seed 67 no longer reaches it;"
        " seed 179 does (`model_hidden`, round 9, settlement, with the burn taken out: an unreadable read as "
        "round 8 ends), shrunk to five faults.",
        swarm=True,
        resettle=False,
        name="boston5_an_unreadable_read_before_the_shoes_count_starts_over",
    ),
    Shrunk(
        "three_card_poker",
        204,
        10,
        (
            Fault(0.008, "disk_full", "panel", 1.02, 2, step="count_stub", edge="enter", round_no=5),
            Fault(0.199, "link_down", "bet_spots", 1.6, 1, step="count_stub", edge="leave", round_no=5),
            Fault(0.047, "link_down", "shoe", 2.09, 2, step="no_more_bets", edge="enter", round_no=7),
            Fault(0.014, "restart", "bet_spots", 1.16, 3, step="dealing", edge="enter", round_no=8),
            Fault(0.062, "disk_full", "panel", 2.4, 3, step="betting", edge="leave", round_no=10),
            Fault(0.09, "count_restart", "bet_spots", 1.02, 3, step="no_more_bets", edge="enter", round_no=10),
        ),
        "`tablectl simulate --game three_card_poker --seed 164 --rounds 10 --faults ci --swarm` once the"
        " `cards` check took one report a card: round 7's record held shoe card 1 twice (one entry left \"waiting "
        'for the supervisor"): the deal came out during a disk-full hold and the count started over before the '
        "supervisor accepted the cards, so two waiting cards shared number 1 (`controller/table/card_ledger.py`; "
        "tests/test_card_numbers.py).",
        "The round was voided, so no model comparison saw it. Since the world draws from streams apart seed 164 "
        'no longer reaches it; seed 204 does (`cards`, round 10: "its record has shoe card 1 more often than the '
        "journal's reports of it\", with the fix taken out), shrunk to six faults.",
        swarm=True,
        name="three_card_poker_two_waiting_cards_under_one_shoe_number",
    ),
    Shrunk(
        "mississippi_stud",
        13,
        10,
        (
            Fault(0.0, "never_connected", "bet_spots", 1.45, 1),
            Fault(0.153, "late_bet", "panel", 1.94, 3, step="third_street", edge="leave", round_no=1),
            Fault(0.136, "late_bet", "shoe", 1.06, 2, step="dealing", edge="enter", round_no=2),
            Fault(0.14, "disk_full", "bet_spots", 2.78, 1, step="fourth_street", edge="enter", round_no=2),
            Fault(0.088, "void", "panel", 1.64, 3, step="no_more_bets", edge="leave", round_no=3),
            Fault(0.214, "panel_outage", "panel", 2.1, 3, step="no_more_bets", edge="leave", round_no=3),
            Fault(0.195, "void", "shoe", 2.09, 2, step="betting", edge="leave", round_no=4),
            Fault(0.209, "duplicate_card", "panel", 1.74, 3, step="fifth_street", edge="enter", round_no=4),
            Fault(0.119, "void", "panel", 0.39, 3, step="betting", edge="enter", round_no=5),
            Fault(0.032, "disk_full", "panel", 2.47, 1, step="count_stub", edge="leave", round_no=5),
            Fault(0.172, "door", "shoe", 1.82, 3, step="no_more_bets", edge="held", round_no=5),
            Fault(0.22, "journal_error", "bet_spots", 1.63, 3, step="third_street", edge="enter", round_no=5),
        ),
        "--game mississippi_stud --seed 13 --swarm --faults ci (shrunk on the revision before issue 41 item 2's "
        "fix): model_hidden, round 6, fifth street: a community card shown that the model keeps face down",
        "a waiting card read as one already dealt was entered in the round's last place, the cards out after it "
        "each one place off (items 2 and 4)",
        swarm=True,
        resettle=False,
        name="mississippi_stud_seed_13_a_community_card_placed_a_place_off",
    ),
    Shrunk(
        "pai_gow",
        13,
        10,
        (
            Fault(0.152, "key", "shoe", 2.04, 1, step="betting", edge="enter", round_no=2),
            Fault(0.14, "key", "shoe", 0.86, 3, step="no_more_bets", edge="leave", round_no=2),
            Fault(0.043, "unreadable_card", "panel", 0.4, 3, step="no_more_bets", edge="enter", round_no=6),
            Fault(0.249, "link_down", "shoe", 2.83, 2, step="no_more_bets", edge="leave", round_no=6),
            Fault(0.109, "reboot", "shoe", 2.69, 2, step="check_deal", edge="leave", round_no=7),
            Fault(0.242, "journal_error", "bet_spots", 2.88, 2, step="settlement", edge="leave", round_no=8),
        ),
        "--game pai_gow --seed 13 --swarm --faults ci (shrunk on the revision before issue 41 item 2's fix): "
        "model_hidden, round 9, setting: a card shown in the dealer's hand that the model keeps face down",
        "a waiting card read as one already dealt was entered in the round's last place, the cards out after it "
        "each one place off (items 2 and 4)",
        swarm=True,
        resettle=False,
        name="pai_gow_seed_13_a_duplicate_read_among_waiting_cards",
    ),
    Shrunk(
        "boston5",
        7111,
        10,
        (
            Fault(0.124, "state_nak", "shoe", 0.0, 2, step="bonus_settlement", edge="enter", round_no=4),
            Fault(0.162, "link_down", "shoe", 1.38, 3, step="no_more_bets", edge="leave", round_no=4),
            Fault(0.152, "reboot", "panel", 0.35, 1, step="second_wager", edge="leave", round_no=5),
            Fault(0.094, "link_down", "panel", 1.57, 3, step="no_more_bets", edge="enter", round_no=6),
            Fault(0.191, "jam", "panel", 0.48, 1, step="settlement", edge="leave", round_no=6),
            Fault(0.199, "link_down", "bet_spots", 1.63, 1, step="final_deal", edge="leave", round_no=7),
            Fault(0.015, "state_nak", "bet_spots", 0.0, 2, step="no_more_bets", edge="enter", round_no=7),
            Fault(0.189, "crash", "panel", 1.4, 3, step="first_deal", edge="leave", round_no=9),
            Fault(0.064, "state_nak", "shoe", 0.0, 1, step="settlement", edge="enter", round_no=10),
            Fault(0.0, "state_nak", "panel", 0.0, 3, step="settlement", edge="leave", round_no=10),
            Fault(0.149, "state_nak", "shoe", 0.0, 2, step="settlement", edge="leave", round_no=10),
            Fault(0.199, "state_nak", "bet_spots", 0.0, 1, step="settlement", edge="leave", round_no=10),
        ),
        "attack13 (`--seeds 60 --first 7100 --swarm --faults all`): `resume`, round 9",
        "The bet spots' link went down in round 8, the supervisor voided it, round 9 opened held for the link and"
        ' a "no more bets" was refused; the controller crashed and replayed round 9 from the snapshot journaled '
        "as it opened, which did not say the link was down: the replay opened free, took the refused press, and "
        "every later change of the bets became a late bet (other wagers). The snapshot now names the devices "
        "whose link is down (``links_down``) and the replay holds.",
        swarm=True,
        name="boston5_seed_7111_a_crash_in_a_round_opened_held_for_a_link_down_resumes_its_wagers",
    ),
    Shrunk(
        "mississippi_stud",
        20222,
        10,
        (
            Fault(0.159, "crash", "bet_spots", 1.76, 3, step="fifth_street", edge="enter", round_no=1),
            Fault(0.008, "unreadable_card", "bet_spots", 2.38, 3, step="third_street", edge="leave", round_no=1),
            Fault(0.139, "count_restart", "bet_spots", 0.78, 2, step="fifth_street", edge="leave", round_no=2),
            Fault(0.121, "reboot", "shoe", 0.75, 3, step="no_more_bets", edge="enter", round_no=2),
            Fault(0.028, "reboot", "panel", 0.2, 3, step="no_more_bets", edge="leave", round_no=2),
            Fault(0.094, "link_down", "bet_spots", 1.4, 2, step="settlement", edge="enter", round_no=2),
            Fault(0.032, "unreadable_card", "panel", 2.64, 3, step="no_more_bets", edge="enter", round_no=4),
            Fault(0.004, "early_card", "panel", 0.15, 2, step="fifth_street", edge="leave", round_no=8),
            Fault(0.158, "state_nak", "shoe", 0.0, 2, step="settlement", edge="held", round_no=8),
            Fault(0.171, "state_nak", "shoe", 0.0, 3, step="betting", edge="enter", round_no=9),
            Fault(0.151, "link_down", "panel", 0.82, 1, step="dealing", edge="held", round_no=9),
            Fault(0.222, "count_restart", "shoe", 1.22, 1, step="third_street", edge="leave", round_no=9),
            Fault(0.114, "count_restart", "shoe", 2.16, 1, step="betting", edge="enter", round_no=10),
            Fault(0.089, "link_down", "bet_spots", 2.27, 3, step="no_more_bets", edge="leave", round_no=10),
            Fault(0.185, "link_down", "bet_spots", 2.85, 1, step="settlement", edge="leave", round_no=10),
            Fault(0.231, "early_card", "bet_spots", 2.4, 3, step="third_street", edge="enter", round_no=10),
        ),
        "sweep13 (`--seed 20222 --swarm --faults all --liveness 2`): `model_hidden`, round 4, fourth street",
        "A misread card read again at its own number after clear fault was placed, yet the table still waited for"
        " it: every later card went one place late and seat 4's face-down card was shown as a community card "
        "(35.9). The card read again now ends the wait (tests/test_sweep13_read_again_after_clear_fault.py has it"
        " at a fed table).",
        swarm=True,
        name="mississippi_stud_seed_20222_a_misread_card_read_again_after_clear_fault",
    ),
    Shrunk(
        "three_card_poker",
        201,
        2,
        (
            Fault(0.3, "count_restart", "bet_spots", 0.71, 2),
            Fault(0.369, "disk_full", "panel", 2.83, 1),
            Fault(0.663, "wrong_press", "panel", 1.0, 2),
            Fault(0.724, "disk_full", "bet_spots", 1.22, 2),
        ),
        "`tablectl simulate --game three_card_poker --seed 201 --rounds 2 --faults ci` (shrunk): `model_hidden`, "
        'round 1, settlement: seat 6\'s played hand "names a card the rules keep face down"',
        "The cards of the deal came out during a disk-full hold, the shoe's count started over before the "
        "supervisor accepted them, and the model's deal order forgot the card waiting (every card after it one "
        "place early, seat 6's first card given to seat 5, which folded). The table was right; the model's deal "
        "order is fixed (tests/test_simulate_model.py, each card of the deal waiting).",
        name="three_card_poker_seed_201_a_held_deal_accepted_after_the_shoe_count_started_over",
    ),
    Shrunk(
        "three_card_poker",
        139,
        10,
        (
            Fault(0.058, "journal_error", "bet_spots", 1.01, 2, step="dealing", edge="leave", round_no=1),
            Fault(0.047, "jam", "bet_spots", 2.89, 2, step="settlement", edge="enter", round_no=1),
            Fault(0.018, "disk_full", "panel", 2.69, 2, step="dealing", edge="leave", round_no=2),
            Fault(0.185, "key", "bet_spots", 0.75, 1, step="dealing", edge="leave", round_no=2),
            Fault(0.137, "unreadable_card", "bet_spots", 1.98, 3, step="play", edge="enter", round_no=2),
            Fault(0.119, "key", "shoe", 0.57, 1, step="no_more_bets", edge="leave", round_no=3),
            Fault(0.041, "journal_error", "panel", 0.94, 3, step="dealing", edge="enter", round_no=4),
            Fault(0.179, "count_jump", "panel", 0.24, 3, step="no_more_bets", edge="enter", round_no=5),
            Fault(0.178, "journal_error", "panel", 2.65, 1, step="play", edge="enter", round_no=5),
            Fault(0.106, "unreadable_card", "bet_spots", 1.35, 3, step="betting", edge="enter", round_no=6),
            Fault(0.155, "count_jump", "panel", 1.51, 1, step="no_more_bets", edge="leave", round_no=8),
            Fault(0.033, "door", "bet_spots", 0.98, 2, step="settlement", edge="leave", round_no=8),
            Fault(0.043, "crash", "bet_spots", 0.83, 2, step="settlement", edge="enter", round_no=10),
        ),
        "`tablectl simulate --game three_card_poker --seed 139 --rounds 10 --faults ci --swarm` (shrunk to 13 "
        "faults): `resume`, round 10 at settlement live, at betting after the crash",
        "The supervisor turned the key on to void round 9 (the shoe counted 13 cards out, the table 12); round 10"
        " opened held for the same count, with the key still on, and he cleared the fault. The round's start "
        "snapshot said the key was on, but the replay took it as off (a restart turns it off), so the replayed "
        "clear fault was refused and the round stayed held in betting. The replay now takes the key (and the "
        "supervisor signed in) from the snapshot, and turns it off once it is over "
        "(tests/test_replay_authority.py: every game).",
        swarm=True,
        name="three_card_poker_seed_139_a_fault_cleared_with_the_key_turned_on_before_the_round_started",
    ),
    Shrunk(
        "boston5",
        21080,
        1,
        (
            Fault(0.3, "jam", "shoe", 1.52, 2),
            Fault(0.371, "duplicate_card", "bet_spots", 2.67, 3),
            Fault(0.776, "restart", "shoe", 0.21, 2),
            Fault(1.463, "late_bet", "bet_spots", 2.91, 1),
            Fault(1.694, "door", "bet_spots", 1.63, 3),
            Fault(2.249, "link_down", "bet_spots", 2.16, 1),
            Fault(2.454, "state_garbled", "bet_spots", 0.0, 2),
            Fault(3.456, "wrong_press", "shoe", 1.81, 1),
        ),
        "--game boston5 --seed 21080 --rounds 10 --faults all --liveness 2 --shrink (sweep13): model",
        "the checker, not the table: a card entered for a misread set aside before the shoe's count started over "
        "was dealt last by the reference order (in_deal_order); it now keeps the misread's place "
        "(tests/test_sweep13_reread_after_restart.py has the card log alone)",
    ),
    Shrunk(
        "boston5",
        6822,
        3,
        (
            Fault(0.197, "duplicate_card", "bet_spots", 1.6, 1, step="settlement", edge="enter", round_no=2),
            Fault(0.12, "restart", "shoe", 1.63, 3, step="final_deal", edge="enter", round_no=3),
            Fault(0.126, "duplicate_card", "panel", 2.93, 2, step="second_wager", edge="leave", round_no=3),
        ),
        "--game boston5 --seed 6822 --rounds 10 --swarm --faults ci --shrink (on 7685426, where the CI swarm "
        'seeds were chosen): model, round 3: "card 14 of 18 went to seat 5, the rules send it to seat 1"',
        "the checker's bug of seed 21080 above (fixed in in_deal_order): the card entered for seat 1's misread "
        "fifth card after the shoe restarted is seat 1's (24.10(d)), where the table put it "
        "(tests/test_sweep13_reread_after_restart.py has round 3's card log)",
        swarm=True,
    ),
)
"""Each failure the simulation found, as its shrunk scenario (docs/simulate.md, "What it found")."""


@pytest.mark.parametrize("case", SHRUNK, ids=lambda c: c.name or f"{c.game}-{c.seed}-{len(c.faults)}")
def test_each_shrunk_finding_keeps_every_invariant(case: Shrunk) -> None:
    """Each shrunk scenario (``case.found``, ``case.why``) now keeps every invariant."""
    faults = list(case.faults)
    result = run_seed(
        case.game, case.seed, (), rounds=case.rounds, faults=faults, resettle=case.resettle, swarm=case.swarm
    )
    assert result.ok, f"{case.found}: {result.broken}: {result.detail}"


def test_journal_error_runs_in_ci_since_its_finding_was_fixed() -> None:
    assert "journal_error" not in OPEN_FINDINGS and "journal_error" in CI_KINDS


CI_SEEDS = int(os.environ.get("TABLECTL_SIM_SEEDS", "40"))
"""Seeds of each game the CI run plays (issue 32 asks for 1,000 within 90 s of CPU; see
docs/simulate.md for what a seed costs now): ``TABLECTL_SIM_SEEDS`` sets another number."""


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_every_ci_seed_keeps_every_invariant(game: str) -> None:
    summary = run_seeds(game, range(1, CI_SEEDS + 1), CI_KINDS, rounds=2, workers=1)
    failed = [f"seed {r.seed}: {r.broken}: {r.detail}" for r in summary.failed]
    assert not failed, "\n".join(failed[:5])
    assert summary.seeds == CI_SEEDS and summary.rounds >= 2 * CI_SEEDS  # a round under way may end as it settles
    assert summary.resettled > 0 and not summary.differ


STACKS_SEEDS = (4, 2)
"""Seeds of pai gow dealt by stacks the CI run plays per start method: two rounds each with the
CI's fault kinds, and ten rounds each under the swarm's schedule (about 2 s of CPU per method)."""


def _stacks_table(folder: Path, start_method: str) -> Path:
    """The bench's pai gow table dealt by 7-card stacks from an automated shoe (31.10), its start
    by ``start_method`` (31.11), written in ``folder``: the bench file with those two settings
    changed and its paytables' folder named where it is (``PAYTABLES`` in the text)."""
    text = (BENCH / "pai_gow.yaml").read_text(encoding="utf-8")
    for key, value in (("deal_method", "stacks"), ("start_method", start_method), ("paytables_dir", "PAYTABLES")):
        text, n = re.subn(rf"(?m)^{key}: \S+", f"{key}: {value}", text)
        assert n == 1, f"config/bench/pai_gow.yaml: no single {key} line to change"
    path = folder / f"pai_gow_stacks_{start_method}.yaml"
    path.write_text(text.replace("PAYTABLES", str(BENCH.parent / "paytables")), encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("start_method", ["dice", "rng"])
def test_pai_gow_dealt_by_stacks_keeps_every_invariant(
    start_method: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """31.10: an automated shoe dispenses a stack of seven to each position in turn; the reference
    model places them itself (a dealer's card it keeps face down, shown at setting, is a finding)."""
    from controller.configuration import load_table
    from hil.simulate import run

    table = load_table(_stacks_table(tmp_path, start_method))
    assert table.options["deal_method"] == "stacks" and table.options["start_method"] == start_method
    monkeypatch.setattr(run, "bench_table", lambda game: table)
    plain, swarm = STACKS_SEEDS
    results = [run_seed("pai_gow", seed, CI_KINDS, rounds=2) for seed in range(1, plain + 1)]
    results += [run_seed("pai_gow", seed, CI_KINDS, rounds=10, swarm=True) for seed in range(1, swarm + 1)]
    failed = [f"seed {r.seed}: {r.broken}: {r.detail}" for r in results if not r.ok]
    assert not failed, "\n".join(failed)
    assert all(r.rounds >= 2 for r in results)


def test_the_cli_runs_a_seed_and_refuses_bad_input() -> None:
    code, out, err = cli("simulate", "--game", "boston5", "--seed", "3", "--rounds", "1", "--faults", "jam,door")
    assert code == 0, err
    assert "seed 3: 1 rounds" in out and "every invariant held" in out
    code, _, err = cli("simulate", "--faults", "jam,nope")
    assert code == 2 and "unknown fault kind 'nope'" in err and "Traceback" not in err
    code, _, err = cli("simulate", "--seed", "1", "--seeds", "2")
    assert code == 2 and "not both" in err


def test_found_a_misread_card_hold_does_not_say_deal_while_the_shoe_is_down(tmp_path: Path) -> None:
    """Found by `tablectl simulate --game boston5 --seed 22 --rounds 2 --faults ci`: a card read as
    unreadable holds the table with "deal it again to re-read"; the shoe's link then went down and
    the screen still told the dealer to deal (invariant deal_while_down)."""
    world = World(bench_table("boston5"), 1, [], tmp_path / "j.db")
    world.advance(0.5)
    world.spots.place(2, "ante", 500)
    world.spots.place(2, "first", 1000)
    world.advance(0.5)
    world.panel.press("no_more_bets")
    world.advance(0.5)
    world.shoe.load(["As", "Kd", "Qh", "Jc", "Ts", "9d", "8c", "7h", "6s"])
    world.shoe.deal(2)
    world.shoe.unreadable()
    world.advance(0.5)
    held = world.runtime.snapshot
    assert held.hold is not None and held.hold.reason.startswith("unreadable card")
    assert "deal it again" in " ".join(held.screen)  # the shoe is there: read it again
    world.lines["shoe"].connected = False
    world.advance(2.0)  # past link_down_s: the table sees the shoe's link down
    s = world.runtime.snapshot
    world.close()
    assert "deal" not in " ".join(s.screen[1:]), s.screen
    assert any("wait for the device" in line for line in s.screen), s.screen


@pytest.mark.parametrize("game", GAMES)
def test_after_a_crash_the_table_resumes_the_same_round_from_its_journal(game: str) -> None:
    """Crashes at random records, each recovered from the journal: the same round at the same
    step, the cards and the journal intact, and the screen never says deal before the devices
    connect again (it did, just after a restart: issue 32's never-connected rule)."""
    crashes = 0
    for seed in range(1, 9):
        res = run_seed(game, seed, ("crash", "link_down", "late_bet"), rounds=2)
        assert res.ok, f"seed {seed}: {res.broken}: {res.detail}"
        crashes += res.crashes
    assert crashes >= 3


def test_every_chip_is_accounted_for_or_the_round_is_named() -> None:
    from types import SimpleNamespace

    from controller.wagers import Result, WagerResult
    from hil.simulate.invariants import Broken, check_chips

    record = {"seats": {"2": {"wagers": {"ante": 500, "first": 1000}}}}
    ante = WagerResult("ante", 500, Result.LOSE, -500, "")
    first = WagerResult("first", 1000, Result.WIN, 1000, "")
    paid = SimpleNamespace(
        seat=2, actions=(SimpleNamespace(verb="collect", cents=500), SimpleNamespace(verb="pay", cents=1000))
    )
    ok = SimpleNamespace(seats=(SimpleNamespace(seat=2, wagers=(ante, first), net=500),), procedure=(paid,))
    check_chips(1, record, ok, ("ante", "first"))
    missing = SimpleNamespace(seats=(SimpleNamespace(seat=2, wagers=(ante,), net=-500),), procedure=(paid,))
    with pytest.raises(Broken, match="round 1: wagers not settled \\[\\(2, 'first'\\)\\]"):
        check_chips(1, record, missing, ("ante", "first"))
    short = SimpleNamespace(seats=(SimpleNamespace(seat=2, wagers=(ante, first), net=500),), procedure=())
    with pytest.raises(Broken, match="seat 2: the procedure pays less collects 0, the seat's net is 500"):
        check_chips(1, record, short, ("ante", "first"))


def test_a_log_line_of_another_thread_is_not_the_simulated_tables() -> None:
    """Issue 41 item 6: the simulated table runs in one thread; a line another thread of the same
    process logs (a test's table or server left running, on a loaded machine) names cards of no
    round of the seed and is not checked; the table's own lines are."""
    import logging
    import threading

    from hil.simulate.invariants import LogWatch

    watch = LogWatch()
    watch.hidden = frozenset({"Ks"})
    logger = logging.getLogger("tablectl.test_logwatch")
    logger.addHandler(watch)
    logger.propagate = False
    try:
        other = threading.Thread(target=lambda: logger.warning("another table: seat 2 holds Ks"))
        other.start()
        other.join()
        assert watch.broken is None and watch.lines == 0
        logger.warning("seat 2 holds Ks")
        assert watch.broken is not None and watch.broken.name == "hidden_card"
    finally:
        logger.removeHandler(watch)


@pytest.mark.parametrize("device", ["shoe", "bet_spots", "panel"])
def test_a_device_that_refuses_its_state_request_is_read_and_the_restart_hold_clears_by_itself(device: str) -> None:
    """Found from outside, then by the simulation (fault kind ``state_nak``, liveness): the
    controller starts again with a round open and holds until every device is back and read ("clears
    by itself"); a device NAKs the state request (three times). It was not asked again until its
    next link-up, so the hold never cleared (``liveness``: still on 30 s after the last fault's
    effect ended). Now it is asked again with the link's backoff and the round goes on."""
    faults = [Fault(0.3, "state_nak", device, 0.0, 3), Fault(0.5, "crash")]
    res = run_seed("mississippi_stud", 1, (), rounds=2, faults=faults, liveness=1)
    assert res.ok, f"{res.broken}: {res.detail}"
    assert res.faults == ["state_nak", "crash"] and res.crashes == 1 and res.rounds >= 3


_OUTAGES = {
    "crash": (0.3, Fault(0.5, "crash")),
    "journal_error": (2.9, Fault(0.5, "journal_error", "shoe", 2.5, 3)),
}
"""A fault after which the table holds until each device's state is read again, and when the
device's state answers are damaged (before the state is asked again: the restart's, at the
journal's return)."""


@pytest.mark.parametrize(
    ("device", "outage", "damaged"),
    [
        *((device, "crash", 3) for device in ("shoe", "bet_spots", "panel")),
        *((device, "journal_error", damaged) for device in ("bet_spots", "panel") for damaged in (1, 3)),
    ],
)
def test_a_device_whose_state_answers_are_damaged_is_read_and_its_hold_clears_by_itself(
    device: str, outage: str, damaged: int
) -> None:
    """Found by the simulation (fault kind ``state_garbled``, liveness): after a controller restart
    or a journal outage the table holds until each device's state is read again ("clears by
    itself"); a device's next state answer is cut too short to read, or its next three name a
    part not asked for. Either stopped the reading until the device's next link-up, so the hold
    never cleared (``liveness``: still on 30 s after the last fault's effect ended). Now the state
    is asked again, after three tries with the link's backoff, and the round goes on. (The shoe
    after a journal outage, and a cut-short answer after a restart, are left out: the old code got
    through them too, the state being asked again another way.)"""
    at, fault = _OUTAGES[outage]
    faults = sorted([Fault(at, "state_garbled", device, 0.0, damaged), fault], key=lambda f: f.at)
    res = run_seed("mississippi_stud", 1, (), rounds=2, faults=faults, liveness=1)
    assert res.ok, f"{res.broken}: {res.detail}"
    assert sorted(res.faults) == sorted(["state_garbled", outage]) and res.rounds >= 3


OLD_KINDS = tuple(k for k in FAULT_KINDS if k not in OWN_STREAM_KINDS)
"""The kinds before ``state_nak`` and ``state_garbled`` (the guard's list, in its order)."""


@pytest.mark.parametrize("new", [("state_nak",), ("state_garbled",), ("state_nak", "state_garbled")])
def test_a_kind_drawn_from_its_own_stream_leaves_every_seeds_other_faults_as_they_were(new: tuple[str, ...]) -> None:
    """``state_nak`` and ``state_garbled`` came after seeds' schedules were relied on (the guard's
    journals, the CI seeds): naming either or both adds their faults to a seed and changes none of
    the others (nor each other's), in the default schedule and the swarm's of every game."""
    from hil.simulate.swarm import swarm_schedule

    assert len(OLD_KINDS) == 19
    added = 0
    for seed in range(1, 60):
        with_it = schedule(seed, (*OLD_KINDS, *new), 2)
        assert [f for f in with_it if f.kind not in new] == schedule(seed, OLD_KINDS, 2)
        for kind in new:
            assert [f for f in with_it if f.kind == kind] == schedule(seed, (kind,), 2)
        added += len(with_it) - len(schedule(seed, OLD_KINDS, 2))
        for game in GAMES:
            swarm = swarm_schedule(seed, game, (*OLD_KINDS, *new), 10)
            assert [f for f in swarm if f.kind not in new] == swarm_schedule(seed, game, OLD_KINDS, 10)
    assert added > 20


def test_a_link_that_spins_is_a_liveness_failure_and_a_pulled_line_does_not_spin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found by profiling the simulation (swarm seeds 1 and 2 of Mississippi Stud): at the
    ``link_down_s`` boundary a link sent request after request with their deadline already past,
    until the wire's budget of 1,000 requests ended the run, unreported. Fixed, a pulled line
    costs its retries and reconnects and the seed holds; with the bug's rule put back (the link
    found silent only after the boundary, so requests go out with their deadline past; the bug's
    window was the one instant where the floats met, widened here so that every outage meets it)
    the wire spins and the seed breaks ``liveness``, naming the link."""
    from drivers._exchange import Exchange

    faults = [Fault(0.3, "link_down", "panel", 4.0, 1)]
    fixed = run_seed("mississippi_stud", 1, (), rounds=1, faults=faults)
    assert fixed.ok, f"{fixed.broken}: {fixed.detail}"

    def late(self: Exchange, now: float) -> bool:
        return now - self.last_good > self.config.link_down_s + 0.05

    monkeypatch.setattr(Exchange, "silent", late)
    found = run_seed("mississippi_stud", 1, (), rounds=1, faults=faults)
    assert found.broken == "liveness" and "panel link spun" in found.detail, f"{found.broken}: {found.detail}"
