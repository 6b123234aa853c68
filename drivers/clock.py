"""A device's clock as the controller sees it, pure: no thread, no port, no clock of its own
(docs/protocol.md, section 5.1).

A device stamps each event with its own clock, a free-running count of milliseconds (u32,
wrapping at 2^32) that starts anywhere at power-up, and says its clock now in each answer to a
POLL. :class:`DeviceClock` learns the offset between the device's clock and the controller's
(the runner's monotonic seconds) from those answers, as NTP does from one exchange: the answer
was made between the POLL leaving (``sent``) and its answer arriving (``received``), so the
device's clock reading belongs to the middle of that span, give or take half of it. The span
with the smallest such error wins, aged by the most two crystal clocks can drift apart
(:data:`MAX_DRIFT`), so a better exchange replaces an old one and the estimate follows a clock
that drifts. A device stamp then converts to the controller's time.

The wrapping is undone against the newest reading: a stamp is taken as at most 2^31 ms (24.8
days) from the clock reading it came with.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DeviceClock", "MAX_DRIFT", "WRAP"]

WRAP = 1 << 32
"""The device clock's period, in its milliseconds."""

MAX_DRIFT = 2e-4
"""How fast two clocks may drift apart (seconds a second): two crystals of 100 ppm each."""


def _signed(delta: int) -> int:
    """``delta`` modulo 2^32 as a signed difference (-2^31 to 2^31 - 1)."""
    delta %= WRAP
    return delta - WRAP if delta >= WRAP // 2 else delta


@dataclass(slots=True)
class _Sample:
    at: float
    """The controller's time the device's reading belongs to (the exchange's middle)."""
    offset: float
    """The device's time less the controller's, seconds."""
    error: float
    """Half the exchange's span: the most the offset can be wrong by, then."""


class DeviceClock:
    """One boot of one device's clock, learned from its answers to POLLs."""

    def __init__(self) -> None:
        self._raw: int | None = None
        self._ms = 0
        """The newest reading, unwrapped (milliseconds since an arbitrary start of this boot)."""
        self._best: _Sample | None = None

    @property
    def known(self) -> bool:
        """Whether an offset has been learned (an answer to a POLL read)."""
        return self._best is not None

    def reading(self, raw: int, sent: float, received: float) -> float:
        """The device's clock read ``raw`` in its answer to a request that left at ``sent`` and
        whose answer arrived at ``received`` (the controller's seconds): learn from it. Returns
        the reading in the controller's time (what the device has reported up to)."""
        self._unwrap(raw)
        middle, error = (sent + received) / 2, max(0.0, (received - sent) / 2)
        best = self._best
        if best is None or error <= best.error + (middle - best.at) * MAX_DRIFT:
            best = self._best = _Sample(middle, self._ms / 1000 - middle, error)  # (made only when it wins)
        return self._ms / 1000 - best.offset  # to_controller(raw): the newest reading itself

    def _unwrap(self, raw: int) -> None:
        if self._raw is None:
            self._ms = raw
        else:
            self._ms += _signed(raw - self._raw)
        self._raw = raw

    def to_controller(self, stamp: int) -> float:
        """The controller's time of device stamp ``stamp`` (read against the newest reading)."""
        assert self._raw is not None and self._best is not None, "no reading yet"
        ms = self._ms + _signed(stamp - self._raw)
        return ms / 1000 - self._best.offset
