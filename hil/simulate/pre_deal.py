"""Invariant ``pre_deal_wager``: a wager placed before the deal never changes in its round once a
card of the round has left the shoe, whatever the supervisor presses (issue 41 item 7).

Every wager on these spots is placed before "no more bets", which is announced before any card
(N.J.A.C. 13:69F-24.8(b)4, 5: Boston 5's ante, first wager and bonus; 35.9, digest 2.3: Mississippi
Stud's ante and bonus; 31.10, digest 3.4: pai gow's wager, bonus and insurance; Three Card Poker
20.6, inferred from published rule sheets: ante, pair plus, 6 Card Bonus). Once a card is out a
change to one would be a wager on cards already out (digest 5.3). The spots are written here from
the rules, not taken from the table's code (a checker shares no code with what it checks); the
check reads only the table's published snapshot: its round, its count of cards placed and its
wagers.
"""

from __future__ import annotations

from controller.table.snapshot import TableSnapshot
from hil.simulate.invariants import Broken

__all__ = ["PRE_DEAL_SPOTS", "PreDealWatch"]

PRE_DEAL_SPOTS: dict[str, frozenset[str]] = {
    "mississippi_stud": frozenset({"ante", "bonus"}),
    "boston5": frozenset({"ante", "first", "bonus"}),
    "pai_gow": frozenset({"pai_gow", "bonus", "insurance"}),
    "three_card_poker": frozenset({"ante", "pair_plus", "six_card_bonus"}),
}
"""Each game's wagers placed before the deal, by the rules (the module's docstring cites them)."""


class PreDealWatch:
    """Follows the open round's pre-deal wagers from its first card out: each later snapshot of
    that round must show every one as it was then (one taken off is not followed: a seat settled
    or folded may show fewer; one put on or changed is the broken rule)."""

    def __init__(self, game: str) -> None:
        self.spots = PRE_DEAL_SPOTS.get(game, frozenset())
        self._round = 0
        self._at_deal: dict[tuple[int, str], int] | None = None
        """The round's pre-deal wagers as its first card was out (None: no card out yet)."""

    def _wagers(self, s: TableSnapshot) -> dict[tuple[int, str], int]:
        return {
            (seat, spot): cents
            for seat, wagers in s.wagers().items()
            for spot, cents in wagers.items()
            if spot in self.spots
        }

    def observe(self, s: TableSnapshot) -> None:
        """After each event: the round's pre-deal wagers, once a card is out, are what they were
        then; raises :class:`.invariants.Broken` (``pre_deal_wager``) when one changed."""
        if s.round_no != self._round:
            self._round, self._at_deal = s.round_no, None
        if s.dealt <= 0 or s.step in ("closed", "round_complete"):
            return
        now = self._wagers(s)
        if self._at_deal is None:
            self._at_deal = now
            return
        for (seat, spot), cents in sorted(now.items()):
            was = self._at_deal.get((seat, spot))
            if was != cents:
                before = "none" if was is None else f"{was / 100:.2f}"
                raise Broken(
                    "pre_deal_wager",
                    f"round {s.round_no}: seat {seat} {spot} {cents / 100:.2f} (was {before} as the round's first "
                    f"card was out) changed after the deal, in {s.held_from or s.step}",
                )
