"""The idle pace of a table's links (docs/protocol.md, section 4.1), apart from what runs them:
the thread that runs a table's links (:class:`~drivers.link.LinkLoop`) and the simulation
(``tablectl simulate``, which steps the same protocols on its own clock) take the same decision
with it.

A link polls at its config's ``poll_interval_s`` while anything happens at the table, and every
``idle_poll_interval_s`` once nothing but polls and empty answers has passed on any of the
table's links for ``idle_after_s``. What happens: an event the link received (its protocol's
``events`` counter moved, seen at the runner's next turn), or a command queued or an event
journaled (the runner's poke, :meth:`LinkPace.stir`). Something on one link brings every link of
the table back to its interval at once (:func:`stirred`, :meth:`LinkPace.wake`): the event order
waits for every device's report, so one idle link would hold the others' events.
"""

from __future__ import annotations

from collections.abc import Iterable

from drivers.protocol import LinkProtocol

__all__ = ["LinkPace", "stirred"]


class LinkPace:
    """The pace of one link's ``protocol``: when it (and its table) last saw something happen,
    on the runner's clock. The runner calls :meth:`start` when it starts running the link,
    :meth:`stir` when something is asked of it, :meth:`turn` each time it serves it, and
    :meth:`wake` on every link of the table when :func:`stirred` says so. Not thread-safe: the
    caller holds whatever guards the protocol."""

    __slots__ = ("protocol", "active_at", "stir_at", "events_seen")

    def __init__(self, protocol: LinkProtocol) -> None:
        self.protocol = protocol
        """The link's rules, paced through :meth:`LinkProtocol.pace`."""
        self.active_at = 0.0
        """When the table's links were last brought back to their interval together."""
        self.stir_at = 0.0
        """When this link last saw something happen: an event, a command, a poke."""
        self.events_seen = 0
        """The events the protocol had counted at the last turn."""

    def start(self, now: float) -> None:
        """The link starts running at ``now``: a table just opened is not idle."""
        self.active_at = self.stir_at = now
        self.events_seen = self.protocol.stats.events

    def stir(self, now: float) -> None:
        """Something was asked of the link at ``now`` (a command queued, an event journaled)."""
        self.stir_at = now

    def turn(self, now: float) -> None:
        """The link is served at ``now``: an event received since the last turn stirs it; then
        it polls at the config's ``poll_interval_s``, or at its idle pace once nothing has
        happened at the table for ``idle_after_s``."""
        protocol = self.protocol
        events = protocol.stats.events
        if events != self.events_seen:  # an event came: the table is not idle
            self.events_seen, self.stir_at = events, now
        config = protocol.config
        after = config.idle_after_s  # (now - max(active_at, stir_at) >= after, without the call)
        quiet = now - self.active_at >= after and now - self.stir_at >= after
        interval = config.idle_poll_s if quiet else config.poll_interval_s
        if interval != protocol.poll_interval_s:
            protocol.pace(interval)

    def wake(self, now: float) -> bool:
        """Something happened at the table (:func:`stirred`): poll at the config's interval from
        ``now``. True when the link was at its idle pace: its next poll is brought forward, and
        the runner serves it at once."""
        self.active_at = max(now, self.stir_at)
        protocol = self.protocol
        fast = protocol.config.poll_interval_s
        if protocol.poll_interval_s == fast:
            return False
        protocol.pace(fast)
        return True


def stirred(paces: Iterable[LinkPace]) -> bool:
    """Whether something happened on any of a table's links since they were last brought back
    together: then the runner wakes every one of them (:meth:`LinkPace.wake`)."""
    return any(pace.stir_at > pace.active_at for pace in paces)
