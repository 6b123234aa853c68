"""Late changes to the wagers placed before the deal, in every game (docs/dealer-guide.md, "Accept /
refuse a late or removed bet"; ``controller/table/_late_bets.py``).

Every wager a seat places before the deal (the game's ``bet_spots``: Mississippi Stud's ante and
bonus, Boston 5's ante, first wager and bonus, pai gow's pai gow, bonus and insurance wagers,
Three Card Poker's ante, pair plus and 6 Card Bonus) is placed before "no more bets", which is
announced before any card (24.8(b)4, 5; 35.9, digest 2.3; 31.10, digest 3.4; 20.6, inferred).
Found: a supervisor's ``next`` accepted a late change to some of them once cards of the round were
out: a Mississippi Stud ante (it sets every street bet, 1x-3x the ante, 35.10(a)) or bonus after
the player's two cards, a pai gow wager after the player's seven cards (until the dealer's hand was
exposed). Boston 5's ante and first wager were closed only by the 2 x ante rule, the bonus and
Three Card Poker's wagers by each game's own copy of the rule. Now one rule closes them all, at the
first card of the round out of the shoe (placed, or waiting for the supervisor), held or not, in
every step after: ``cannot enter a round already dealt: <what the cards decide of it, the game's
rule>`` (or, as before, ``a hand already collected or paid`` / ``a round already settled``). A
change pending when the deal starts is decided by the rule as the supervisor acts: refused once the
first card is out.

Before the first card a supervisor may still accept a change that keeps the game's seat rules.
Found: a Three Card Poker seat with a pair plus alone (20.6, inferred: a pair plus may be bet
alone) could get no late change accepted even then, refused with "the ante wager stays with a dealt
hand" before any card. The game's own seat rules decide now, and a refusal before the deal never
says "dealt".

These tests replace the per-game ones of the night before (Three Card Poker's late bets, Boston 5's
late bonus, pai gow's late change once the dealer's hand is exposed): those expected a pai gow
wager to be accepted until the dealer's hand was exposed, which the rule now refuses once the
player's own cards are out.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from late_bet_helpers import assert_late_accepted, assert_late_refused, late_change
from table_helpers import FedTable, at_step, closed_table

from controller.vocab import deck
from drivers.link import LinkDown
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, CardUnreadable, Jam

Steps = dict[str, Callable[[], FedTable]]
SIX = "six_card_bonus"
DEALT = "cannot enter a round already dealt: "
ALREADY = ("cannot enter a hand already collected or paid", "cannot enter a round already settled")
"""The refusals that come first where the dealer moved the seat's chips, or the record is settled."""


def stepped(t: FedTable, step: str, *presses: str) -> FedTable:
    """``t`` after ``presses``, at ``step``."""
    t.press(*presses)
    return at_step(t, step)


# --- Mississippi Stud: seat 1 ante 5.00 and bonus 5.00, seat 2 ante 5.00 -------------------------

MS_CARDS = "As Ad Kc Qd 7h 8h 2c"
"""Seat 1 A-A, seat 2 K-Q, the community 7-8-2."""


def ms_table() -> FedTable:
    return closed_table("mississippi_stud", ((1, "ante", 500), (1, "bonus", 500), (2, "ante", 500)))


def ms_dealt(n: int) -> FedTable:
    t = ms_table()
    t.deal(" ".join(MS_CARDS.split()[:n]))
    return t


def ms_street(street: str, *before: str) -> Callable[[], FedTable]:
    """Both seats bet 5.00 on each street of ``before``, revealing after each; then at ``street``."""

    def make() -> FedTable:
        t = ms_dealt(7)
        for done in before:
            t.spot(1, done, 500)
            t.spot(2, done, 500)
            t.press("reveal")
        return at_step(t, f"{street}_street" if street != "settlement" else "settlement")

    return make


def ms_third_one_acted() -> FedTable:
    t = ms_dealt(7)
    t.spot(1, "third", 500)
    return at_step(t, "third_street")


MS_DEALT: Steps = {
    "first card": lambda: at_step(ms_dealt(1), "dealing"),
    "a community card": lambda: at_step(ms_dealt(5), "dealing"),
    "third street": ms_street("third"),
    "third street, seat 1 bet": ms_third_one_acted,
    "fourth street": ms_street("fourth", "third"),
    "fifth street": ms_street("fifth", "third", "fourth"),
    "settlement": ms_street("settlement", "third", "fourth", "fifth"),
}

# --- Boston 5: seats 1 and 2 ante 5.00, first 10.00; seat 2 a bonus of 5.00 -----------------------

B5_FIRST = "As Ks Qs 2h 7d 9c 3c 4d 5h"
"""Seat 1 A-K-Q, seat 2 2-7-9 (its bonus loses), the dealer 3-4-5."""


def b5_table() -> FedTable:
    return closed_table(
        "boston5", ((1, "ante", 500), (1, "first", 1000), (2, "ante", 500), (2, "first", 1000), (2, "bonus", 500))
    )


def b5_dealt(n: int) -> FedTable:
    t = b5_table()
    t.deal(" ".join(B5_FIRST.split()[:n]))
    return t


def b5_second_wager() -> FedTable:
    return stepped(b5_dealt(9), "second_wager", "next", "confirm")  # nobody exposes; seat 2's bonus collected


def b5_final_deal() -> FedTable:
    t = b5_second_wager()
    t.spot(1, "second", 1000)
    t.spot(2, "second", 1000)
    return stepped(t, "final_deal", "deal")


def b5_settlement() -> FedTable:
    t = b5_final_deal()
    t.deal("6h 8d Tc Jd 2c 3d")
    return at_step(t, "settlement")


B5_DEALT: Steps = {
    "first card": lambda: at_step(b5_dealt(1), "first_deal"),
    "first deal": lambda: at_step(b5_dealt(4), "first_deal"),
    "bonus": lambda: at_step(b5_dealt(9), "bonus"),
    "bonus settlement": lambda: stepped(b5_dealt(9), "bonus_settlement", "next"),
    "second wager": b5_second_wager,
    "final deal": b5_final_deal,
    "settlement": b5_settlement,
}

# --- Pai gow: seat 2 pai gow 10.00 and bonus 1.00, seat 5 pai gow 25.00 and insurance 1.00 --------

PG_CARDS = [str(c) for c in deck(joker=True)[:49]]


def pg_table() -> FedTable:
    return closed_table(
        "pai_gow", ((2, "pai_gow", 1000), (2, "bonus", 100), (5, "pai_gow", 2500), (5, "insurance", 100))
    )


def pg_dealt(n: int) -> FedTable:
    t = pg_table()
    t.press("confirm")  # the dice total
    t.deal(" ".join(PG_CARDS[:n]))
    return t


def pg_setting(confirms: int) -> Callable[[], FedTable]:
    """After the stub and the hands set, the dealer's hand exposed and set (11.9), then ``confirms``
    more: the dealer's step, seat 5's set and its step (turned and settled), seat 2's set."""

    def make() -> FedTable:
        return stepped(pg_dealt(49), "setting", "confirm", "confirm", *["confirm"] * confirms)

    return make


PG_DEALT: Steps = {
    "first card": lambda: at_step(pg_dealt(1), "dealing"),
    "check deal": lambda: at_step(pg_dealt(49), "check_deal"),
    "set hands": lambda: stepped(pg_dealt(49), "set_hands", "confirm"),
    "dealer shown": pg_setting(0),
    "dealer confirmed": pg_setting(1),
    "seat 5 settled": pg_setting(2),
    "seat 2 turned": pg_setting(3),
}

# --- Three Card Poker: seat 1 ante 5.00; seat 2 ante, pair plus and 6 Card Bonus of 5.00 each;
# seat 3 a pair plus of 5.00 alone ---------------------------------------------------------------

TCP_CARDS = "As Ks Qs 2h 7d 9c 3c 4d 5h Qc 8h 4h"
"""Seat 1 A-K-Q, seat 2 2-7-9, seat 3 3-4-5, the dealer Q-8-4 (qualifies)."""


def tcp_table() -> FedTable:
    return closed_table(
        "three_card_poker",
        ((1, "ante", 500), (2, "ante", 500), (2, "pair_plus", 500), (2, SIX, 500), (3, "pair_plus", 500)),
    )


def tcp_dealt(n: int) -> FedTable:
    t = tcp_table()
    t.deal(" ".join(TCP_CARDS.split()[:n]))
    return t


def tcp_one_played() -> FedTable:
    t = tcp_dealt(12)
    t.spot(1, "play", 500)
    return at_step(t, "play")


def tcp_settlement() -> FedTable:
    t = tcp_one_played()
    t.spot(2, "play", 500)
    return stepped(t, "settlement", "reveal")


TCP_DEALT: Steps = {
    "first card": lambda: at_step(tcp_dealt(1), "dealing"),
    "dealer cards": lambda: at_step(tcp_dealt(10), "dealing"),
    "play": lambda: at_step(tcp_dealt(12), "play"),
    "play, seat 1 played": tcp_one_played,
    "settlement": tcp_settlement,
}

# --- every game ---------------------------------------------------------------------------------

TABLES: dict[str, Callable[[], FedTable]] = {
    "mississippi_stud": ms_table,
    "boston5": b5_table,
    "pai_gow": pg_table,
    "three_card_poker": tcp_table,
}
DEALT_STEPS: dict[str, Steps] = {
    "mississippi_stud": MS_DEALT,
    "boston5": B5_DEALT,
    "pai_gow": PG_DEALT,
    "three_card_poker": TCP_DEALT,
}
"""Each game's steps once a card of the round is out (every street, decision or settlement step)."""

FIRST_CARD = {"mississippi_stud": "As", "boston5": "As", "pai_gow": PG_CARDS[0], "three_card_poker": "As"}

RULE = {
    ("mississippi_stud", "ante"): "35.10(a)",
    ("mississippi_stud", "bonus"): "digest 2.5",
    ("boston5", "ante"): "24.8(b)4",
    ("boston5", "first"): "24.8(b)4",
    ("boston5", "bonus"): "24.10(a)",
    ("pai_gow", "pai_gow"): "31.10",
    ("pai_gow", "bonus"): "11.15(b), (d)2",
    ("pai_gow", "insurance"): "11.15(b), (d)2",
    ("three_card_poker", "ante"): "20.11(b)",
    ("three_card_poker", "pair_plus"): "20.11(c)",
    ("three_card_poker", SIX): "20.6, inferred",
}
"""The rule each refusal once a card is out names, by game and spot (every spot of ``bet_spots``)."""

Change = tuple[int, str, int]
AFTER: dict[str, list[Change]] = {
    "mississippi_stud": [(1, "ante", 1000), (2, "ante", 0), (2, "bonus", 500), (1, "bonus", 0)],
    "boston5": [
        (1, "ante", 1000),
        (2, "ante", 0),
        (1, "first", 2000),
        (2, "first", 0),
        (1, "bonus", 500),
        (2, "bonus", 0),
    ],
    "pai_gow": [
        (2, "pai_gow", 5000),
        (5, "pai_gow", 0),
        (5, "bonus", 100),
        (2, "bonus", 0),
        (2, "insurance", 200),
        (5, "insurance", 0),
    ],
    "three_card_poker": [
        (1, "ante", 1000),
        (2, "ante", 0),
        (1, "pair_plus", 500),
        (3, "pair_plus", 1000),
        (2, "pair_plus", 0),
        (1, SIX, 500),
        (2, SIX, 0),
        (3, "ante", 500),
    ],
}
"""Each pre-deal spot of each game changed (placed or raised) and taken back (seat 3 of Three Card
Poker has a pair plus alone)."""


def _name(change: Change) -> str:
    seat, spot, cents = change
    return f"seat {seat} {spot} {'taken back' if cents == 0 else f'to {cents / 100:.2f}'}"


AFTER_CASES = [
    pytest.param(game, step, *change, id=f"{game}-{step}-{_name(change)}")
    for game, changes in AFTER.items()
    for step in DEALT_STEPS[game]
    for change in changes
]


def refusal(t: FedTable, seat: int, spot: str) -> str:
    """The line journaling the refusal of the late change to ``seat``'s ``spot``."""
    lines = [
        line for line in t.snapshot().recent if line.startswith(f"supervisor: late bet refused: seat {seat} {spot}")
    ]
    assert lines, t.snapshot().recent
    return lines[-1]


def next_taken(t: FedTable, held: bool) -> bool:
    """Pai gow's setting reads a step first (the dealer's hand, a hand settled): confirm and
    ``next`` take it, the supervisor's act waits (held: it waits until the hold ends). Whether the
    late change was decided."""
    if not t.snapshot().late_bets:
        return True
    assert not any("late bet accepted" in line for line in t.snapshot().recent)
    if held:
        return False
    t.press("confirm", "next")
    return True


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize("game, step, seat, spot, cents", AFTER_CASES)
def test_no_late_change_to_a_pre_deal_wager_once_a_card_is_out(
    game: str, step: str, seat: int, spot: str, cents: int, held: bool
) -> None:
    t = DEALT_STEPS[game][step]()
    before = t.snapshot().seat(seat)
    assert before is not None
    if held:
        t.feed(LinkDown(device="shoe", reason="cable"))
    t.spot(seat, spot, cents)
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("next")
    if not next_taken(t, held):
        seat_now = t.snapshot().seat(seat)
        assert seat_now is not None and seat_now.wager_map() == before.wager_map()
        return
    assert_late_refused(t, before.wager_map(), seat, spot)
    line = refusal(t, seat, spot)
    assert line.endswith(ALREADY) or (DEALT in line and RULE[game, spot] in line), line


BROKEN = [
    ("mississippi_stud", 2, "ante", 0, "seat 2 would have no wager left"),
    ("mississippi_stud", 1, "ante", 0, "seat 1 bonus: needs an ante"),
    ("boston5", 1, "ante", 1000, "seat 1 first: must be 2 x the ante"),
    ("boston5", 2, "ante", 0, "seat 2: needs an ante and a first wager"),
    ("boston5", 1, "first", 2000, "seat 1 first: must be 2 x the ante"),
    ("boston5", 2, "first", 0, "seat 2: needs an ante and a first wager"),
    ("pai_gow", 5, "pai_gow", 0, "seat 5: the optional wagers need a pai gow wager"),
    ("three_card_poker", 1, "ante", 0, "seat 1 would have no wager left"),
    ("three_card_poker", 3, "pair_plus", 0, "seat 3 would have no wager left"),
    ("three_card_poker", 3, SIX, 500, "seat 3 6 Card Bonus: needs an ante"),
    ("three_card_poker", 2, "ante", 0, "seat 2 6 Card Bonus: needs an ante"),
]
"""Changes that break the game's seat rules before the deal, and the rule they break (Boston 5's
ante and first wager: no change alone keeps the first at 2 x the ante)."""
BEFORE = {game: [c for c in changes if (game, *c) not in {b[:4] for b in BROKEN}] for game, changes in AFTER.items()}
"""The changes a supervisor may accept before the first card."""


def pg_dice_entered() -> FedTable:
    t = pg_table()
    t.press("confirm")
    return at_step(t, "dealing")


BEFORE_STEPS: dict[str, Steps] = {
    game: {"no more bets": lambda game=game: at_step(TABLES[game](), "no_more_bets")} for game in TABLES
}
BEFORE_STEPS["pai_gow"]["dice entered"] = pg_dice_entered

BEFORE_CASES = [
    pytest.param(game, step, *change, id=f"{game}-{step}-{_name(change)}")
    for game, changes in BEFORE.items()
    for step in BEFORE_STEPS[game]
    for change in changes
]


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize("game, step, seat, spot, cents", BEFORE_CASES)
def test_before_the_first_card_a_supervisor_may_accept_a_late_change(
    game: str, step: str, seat: int, spot: str, cents: int, held: bool
) -> None:
    t = BEFORE_STEPS[game][step]()
    late_change(t, seat, spot, cents, held)
    assert_late_accepted(t, seat, spot, cents)


@pytest.mark.parametrize("game, seat, spot, cents, why", BROKEN, ids=[f"{b[0]}-{_name(b[1:4])}" for b in BROKEN])
def test_before_the_first_card_a_change_that_breaks_the_seat_rules_is_refused_in_true_words(
    game: str, seat: int, spot: str, cents: int, why: str
) -> None:
    t = at_step(TABLES[game](), "no_more_bets")
    before = t.snapshot().seat(seat)
    assert before is not None
    late_change(t, seat, spot, cents, False)
    assert_late_refused(t, before.wager_map(), seat, spot)
    line = refusal(t, seat, spot)
    assert f"cannot enter the round: {why}" in line and "dealt" not in line, line


OUTSIDE = [
    ("mississippi_stud", 3, "ante", 500, "seat 3 has no wager in it"),
    ("mississippi_stud", 1, "third", 500, "third is no wager placed before the deal"),
    ("boston5", 1, "second", 1000, "second is no wager placed before the deal"),
    ("pai_gow", 1, "pai_gow", 1000, "seat 1 has no wager in it"),
    ("three_card_poker", 1, "play", 500, "play is no wager placed before the deal"),
]
"""Before the first card: a seat not in the round (its seats were fixed at "no more bets"), or a
spot that takes no wager before the deal."""


@pytest.mark.parametrize("game, seat, spot, cents, why", OUTSIDE, ids=[f"{o[0]}-{_name(o[1:4])}" for o in OUTSIDE])
def test_before_the_first_card_a_change_outside_the_round_is_refused_in_true_words(
    game: str, seat: int, spot: str, cents: int, why: str
) -> None:
    t = at_step(TABLES[game](), "no_more_bets")
    before = t.snapshot().seat(seat)
    late_change(t, seat, spot, cents, False)
    after = t.snapshot().seat(seat)
    assert (after and after.wager_map()) == (before and before.wager_map()) and not t.snapshot().late_bets
    line = refusal(t, seat, spot)
    assert line.endswith(f"cannot enter the round: {why}") and "dealt" not in line, line


PENDING = {
    "mississippi_stud": (1, "ante", 1000),
    "boston5": (2, "bonus", 1000),
    "pai_gow": (2, "pai_gow", 5000),
    "three_card_poker": (3, "pair_plus", 1000),
}
"""A change each game accepts before the deal (:data:`BEFORE`), left pending as the deal starts."""


@pytest.mark.parametrize("how", ["placed", "placed, then held", "dealt while held", "unreadable, fault cleared"])
@pytest.mark.parametrize("game", TABLES)
def test_a_change_pending_as_the_deal_starts_is_refused_once_the_first_card_is_out(game: str, how: str) -> None:
    """The change was made between "no more bets" and the first card; the supervisor acts after the
    first card left the shoe: placed (held after it, or not), waiting for him (out while the shoe
    was jammed), or unreadable and the fault cleared without entering it."""
    t = at_step(TABLES[game](), "no_more_bets")
    seat, spot, cents = PENDING[game]
    before = t.snapshot().seat(seat)
    assert before is not None
    t.spot(seat, spot, cents)
    assert t.snapshot().late_bets
    if game == "pai_gow":
        t.press("confirm")  # the dice total
    key = ButtonChanged(device="panel", button="supervisor_key", pressed=True)
    if how == "dealt while held":
        t.feed(Jam(device="shoe"))
    if how == "unreadable, fault cleared":
        t.feed(CardUnreadable(device="shoe", index=1))
        t.feed(key)
        t.press("clear_fault")
        assert t.snapshot().step != "hold"
    else:
        t.feed(CardDealt(device="shoe", card=FIRST_CARD[game], index=1, quality=100))
    if how == "placed, then held":
        t.feed(LinkDown(device="shoe", reason="cable"))
    t.feed(key)
    assert t.snapshot().late_bets
    t.press("next")
    assert_late_refused(t, before.wager_map(), seat, spot)
    assert DEALT in refusal(t, seat, spot)


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize("step", ["first card", "dealer cards", "play, seat 1 played", "settlement"])
def test_a_late_three_card_play_wager_is_refused(step: str, held: bool) -> None:
    """As before: the play wager is no wager before the deal (placed on a seat still to decide,
    raised or taken back on one that played), so it is never a late change to accept."""
    t = TCP_DEALT[step]()
    for seat, cents in ((3, 500), (2, 500)) if step in ("first card", "dealer cards") else ((1, 1000), (1, 0)):
        before = t.snapshot().seat(seat)
        assert before is not None
        late_change(t, seat, "play", cents, held)
        assert_late_refused(t, before.wager_map(), seat, "play")
        held = False  # the hold stays for the second change
