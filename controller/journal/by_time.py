"""Finished rounds by time, from the journal's round index (the ``rounds`` table: each round's
number, record and the time it ended), for ``tablectl recall --at`` and ``--since/--until``.

A disputed hand is found by when it was played: the round in play at a moment (it started at or
before it and ended at or after it) with the one before and the one after, or every round in
play at some moment of a window. The index is read from its newest round backwards and stops at
the first round that ended before the time asked (a time two hours ago reads some hundred index
rows, never the journal's records); only the one or two rounds whose start decides are read
(their own records).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.journal.recall import recall_round
from controller.journal.store import SqliteJournal

__all__ = ["rounds_at", "rounds_between"]

Indexed = tuple[int, int, float]
"""(round number, seq of its ``RoundSettled`` record, the time it ended)."""


@dataclass(frozen=True, slots=True)
class RoundsAt:
    """The rounds around a moment: ``chosen`` (round number, seq), oldest first; ``in_play`` the
    number of the round in play at that moment, ``None`` when none was (the table between rounds,
    or the time outside the journal's rounds: then the one before and the one after)."""

    chosen: list[tuple[int, int]]
    in_play: int | None


def _last_ended_before(journal: SqliteJournal, at: float, inclusive: bool = False) -> Indexed | None:
    """The newest round that ended before ``at`` (at or before, ``inclusive``), read from the end of the index."""
    op = "<=" if inclusive else "<"
    with journal.lock:
        row = journal.db.execute(
            f"SELECT round_no, seq, at FROM rounds WHERE at {op} ? ORDER BY round_no DESC LIMIT 1", (at,)
        ).fetchone()
    return (int(row[0]), int(row[1]), float(row[2])) if row else None


def _following(
    journal: SqliteJournal, after: int | None, count: int | None = None, until: int | None = None
) -> list[Indexed]:
    """The rounds after round ``after`` (from the first when ``None``), in order: ``count`` of them,
    or those up to round ``until``."""
    where, args = "round_no > ?", [after if after is not None else -(2**63)]
    if until is not None:
        where += " AND round_no <= ?"
        args.append(until)
    limit = f" LIMIT {int(count)}" if count is not None else ""
    with journal.lock:
        rows = journal.db.execute(f"SELECT round_no, seq, at FROM rounds WHERE {where} ORDER BY round_no{limit}", args)
        return [(int(r), int(s), float(a)) for r, s, a in rows]


def _started(journal: SqliteJournal, row: Indexed) -> float:
    """When the round began: its first record's time (its own records only are read)."""
    return recall_round(journal, row[0], row[1]).started


def rounds_at(journal: SqliteJournal, at: float) -> RoundsAt:
    """The round in play at ``at`` (a POSIX time) with the one before and the one after."""
    before = _last_ended_before(journal, at)
    after = _following(journal, before[0] if before else None, 2)
    if after and _started(journal, after[0]) <= at:
        rows = ([before] if before else []) + after
        return RoundsAt([(r, s) for r, s, _ in rows], after[0][0])
    rows = ([before] if before else []) + after[:1]
    return RoundsAt([(r, s) for r, s, _ in rows], None)


def rounds_between(journal: SqliteJournal, since: float | None, until: float | None) -> list[tuple[int, int]]:
    """The rounds in play at some moment from ``since`` to ``until`` (either open), oldest first:
    each one that ended at or after ``since`` and started at or before ``until``."""
    first = _last_ended_before(journal, since) if since is not None else None
    start = first[0] if first else None
    if until is None:
        return [(r, s) for r, s, _ in _following(journal, start)]
    last = _last_ended_before(journal, until, inclusive=True)
    rows = _following(journal, start, until=last[0]) if last and (start is None or last[0] > start) else []
    following = _following(journal, last[0] if last else start, 1)
    if following and _started(journal, following[0]) <= until and (since is None or following[0][2] >= since):
        rows.append(following[0])  # in play at ``until``: it ended after it
    return [(r, s) for r, s, _ in rows]
