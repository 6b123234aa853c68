"""One table's journal against the floor store: every record the floor holds for the table must be
the journal's record at that number (the same hash), with no gap below the floor's head; what the
journal holds past the floor's head is the backlog, not a difference, until it is older than a grace
period: then it is missing (``tablectl floor reconcile``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

__all__ = ["reconcile"]

MAX_LISTED = 20
"""Differences named one by one (the rest are counted)."""


@dataclass
class Reconciled:
    """What the comparison found."""

    compared: int = 0
    """Records held by both, with the same hash."""
    backlog: int = 0
    """Journal records after the floor's last one (not yet published or stored)."""
    last_floor: int = 0
    """The floor's last record compared (or its chain's start): the backlog comes after it."""
    by_number: int = 0
    """Records held by both whose hash the journal read cannot give (a keyed journal's folded
    round read without its key: ``""``): compared by number only."""
    differences: list[str] = field(default_factory=list)
    more: int = 0
    """Differences beyond those listed."""

    @property
    def ok(self) -> bool:
        return not self.differences

    def differ(self, text: str) -> None:
        if len(self.differences) < MAX_LISTED:
            self.differences.append(text)
        else:
            self.more += 1


def reconcile(
    journal: Iterable[tuple[int, str]],
    floor: Iterable[tuple[int, str]],
    journal_anchor: int = 0,
    floor_anchor: int = 0,
) -> Reconciled:
    """Compare ``journal`` and ``floor`` records, each ``(seq, hash)`` in ascending order, read as
    they go (bounded memory); a journal hash ``""`` (not known without the journal's key) is
    compared by number only. Floor records at or below ``journal_anchor`` (pruned from the
    journal since) cannot be compared and are skipped; the floor holds the table from after
    ``floor_anchor`` (the record its chain started after)."""
    out = Reconciled()
    js: Iterator[tuple[int, str]] = iter(journal)
    current = next(js, None)
    expected = max(journal_anchor, floor_anchor) + 1
    last_floor = expected - 1
    for seq, digest in floor:
        if seq <= journal_anchor:
            continue
        if seq > expected:
            out.differ(f"records {expected} to {seq - 1}: in the journal, missing on the floor (a gap)")
        expected, last_floor = seq + 1, seq
        while current is not None and current[0] < seq:
            current = next(js, None)
        if current is None or current[0] != seq:
            out.differ(f"record {seq}: on the floor, not in the journal")
        elif current[1] == "":
            out.by_number += 1
        elif current[1] != digest:
            out.differ(f"record {seq}: the floor's hash {digest[:12]}... is not the journal's {current[1][:12]}...")
        else:
            out.compared += 1
    out.last_floor = last_floor
    while current is not None:
        if current[0] > last_floor:
            out.backlog += 1
        current = next(js, None)
    return out
