"""The forwarder takes a round's records from those it has just read (``RecentRecords``) and reads
the journal only for what it does not hold: the same records either way, its memory bounded."""

from __future__ import annotations

import pytest

pytest.importorskip("nats")

from controller.floor.forwarder import RecentRecords
from controller.journal.outbox import RawRecord


def rec(seq: int) -> RawRecord:
    return RawRecord(seq, 1.0 + seq, "SpotReport", "{}", True, f"{seq - 1:064x}", f"{seq:064x}")


class Journal:
    def __init__(self) -> None:
        self.reads: list[tuple[int, int]] = []

    def between(self, first: int, last: int) -> list[RawRecord]:
        self.reads.append((first, last))
        return [rec(s) for s in range(first, last + 1)]


def test_a_range_it_holds_is_not_read_again_and_one_it_does_not_is() -> None:
    journal = Journal()
    recent = RecentRecords(journal.between)
    recent.add([rec(s) for s in range(5, 20)])
    assert recent.between(6, 19) == [rec(s) for s in range(6, 20)] and journal.reads == []
    assert recent.between(3, 10) == [rec(s) for s in range(3, 11)] and journal.reads == [(3, 10)]
    recent.forget_through(12)  # a round published at 12: its records are no longer needed
    assert recent.between(10, 15) == [rec(s) for s in range(10, 16)] and journal.reads[-1] == (10, 15)
    assert recent.between(13, 19) == [rec(s) for s in range(13, 20)] and len(journal.reads) == 2


def test_it_keeps_at_most_its_limit() -> None:
    journal = Journal()
    recent = RecentRecords(journal.between, limit=100)
    for start in range(1, 1000, 50):
        recent.add([rec(s) for s in range(start, start + 50)])
    assert len(recent._records) <= 100
    assert recent.between(990, 999) == [rec(s) for s in range(990, 1000)] and journal.reads == []
    assert recent.between(1, 5) == [rec(s) for s in range(1, 6)] and journal.reads == [(1, 5)]
