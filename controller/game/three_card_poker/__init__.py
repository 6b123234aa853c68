"""Three Card Poker (N.J.A.C. 13:69F-20; its text was not found: the steps below are inferred
from published rule sheets): everything the game is, in :data:`DEFINITION`. The rules layer
only so far: the game is not dealt at a table yet (``table`` is ``None``)."""

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
    When,
)
from controller.game.three_card_poker._catalog import CATALOG
from controller.game.three_card_poker._rules import QUALIFIER, SPEC

__all__ = ["DEFINITION", "QUALIFIER"]

_INFERRED = "13:69F-20 (text not found: inferred from published rule sheets)"
_BET_SPOTS = ("ante", "pair_plus")

DEFINITION = GameDefinition(
    name="three_card_poker",
    title="Three Card Poker",
    regulation="N.J.A.C. 13:69F-20",
    catalog=CATALOG,
    spec=SPEC,
    deal=DealPlan(
        steps=(
            DealStep(
                "dealing",
                (
                    CardPlan(Holder.SEAT, 3, f"{_INFERRED}: three cards to each seat, face down"),
                    CardPlan(Holder.DEALER, 3, f"{_INFERRED}: three to the dealer, face down"),
                ),
                _INFERRED,
            ),
        ),
        reveals=(
            Reveal(Holder.DEALER, SETTLED_STEPS, None, f"{_INFERRED}: the dealer's hand exposed", When.IN_PLAY),
            Reveal(Holder.SEAT, SETTLED_STEPS, None, f"{_INFERRED}: each hand in play turned"),
        ),
        shared=Holder.DEALER,
        folded_unexposed=(_INFERRED,),
    ),
    deck=52,
    bet_spots=_BET_SPOTS,
    required_spots=("ante",),
    spot_names=(*_BET_SPOTS, "play"),
    page_spots=("ante", "play", "pair_plus"),
    guide_title="Three Card Poker (13:69F-20)",
    steps=(
        Step("betting", f'{_INFERRED}: ante, optional pair plus; "no more bets"'),
        Step("dealing", f"{_INFERRED}: three cards to each seat and to the dealer, face down"),
        Step("play", "20.6 (inferred): a play wager equal to the ante, or fold"),
        Step("settlement", "20.10(b)-(e), 20.11 (inferred): the dealer's hand exposed, then each hand settled"),
    ),
    strategy="controller.game.three_card_poker._strategy:strategy_rows",
)
"""Three Card Poker (not dealt at a table yet)."""
