"""The card ledger: every card the shoe reported in a round, in dealt order, with where it went
or why it was not used.

A card that left the shoe is a physical fact: it is never dropped. Each report becomes an entry;
a card the table cannot place now (dealt while the table is held, or when no card was expected)
waits for the supervisor, who accepts it in its place in the dealing order or declares a misdeal.
The entries are the ``cards`` list of the round's record (shown by ``tablectl recall``).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.vocab import Card

__all__ = ["CardLedger", "UNREADABLE", "DUPLICATE", "MISDEAL", "BURNED"]

WAITING = "waiting for the supervisor"
"""The disposition of a card the table could not place yet (with why, e.g. "dealt while held")."""
UNREADABLE = "unreadable: read again or entered by the supervisor"
DUPLICATE = "read as a card already dealt: read again or entered by the supervisor"
MISDEAL = "misdeal: the round is void"
BURNED = "burned: no place in the deal"


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One card report: the shoe's index (its count of cards out), the card as read, where it went."""

    index: int
    card: str
    to: str

    def as_record(self) -> dict[str, object]:
        """The entry as the round record's ``cards`` list has it."""
        return {"index": self.index, "card": self.card, "to": self.to}


class CardLedger:
    """Every card the shoe reported this round, in order, and the shoe's own count of cards out."""

    def __init__(self) -> None:
        self.entries: list[LedgerEntry] = []
        self.waiting: list[tuple[int, Card]] = []
        """Cards that wait for the supervisor, in dealt order (each also has an entry)."""
        self._waiting_at: list[int] = []
        self._replacing: dict[tuple[int, str], list[int]] = {}
        """Entries (by shoe index and card: after the count started over two waiting cards can
        share an index) of waiting cards being placed now, in dealt order: their place is kept."""
        self.shoe_count = 0
        """The index of the last card the shoe reported: its count of cards out since it started over."""
        self.out = 0
        """The cards that left the shoe this round, placed or not (:meth:`card_out`): the stub is
        the deck less these."""

    def start_round(self) -> None:
        """A new round: no entries yet, no card out of the shoe (the shoe's count goes on)."""
        self.entries, self.waiting, self._waiting_at, self._replacing = [], [], [], {}
        self.out = 0

    def card_out(self, started_over: bool) -> None:
        """One more card out of the shoe this round (each report of a new card: placed, burned,
        set aside, waiting; never a misread card reported again, which is the same card); the
        first after the shoe's count ``started_over`` before the deal (a shuffle) is the first
        out of the deck counted now."""
        self.out = 1 if started_over else self.out + 1

    def _add(self, index: int, card: str, to: str) -> int:
        entry = LedgerEntry(index, card, to)
        positions = self._replacing.get((index, card))
        position = positions.pop(0) if positions else None
        if position is not None:  # a waiting card placed: it keeps its place in dealt order
            self.entries[position] = entry
            return position
        self.shoe_count = index
        self.entries.append(entry)
        return len(self.entries) - 1

    def placed(self, index: int, dealt: Card | str, to: str) -> None:
        """A card placed in the deal (``to``: "seat 3", "dealer", "community" ...)."""
        self._add(index, str(dealt), to)

    def not_used(self, index: int, card: str, why: str) -> int:
        """A report that is not a card of the deal (unreadable, a duplicate read); returns its
        entry's position (a waiting card being placed keeps its own, in dealt order)."""
        return self._add(index, card, why)

    def burn(self, position: int, why: str) -> None:
        """The entry at ``position`` (a read set aside) is no card of the deal after all: burned,
        ``why`` said (its index and card as reported are kept)."""
        entry = self.entries[position]
        self.entries[position] = LedgerEntry(entry.index, entry.card, f"{BURNED} ({why})")

    def wait(self, index: int, dealt: Card, why: str) -> None:
        """A card the table cannot place now: it waits for the supervisor."""
        self._waiting_at.append(self._add(index, str(dealt), f"{WAITING} ({why})"))
        self.waiting.append((index, dealt))

    def waiting_before(self, position: int) -> bool:
        """Whether a card that waits came out of the shoe before the entry at ``position``."""
        return any(at < position for at in self._waiting_at)

    def take_waiting(self, before: int | None = None) -> list[tuple[int, Card]]:
        """The waiting cards (those before the entry at ``before``, when given), in dealt order,
        for the supervisor to place: their entries are replaced in place by where they go (the
        ``placed`` or ``wait`` calls that follow); the others go on waiting."""
        pairs = list(zip(self.waiting, self._waiting_at, strict=True))
        taken = [(c, at) for c, at in pairs if before is None or at < before]
        kept = [(c, at) for c, at in pairs if before is not None and at >= before]
        self._replacing = {}
        for (index, dealt), position in taken:
            self._replacing.setdefault((index, str(dealt)), []).append(position)
        self.waiting, self._waiting_at = [c for c, _ in kept], [at for _, at in kept]
        return [c for c, _ in taken]

    def settle_waiting(self, to: str) -> list[tuple[int, Card]]:
        """Every waiting card goes ``to`` (a misdeal, burned); returns them."""
        for position in self._waiting_at:
            entry = self.entries[position]
            self.entries[position] = LedgerEntry(entry.index, entry.card, to)
        for position in [at for ats in self._replacing.values() for at in ats]:  # taken, but the round ended first
            entry = self.entries[position]
            self.entries[position] = LedgerEntry(entry.index, entry.card, to)
        self._replacing = {}
        cards, self.waiting, self._waiting_at = self.waiting, [], []
        return cards

    def records(self) -> list[dict[str, object]]:
        """The entries as the round record's ``cards`` list."""
        return [e.as_record() for e in self.entries]

    def count_differs(self, cards_out: int) -> str | None:
        """Compare the shoe's own count of cards out (its state after a link-up) with the reports:
        the difference as text, or None when they agree. A count of 0 is a shoe that started over
        (shuffled, or a new shoe): nothing left it since, so nothing can be missing."""
        if cards_out == 0:
            self.shoe_count = 0
            return None
        if cards_out == self.shoe_count:
            return None
        return f"the shoe counts {cards_out} cards out, the table has {self.shoe_count} reported"
