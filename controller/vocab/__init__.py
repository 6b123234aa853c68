"""The rules' vocabulary: playing cards (:class:`Card`, parsing and formatting them, the deck) and money
(integer cents, payout :class:`Odds`). The bottom of the rules layer: it imports nothing of the project."""

from controller.vocab._cards import ALL_CARDS, JOKER, Card, CardError, card, deck, format_cards, parse_cards
from controller.vocab._money import MAX_CENTS, PUSH, Odds, OddsError, format_cents, parse_odds

__all__ = [
    "ALL_CARDS",
    "Card",
    "CardError",
    "JOKER",
    "MAX_CENTS",
    "Odds",
    "OddsError",
    "PUSH",
    "card",
    "deck",
    "format_cards",
    "format_cents",
    "parse_cards",
    "parse_odds",
]
