"""The garbage collector in a process that plays many tables one after another (the soak's
chunks, the simulation's seeds): what lived before a table is set aside while it plays.

A process that runs one table (``tablectl run``, ``tablectl bench``) freezes its start-up for
good (:func:`controller.table.runtime.freeze_start_up`). A process that plays table after table
cannot: each table is garbage when it is done, and a frozen table is never collected. So what
lives before each table (the modules, the config, the paytables, the hand tables, the caches) is
frozen while it plays, and given back after: the table's collections, the oldest generation's
included, then walk only what that table made (a full collection walked the whole process again:
most of the collector's time in a simulated seed).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["set_aside"]


@contextmanager
def set_aside() -> Iterator[None]:
    """Freeze what lives now while the block runs, then give it back to the collector, unless
    the caller had frozen some already (it then stays frozen: a soak worker freezes after each
    chunk). The block may freeze more (a table's start-up); that is given back with the rest."""
    frozen_before = gc.get_freeze_count()
    gc.freeze()
    try:
        yield
    finally:
        if not frozen_before:
            gc.unfreeze()
