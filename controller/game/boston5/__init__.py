"""Boston 5 stud poker (N.J.A.C. 13:69F-24): everything the game is, in :data:`DEFINITION`."""

from __future__ import annotations

from controller.game._common import seats_then_dealer
from controller.game.boston5._catalog import CATALOG
from controller.game.boston5._rules import SPEC
from controller.game.definition import SETTLED_STEPS, DealPlan, GameDefinition, Holder, Reveal, Step, TableNames, When

__all__ = ["DEFINITION"]

_BET_SPOTS = ("ante", "first", "bonus")

DEFINITION = GameDefinition(
    name="boston5",
    title="Boston 5",
    regulation="N.J.A.C. 13:69F-24",
    catalog=CATALOG,
    spec=SPEC,
    deal=DealPlan(
        steps=(
            seats_then_dealer(
                "first_deal",
                3,
                "24.8(c): three consecutive cards to each player, face down",
                "24.8(c): then three to the dealer, face down",
                "24.8(c)",
            ),
            seats_then_dealer(
                "final_deal",
                2,
                "24.10(d): two cards to each player with a second wager, face down",
                "24.10(d): two to the dealer, face down",
                "24.10(d)",
            ),
        ),
        reveals=(
            Reveal(Holder.SEAT, None, 3, "24.10(a): a bonus hand the player exposed", When.EXPOSED),
            Reveal(
                Holder.DEALER, SETTLED_STEPS, None, "24.10(e): all five at once, if a player is in play", When.IN_PLAY
            ),
            Reveal(Holder.SEAT, SETTLED_STEPS, None, "24.10(f): each hand in play turned in order", When.TURNED),
        ),
        shared=Holder.DEALER,
        folded_unexposed=("24.10(b)",),
    ),
    deck=52,
    bet_spots=_BET_SPOTS,
    required_spots=("ante", "first"),
    spot_names=(*_BET_SPOTS, "second"),
    page_spots=("ante", "first", "second", "bonus"),
    guide_title="Boston 5 stud poker (13:69F-24)",
    steps=(
        Step("betting", '24.8(b)4: ante and first wager (a multiple of the ante), an optional bonus; "no more bets"'),
        Step("first_deal", "24.8(c): three cards to each player clockwise from the dealer's left, three to the dealer"),
        Step("bonus", "24.10(a): players with a bonus wager may expose their three cards"),
        Step("bonus_settlement", "24.10(a): losing bonus wagers collected, winning ones paid, before any second wager"),
        Step("second_wager", "24.10(b), (c): a second wager equal to the first, or fold"),
        Step("final_deal", "24.10(d): two cards to each player with a second wager, two to the dealer"),
        Step("settlement", "24.10(e), (f): the dealer reveals; settlement counterclockwise from the dealer's right"),
        Step("count_stub", "24.8(e): the stub counted every fifth round"),
    ),
    strategy="controller.game.boston5._strategy:strategy_rows",
    paid_on={"ante_bonus": "ante"},  # 24.11(c): the ante bonus is paid on the ante
    table=TableNames(
        machine="controller.game.boston5._machine:Boston5Table",
        hooks="controller.game.boston5._hooks:HOOKS",
        player="hil.bench:Boston5Player",
        guide="controller.docgen.guide:boston5_round",
    ),
)
"""Boston 5 stud poker."""
