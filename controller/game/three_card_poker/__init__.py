"""Three Card Poker (N.J.A.C. 13:69F-20; its text was not found: the steps below are inferred
from published rule sheets, each named where it is cited): everything the game is, in
:data:`DEFINITION`, with the 6 Card Bonus beside it (:mod:`._table_rules`). Its parts in other layers live
in this package too, each in the module its layer names: the round machine (:mod:`._machine`), the
dealer guide's round (:mod:`._guide`); the bench's players are ``hil/three_card_player.py``."""

from __future__ import annotations

from controller.game._common import seats_then_dealer
from controller.game.definition import SETTLED_STEPS, DealPlan, GameDefinition, Holder, Reveal, Step, TableNames, When
from controller.game.three_card_poker._rules import QUALIFIER
from controller.game.three_card_poker._table_rules import CATALOG, SIX_CARD, SPEC

__all__ = ["DEFINITION", "QUALIFIER"]

_SHEETS = (
    'the published rule sheets: Wizard of Odds "Three Card Poker", table-games-online.com "Three Card Poker rules"'
)
_INFERRED = f"13:69F-20 (text not found: inferred from {_SHEETS})"
_BET_SPOTS = ("ante", "pair_plus", SIX_CARD)

DEFINITION = GameDefinition(
    name="three_card_poker",
    title="Three Card Poker",
    regulation="N.J.A.C. 13:69F-20",
    catalog=CATALOG,
    spec=SPEC,
    deal=DealPlan(
        steps=(
            seats_then_dealer(
                "dealing",
                3,
                f"{_INFERRED}: three cards to each seat, face down",
                f"{_INFERRED}: three to the dealer, face down",
                _INFERRED,
            ),
        ),
        reveals=(
            Reveal(Holder.DEALER, SETTLED_STEPS, None, f"{_INFERRED}: the dealer's hand exposed", When.IN_PLAY),
            Reveal(Holder.SEAT, SETTLED_STEPS, None, f"{_INFERRED}: each hand in play turned in order", When.TURNED),
        ),
        shared=Holder.DEALER,
        folded_unexposed=(_INFERRED,),
    ),
    deck=52,
    bet_spots=_BET_SPOTS,
    required_spots=("ante",),
    spot_names=(*_BET_SPOTS, "play"),
    page_spots=("ante", "play", "pair_plus", SIX_CARD),
    guide_title="Three Card Poker (13:69F-20)",
    steps=(
        Step("betting", f'{_INFERRED}: ante, optional pair plus and 6 Card Bonus; "no more bets" before any card'),
        Step("dealing", f"{_INFERRED}: three cards to each seat clockwise, then three to the dealer, face down"),
        Step(
            "play",
            f"20.6, 20.10(b), (c) (inferred from {_SHEETS}): each seat with an ante places a play wager equal "
            "to the ante, or folds (its ante and pair plus collected at once, its cards unexposed; with a "
            "6 Card Bonus the cards are kept face down for it)",
        ),
        Step(
            "settlement",
            f"20.10(d), (e), 20.11 (inferred from {_SHEETS}): the dealer's hand exposed (queen high "
            "qualifies); from the dealer's right each hand's ante and play, ante bonus, pair plus and "
            "6 Card Bonus, and a folded hand's 6 Card Bonus, each whatever the dealer holds",
        ),
        Step("count_stub", f"{_INFERRED}: the stub counted every fifth round, as at every table"),
    ),
    strategy="controller.game.three_card_poker._strategy:strategy_rows",
    paid_on={"ante_bonus": "ante"},  # 20.11(b) (inferred): the ante bonus is paid on the ante
    table=TableNames(
        machine="controller.game.three_card_poker._machine:ThreeCardTable",
        hooks="controller.game.three_card_poker._hooks:HOOKS",
        player="hil.three_card_player:ThreeCardPlayer",
        guide="controller.game.three_card_poker._guide:three_card_poker_round",
    ),
)
"""Three Card Poker."""
