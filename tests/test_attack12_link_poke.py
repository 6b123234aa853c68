"""Attack on the link going down at ``link_down_s`` exactly (CHANGELOG "2026-12-07 (afternoon)",
docs/protocol.md 4.3 and 4.7) in the links' loop, on a real pty: a reply that came in before the
boundary, still in the port when the loop serves the link at (or after) it, woken by a poke (a
command queued, an event journaled: the table's, at the same instant) rather than by the deadline
alone.

``tests/test_link_loop.py`` checks the link served for its deadline alone after a stall (the port
is read first). Served for a poke at that instant, the port was not read: the request counted
unanswered, and at the boundary the link was declared down (``LinkDown``, the table held, the port
closed and the answer in it discarded) though the device had answered in time; short of the
boundary, a retry it did not need."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from test_link_loop import CONFIG, _shoe_between_requests, reply_waiting_on_port

from drivers.link import Link


def _journaled(link: Link) -> None:
    """An event journaled by the table at that instant: the loop is poked (nothing to ack here)."""
    link._poke()


def _command(link: Link) -> None:
    """A command queued by the table at that instant (the runner's poke)."""
    link.send_command("status", 0x0B)


def _woken(link: Link) -> None:
    """Something on another link of the table while this one polls at its idle pace: the loop
    brings it back to its interval and serves it at once (:meth:`Link._stirred`)."""
    link.protocol.pace(CONFIG.idle_poll_s)
    link._stirred()
    assert link._poked


@pytest.mark.parametrize("poke", [_command, _journaled, _woken], ids=["command_queued", "event_journaled", "woken"])
@pytest.mark.parametrize("late_s", [CONFIG.response_timeout_s, CONFIG.link_down_s], ids=["deadline", "boundary"])
def test_a_reply_in_the_port_is_read_when_the_link_is_served_for_a_poke_at_its_deadline(
    tmp_path: Path, poke: Callable[[Link], None], late_s: float
) -> None:
    with _shoe_between_requests(tmp_path) as served:
        link = served.link
        reply_waiting_on_port(served)
        timeouts = link.stats.timeouts
        # the loop's clock reaches the reply's deadline (or link_down_s since the last answer) as
        # the table pokes the link: the loop serves it for the poke, with the reply in its port
        served.clock.moved += late_s + 0.001
        poke(link)
        link._turn(0)
        assert not served.went_down(), "down with the device's answer in the port"
        assert link.stats.timeouts == timeouts, "the request counted unanswered with its answer in the port"
