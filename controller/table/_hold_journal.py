"""A table's holds as journal records, so "when was the table held, and why" lasts as long as
the rounds do (not journald's retention): ``HoldBegan`` (the round, the step it was held in,
why, what clears it, who may), ``HoldChanged`` (held now for another reason), and ``HoldEnded``
(how it cleared: resumed where it was, or the round voided or settled, written then, before the
round's own record; by whom; how long it lasted; the record it began at). What was tried meanwhile is in the journal already, as the events of the
round (the supervisor's acts and refusals, links down and up, the shoe's reports); ``tablectl
recall`` tells each hold's story from them, ``tablectl holds`` lists a shift's
(:mod:`controller.journal.holds`).

Like :mod:`.hold_log`, it reads only the snapshots the runtime publishes after each live event
(their reasons name no card face down), never during a replay; after a restart it takes up a
hold still open in the journal rather than beginning it again.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from controller.journal import JournalError, SqliteJournal
from controller.journal.holds import HOLD_KINDS
from controller.journal.records import Journal
from controller.table.snapshot import TableSnapshot

__all__ = ["HoldJournal"]

log = logging.getLogger("tablectl.table")


def _act(data: dict[str, Any]) -> str:
    """A supervisor's act as its action, with the person when the record names one."""
    person = next((data[k] for k in ("person", "supervisor", "by") if isinstance(data.get(k), str)), None)
    return f"{data.get('action', '?')}" + (f" ({person})" if person else "")


class HoldJournal:
    """Journals the holds seen in the table's successive snapshots."""

    def __init__(self, journal: Journal, clock: Callable[[], float] | None = None) -> None:
        self.journal = journal
        self.clock: Callable[[], float] = clock if clock is not None else getattr(journal, "clock", time.time)
        self.reason: str | None = None
        """The reason of the open hold (None: not held)."""
        self.round_no = 0
        self.began_seq = 0
        """The hold's ``HoldBegan`` record (0: not written yet: the journal could not take it)."""
        self.began_at = 0.0
        self.began: dict[str, Any] = {}
        self.acts: list[dict[str, Any]] = []
        """The supervisor's acts journaled while held (what cleared it, when one did)."""
        self.by_itself = True
        """Whether the hold's last reason ends by itself (the devices back), else the supervisor's."""
        self._taken_up = False

    def audited(self, kind: str, data: dict[str, Any]) -> None:
        """The table journaled ``kind`` (a supervisor act, ...): kept when it may end the hold."""
        if self.reason is not None and kind == "SupervisorAction":
            self.acts.append(data)

    def seen(self, snapshot: TableSnapshot) -> None:
        """``snapshot`` was published after a live event: journal a hold begun, its reason
        changed, or its end."""
        if not self._taken_up:
            self._take_up()
        hold = snapshot.hold
        reason = hold.reason if hold is not None else None
        if hold is not None:
            self.by_itself = hold.by_itself
        if reason == self.reason:
            return
        if hold is not None and self.reason is None:
            self.round_no, self.acts = snapshot.round_no, []
            self.began = {
                "round": snapshot.round_no,
                "step": hold.held_from or snapshot.step,
                "reason": hold.reason,
                "clears": hold.clears,
                "who": hold.who,
            }
            self.began_at = self.clock()
            self.began_seq = self._append("HoldBegan", self.began)
            if self.began_seq:
                self.began_at = self._at(self.began_seq)
        elif hold is not None:
            self._begin_late()
            self._append(
                "HoldChanged",
                {"round": self.round_no, "reason": hold.reason, "clears": hold.clears, "who": hold.who},
            )
        else:
            self._begin_late()
            self._append("HoldEnded", self._ended(snapshot))
        self.reason = reason

    def round_ended(self, number: int, void: bool) -> None:
        """Round ``number`` ends (before its round record is written): a hold still on in it ends
        with it, among the round's own records; one the next round starts with is its own."""
        if self.reason is None or number != self.round_no:
            return
        self._begin_late()
        self._append("HoldEnded", self._ended(None, f"round {number} {'voided' if void else 'settled'}"))
        self.reason = None

    def _begin_late(self) -> None:
        """The hold's begin, when the journal could not take it then (its own outage held the
        table): written now, with when it began."""
        if self.began_seq or not self.began:
            return
        began = datetime.fromtimestamp(self.began_at).astimezone().isoformat(timespec="milliseconds")
        self.began_seq = self._append("HoldBegan", {**self.began, "began": began, "recorded_late": True})

    def _ended(self, snapshot: TableSnapshot | None, cleared: str = "") -> dict[str, Any]:
        if snapshot is not None:  # else ``cleared`` says how the round ended
            cleared = (
                f"resumed in {snapshot.step}"
                if snapshot.round_no == self.round_no
                else f"round {self.round_no} ended (now round {snapshot.round_no}, {snapshot.step})"
            )
        if self.acts:
            by = "supervisor: " + ", ".join(_act(a) for a in self.acts)
        elif not self.by_itself:
            by = "supervisor"
        else:
            by = "by itself: the devices back"
        return {
            "round": self.round_no,
            "reason": self.reason,
            "began_seq": self.began_seq,
            "duration_s": round(max(0.0, self.clock() - self.began_at), 3) if self.began_at else None,
            "cleared": cleared,
            "by": by,
        }

    def _append(self, kind: str, data: dict[str, Any]) -> int:
        try:
            return self.journal.append(kind, data)
        except JournalError as exc:  # the journal's own outage holds the table: said in the log
            log.warning("journal: %s (%s of round %s not recorded)", exc, kind, data.get("round"))
            return 0

    def _at(self, seq: int) -> float:
        if seq and isinstance(self.journal, SqliteJournal):
            record = self.journal.record(seq)
            if record is not None:
                return record.at
        return self.clock()

    def _take_up(self) -> None:
        """A hold the journal has open (the controller stopped while held): taken up, not begun again."""
        self._taken_up = True
        journal = self.journal
        if not isinstance(journal, SqliteJournal):
            return
        try:
            row = journal.db.execute("SELECT MAX(seq) FROM rounds").fetchone()
            last = journal.record(int(row[0])) if row and row[0] is not None else None
            first = last.data.get("first_seq") if last is not None and isinstance(last.data, dict) else None
            start = int(first) - 1 if isinstance(first, int) and first > 0 else 0
            for record in journal.records(start):
                if record.kind in HOLD_KINDS and isinstance(record.data, dict):
                    if record.kind == "HoldEnded":
                        self.reason = None
                    else:
                        self.reason = str(record.data.get("reason"))
                        if record.kind == "HoldBegan":
                            self.round_no = int(record.data.get("round", 0))
                            self.began_seq, self.began_at, self.began = record.seq, record.at, dict(record.data)
        except (JournalError, sqlite3.Error, ValueError, TypeError) as exc:
            log.warning("journal: the holds open at the stop not read: %s", exc)
