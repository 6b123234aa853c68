"""The stub counted every fifth round dealt (24.8(e), 35.9(e)): the cards left in the shoe must be
the deck less every card that left it in the round (dealt, burned, or out while the table held at
the count); the shoe counts them (asked for) or the dealer does and confirms. A count that
differs holds the table.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.table._dealer_screen import DealerScreen
from controller.table._round_state import DeviceCommands, Fire, GameShape, RoundState

__all__ = ["STUB_EVERY", "StubCount"]

STUB_EVERY = 5
"""The stub is counted at least once every five rounds (24.8(e), 35.9(e))."""


class StubCount:
    """The round's stub count: the rounds dealt since the last one, and the count asked for.
    ``cards_out`` tells the cards that left the shoe this round (:attr:`.card_ledger.CardLedger.out`);
    ``counted`` fires the machine's ``stub_counted``; ``mismatch_hold`` enters the hold for a
    count that differs (:meth:`._holds.Holds.entered`)."""

    def __init__(
        self,
        state: RoundState,
        shape: GameShape,
        commands: DeviceCommands,
        display: DealerScreen,
        cards_out: Callable[[], int],
        counted: Fire,
        mismatch_hold: Callable[[str], None],
    ) -> None:
        self._state, self._shape, self._commands, self._display = state, shape, commands, display
        self._cards_out, self._stub_counted, self._mismatch_hold = cards_out, counted, mismatch_hold
        self.asked = 0
        """The count the dealer was asked for (the screen's number)."""
        self.counted: int | None = None
        self.rounds_dealt = 0
        """Rounds with cards dealt since the stub was last counted (24.8(e), 35.9(e): a void
        after the deal counts; the count is every fifth round dealt, whatever their numbers)."""

    def round_dealt(self) -> None:
        """A round with cards dealt ended (completed or void)."""
        self.rounds_dealt += 1

    def due(self) -> bool:
        return self.rounds_dealt >= STUB_EVERY

    @property
    def expected(self) -> int:
        """The cards the stub must have now: the deck less every card out of the shoe this round
        (a card that left it while the table held at the count, then burned, included)."""
        return self._shape.deck - self._cards_out()

    def matches(self) -> bool:
        return self.counted == self.expected

    def ask(self) -> None:
        """Ask the shoe and the dealer to count the stub."""
        self.rounds_dealt = 0
        self.counted = None
        self._commands.request_stub_count()
        self._ask_dealer()

    def _ask_dealer(self) -> None:
        self.asked = self.expected
        self._display.ask(f"count the stub: {self.asked} cards expected, then confirm")

    def resumed(self) -> None:
        """The count resumed after a hold: the dealer is asked for the count as it is now (a card
        that left the shoe meanwhile is one fewer in the stub)."""
        if self.asked != self.expected:
            self._ask_dealer()

    def mismatch(self) -> None:
        """The count differs (the machine's ``before`` callback on its way to ``hold``)."""
        self._mismatch_hold(f"stub count {self.counted}, expected {self.expected}")

    def counted_by_shoe(self, stub_count: int) -> None:
        """The shoe's answer (a ``ShoeStatus``)."""
        self._commands.stub_count_answered()
        if self._state.phase is self._shape.common.count_stub:
            self.counted = stub_count
            if self.matches():  # read, not flashed past: it stays until confirmed
                self._display.notify(f"stub counted by the shoe: {stub_count} cards, as expected")
            self._stub_counted()

    def counted_by_dealer(self) -> None:
        """``confirm`` while counting: the dealer counted by hand and it agrees."""
        self.counted = self.expected
        self._stub_counted()

    def restore(self, rounds_dealt: int) -> None:
        self.rounds_dealt = rounds_dealt
