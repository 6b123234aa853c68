"""A stacked shoe: chosen cards dealt to the first seat with a wager and to the dealer in one
round of a seed, the rest of the deck as the seed shuffles it (issue 41 item 5).

Some settlement rules need a hand no seed is likely to deal (an ante bonus hand that loses to
the dealer, a pai gow high hand the same as the dealer's), so a mutant in them goes unseen at
the CI's seed count. A :class:`Stack` names those hands; before each deal the simulated dealer
moves them to where the round's deal order puts that seat's and the dealer's cards. Where each
card goes is the reference model's (:func:`hil.reference.games.deal_destinations`, written from
the rules), never the table's. Without a stack nothing changes: no seed's journal moves.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from controller.table.snapshot import TableSnapshot
from hil.devices import ShoeSim
from hil.reference.games import SeatState, deal_destinations
from hil.simulate.model_check import ref_table

__all__ = ["Stack", "Stacker", "STACKED"]


@dataclass(frozen=True, slots=True)
class Stack:
    """Round ``round_no``'s cards for the first seat with a wager (``seat``) and for the dealer
    (``dealer``), each in the order dealt to them (fewer than a whole hand: the rest as shuffled)."""

    round_no: int
    seat: tuple[str, ...] = ()
    dealer: tuple[str, ...] = ()
    why: str = ""
    """The rule the hands reach (and the mutant they catch)."""


class Stacker:
    """The simulated dealer's hook (:attr:`hil.bench.Player.arrange`) for ``stack`` at the table
    configured at ``table_path``."""

    def __init__(self, stack: Stack, table_path: Path | str) -> None:
        self.stack = stack
        self.table = ref_table(table_path)

    def __call__(self, shoe: ShoeSim, s: TableSnapshot, total: int) -> None:
        """Before the cards up to ``total`` are dealt: the shoe's cards not out yet are put in
        an order where each card of the stack whose place comes among them is there, the others
        in the order they were, those of the stack for a later deal behind them (a card of the
        stack already out stays where it went)."""
        if s.round_no != self.stack.round_no or not s.seats:
            return
        seats = {v.number: SeatState(dict(v.wagers), v.folded_at) for v in s.seats}
        start = {"value": s.game_view.dice} if s.game_view.dice is not None else None
        places = deal_destinations(self.table, total, seats, start)
        wanted = {f"seat {min(seats)}": self.stack.seat, "dealer": self.stack.dealer}
        offset = shoe.dealt - s.dealt  # cards out of the shoe that are not the deal's (none in a stacked round)
        left = shoe.cards[shoe.dealt :]
        given: Counter[str] = Counter()
        targets: dict[int, str] = {}
        for i, place in enumerate(places):
            hand, k = wanted.get(place, ()), given[place]
            given[place] += 1
            if k < len(hand) and i + offset >= shoe.dealt and hand[k] in left:
                targets[i + offset] = hand[k]
        stacked = {*self.stack.seat, *self.stack.dealer}  # those for a later deal go last: nobody else's
        rest = iter(
            [c for c in left if c not in stacked] + [c for c in left if c in stacked and c not in targets.values()]
        )
        order = [targets.get(at) or next(rest) for at in range(shoe.dealt, len(shoe.cards))]
        shoe.cards[shoe.dealt :] = order


STACKED: tuple[tuple[str, int, int, Stack], ...] = (
    (
        "boston5",
        1,
        2,
        Stack(
            2,
            seat=("Kh", "Ks", "5d", "5c", "9h"),
            dealer=("3c", "3d", "3s", "7c", "8d"),
            why="an ante bonus hand (two pair) that loses to the dealer's three of a kind: the ante bonus "
            "is paid whatever the comparison (24.10(f)3; mutant b5_ante_bonus_only_on_win)",
        ),
    ),
    (
        "pai_gow",
        1,
        2,
        Stack(
            2,
            seat=("2c", "4d", "6h", "8s", "Tc", "Qd", "Kh"),
            dealer=("2d", "4h", "6s", "8c", "Td", "Qh", "Ks"),
            why="a player's hands the same as the dealer's (copies): the banker wins them (11.9; "
            "mutant pg_copy_to_player)",
        ),
    ),
)
"""Stacked scenarios the CI run plays beside its seeds, (game, seed, rounds, stack): no faults."""
