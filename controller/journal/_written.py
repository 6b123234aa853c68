"""What a journal's writer wrote itself: the ``records`` rows it committed, as it inserted them,
kept in memory for a while (issue 41 item 6).

The writer computed each of these rows' hashes when it wrote them, so a row read back from the
file that is equal to the one kept here, field by field, hashes as it says without hashing it
again: the fold (:mod:`controller.journal.fold`) compares the rows it is about to fold with these
instead of computing every hash a second time, and hashes only rows it does not find here (written
by another process, or by this table before a restart, or pushed out of this memory). A row
changed in the file after it was written is not equal to the one kept, so it is hashed and named
as before.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

__all__ = ["MOST", "RecordRow", "WrittenRows"]

RecordRow = tuple[int, float, str, int, str, str, str]
"""A ``records`` row: seq, at, kind, event, data (canonical text), prev, hash."""

MOST = 4096
"""The most rows kept (about forty rounds, a megabyte or two): the oldest go first. A fold of
rows no longer kept (a floor that stored nothing for longer) hashes them, as a fold of rows
written by another process does."""


class WrittenRows:
    """The last :data:`MOST` rows this writer committed, by record number.

    Kept in an ``OrderedDict``, whose oldest entry is let go of in constant time: a plain ``dict``
    finds its first key by walking past every slot deleted before it, so that once :data:`MOST`
    rows were kept (a table whose rounds were not folded) each record's append walked past the
    slots of those let go before (docs/benchmarks.md, "The journal's writer, a third pass")."""

    __slots__ = ("_last", "_rows", "most")

    def __init__(self, most: int = MOST) -> None:
        self._rows: OrderedDict[int, RecordRow] = OrderedDict()
        self._last = 0
        self.most = most

    def add(self, rows: Iterable[RecordRow]) -> None:
        """Keep ``rows``, just committed. Each is numbered after the ones kept (the chain only
        grows); one that is not (the file went back under the writer) lets go of all kept before."""
        kept = self._rows
        for row in rows:
            if row[0] <= self._last:
                kept.clear()
            kept[row[0]] = row
            self._last = row[0]
        while len(kept) > self.most:
            kept.popitem(last=False)

    def span(self, first: int, last: int) -> list[RecordRow] | None:
        """Rows ``first`` to ``last``, each as written, or None when one of them is not kept."""
        kept = self._rows
        out = []
        for seq in range(first, last + 1):
            row = kept.get(seq)
            if row is None:
                return None
            out.append(row)
        return out

    def forget_through(self, last: int) -> None:
        """Let go of every row numbered ``last`` or before (folded: read from its block from now on)."""
        kept = self._rows
        while kept:
            seq = next(iter(kept))  # the oldest, in constant time (an OrderedDict)
            if seq > last:
                break
            del kept[seq]

    def __len__(self) -> int:
        return len(self._rows)
