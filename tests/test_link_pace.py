"""The idle pace's decision alone (drivers/link_pace.py; docs/protocol.md, section 4.1), as the
links' loop and the simulation take it: idle after ``idle_after_s`` of nothing, an event received
or a command queued on any link brings every link back."""

from __future__ import annotations

from drivers.link_events import LinkConfig
from drivers.link_pace import LinkPace, stirred
from drivers.protocol import LinkProtocol

CONFIG = LinkConfig(poll_interval_s=0.05, idle_poll_interval_s=0.2, idle_after_s=5.0)


def _pace(name: str, address: int) -> LinkPace:
    pace = LinkPace(LinkProtocol(name, address, CONFIG))
    pace.start(100.0)
    return pace


def test_a_link_goes_idle_after_idle_after_s_and_an_event_it_received_brings_it_back() -> None:
    pace = _pace("shoe", 1)
    protocol = pace.protocol
    pace.turn(104.9)
    assert protocol.poll_interval_s == CONFIG.poll_interval_s  # a table just started is not idle
    pace.turn(105.0)
    assert protocol.poll_interval_s == CONFIG.idle_poll_s
    protocol.stats.add("events")  # an event received: seen at the next turn
    pace.turn(106.0)
    assert protocol.poll_interval_s == CONFIG.poll_interval_s
    assert stirred([pace])
    pace.turn(110.9)
    assert protocol.poll_interval_s == CONFIG.poll_interval_s
    pace.turn(111.0)
    assert protocol.poll_interval_s == CONFIG.idle_poll_s


def test_a_command_on_one_link_wakes_every_link_of_the_table_and_only_an_idle_one_is_served_at_once() -> None:
    paces = [_pace("shoe", 1), _pace("bet_spots", 2), _pace("panel", 3)]
    for pace in paces[:2]:
        pace.turn(106.0)
    assert [p.protocol.poll_interval_s for p in paces] == [CONFIG.idle_poll_s] * 2 + [CONFIG.poll_interval_s]
    assert not stirred(paces)
    paces[2].stir(107.0)  # a command queued for the panel
    assert stirred(paces)
    assert [p.wake(107.0) for p in paces] == [True, True, False]
    assert {p.protocol.poll_interval_s for p in paces} == {CONFIG.poll_interval_s}
    assert not stirred(paces)
    for pace in paces:
        pace.turn(111.9)
    assert {p.protocol.poll_interval_s for p in paces} == {CONFIG.poll_interval_s}
    for pace in paces:
        pace.turn(112.0)
    assert {p.protocol.poll_interval_s for p in paces} == {CONFIG.idle_poll_s}
