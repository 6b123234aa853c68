"""The in-memory journal (tests, the simulation and the in-process bench): what is appended reads
back whole and in order from any point, and what it keeps costs the garbage collector nothing
once collected (issue 42 item 5)."""

from __future__ import annotations

import gc

from controller.journal.records import JournalRecord, MemoryJournal


def _filled() -> tuple[MemoryJournal, list[dict[str, object]]]:
    journal = MemoryJournal()
    data: list[dict[str, object]] = [{"seat": n, "spot": "ante", "cents": 500} for n in range(1, 6)]
    for n, d in enumerate(data):
        assert journal.append(f"Kind{n}", d, event=n % 2 == 0) == n + 1
    return journal, data


def test_what_is_appended_reads_back_whole_in_order_from_any_point() -> None:
    journal, data = _filled()
    for after in range(len(data) + 2):
        got = list(journal.records(after))
        assert [r.seq for r in got] == list(range(after + 1, len(data) + 1))
        for r in got:
            assert isinstance(r, JournalRecord)
            assert (r.kind, r.event) == (f"Kind{r.seq - 1}", (r.seq - 1) % 2 == 0)
            assert r.data is data[r.seq - 1]
    times = [r.at for r in journal.records()]
    assert times == sorted(times)


def test_the_records_kept_are_set_aside_by_the_collector_once_collected() -> None:
    # A record kept as one tuple with its data dict stays watched by the collector for good
    # (CPython never sets aside a tuple holding a dict): every full collection walks it again.
    journal, _ = _filled()
    gc.collect()
    kept = [v for v in vars(journal).values() if isinstance(v, list)]
    assert kept
    watched = [item for items in kept for item in items if gc.is_tracked(item)]
    assert watched == []
