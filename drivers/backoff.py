"""Pauses that double after each failure, up to a ceiling: one policy for every runner that
opens a link again (the threaded :class:`~drivers.link.Link`, the simulation's
:class:`~hil.wire.SimWire`: the pause itself is the protocol's,
:meth:`~drivers.protocol.LinkProtocol.reopen_pause`), for a state request the device refused,
and for a command the device answered busy."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Backoff"]


@dataclass(frozen=True, slots=True)
class Backoff:
    """Pauses from ``first_s``, doubling, never over ``max_s`` (seconds)."""

    first_s: float
    max_s: float

    def after(self, pause: float) -> float:
        """The pause that follows one of ``pause`` (0: the first): twice as long, at least
        ``first_s``, at most ``max_s``."""
        return min(max(pause * 2, self.first_s), self.max_s)

    def nth(self, tries: int) -> float:
        """The pause after ``tries`` earlier ones (0: the first): ``first_s`` doubled that many
        times, at most ``max_s``."""
        return min(self.first_s * float(2**tries), self.max_s)
