"""Playing cards: ranks, suits, the joker, decks, and the text form every tool uses.

A card is written as rank then suit: ranks ``2-9 T J Q K A``, suits ``c d h s``; the joker
is ``JK``. ``parse_cards`` accepts cards separated by white space or run together
(``"As Kd Th"`` and ``"AsKdTh"``); ``format_cards`` writes the space-separated form, so
the two round-trip.

Every card has a fixed ``index`` (``2c`` = 0 ... ``Ac`` = 12, ``2d`` = 13 ... ``As`` = 51,
``JK`` = 52) that the evaluators and decks use; :data:`ALL_CARDS` holds the one instance
of each card, so cards may be compared by identity or equality alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum, IntEnum

__all__ = [
    "Rank",
    "Suit",
    "Card",
    "CardError",
    "JOKER",
    "ALL_CARDS",
    "card",
    "parse_cards",
    "format_cards",
    "deck",
]


class Rank(IntEnum):
    """Card rank; the integer value orders ranks with the ace high (2 lowest, 14 the ace)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def char(self) -> str:
        """The one-character form used in card text (``T`` for ten)."""
        return _RANK_CHARS[self.value - 2]

    @classmethod
    def from_char(cls, char: str) -> Rank:
        """The rank written as ``char``; raises ``KeyError`` for anything else."""
        return _RANK_BY_CHAR[char]


class Suit(Enum):
    """Card suit. No suit outranks another in any of our games."""

    CLUBS = "c"
    DIAMONDS = "d"
    HEARTS = "h"
    SPADES = "s"

    @property
    def char(self) -> str:
        """The one-character form used in card text."""
        return self.value

    @property
    def order(self) -> int:
        """Position of the suit in the fixed deck order (clubs 0 ... spades 3)."""
        return _SUIT_ORDER[self]


_RANK_CHARS = "23456789TJQKA"
_RANK_BY_CHAR = {c: Rank(i + 2) for i, c in enumerate(_RANK_CHARS)}
_SUITS = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
_SUIT_ORDER = {s: i for i, s in enumerate(_SUITS)}
_SUIT_BY_CHAR = {s.value: s for s in _SUITS}
JOKER_TEXT = "JK"


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One card: a rank and a suit, or the joker (both ``None``).

    ``index`` is the card's place in the fixed deck order and is what the evaluators use;
    cards are equal when their indices are. Build cards with :func:`card` or
    :func:`parse_cards` (or take them from :data:`ALL_CARDS`) rather than directly.
    """

    rank: Rank | None
    suit: Suit | None
    index: int
    text: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if not self.text:
            text = JOKER_TEXT if self.rank is None or self.suit is None else self.rank.char + self.suit.char
            object.__setattr__(self, "text", text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Card) and other.index == self.index

    def __hash__(self) -> int:
        return self.index

    @property
    def is_joker(self) -> bool:
        """True for the joker of the 53-card pai gow deck."""
        return self.rank is None

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self})"


ALL_CARDS: tuple[Card, ...] = tuple(
    Card(Rank(r), s, si * 13 + (r - 2)) for si, s in enumerate(_SUITS) for r in range(2, 15)
) + (Card(None, None, 52),)
"""The 53 distinct cards in deck order; ``ALL_CARDS[i].index == i``."""

JOKER: Card = ALL_CARDS[52]
"""The joker (written ``JK``)."""

_CARD_BY_TEXT = {str(c): c for c in ALL_CARDS}


class CardError(ValueError):
    """A card text could not be read: names the 1-based card position, the token and why."""

    def __init__(self, position: int, token: str, reason: str) -> None:
        self.position = position
        self.token = token
        self.reason = reason
        super().__init__(f"card {position} '{token}': {reason}")


def card(text: str) -> Card:
    """The single card written as ``text`` (``"As"``, ``"JK"``); raises :class:`CardError`."""
    return _read_token(text, 1)


def _read_token(token: str, position: int) -> Card:
    found = _CARD_BY_TEXT.get(token)
    if found is not None:
        return found
    if token.upper() == JOKER_TEXT:
        return JOKER
    if len(token) == 3 and token[:2] == "10":  # "10s" is a common way to write the ten
        return _read_token("T" + token[2], position)
    if len(token) < 2:
        raise CardError(position, token, "incomplete card (a rank and a suit are needed)")
    if len(token) > 2:
        raise CardError(position, token, "too long (a card is a rank and a suit, e.g. 'As')")
    rank_ch, suit_ch = token[0].upper(), token[1].lower()
    if rank_ch not in _RANK_BY_CHAR:
        raise CardError(position, token, f"unknown rank '{token[0]}' (use 2-9, T, J, Q, K, A)")
    if suit_ch not in _SUIT_BY_CHAR:
        raise CardError(position, token, f"unknown suit '{token[1]}' (use c, d, h, s)")
    return _CARD_BY_TEXT[rank_ch + suit_ch]


def _tokens(text: str) -> Iterable[str]:
    chunks = text.split()
    if all(len(chunk) == 2 for chunk in chunks):
        return chunks
    return _split_chunks(chunks)


def _split_chunks(chunks: list[str]) -> Iterable[str]:
    for chunk in chunks:
        if len(chunk) == 3 and chunk.startswith("10"):
            yield chunk
        elif len(chunks) > 1 and len(chunk) % 2:
            yield chunk  # one malformed card among space-separated ones: report it whole
        else:
            for i in range(0, len(chunk), 2):
                yield chunk[i : i + 2]


def parse_cards(text: str, *, allow_duplicates: bool = False) -> tuple[Card, ...]:
    """Read cards from ``text`` (space-separated or run together) in the order written.

    Raises :class:`CardError` naming the first bad token and its position, or a repeated
    card (unless ``allow_duplicates``: a misdeal report may need to show one).
    """
    chunks = text.split()
    try:  # the usual text, each card written as itself and once: read in one pass
        found = list(map(_CARD_BY_TEXT.__getitem__, chunks))
    except KeyError:
        pass
    else:  # a card has one text: a card written twice is a text written twice
        if allow_duplicates or len(set(chunks)) == len(chunks):
            return tuple(found)
    cards: list[Card] = []
    seen: dict[int, int] = {}
    lookup = _CARD_BY_TEXT.get
    for position, token in enumerate(_tokens(text), start=1):
        c = lookup(token) or _read_token(token, position)
        if not allow_duplicates:
            first = seen.get(c.index)
            if first is not None:
                raise CardError(position, token, f"duplicate of card {first}")
            seen[c.index] = position
        cards.append(c)
    return tuple(cards)


def format_cards(cards: Iterable[Card]) -> str:
    """The space-separated text of ``cards``; ``parse_cards(format_cards(x)) == tuple(x)``."""
    return " ".join([c.text for c in cards])  # a list: join is faster given one


def deck(*, joker: bool = False) -> tuple[Card, ...]:
    """A full deck in the fixed order: 52 cards, or 53 with the joker last."""
    return ALL_CARDS if joker else ALL_CARDS[:52]


def check_distinct(cards: Sequence[Card]) -> None:
    """Raise :class:`CardError` if any card appears twice in ``cards``."""
    seen: dict[int, int] = {}
    for position, c in enumerate(cards, start=1):
        first = seen.get(c.index)
        if first is not None:
            raise CardError(position, str(c), f"duplicate of card {first}")
        seen[c.index] = position
