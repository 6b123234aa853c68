"""One simulated table: the real runtime, the simulators behind the link protocol, the bench's
players and dealer, a supervisor, and the faults of one scenario, in one thread on one clock."""

from __future__ import annotations

import functools
import heapq
import queue
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.journal import JournalError, SqliteJournal
from controller.journal.store import JournalFull
from controller.table.round_data import RoundResult
from controller.table.runtime import TableRuntime
from controller.table.snapshot import TableSnapshot
from controller.table.table_drivers import ROLES
from controller.table_config import TableConfig
from drivers.link import LinkConfig, LinkDown, LinkUp
from drivers.messages import BUTTONS
from hil.device import SimDevice, new_boot_id
from hil.devices import BetSpotSim, PanelSim, ShoeSim
from hil.simulate.clock import EPOCH, SimTimers
from hil.simulate.faults import Fault
from hil.simulate.invariants import Broken, LogWatch, check_deal_prompt, check_hidden, check_hold_way, hidden_cards
from hil.wire import CHUNKINGS, Line, SimWire

__all__ = ["World", "Stuck", "TICK"]

TICK = 0.025
"""The simulated clock's step (seconds): half the links' poll interval."""

WAIT_S = 30.0
"""How long (simulated) a player waits for the table to show the effect of an action."""

STUCK_S = 240.0
"""Simulated seconds without the table moving on (a new step or round) before it counts as stuck."""


LINK = LinkConfig()
"""The links' timing in the simulation: the protocol's defaults (docs/protocol.md)."""


class Stuck(Exception):
    """A player's wait ran out (the table may still go on: the player looks again)."""


class SimJournal(SqliteJournal):
    """The table's journal on disk, which a fault can make fail (an I/O error or a full disk)."""

    trouble: Callable[[], str | None] = staticmethod(lambda: None)

    def _check(self) -> None:
        trouble = self.trouble()
        if trouble == "full":
            raise JournalFull(self.path, "disk full: 0 bytes free on /sim (simulated)")
        if trouble == "error":
            raise JournalError(f"{self.path}: cannot write the journal: disk I/O error (simulated)")

    def append(self, kind: str, data: dict[str, Any], event: bool = False) -> int:
        self._check()
        return super().append(kind, data, event)

    def append_round(self, round_no: int, data: dict[str, Any], meters: Any) -> int:
        self._check()
        return super().append_round(round_no, data, meters)

    def append_batch(self, records: Any) -> list[int]:
        self._check()
        return super().append_batch(records)

    def snapshot(self, seq: int, round_no: int, state: dict[str, Any]) -> None:
        self._check()
        super().snapshot(seq, round_no, state)


class SimView:
    """The players' view (a :class:`~controller.table.latest.SnapshotSource`): a wait runs the
    world until the state shows, the supervisor acting when the table holds for him."""

    def __init__(self, world: World) -> None:
        self.world = world

    def get(self) -> TableSnapshot:
        return self.world.runtime.latest.get()

    def hands(self) -> Any:
        return self.world.runtime.latest.hands()

    def wait(self, cond: Callable[[TableSnapshot], bool], what: str, timeout: float = 60.0) -> TableSnapshot:
        world = self.world
        end = world.now + min(timeout, WAIT_S)
        while True:
            s = self.get()
            if cond(s):
                return s
            if s.machine_error is not None:
                raise Broken("machine", f"round {s.round_no}, {s.step}: {s.machine_error}")
            if s.hold is not None and not s.hold.by_itself:
                world.supervise(s)
            elif world.now >= end:
                raise Stuck(what)
            else:
                world.advance(TICK)


class World:
    """The table of ``table`` for one seed, its journal at ``path``, the faults of ``faults``."""

    def __init__(self, table: TableConfig, seed: int, faults: list[Fault], path: Path) -> None:
        self.table, self.seed, self.path = table, seed, path
        self.rng = random.Random(f"world/{seed}")
        self.timers = SimTimers()
        shoe, spots, panel = ShoeSim(address=1), BetSpotSim(address=2), PanelSim(address=3)
        self.shoe, self.spots, self.panel = shoe, spots, panel
        self.sims: dict[str, SimDevice] = {"shoe": shoe, "bet_spots": spots, "panel": panel}
        for sim in self.sims.values():
            sim.rng = self.rng
            sim.boot_id = new_boot_id(rng=self.rng)
        self.lines = {role: Line(chunking=self.rng.choice(CHUNKINGS)) for role in ROLES}
        self.played: list[RoundResult] = []
        self.trouble: str | None = None
        self._agenda: list[tuple[float, int, Callable[[], None]]] = []
        self._n = 0
        for fault in faults:
            self._at(fault.at, functools.partial(self.inject, fault))
        self.crash_due = False
        self.crashes = 0
        self.faults_done: list[str] = []
        self.down: set[str] = set(ROLES)
        """The devices the table has not seen up (never connected, or a LinkDown since)."""
        self.last_move = 0.0
        self._last_where: tuple[int, str] = (0, "")
        self.watch = LogWatch()
        self.events = 0
        self.runtime: TableRuntime
        self.wires: dict[str, SimWire] = {}
        self._boot()

    @property
    def now(self) -> float:
        """Simulated seconds since the start."""
        return self.timers.now

    # --- the table ------------------------------------------------------------------------------------

    def _boot(self) -> None:
        """Open the journal and start the table on it (first, or again after a crash)."""
        journal = SimJournal(self.path, clock=lambda: EPOCH + self.timers.now)
        journal.trouble = lambda: self.trouble
        urls = {role: "loop://" for role in ROLES}
        runtime = TableRuntime(self.table, urls, journal, on_round=self.played.append, link_base=LinkConfig())
        runtime.engine.start_timer = self.timers.start
        runtime.latest.share_hands = True
        runtime.devices.randbelow = self.rng.randrange
        runtime.observers.append(self._observe)
        runtime.snapshot_file = None  # `tablectl status`'s file: not read here, and each write costs a sync
        for role in ROLES:  # the protocol's own timing (the bench configs poll every few ms of real time)
            runtime.drivers[role].link.protocol.config = LINK
        self.wires = {
            role: SimWire(
                runtime.drivers[role].link.protocol, self.sims[role], self.rng, self.lines[role], now=self.now
            )
            for role in ROLES
        }
        self.runtime = runtime
        self.down = set(ROLES)
        runtime.prepare()
        self._drain()

    def close(self) -> None:
        """Stop the table (its drivers were never started: nothing to join)."""
        for driver in self.runtime.drivers.values():
            driver.close()
        if self.runtime.store is not None:
            self.runtime.store.close()

    def crash(self) -> None:
        """The controller dies now (what is journaled stays) and starts again from its journal:
        the table must resume the same round at the same step."""
        before = self.runtime.snapshot
        self.close()
        self.crashes += 1
        self._boot()
        after = self.runtime.snapshot
        was = (before.round_no, before.step, before.dealt, before.wagers())
        now = (after.round_no, after.step, after.dealt, after.wagers())
        if was != now:
            raise Broken(
                "resume",
                f"crash {self.crashes}: round {before.round_no} at {before.step} with {before.dealt} cards before, "
                f"round {after.round_no} at {after.step} with {after.dealt} cards after"
                + ("" if was[:3] != now[:3] else " (the wagers differ)"),
            )

    def _observe(self, event: object) -> None:
        """After each live event the table handled: the per-event invariants."""
        self.events += 1
        if isinstance(event, LinkUp):
            self.down.discard(event.device)
        elif isinstance(event, LinkDown):
            self.down.add(event.device)
        s = self.runtime.latest.get()
        where = (s.round_no, s.step)
        if where != self._last_where:
            self._last_where, self.last_move = where, self.now
        hidden = hidden_cards(s, self.runtime.latest.hands())
        self.watch.hidden = hidden
        check_hidden(s, hidden)
        check_deal_prompt(s, self.down)
        if self.watch.broken is not None:
            raise self.watch.broken

    # --- time -----------------------------------------------------------------------------------------

    def _at(self, at: float, call: Callable[[], None]) -> None:
        self._n += 1
        heapq.heappush(self._agenda, (at, self._n, call))

    def advance(self, dt: float) -> None:
        """Run the world ``dt`` simulated seconds on."""
        end = self.now + dt
        while self.now < end - 1e-9:
            self.timers.now = t = min(end, self.now + TICK)
            while self._agenda and self._agenda[0][0] <= t:
                _, _, call = heapq.heappop(self._agenda)
                call()
            self.timers.fire()
            for _ in range(100):
                for wire in self.wires.values():
                    wire.run(t, EPOCH)
                if not self._drain():
                    break
            if self.now - self.last_move > STUCK_S:
                s = self.runtime.snapshot
                raise Broken(
                    "stuck",
                    f"round {s.round_no}: no new step for {STUCK_S:.0f} s in {s.step}"
                    + (f" (hold: {s.hold.reason}; clears: {s.hold.clears})" if s.hold is not None else ""),
                )

    def _drain(self) -> bool:
        """Handle every event queued; True when there was any."""
        engine = self.runtime.engine
        handled = False
        while True:
            try:
                event = engine.queue.get_nowait()
            except queue.Empty:
                break
            handled = True
            engine.run_one(event)
            if self.watch.broken is not None:
                raise self.watch.broken
        if self.crash_due:
            self.crash_due = False
            self.crash()
        return handled

    # --- the supervisor ---------------------------------------------------------------------------------

    def supervise(self, s: TableSnapshot) -> None:
        """The table holds for the supervisor: key on, a way on (a void only when nothing else is
        offered, or now and then), key off."""
        check_hold_way(s)
        if not s.key_on:
            self.panel.key(True)
            self._wait(lambda x: x.key_on or x.hold is None, 5.0)
            s = self.runtime.snapshot
        if s.hold is None:
            self.panel.key(False)
            return
        rng = random.Random(f"supervisor/{self.seed}/{s.round_no}/{s.version}")
        options = [o for o in s.supervisor_options if o.refused is None]
        ways = [o for o in options if o.action not in ("void", "misdeal")]
        pick = ways if ways and rng.random() < 0.9 else options
        if pick:
            self.panel.press(rng.choice(pick).button)
        version = s.version
        self._wait(lambda x: x.version != version, 5.0)
        self.advance(TICK * 4)
        s = self.runtime.snapshot
        if s.hold is None or s.hold.by_itself:
            self.panel.key(False)

    def _wait(self, cond: Callable[[TableSnapshot], bool], limit: float) -> None:
        end = self.now + limit
        while not cond(self.runtime.snapshot) and self.now < end:
            self.advance(TICK)

    # --- faults -----------------------------------------------------------------------------------------

    def inject(self, fault: Fault) -> None:
        """Do ``fault`` now (and schedule its end)."""
        kind, dev = fault.kind, fault.device
        s = self.runtime.snapshot
        rng = random.Random(f"fault/{self.seed}/{fault.at}/{kind}")
        self.faults_done.append(kind)
        end = self.now + fault.duration
        if kind in ("link_down", "panel_outage", "never_connected"):
            line = self.lines[dev]
            line.connected = False
            self._at(end, lambda: setattr(line, "connected", True))
        elif kind == "restart":
            self.sims[dev].restart()
        elif kind == "reboot":
            self.sims[dev].reboot()
        elif kind in ("journal_error", "disk_full"):
            self.trouble = "error" if kind == "journal_error" else "full"
            self._at(end, lambda: setattr(self, "trouble", None))
        elif kind == "crash":
            self.crash_due = True
        elif kind == "jam":
            self.shoe.jam(True)
            self._at(end, lambda: self.shoe.jam(False))
        elif kind == "door":
            self.shoe.door(True)
            self._at(end, lambda: self.shoe.door(False))
        elif kind == "count_jump":
            self.shoe.count += fault.value
        elif kind == "count_repeat":
            self.shoe.count = max(0, self.shoe.count - 1)
        elif kind == "count_restart":
            self.shoe.count = 0
        elif kind == "duplicate_card":
            self.shoe.duplicate()
        elif kind == "unreadable_card":
            if self.shoe.position < len(self.shoe.cards):
                self.shoe.unreadable()
        elif kind == "late_bet":
            if not s.can_bet(1, "x"):
                spots = self.table.catalog.wager_spots
                seat = rng.randint(1, self.table.seats)
                self.spots.place(seat, rng.choice(spots), rng.choice([100, 500, 1000]))
        elif kind == "key":
            self.panel.key(True)
            self._at(end, self._key_press)
        elif kind == "wrong_press":
            wrong = [b for b in BUTTONS if b != "supervisor_key" and not s.can_press(b)]
            if wrong:
                self.panel.press(rng.choice(wrong))
        elif kind == "early_card":
            if s.step in ("betting", "no_more_bets", "settlement", "round_complete") and self.shoe.stub_count:
                self.shoe.deal(1)

    def _key_press(self) -> None:
        """The supervisor, key on, presses something the table offers him now, then turns the key off."""
        s = self.runtime.snapshot
        rng = random.Random(f"key/{self.seed}/{s.version}")
        options = [o for o in s.supervisor_options if o.refused is None and o.action not in ("void", "misdeal")]
        if options and s.key_on:
            self.panel.press(rng.choice(options).button)
        self._at(self.now + 0.3, lambda: self.panel.key(False))
