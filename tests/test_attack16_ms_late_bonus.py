"""Attack on Mississippi Stud's three-card bonus placed late: chips put on a seat's bonus spot after
"no more bets", once cards of the round are out of the shoe, are accepted by the supervisor's
``next``, even at the third street when the three community cards that alone settle the bonus
(regulations digest 2.6: the bonus is settled on the community cards) are already dealt.

The rule: "No more bets" before the shoe dispenses any stack (35.9(c), digest 2.3 item 3); the
bonus is placed with the ante before it (digest 2.5 item 1); the dealer guide's own table says a
late bet is never accepted where cards already decide it (the Boston 5 bonus, the pai gow bonus and
insurance, the Three Card Poker side wagers are refused "once a card of the round is dealt"). Found
on main: ``supervisor: late bet accepted: seat 1 bonus now 5.00`` after 1, 4 or all 7 cards, and
at the third street, held or not; a bonus raised or taken back the same (a losing bonus
withdrawn once its cards are out). (Not the pre-deal ante/first/pai gow case another helper fixes:
this is the optional bonus, decided by cards already dealt face down.)"""

from __future__ import annotations

import pytest
from late_bet_helpers import assert_late_refused, late_change
from table_helpers import closed_table

CARDS = "2c 3c 5c 6c 8c 9c Tc"  # seat 1, seat 4, then the three community cards (35.9)


CHANGES = {"placed": (0, 500), "raised": (500, 1000), "taken back": (500, 0)}
"""The seat's bonus at "no more bets", then the chips on its bonus spot after cards are dealt."""


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize("change", CHANGES)
@pytest.mark.parametrize("dealt", [1, 4, 6, 7], ids=["1 card", "4 cards", "6 cards", "third street"])
def test_a_late_bonus_change_is_refused_once_cards_are_dealt(dealt: int, change: str, held: bool) -> None:
    placed, late = CHANGES[change]
    bets = ((1, "ante", 500), (4, "ante", 500), *(((1, "bonus", placed),) if placed else ()))
    t = closed_table("mississippi_stud", bets)
    t.deal(" ".join(CARDS.split()[:dealt]))
    assert t.snapshot().step == ("third_street" if dealt == 7 else "dealing"), t.snapshot().step
    before = t.snapshot().seat(1)
    assert before is not None
    late_change(t, 1, "bonus", late, held)
    assert_late_refused(t, before.wager_map(), 1, "bonus")
