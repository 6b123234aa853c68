"""The stub counted every fifth round dealt (24.8(e), 35.9(e)): the cards left in the shoe must be
the deck less the cards dealt; the shoe counts them (asked for) or the dealer does and confirms.
A count that differs holds the table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.table.round import RoundTable

__all__ = ["STUB_EVERY", "StubCount"]

STUB_EVERY = 5
"""The stub is counted at least once every five rounds (24.8(e), 35.9(e))."""


class StubCount:
    """``table``'s stub count: the rounds dealt since the last one, and the count asked for."""

    def __init__(self, table: RoundTable) -> None:
        self.table = table
        self.expected = 0
        self.counted: int | None = None
        self.rounds_dealt = 0
        """Rounds with cards dealt since the stub was last counted (24.8(e), 35.9(e): a void
        after the deal counts; the count is every fifth round dealt, whatever their numbers)."""

    def round_dealt(self) -> None:
        """A round with cards dealt ended (completed or void)."""
        self.rounds_dealt += 1

    def due(self) -> bool:
        return self.rounds_dealt >= STUB_EVERY

    def matches(self) -> bool:
        return self.counted == self.expected

    def ask(self) -> None:
        """Ask the shoe and the dealer to count the stub."""
        t = self.table
        self.rounds_dealt = 0
        self.expected = t.DECK - t.dealt
        self.counted = None
        t.devices.request_stub_count()
        t.display.ask(f"count the stub: {self.expected} cards expected, then confirm")

    def mismatch(self) -> None:
        """The count differs (the machine's ``before`` callback on its way to ``hold``)."""
        self.table.holds.entered(f"stub count {self.counted}, expected {self.expected}")

    def counted_by_shoe(self, stub_count: int) -> None:
        """The shoe's answer (a ``ShoeStatus``)."""
        t = self.table
        t.devices.stub_count_answered()
        if t.phase is t.common.count_stub:
            self.counted = stub_count
            if self.matches():  # read, not flashed past: it stays until confirmed
                t.display.notify(f"stub counted by the shoe: {stub_count} cards, as expected")
            t.stub_counted()

    def counted_by_dealer(self) -> None:
        """``confirm`` while counting: the dealer counted by hand and it agrees."""
        self.counted = self.expected
        self.table.stub_counted()

    def restore(self, rounds_dealt: int) -> None:
        self.rounds_dealt = rounds_dealt
