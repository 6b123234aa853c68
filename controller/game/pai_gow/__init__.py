"""Pai gow poker with insurance, the bonus wager and the envy bonus (N.J.A.C. 13:69F-11.15,
13:69F-31): everything the game is, in :data:`DEFINITION`."""

from __future__ import annotations

from controller.game._common import seats_then_dealer
from controller.game.definition import SETTLED_STEPS, DealPlan, GameDefinition, Holder, Reveal, Step, TableNames, When
from controller.game.pai_gow._catalog import CATALOG
from controller.game.pai_gow._house_way import Decision, house_way
from controller.game.pai_gow._rules import SPEC

__all__ = ["DEFINITION", "Decision", "house_way"]

_BET_SPOTS = ("pai_gow", "bonus", "insurance")
_INFERRED = "11.9 (11.15(d) defers to it; its text is not in the seeds: inferred, see controller.game.pai_gow._machine)"

DEFINITION = GameDefinition(
    name="pai_gow",
    title="Pai Gow Poker",
    regulation="N.J.A.C. 13:69F-11.15",
    catalog=CATALOG,
    spec=SPEC,
    deal=DealPlan(
        steps=(
            seats_then_dealer(
                "dealing",
                7,
                "31.8: seven cards to every position, wagered or not, face down",
                "31.8: seven to the dealer, face down",
                "31.8 (one at a time) or 31.10 (7-card stacks)",
            ),
        ),
        reveals=(
            Reveal(Holder.DEALER, frozenset({"setting"}) | SETTLED_STEPS, None, f"{_INFERRED}: the dealer exposes"),
            Reveal(Holder.SEAT, None, None, f"{_INFERRED}: each hand face up from its turn", When.TURNED),
            Reveal(Holder.SEAT, SETTLED_STEPS, None, "11.15(d): every hand turned for settlement"),
        ),
        shared=Holder.DEALER,
    ),
    deck=53,
    bet_spots=_BET_SPOTS,
    required_spots=("pai_gow",),
    spot_names=(*_BET_SPOTS, "envy_marker"),
    page_spots=("pai_gow", "bonus", "insurance", "envy_marker"),
    guide_title="Pai gow poker (11.15)",
    steps=(
        Step("betting", '31.8(b)/31.10: "no more bets"; the optional wagers go with a pai gow wager (11.15(b))'),
        Step("no_more_bets", "31.11: the starting position from the dice total, the dealer counted as 1"),
        Step("dealing", "31.8: seven cards to every position, dealer included, wagered or not"),
        Step("check_deal", "31.8, 31.14: exactly four cards must remain, else the hands are checked"),
        Step("set_hands", f"{_INFERRED}: each player sets both hands and places them face down"),
        Step("setting", f"{_INFERRED}: the dealer exposes his hand and sets it the house way"),
        Step("settlement", "11.15(d)1: each seat's hand turned and settled, counterclockwise from the dealer's right"),
    ),
    regulation_minimums={"bonus": (100, "11.15(b)")},
    strategy="controller.game.pai_gow._strategy:strategy_rows",
    table=TableNames(
        machine="controller.game.pai_gow._machine:PaiGowTable",
        hooks="controller.game.pai_gow._hooks:HOOKS",
        player="hil.bench:PaiGowPlayer",
        guide="controller.docgen.guide:pai_gow_round",
    ),
)
"""Pai gow poker."""
