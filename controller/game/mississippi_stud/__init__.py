"""Mississippi Stud (N.J.A.C. 13:69F-35): everything the game is, in :data:`DEFINITION`."""

from __future__ import annotations

from controller.game.definition import (
    SETTLED_STEPS,
    CardPlan,
    DealPlan,
    DealStep,
    GameDefinition,
    Holder,
    Reveal,
    Step,
    TableNames,
    When,
)
from controller.game.mississippi_stud._catalog import CATALOG
from controller.game.mississippi_stud._rules import SPEC, STREETS

__all__ = ["DEFINITION"]

_BET_SPOTS = ("ante", "bonus")

DEFINITION = GameDefinition(
    name="mississippi_stud",
    title="Mississippi Stud",
    regulation="N.J.A.C. 13:69F-35",
    catalog=CATALOG,
    spec=SPEC,
    deal=DealPlan(
        steps=(
            DealStep(
                "dealing",
                (
                    CardPlan(Holder.SEAT, 2, "35.9(d): a 2-card stack to each wagering seat clockwise, face down"),
                    CardPlan(Holder.COMMUNITY, 3, "35.9(d), (e): then the 3 community cards, face down"),
                ),
                "35.9(d), (e)",
            ),
        ),
        reveals=(
            Reveal(Holder.COMMUNITY, frozenset({"fourth_street"}), 1, "35.10(d): the first community card"),
            Reveal(Holder.COMMUNITY, frozenset({"fifth_street"}), 2, "35.10(f): the second community card"),
            Reveal(Holder.COMMUNITY, SETTLED_STEPS, None, "35.10(h): the third community card"),
            Reveal(Holder.SEAT, SETTLED_STEPS, None, "35.10(i): each hand in play turned in order", When.TURNED),
        ),
        shared=Holder.COMMUNITY,
        folded_unexposed=("35.10(a)",),
    ),
    deck=52,
    bet_spots=_BET_SPOTS,
    required_spots=("ante",),
    spot_names=(*_BET_SPOTS, *STREETS),
    page_spots=("ante", "third", "fourth", "fifth", "bonus"),
    guide_title="Mississippi Stud (13:69F-35)",
    steps=(
        Step("betting", '35.9(c): wagers placed; "no more bets" before any card'),
        Step("dealing", "35.9(d), (e): a 2-card stack to each wagering seat clockwise, then the 3 community cards"),
        Step("third_street", "35.10(a), (d): every seat bets 3rd street or folds; then the first community card"),
        Step("fourth_street", "35.10(e), (f): 4th street; then the second community card"),
        Step("fifth_street", "35.10(g), (h): 5th street; then the third community card"),
        Step("settlement", "35.10(i): settlement counterclockwise from the dealer's right"),
        Step("count_stub", "35.9(e): the stub counted every fifth round"),
    ),
    strategy="controller.game.mississippi_stud._strategy:strategy_rows",
    table=TableNames(
        machine="controller.game.mississippi_stud._machine:MississippiTable",
        hooks="controller.game.mississippi_stud._hooks:HOOKS",
        player="hil.bench:MississippiPlayer",
        guide="controller.docgen.guide:mississippi_round",
    ),
)
"""Mississippi Stud."""
