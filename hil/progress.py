"""Log lines through a progress bar: while ``tablectl bench`` or ``soak`` shows its bar, what
the table logs (a link's counters, a link down) is written above the bar by ``tqdm.write``
(``tqdm.contrib.logging.logging_redirect_tqdm``) instead of into the middle of its line."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from tqdm import tqdm
from tqdm.contrib.logging import logging_redirect_tqdm

__all__ = ["logging_above"]


@contextlib.contextmanager
def logging_above(bar: tqdm) -> Iterator[None]:
    """While inside, the root logger's console output goes through ``bar`` (written above it);
    a bar that is not shown (``--quiet``, not a terminal) leaves logging as it is."""
    if bar.disable:
        yield
        return
    with logging_redirect_tqdm(loggers=[logging.root], tqdm_class=type(bar)):
        yield
