"""Each hold's story, from the journal: when the table was held and why (``HoldBegan``, each new
reason ``HoldChanged``), what was tried meanwhile (the round's events between: the supervisor's
acts and refusals, the key, links down and up, the shoe's reports), and how it ended
(``HoldEnded``: resumed or the round ended, by whom, how long). For ``tablectl recall`` (the holds
of a round) and ``tablectl holds`` (a shift's).

The records are written by the table (:mod:`controller.table._hold_journal`); a hold whose round
was voided ends just after the round's record, and is looked for there.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from controller.journal.records import JournalRecord
from controller.journal.store import SqliteJournal

__all__ = ["HOLD_KINDS", "HoldStory", "stories", "round_holds", "holds_between", "story_lines", "duration_text"]

HOLD_KINDS = ("HoldBegan", "HoldChanged", "HoldEnded")
"""The records of a hold, in the order a hold writes them (:mod:`controller.table._hold_journal`)."""

AFTER_ROUND = 64
"""How many records after a round's own record are read for the end of a hold its void ended."""


@dataclass(slots=True)
class HoldStory:
    """One hold: its begin (None: not recorded, e.g. the journal itself was failing), its changes
    of reason, what was tried meanwhile, and its end (None: still held, or the controller stopped)."""

    began: JournalRecord | None = None
    changes: list[JournalRecord] = field(default_factory=list)
    tried: list[JournalRecord] = field(default_factory=list)
    ended: JournalRecord | None = None

    @property
    def round(self) -> int | None:
        for r in (self.began, self.ended):
            if r is not None and isinstance(r.data.get("round"), int):
                return int(r.data["round"])
        return None

    @property
    def at(self) -> float:
        """When it began (or ended, when its begin was not recorded)."""
        first = self.began or self.ended
        return first.at if first is not None else 0.0

    @property
    def duration(self) -> float | None:
        """Seconds held: the end's figure, else from the records' times; None while still held."""
        if self.ended is None:
            return None
        stated = self.ended.data.get("duration_s")
        if isinstance(stated, int | float) and not isinstance(stated, bool):
            return float(stated)
        return self.ended.at - self.began.at if self.began is not None else None

    def json(self) -> dict[str, object]:
        """The story as ``recall --json`` and ``holds --json`` write it."""
        began, ended = self.began, self.ended
        return {
            "round": self.round,
            "began": {"seq": began.seq, "at": began.at, **began.data} if began is not None else None,
            "changes": [{"seq": c.seq, "at": c.at, **c.data} for c in self.changes],
            "tried": [{"seq": t.seq, "at": t.at, "kind": t.kind} for t in self.tried],
            "ended": {"seq": ended.seq, "at": ended.at, **ended.data} if ended is not None else None,
            "duration_s": self.duration,
        }


Tried = Callable[[JournalRecord], bool]
"""Whether a record in a hold is a thing tried to clear it (or a thing that happened to it)."""

TRIED_KINDS = frozenset(
    {
        "SupervisorAction",
        "SupervisorRefused",
        "LinkUp",
        "LinkDown",
        "DeviceFault",
        "CardUnreadable",
        "ShoeStatus",
        "DoorChanged",
        "Jam",
        "JournalFault",
    }
)
"""The records that are things tried, or that happened to the hold, beside a button pressed or the key turned."""


def tried_to_clear(record: JournalRecord) -> bool:
    """The default :data:`Tried`: a supervisor's act or refusal, a button pressed, the key turned,
    a link down or up, a device's fault or report."""
    if record.kind == "ButtonChanged":
        return bool(record.data.get("pressed")) or record.data.get("button") == "supervisor_key"
    return record.kind in TRIED_KINDS


def stories(records: Iterable[JournalRecord], tried: Tried = tried_to_clear) -> list[HoldStory]:
    """The holds in ``records`` (in order), each with the records between its begin and end that
    ``tried`` picks."""
    found: list[HoldStory] = []
    open_: HoldStory | None = None
    for record in records:
        if record.kind == "HoldBegan":
            open_ = HoldStory(began=record)
            found.append(open_)
        elif record.kind == "HoldChanged":
            if open_ is None:
                open_ = HoldStory()
                found.append(open_)
            open_.changes.append(record)
        elif record.kind == "HoldEnded":
            began = record.data.get("began_seq")
            story = open_ if open_ is not None and (open_.began is None or open_.began.seq == began) else None
            if story is None:
                story = next((s for s in found if s.began is not None and s.began.seq == began), None)
            if story is None:
                story = HoldStory()
                found.append(story)
            story.ended = record
            open_ = None if story is open_ else open_
        elif open_ is not None and tried(record):
            open_.tried.append(record)
    return found


def round_holds(
    journal: SqliteJournal,
    number: int,
    events: Iterable[JournalRecord],
    settled_seq: int,
    tried: Tried = tried_to_clear,
) -> list[HoldStory]:
    """The holds of round ``number``: from its own ``events``, and the end of one its void ended,
    written just after its record (``settled_seq``)."""
    own = list(events)
    found = stories(own, tried)
    if any(s.ended is None for s in found):
        after = [
            r
            for r in journal.records(settled_seq, settled_seq + AFTER_ROUND)
            if r.kind == "HoldEnded" and r.data.get("round") == number
        ]
        found = stories(own + after[:1], tried)
    return found


def holds_between(
    journal: SqliteJournal, since: float | None, until: float | None, tried: Tried = tried_to_clear
) -> tuple[list[HoldStory], tuple[int, int]]:
    """The holds begun from ``since`` to ``until`` (either open), oldest first, and the records read
    (first, last) for the caller to verify: from the round that ended before ``since`` to the one
    that ended after ``until``, found in the round index (a shift reads a shift's records)."""
    with journal.lock:  # read from the newest round back: a recent shift reads a few index rows
        low = (
            journal.db.execute(
                "SELECT seq FROM rounds WHERE at < ? ORDER BY round_no DESC LIMIT 1", (since,)
            ).fetchone()
            if since is not None
            else None
        )
        high = None
        if until is not None:
            before = journal.db.execute(
                "SELECT round_no FROM rounds WHERE at <= ? ORDER BY round_no DESC LIMIT 1", (until,)
            ).fetchone()
            high = journal.db.execute(
                "SELECT seq FROM rounds WHERE round_no > ? ORDER BY round_no LIMIT 1",
                (before[0] if before is not None else -(2**63),),
            ).fetchone()
    low = low[0] if low is not None else None
    high = high[0] if high is not None else None
    first = int(low) if isinstance(low, int) else 0
    last = int(high) + AFTER_ROUND if isinstance(high, int) else journal.last_seq
    found = stories(journal.records(first, last), tried)
    chosen = [s for s in found if (since is None or s.at >= since) and (until is None or s.at <= until)]
    return chosen, (first + 1, min(last, journal.last_seq))


def duration_text(seconds: float | None, ended: bool = False) -> str:
    """``1.7 s``, ``2 min 05 s``, ``1 h 02 min``; for None, ``still held`` (or, ``ended``, not known)."""
    if seconds is None:
        return "for a time not recorded" if ended else "still held (no end recorded)"
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = int(round(seconds))
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def _clock(at: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at)) + f".{int(at * 1000) % 1000:03d}"


def story_lines(story: HoldStory, describe: Callable[[JournalRecord], str | None], indent: str = "    ") -> list[str]:
    """The story as text: held (when, in which step, why, what clears it), each change of reason
    and each thing tried with its time, then how it ended and after how long."""
    lines = []
    b = story.began
    if b is not None:
        lines.append(
            f"{indent}{_clock(b.at)} HELD in {b.data.get('step', '?')}: {b.data.get('reason', '?')} "
            f"(clears: {b.data.get('clears', '?')})"
        )
    else:
        lines.append(f"{indent}HELD (its beginning was not recorded)")
    for record in sorted([*story.changes, *story.tried], key=lambda r: r.seq):
        if record.kind == "HoldChanged":
            text = f"now held for: {record.data.get('reason', '?')} (clears: {record.data.get('clears', '?')})"
        else:
            label = (
                "tried" if record.kind in ("SupervisorAction", "SupervisorRefused", "ButtonChanged") else "meanwhile"
            )
            text = f"{label}: {describe(record) or record.kind}"
        lines.append(f"{indent}  {_clock(record.at)} {text}")
    e = story.ended
    if e is not None:
        act = e.data.get("act")
        by = f"{e.data.get('by', '?')}" + (f" (record {act.get('seq')})" if isinstance(act, dict) else "")
        lines.append(
            f"{indent}{_clock(e.at)} CLEARED after {duration_text(story.duration, True)}: {e.data.get('cleared', '?')}, "
            f"{by}"
        )
    else:
        lines.append(f"{indent}no end recorded: still held, or the controller stopped while held")
    return lines
