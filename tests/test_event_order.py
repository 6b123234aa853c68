"""Events of different devices in the order they happened (issue 40 item 2; docs/protocol.md,
section 5.1): each device stamps its events with its own clock, the controller learns each
clock's offset from the answers to its polls, and :class:`drivers.order.EventOrder` takes an
event once every other link that is up has reported past its time. The real link protocol and
the real simulators, joined in process (``hil.wire``) on one simulated clock: no port, no sleep."""

from __future__ import annotations

import functools
import random

import pytest

from drivers.clock import WRAP, DeviceClock
from drivers.link import LinkConfig, LinkDown, LinkUp
from drivers.messages import DeviceEvent
from drivers.order import EventOrder
from drivers.panel import ButtonChanged, PanelDriver
from drivers.shoe import CardDealt, ShoeDriver
from hil.device import SimDevice
from hil.devices import PanelSim, ShoeSim
from hil.wire import SimWire

LINK = LinkConfig()


class Table:
    """A shoe and a panel behind the real link protocol, their events through one order into
    ``taken``. Each device's clock is its link's simulated time (``SimWire.now``) plus an offset
    of its own: run a link to a time, then act on its device, and the event happens then."""

    def __init__(self, offsets: dict[str, float], ordered: bool = True) -> None:
        self.taken: list[DeviceEvent] = []
        self.order = EventOrder(self.taken.append)
        self.shoe, self.panel = ShoeSim(["As", "Kd", "2c"], address=1), PanelSim(address=3)
        sims: dict[str, SimDevice] = {"shoe": self.shoe, "panel": self.panel}
        drivers = {"shoe": ShoeDriver, "panel": PanelDriver}
        self.wires: dict[str, SimWire] = {}
        rng = random.Random(7)
        for role, sim in sims.items():
            driver = drivers[role](role, "loop://", self, address=sim.address)
            protocol = driver.link.protocol
            if ordered:
                driver.link.order = self.order.feed(role, LINK.link_down_s)
            wire = self.wires[role] = SimWire(protocol, sim, rng, deliver=driver.link.dispatch)
            sim.clock = functools.partial(lambda w, offset: w.now + offset, wire, offsets[role])
            driver.close()  # never started: its protocol is run by the wire

    def put(self, item: DeviceEvent) -> None:  # the drivers' sink without an order
        self.taken.append(item)

    @property
    def now(self) -> float:
        return max(w.now for w in self.wires.values())

    def run(self, until: float) -> None:
        """Run every link to ``until``, in small steps (as the links' threads run side by side)."""
        while self.now < until - 1e-9:
            step = min(until, self.now + 0.01)
            for wire in self.wires.values():
                wire.run(step)

    def device_events(self) -> list[str]:
        return [type(e).__name__ for e in self.taken if isinstance(e, (ButtonChanged, CardDealt))]


def started(offsets: dict[str, float], ordered: bool = True) -> Table:
    t = Table(offsets, ordered)
    t.run(0.5)  # every link up, its state read, a few polls answered
    assert {type(e).__name__ for e in t.taken} >= {"LinkUp", "ShoeState", "PanelState"}
    t.taken.clear()
    return t


@pytest.mark.parametrize("offsets", [{"shoe": 0.0, "panel": 0.0}, {"shoe": 3.5, "panel": 91_000.25}])
def test_a_press_and_a_card_polled_in_the_wrong_order_are_taken_in_the_order_they_happened(
    offsets: dict[str, float],
) -> None:
    t = started(offsets)
    now = t.now
    t.wires["panel"].run(now + 0.001)
    t.panel.press("no_more_bets")  # the dealer presses ...
    t.wires["shoe"].run(now + 0.011)
    t.shoe.deal(1)  # ... and deals 10 ms later, within one poll interval
    t.wires["shoe"].run(now + 0.06)  # the shoe's link reaches the controller first
    assert t.device_events() == []  # the card waits: the panel has not reported past it
    assert t.order.held == 1
    t.wires["panel"].run(now + 0.06)
    t.run(now + 0.2)
    assert t.device_events() == ["ButtonChanged", "ButtonChanged", "CardDealt"]
    press, card = t.taken[-3], t.taken[-1]
    # each event's time is when it happened, on the controller's clock, whatever the device's offset
    assert isinstance(press, ButtonChanged) and isinstance(card, CardDealt)
    assert card.at - press.at == pytest.approx(0.010, abs=0.003)


def test_without_the_order_polling_brings_the_card_first() -> None:
    """The scenario above with the links' events straight to the table (as before version 3)."""
    t = started({"shoe": 0.0, "panel": 0.0}, ordered=False)
    now = t.now
    t.wires["panel"].run(now + 0.001)
    t.panel.press("no_more_bets")
    t.wires["shoe"].run(now + 0.011)
    t.shoe.deal(1)
    t.wires["shoe"].run(now + 0.06)
    t.wires["panel"].run(now + 0.06)
    assert t.device_events() == ["CardDealt", "ButtonChanged", "ButtonChanged"]


def test_a_silent_link_holds_the_others_only_until_it_counts_as_down() -> None:
    t = started({"shoe": 0.0, "panel": 0.0})
    now = t.now
    t.wires["panel"].line.connected = False  # the panel's cable pulled: its link goes silent
    t.run(now + 0.1)
    t.shoe.deal(1)
    t.run(now + 0.6)
    assert t.device_events() == [] and t.order.held >= 1  # the panel might still report an earlier press
    t.run(now + 1.3)  # link_down_s (1.0 s) after the panel last reported: it holds nothing any more
    assert t.device_events() == ["CardDealt"]
    assert any(isinstance(e, LinkDown) and e.device == "panel" for e in t.taken)
    # and with the panel down, the shoe's next card is taken at once
    t.shoe.deal(1)
    t.run(now + 1.4)
    assert t.device_events() == ["CardDealt", "CardDealt"]


def test_a_link_back_up_takes_what_it_kept_after_what_was_taken_already() -> None:
    t = started({"shoe": 0.0, "panel": 0.0})
    now = t.now
    t.wires["panel"].line.connected = False
    t.panel.press("deal")  # made while the link is down: reported late
    t.run(now + 1.5)
    t.shoe.deal(1)
    t.run(now + 1.6)
    assert t.device_events() == ["CardDealt"]
    t.wires["panel"].line.connected = True
    t.run(now + 8.0)
    assert any(isinstance(e, LinkUp) and e.device == "panel" for e in t.taken)
    assert t.device_events() == ["CardDealt", "ButtonChanged", "ButtonChanged"]  # late: not before the card


def test_the_order_keeps_each_link_s_items_in_their_order_and_ties_in_arrival_order() -> None:
    out: list[str] = []
    order = EventOrder(lambda e: out.append(e.device + str(e.event_no)))
    a, b = order.feed("a", 1.0), order.feed("b", 1.0)
    a.put(LinkUp(device="a", boot_id=1, rebooted=False), 4.9, 4.9)
    b.put(LinkUp(device="b", boot_id=2, rebooted=False), 4.9, 4.9)
    out.clear()
    a.put(DeviceEvent(device="a", event_no=1), 5.0, 5.1)
    a.put(DeviceEvent(device="a", event_no=2), 4.0, 5.1)  # stamped earlier than a1: still after it
    assert out == []  # b may still report something earlier
    b.reported(5.0, 5.2)
    assert out == ["a1", "a2"]
    b.put(DeviceEvent(device="b", event_no=1), 5.0, 5.2)  # the same time as a1: after it (arrival)
    a.put(DeviceEvent(device="a", event_no=3), None, 5.3)  # its time unknown: next, after what was taken
    assert out == ["a1", "a2", "b1", "a3"]


@pytest.mark.parametrize("start_ms", [0, WRAP - 1500])
def test_a_device_clock_s_offset_is_learned_from_its_answers_across_its_wrap(start_ms: int) -> None:
    clock = DeviceClock()
    rng = random.Random(3)
    true_offset = start_ms / 1000 - 100.0  # the device's clock reads start_ms at controller time 100
    for n in range(60):
        sent = 100.0 + n * 0.05
        made = sent + rng.uniform(0.0005, 0.02)  # the answer is made somewhere in the exchange
        received = made + rng.uniform(0.0005, 0.02)
        raw = int((made + true_offset) * 1000) % WRAP
        clock.reading(raw, sent, received)
    stamp = int((102.0 + true_offset) * 1000) % WRAP  # an event the device made at controller time 102
    assert clock.to_controller(stamp) == pytest.approx(102.0, abs=0.021)


def test_a_better_exchange_replaces_a_worse_one_and_an_old_one_ages() -> None:
    clock = DeviceClock()
    clock.reading(10_000, 0.0, 0.2)  # a slow exchange: +-0.1 s
    assert clock.to_controller(10_000) == pytest.approx(0.1)
    clock.reading(10_150, 0.3, 0.302)  # a quick one: +-1 ms, now the estimate
    assert clock.to_controller(10_150) == pytest.approx(0.301)
    clock.reading(10_151, 0.303, 0.353)  # slower again: the quick one stays
    assert clock.to_controller(10_150) == pytest.approx(0.301)
    late = 0.3 + 1000.0  # a thousand seconds on, 0.2 s of drift allowed: a fresh slower exchange wins
    clock.reading(10_150 + 1_000_000, late, late + 0.05)
    assert clock.to_controller(10_150 + 1_000_000) == pytest.approx(late + 0.025)


def test_items_of_the_same_time_held_by_another_link_go_in_the_order_they_were_put() -> None:
    out: list[str] = []
    order = EventOrder(lambda e: out.append(e.device + str(e.event_no)))
    a, b, c = order.feed("a", 1.0), order.feed("b", 1.0), order.feed("c", 1.0)
    c.reported(4.0, 5.0)  # c is up and has reported up to 4.0: it holds what happened after
    b.put(DeviceEvent(device="b", event_no=1), 5.0, 5.1)
    a.put(DeviceEvent(device="a", event_no=1), 5.0, 5.1)  # the same time, put after b1
    assert out == []
    c.reported(6.0, 5.2)
    assert out == ["b1", "a1"]
