"""Attack on late bets (docs/dealer-guide.md, "Accept / refuse a late or removed bet") once a
dealer's or community card is face up.

In Mississippi Stud, Boston 5 and Three Card Poker no late change is ever accepted once a dealer's
or community card is face up: by then every seat has a street bet, a second wager or a play wager
(a change to its wagers is refused: "cannot enter a round already dealt") or has folded ("cannot
enter a hand already collected or paid"), or the record is settled. Found: in pai gow the dealer's
hand is exposed and set first (11.9, step ``setting``), then each hand is turned; a late change to
a hand not yet turned is accepted by the supervisor's ``next`` with the dealer's seven cards face
up on the layout (the player raising a wager whose result the exposed hand already tells). Not
changed yet (which rule refuses it, and what the simulation's seeds then do, is for the table's
owner): ``xfail(strict=True)``.
"""

from __future__ import annotations

import pytest
from table_helpers import FedTable, bench_table

from controller.table.game_tables import GAME_TABLES
from controller.vocab import deck
from drivers.panel import ButtonChanged

PAI_GOW_SHOE = " ".join(str(c) for c in deck(joker=True)[:49])


def dealer_exposed() -> FedTable:
    """Seats 2 and 5 (pai gow 10.00, 25.00); the dealer's hand exposed and set (11.9); no hand
    turned yet."""
    t = FedTable(GAME_TABLES["pai_gow"], bench_table("pai_gow"))
    t.spot(2, "pai_gow", 1000)
    t.spot(5, "pai_gow", 2500)
    t.press("no_more_bets", "confirm")
    t.deal(PAI_GOW_SHOE)
    t.press("confirm", "confirm", "confirm")  # the stub, the hands set, the dealer's hand exposed and set
    s = t.snapshot()
    assert s.step == "setting" and all(c is not None for c in s.dealer) and len(s.dealer) == 7, s.dealer
    return t


@pytest.mark.xfail(
    strict=True,
    reason="attack15 finding: pai gow accepts a late change to a hand not yet turned once the dealer's hand is "
    "exposed (11.9); the other games never accept one once a dealer's or community card is face up",
)
@pytest.mark.parametrize("seat, cents", [(2, 5000), (5, 1000)], ids=["raised", "lowered"])
def test_no_late_change_is_accepted_once_the_dealers_hand_is_exposed(seat: int, cents: int) -> None:
    t = dealer_exposed()
    before = t.snapshot().seat(seat)
    assert before is not None
    t.spot(seat, "pai_gow", cents)
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("next")
    after = t.snapshot().seat(seat)
    assert after is not None and after.wager_map() == before.wager_map(), after.wager_map()
    assert any(line.startswith(f"supervisor: late bet refused: seat {seat} pai_gow") for line in t.snapshot().recent)
