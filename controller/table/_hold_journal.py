"""A table's holds as journal records, so "when was the table held, and why" lasts as long as
the rounds do (not journald's retention): ``HoldBegan`` (the round, the step it was held in,
why, what clears it, who may), ``HoldChanged`` (held now for another reason), and ``HoldEnded``
(how it cleared: resumed where it was, or the round voided or settled, written then, before the
round's own record; by whom, and the supervisor's act that cleared it if one did; every act and
refusal of the supervisor's while held, by record number; how long it lasted on the table's
clock; the record it began at). The rest of what happened meanwhile is in the journal already,
as the events of the round (the key turned, buttons pressed, links down and up, the shoe's
reports); ``tablectl recall`` tells each hold's story from them, ``tablectl holds`` lists a
shift's (:mod:`controller.journal.holds`).

Like :mod:`.hold_log`, it reads only the snapshots the runtime publishes after each live event
(their reasons name no card face down), never during a replay; after a restart it takes up a
hold still open in the journal, with the supervisor's acts already tried in it, rather than
beginning it again.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable
from datetime import datetime

from controller.journal import JournalError, SqliteJournal
from controller.journal.holds import HOLD_KINDS
from controller.journal.records import Journal, JournalRecord
from controller.table._holds import reason_clears
from controller.table.snapshot import TableSnapshot

__all__ = ["HoldJournal", "HOLD_KINDS", "SUPERVISOR_KINDS", "MAX_TRIED"]

log = logging.getLogger("tablectl.table")

SUPERVISOR_KINDS = ("SupervisorAction", "SupervisorRefused")
"""The records of the supervisor's tries while held (an act done, an act refused, and why)."""

MAX_TRIED = 64
"""At most this many tries are listed in a hold's end (``tried_more`` counts the rest: each is
in the journal anyway); a hold's end stays small whatever is pressed during it."""

BY_ITSELF = "by itself when "


def _person(data: dict[str, object]) -> str | None:
    """Who did an act, when its record names a person (a signed-in supervisor)."""
    for key in ("supervisor_id", "person", "supervisor", "by"):
        value = data.get(key)
        if isinstance(value, str):
            return value
    return None


def _try(kind: str, data: dict[str, object], seq: int) -> dict[str, object]:
    """A supervisor's try as a hold's end lists it: its record, the act, and why it was refused."""
    entry: dict[str, object] = {"seq": seq, "action": str(data.get("action", "?"))}
    if kind == "SupervisorRefused":
        entry["refused"] = str(data.get("reason", "?"))
    person = _person(data)
    if person is not None:
        entry["person"] = person
    return entry


def _began_at(record: JournalRecord) -> float:
    """When a hold began: its begin record's time, or the time it names when written late."""
    late = record.data.get("began")
    if isinstance(late, str):
        try:
            return datetime.fromisoformat(late).timestamp()
        except ValueError:
            pass
    return record.at


def _by_itself(clears: str) -> str | None:
    """``by itself: the shoe reports ok (...)`` for a hold whose ``clears`` says it ends by itself."""
    if not clears.startswith(BY_ITSELF):
        return None
    return "by itself: " + clears[len(BY_ITSELF) :].split(";", 1)[0].strip()


class HoldJournal:
    """Journals the holds seen in the table's successive snapshots, timed on ``clock`` (the
    table's wall clock, injected: a simulation's is simulated)."""

    def __init__(self, journal: Journal, clock: Callable[[], float] | None = None) -> None:
        self.journal = journal
        self.clock: Callable[[], float] = clock if clock is not None else getattr(journal, "clock", time.time)
        self.reason: str | None = None
        """The reason of the open hold (None: not held)."""
        self.round_no = 0
        self.began_seq = 0
        """The hold's ``HoldBegan`` record (0: not written yet: the journal could not take it)."""
        self.began_at = 0.0
        self.began: dict[str, object] = {}
        self.tried: list[dict[str, object]] = []
        """The supervisor's acts and refusals journaled while held (at most :data:`MAX_TRIED`)."""
        self.tried_more = 0
        self.fresh: list[dict[str, object]] = []
        """The supervisor's acts done since the last snapshot: one of them ended the hold, if it ended."""
        self.clears = ""
        """What clears the open hold, as its reason at the last snapshot says (:func:`reason_clears`)."""
        self.by_itself = True
        """Whether the hold's last reason ends by itself (the devices back), else the supervisor's."""
        self._taken_up = False

    def audited(self, kind: str, data: dict[str, object], seq: int = 0) -> None:
        """The table journaled ``kind`` at record ``seq`` (a supervisor act or refusal, ...):
        kept when held (a way tried to clear it; an act done may end it)."""
        if kind not in SUPERVISOR_KINDS:
            return
        entry = _try(kind, data, seq)
        if kind == "SupervisorAction":
            self.fresh.append(entry)
        if self.reason is not None:
            self._tried(entry)

    def _tried(self, entry: dict[str, object]) -> None:
        if len(self.tried) < MAX_TRIED:
            self.tried.append(entry)
        else:
            self.tried_more += 1

    def seen(self, snapshot: TableSnapshot) -> None:
        """``snapshot`` was published after a live event: journal a hold begun, its reason
        changed, or its end."""
        if not self._taken_up:
            self._take_up()
        hold = snapshot.hold
        reason = hold.reason if hold is not None else None
        # what clears it as its reason says (the journal's words; the snapshot's follow what it waits for now)
        clears = reason_clears(hold.reason, hold.by_itself).words(hold.void_refused) if hold is not None else ""
        if hold is not None:
            self.by_itself, self.clears = hold.by_itself, clears
        if reason != self.reason:
            if hold is not None and self.reason is None:
                self.round_no, self.tried, self.tried_more = snapshot.round_no, [], 0
                self.began = {
                    "round": snapshot.round_no,
                    "step": hold.held_from or snapshot.step,
                    "reason": hold.reason,
                    "clears": clears,
                    "who": hold.who,
                }
                self.began_at = self.clock()
                self.began_seq = self._append("HoldBegan", self.began)
            elif hold is not None:
                self._begin_late()
                self._append(
                    "HoldChanged",
                    {"round": self.round_no, "reason": hold.reason, "clears": clears, "who": hold.who},
                )
            else:
                self._begin_late()
                self._append("HoldEnded", self._ended(snapshot))
            self.reason = reason
        self.fresh = []

    def round_ended(self, number: int, void: bool) -> None:
        """Round ``number`` ends (before its round record is written): a hold still on in it ends
        with it, among the round's own records; one the next round starts with is its own."""
        if self.reason is None or number != self.round_no:
            return
        self._begin_late()
        self._append("HoldEnded", self._ended(None, f"round {number} {'voided' if void else 'settled'}"))
        self.reason = None
        self.fresh = []

    def _begin_late(self) -> None:
        """The hold's begin, when the journal could not take it then (its own outage held the
        table): written now, with when it began."""
        if self.began_seq or not self.began:
            return
        began = datetime.fromtimestamp(self.began_at).astimezone().isoformat(timespec="milliseconds")
        self.began_seq = self._append("HoldBegan", {**self.began, "began": began, "recorded_late": True})

    def _cleared_by(self) -> tuple[dict[str, object] | None, str]:
        """The supervisor's act that ended the hold (one done in the event that ended it), and who
        or what ended it, in words."""
        act = self.fresh[-1] if self.fresh else None
        if act is not None:
            person = act.get("person")
            return act, f"supervisor: {act['action']}" + (f" ({person})" if person else "")
        words = _by_itself(self.clears)
        if words is not None:
            return None, words
        if self.by_itself:
            return None, "by itself: the devices back"
        done = [t for t in self.tried if "refused" not in t]
        return None, f"supervisor: {done[-1]['action']}" if done else "supervisor"

    def _ended(self, snapshot: TableSnapshot | None, cleared: str = "") -> dict[str, object]:
        if snapshot is not None:  # else ``cleared`` says how the round ended
            cleared = (
                f"resumed in {snapshot.step}"
                if snapshot.round_no == self.round_no
                else f"round {self.round_no} ended (now round {snapshot.round_no}, {snapshot.step})"
            )
        act, by = self._cleared_by()
        ended: dict[str, object] = {
            "round": self.round_no,
            "reason": self.reason,
            "began_seq": self.began_seq,
            "duration_s": round(max(0.0, self.clock() - self.began_at), 3) if self.began_at else None,
            "cleared": cleared,
            "by": by,
            "act": act,
            "tried": self.tried,
        }
        if self.tried_more:
            ended["tried_more"] = self.tried_more
        return ended

    def _append(self, kind: str, data: dict[str, object]) -> int:
        try:
            return self.journal.append(kind, data)
        except JournalError as exc:  # the journal's own outage holds the table: said in the log
            log.warning("journal: %s (%s of round %s not recorded)", exc, kind, data.get("round"))
            return 0

    def _take_up(self) -> None:
        """A hold the journal has open (the controller stopped while held): taken up, not begun
        again, with its begin, its last reason and what the supervisor tried in it."""
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
                self._replayed(record)
        except (JournalError, sqlite3.Error, ValueError, TypeError) as exc:
            log.warning("journal: the holds open at the stop not read: %s", exc)

    def _replayed(self, record: JournalRecord) -> None:
        """One record read again at the start: the holds' own, and the supervisor's tries while held."""
        data = record.data
        if not isinstance(data, dict):
            return
        if record.kind in SUPERVISOR_KINDS and self.reason is not None:
            self._tried(_try(record.kind, data, record.seq))
        elif record.kind == "HoldEnded":
            self.reason = None
        elif record.kind in HOLD_KINDS:
            self.reason = str(data.get("reason"))
            self.clears = str(data.get("clears", ""))
            self.by_itself = self.clears.startswith(BY_ITSELF)
            if record.kind == "HoldBegan":
                self.round_no = int(data.get("round", 0))
                self.began_seq, self.began_at, self.began = record.seq, _began_at(record), dict(data)
                self.tried, self.tried_more = [], 0
