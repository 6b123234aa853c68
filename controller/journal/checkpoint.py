"""Meters checkpoints: the running totals journaled every :data:`EVERY` rounds, so that
``tablectl meters`` reads and checks a bounded tail of the journal, not the whole year.

A checkpoint is a chained record (kind ``MetersCheckpoint``, not an event) written by the journal
in the same transaction as the ``RoundSettled`` record of every round whose number is a multiple
of :data:`EVERY`, right after it. It holds

* ``round``: that round's number, ``through_seq``: its ``RoundSettled`` record;
* ``meters``: the running totals (the ``meters`` table, pruned rounds included) as
  ``[[scope, name, value], ...]``;
* ``spots``: per wager spot, the cents wagered in settled rounds (``wagered``) and the house's
  win (``won``), summed from round ``from_round`` to this one over ``rounds`` rounds: what the
  theoretical beside actual win needs. They are the previous checkpoint's plus the rounds after
  it; a journal's first checkpoint sums the rounds of its window only (the last :data:`EVERY`
  rounds), so a journal written before checkpoints existed is never read whole by the writer.

The reader finds the last checkpoint from the round index in a few look-ups (it follows the
round record of the last multiple of :data:`EVERY`), checks the chain from it to the end with
``verify_reader`` and the running totals against checkpoint plus the rounds after it, and sums
the rounds after it: its time is bounded by :data:`EVERY` rounds, whatever the journal's size.
``journal verify`` recomputes every checkpoint from the round records.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.journal.stored import read_records, record_at

__all__ = ["EVERY", "KIND", "SpotSums", "checkpoint_data", "spot_sums"]

EVERY = 100
"""Rounds between checkpoints (about 9,000 records at a Mississippi Stud table)."""

KIND = "MetersCheckpoint"


@dataclass
class SpotSums:
    """Per spot, cents wagered in settled rounds and the house's win, over ``rounds`` rounds from
    ``from_round``."""

    from_round: int
    rounds: int = 0
    wagered: dict[str, int] = field(default_factory=dict)
    won: dict[str, int] = field(default_factory=dict)

    def add(self, round_data: Mapping[str, Any]) -> None:
        """One ``RoundSettled`` record's data (a void round counts as a round and nothing else)."""
        self.rounds += 1
        settlement = round_data.get("settlement")
        if settlement is None:
            return
        for seat, entry in round_data["record"]["seats"].items():
            for spot, cents in entry["wagers"].items():
                self.wagered[spot] = self.wagered.get(spot, 0) + int(cents)
            for spot, w in settlement["seats"][seat]["wagers"].items():
                self.won[spot] = self.won.get(spot, 0) - int(w["net"])

    def to_json(self) -> dict[str, object]:
        return {
            "from_round": self.from_round,
            "rounds": self.rounds,
            "wagered": dict(sorted(self.wagered.items())),
            "won": dict(sorted(self.won.items())),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SpotSums:
        return cls(
            int(data["from_round"]),
            int(data["rounds"]),
            {str(k): int(v) for k, v in data["wagered"].items()},
            {str(k): int(v) for k, v in data["won"].items()},
        )


def spot_sums(rounds: Iterable[Mapping[str, Any]], from_round: int, base: SpotSums | None = None) -> SpotSums:
    """``base`` (or nothing from ``from_round``) plus ``rounds``."""
    out = (
        SpotSums(from_round)
        if base is None
        else SpotSums(base.from_round, base.rounds, dict(base.wagered), dict(base.won))
    )
    for r in rounds:
        out.add(r)
    return out


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A checkpoint record as read: its record number and content."""

    seq: int
    round: int
    through_seq: int
    meters: dict[tuple[str, str], int]
    spots: SpotSums

    @classmethod
    def from_record(cls, seq: int, data: Mapping[str, Any]) -> Checkpoint:
        """Raises ``KeyError``, ``TypeError`` or ``ValueError`` for data that is not a checkpoint's."""
        return cls(
            seq,
            int(data["round"]),
            int(data["through_seq"]),
            {(str(s), str(n)): int(v) for s, n, v in data["meters"]},
            SpotSums.from_json(data["spots"]),
        )


def _round_data(db: sqlite3.Connection, after_round: int, through_round: int) -> list[Any]:
    index = db.execute(
        "SELECT seq FROM rounds WHERE round_no > ? AND round_no <= ? ORDER BY round_no", (after_round, through_round)
    ).fetchall()
    return [json.loads(r.data) for (seq,) in index if (r := _indexed(db, seq)) is not None]


def _indexed(db: sqlite3.Connection, seq: int) -> Any:
    """Record ``seq`` of the round index (None: not kept), read unchecked: a checkpoint is made
    and found with the connection alone, and ``verify`` checks every checkpoint against the chain."""
    return record_at(db, seq, checked=False)


def checkpoint_data(db: sqlite3.Connection, round_no: int, seq: int) -> dict[str, Any]:
    """The checkpoint after round ``round_no`` (its record ``seq`` and meters already written, in the
    caller's transaction): the running totals, and the spot sums from the previous checkpoint."""
    meters = [[s, n, v] for s, n, v in db.execute("SELECT scope, name, value FROM meters ORDER BY scope, name")]
    previous = find(db, round_no - 1)
    if previous is not None:
        sums = spot_sums(_round_data(db, previous.round, round_no), previous.spots.from_round, previous.spots)
    else:
        first = round_no - EVERY
        sums = spot_sums(_round_data(db, first, round_no), first + 1)
    return {"round": round_no, "through_seq": seq, "meters": meters, "spots": sums.to_json()}


def find(db: sqlite3.Connection, up_to_round: int, tries: int = 3) -> Checkpoint | None:
    """The last checkpoint at or before round ``up_to_round`` (looking back ``tries`` multiples of
    :data:`EVERY`), or ``None``. Raises what reading a damaged record raises."""
    r = up_to_round - up_to_round % EVERY
    for _ in range(tries):
        if r <= 0:
            return None
        row = db.execute("SELECT seq FROM rounds WHERE round_no = ?", (r,)).fetchone()
        if row is not None:
            cp = next(read_records(db, int(row[0]), int(row[0]) + 1, checked=False), None)
            if cp is not None and cp.kind == KIND:
                return Checkpoint.from_record(int(cp.seq), json.loads(cp.data))
        r -= EVERY
    return None


def last_checkpoint(db: sqlite3.Connection) -> Checkpoint | None:
    """The journal's last checkpoint, from the round index (a few look-ups), or ``None``."""
    row = db.execute("SELECT MAX(round_no) FROM rounds").fetchone()
    return find(db, int(row[0])) if row and isinstance(row[0], int) else None


def rounds_after(db: sqlite3.Connection, cp: Checkpoint | None) -> list[tuple[int, int, Any]]:
    """(round number, record seq, data) of every round after checkpoint ``cp`` (all with ``None``)."""
    index = db.execute(
        "SELECT round_no, seq FROM rounds WHERE round_no > ? ORDER BY round_no",
        (cp.round if cp is not None else -(2**62),),
    ).fetchall()
    return [(int(n), int(s), json.loads(r.data)) for n, s in index if (r := _indexed(db, s)) is not None]
