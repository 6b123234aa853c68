"""Attack on card entry (docs/dealer-guide.md, "Hidden cards"): the dealer's display, which the
players can see, steps the supervisor through candidate deck numbers and skips "cards already dealt
this round". The numbers it skips are the faces of cards dealt face down that no one has revealed:
another seat's cards, the dealer's hole cards, a community card not yet turned (the deck-number
table is printed in the same guide). A player watching ``next`` go from deck no. 3 to deck no. 6
learns that 4 and 5 (5c, 6c) are out.

The rule: every card is dealt face down and "a card not yet revealed never appears on [the
display], in the log or in anything published" (dealer guide, "Hidden cards"; 35.9(d), 24.8(c),
20 inferred: face down); 35.10(c) forbids even players telling each other their hands before the
community cards are revealed. Found on main in all four games: the candidates skip every face-down card dealt."""

from __future__ import annotations

import re

import pytest
from table_helpers import FedTable, closed_table

from drivers.panel import ButtonChanged
from drivers.shoe import CardUnreadable

_DECK_NO = re.compile(r"deck no\. (\d+)")
_SUITS = "cdhs"
_RANKS = "23456789TJQKA"


def deck_number(card: str) -> int:
    """The card's number in the dealer guide's table (clubs 1-13, diamonds 14-26, ...)."""
    return _SUITS.index(card[1]) * 13 + _RANKS.index(card[0]) + 1


CASES: dict[str, tuple[tuple[tuple[int, str, int], ...], str, tuple[str, ...]]] = {
    # game: the bets, the cards dealt before the unreadable one, the face-down cards among them
    "mississippi_stud": (
        ((1, "ante", 500), (4, "ante", 500)),
        "2c 3c 5c 6c 8c",  # seat 1, seat 4, community card 1; community card 2 unreadable
        ("5c", "6c", "8c"),  # seat 4's cards and the unturned community card
    ),
    "three_card_poker": (
        ((1, "ante", 500), (2, "ante", 500)),
        "2c 3c 4c 6c 7c 9c Jc Qc",  # seats 1 and 2, dealer cards 1-2; dealer card 3 unreadable
        ("6c", "7c", "9c", "Jc", "Qc"),  # seat 2's cards and the dealer's hole cards
    ),
    "boston5": (
        ((1, "ante", 500), (1, "first", 1000), (2, "ante", 500), (2, "first", 1000)),
        "2c 3c 4c 6c 7c 9c Jc Qc",  # seats 1 and 2, dealer cards 1-2; dealer card 3 unreadable
        ("6c", "7c", "9c", "Jc", "Qc"),
    ),
    "pai_gow": (
        ((1, "pai_gow", 1000), (3, "pai_gow", 1000)),
        "2c 3c 5c 6c 8c 9c",  # one at a time from the dice's hand (3: seat 5); the 7th unreadable
        ("2c", "3c", "5c", "6c", "8c", "9c"),  # every hand face down until it is turned (11.9)
    ),
}
DICE = {"pai_gow": ("seat_1", "seat_1", "seat_1", "confirm")}
"""The dice total (3) entered before the deal, where the game draws one."""


def stepped(t: FedTable, presses: int) -> list[int]:
    """The deck numbers the display offers as the supervisor presses ``next`` ``presses`` times."""
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    shown: list[int] = []
    for _ in range(presses):
        t.press("next")
        asked = t.snapshot().asked or ""
        found = _DECK_NO.search(asked)
        assert found is not None, asked
        shown.append(int(found.group(1)))
    return shown


@pytest.mark.parametrize("game", CASES)
def test_card_entry_does_not_skip_the_numbers_of_face_down_cards(game: str) -> None:
    bets, cards, face_down = CASES[game]
    t = closed_table(game, bets)
    t.press(*DICE.get(game, ()))
    t.deal(cards)
    t.feed(CardUnreadable(device="shoe", index=t.shoe_index + 1))
    assert t.snapshot().step == "hold", t.snapshot().step
    shown = stepped(t, 14)
    # stepping from the start through the clubs: a gap at a face-down card tells the table its face
    top = max(shown)
    skipped = [c for c in face_down if deck_number(c) < top and deck_number(c) not in shown]
    assert not skipped, f"the display stepped {shown}: it skipped the face-down cards {skipped}"
