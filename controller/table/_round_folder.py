"""Folds the journal's closed rounds into compact blocks as the table runs (issue 45 item 8):
after each round's start snapshot, the spans the floor store already holds
(:mod:`controller.journal.fold`)."""

from __future__ import annotations

import logging

from controller.journal import JournalError, SqliteJournal
from controller.journal.fold import FoldResult, fold_closed_rounds
from controller.journal.retention import floor_acknowledged

__all__ = ["PER_ROUND", "RoundFolder"]

log = logging.getLogger("tablectl.journal")

PER_ROUND = 4
"""The most spans folded at one round's start: the newly closed round, and a few kept as rows
before (a journal written before blocks, or rounds the floor had not stored yet) caught up a few
at a time, so no round's start waits for a year of them."""


class RoundFolder:
    """Folds ``store``'s closed rounds; ``floor``: the table publishes to a floor, so only what the
    floor store says it holds is folded (nothing while it has said nothing)."""

    def __init__(self, store: SqliteJournal, floor: bool) -> None:
        self.store = store
        self.floor = floor

    def limit(self) -> int | None:
        """The last record that may be folded (None: any closed round's)."""
        if not self.floor:
            return None
        return floor_acknowledged(self.store) or 0

    def fold(self) -> FoldResult:
        """Fold what is closed and safe; a failure is logged (the rows stay, tried again at the next round)."""
        try:
            return fold_closed_rounds(self.store, self.limit(), PER_ROUND)
        except JournalError as exc:
            log.warning("journal: %s: closed rounds not folded into blocks (kept as rows)", exc)
            return FoldResult(0, 0)
