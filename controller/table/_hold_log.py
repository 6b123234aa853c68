"""The log lines of a table's holds: each hold as it begins, each new reason it is held for, and
its end (resumed where it was, or the round voided). Every kind of hold is logged, the jam and the
open door too, from the snapshot the runtime publishes after each event (its reason names no
card face down); the journal has the events themselves, the log is for the people watching."""

from __future__ import annotations

import logging

from controller.table.snapshot import TableSnapshot

__all__ = ["HoldLog"]

log = logging.getLogger("tablectl.table")


class HoldLog:
    """Logs the holds seen in the table's successive snapshots."""

    def __init__(self) -> None:
        self.reason: str | None = None
        """The reason of the hold on at the last snapshot seen, as journaled (None: not held): a
        new one is a new line."""
        self.shown: str | None = None
        """That reason as the screen showed it then (:attr:`.snapshot.HoldView.shown_reason`: a
        void the table refused then not named): what the lines say."""
        self.round_no = 0
        self.by_itself = False
        """The hold on at the last snapshot seen ends by itself (its ``clears`` says so)."""

    def seen(self, snapshot: TableSnapshot) -> None:
        """``snapshot`` was published: log a hold begun, its reason changed, or its end."""
        hold = snapshot.hold
        reason = hold.reason if hold is not None else None
        if reason == self.reason:
            return
        if hold is not None and self.reason is None:
            log.warning(
                "hold: round %s held in %s: %s (clears: %s)",
                snapshot.round_no,
                hold.held_from or snapshot.step,
                hold.shown_reason,
                hold.clears,
            )
        elif hold is not None:
            log.warning(
                "hold: round %s now held for: %s (clears: %s)", snapshot.round_no, hold.shown_reason, hold.clears
            )
        elif snapshot.round_no == self.round_no and self.by_itself:
            log.info(
                "hold ended by itself: round %s resumes in %s (was: %s)", snapshot.round_no, snapshot.step, self.shown
            )
        elif snapshot.round_no == self.round_no:
            log.info("hold cleared: round %s resumes in %s (was: %s)", snapshot.round_no, snapshot.step, self.shown)
        else:
            log.info(
                "hold cleared: round %s ended (now round %s, %s) (was: %s)",
                self.round_no,
                snapshot.round_no,
                snapshot.step,
                self.shown,
            )
        self.reason, self.round_no = reason, snapshot.round_no
        self.shown = hold.shown_reason if hold is not None else None
        self.by_itself = hold is not None and hold.clears.startswith("by itself")
