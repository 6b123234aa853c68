"""One simulated table: the real runtime, the simulators behind the link protocol, the bench's
players and dealer, a supervisor, and the faults of one scenario, in one thread on one clock."""

from __future__ import annotations

import functools
import heapq
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from controller.configuration import TableConfig
from controller.journal import JournalError, SqliteJournal, Sync
from controller.journal.store import JournalFull
from controller.table.card_ledger import DUPLICATE, UNREADABLE
from controller.table.round_data import RoundResult
from controller.table.runtime import RuntimePorts, TableRuntime
from controller.table.snapshot import PlayerHands, SupervisorOption, TableSnapshot
from controller.table.table_drivers import ROLES
from drivers.link import LinkConfig, LinkDown, LinkUp
from drivers.link_pace import stirred
from drivers.messages import BUTTONS, DeviceEvent, card_text
from drivers.shoe import CardDealt, CardUnreadable
from hil.device import SimDevice, new_boot_id
from hil.devices import BetSpotSim, PanelSim, ShoeSim
from hil.simulate.clock import EPOCH, SimTimers
from hil.simulate.faults import Fault
from hil.simulate.invariants import (
    HOLD_S,
    Broken,
    LogWatch,
    check_deal_prompt,
    check_hidden,
    check_hold_way,
    check_open_held,
    check_settled_once,
    hidden_cards,
)
from hil.simulate.model_check import VisibilityWatch
from hil.simulate.pre_deal import PRE_DEAL_SPOTS, PreDealWatch
from hil.simulate.seed_journal import SeedJournal
from hil.simulate.streams import stream
from hil.simulate.swarm import Reached
from hil.wire import CHUNKINGS, Line, SimWire

__all__ = ["World", "Stuck", "TICK", "WAIT_S", "SWARM_WAIT_S"]

TICK = 0.025
"""The simulated clock's step (seconds): half the links' poll interval."""

WAIT_S = 30.0
"""How long (simulated) a player waits for the table to show the effect of an action."""

SWARM_WAIT_S = 3.0
"""The same under ``--swarm`` (time compression, issue 41 item 6): a wait that runs out is a fault
the player does not know of (a card dealt or a chip moved by it), after which the dealer reads the
screen; most of a swarm seed's simulated time was such waits, each link polled through them (80%
of Boston 5's, 10 seeds). Longer than a link's time to be declared down and come back."""

STUCK_S = 240.0
"""Simulated seconds without the table moving on (a new step or round) before it counts as stuck."""


LINK = LinkConfig()
"""The links' timing in the simulation: the protocol's defaults (docs/protocol.md)."""


_NO_WIRES: dict[str, SimWire] = {}
"""The links before the table's first start (a device's clock read then: the world's)."""


def _nothing() -> None:
    """No one listening."""


def _no_number(number: int | None) -> None:
    """No one listening."""


def _no_place(k: int, n: int) -> None:
    """No one listening."""


class Stuck(Exception):
    """A player's wait ran out (the table may still go on: the player looks again)."""


class CountingShoe(ShoeSim):
    """The shoe, keeping every card report it made (what physically left it, in order), less those
    it lost in a power cycle without memory before the controller had them."""

    def __init__(self) -> None:
        super().__init__(address=1)
        self.reports: list[tuple[int, int, int, str]] = []
        """(boot, event number, shoe index, card or "?" when unreadable)."""
        self.maybe_lost: list[tuple[int, str]] = []
        """Reports a restart without memory dropped from the queue: journaled or not."""
        self.count_shown: Callable[[int | None], None] = _no_number
        """Called as the shoe's count goes to the controller: a card leaves the shoe (read or not,
        its number the count: called with the report's event number), or the shoe answers with
        its whole state (its count of cards out, read after a link-up: called with None). A count
        fault acts as the controller meets it."""
        self.between_cards: Callable[[int, int], None] = _no_place
        """Called between two cards of one deal (the ``k``-th card out, of ``n``): the shoe's count
        may change there (a count fault within the deal)."""
        self.recounted: Callable[[], None] = _nothing
        """Called as the shoe's count starts over by itself (a shuffle, a load, a power-up without
        memory): a count fault not acted on yet never will."""

    def emit(self, event: type[DeviceEvent], **values: Any) -> int:
        number = super().emit(event, **values)
        if event is CardDealt:
            self.reports.append((self.boot_id, number, values["index"], card_text(values["card"])))
            self.count_shown(number)
        elif event is CardUnreadable:
            self.reports.append((self.boot_id, number, values["index"], "?"))
            self.count_shown(number)
        return number

    def deal(self, n: int = 1) -> None:
        """Deal ``n`` cards one by one (:attr:`between_cards` called between two of them)."""
        for k in range(n):
            if k:
                self.between_cards(k, n)
            position = self.position
            super().deal(1)
            if self.position == position:  # empty (reported once)
                return

    def state_body(self) -> tuple[bytes, list[bytes] | None]:
        self.count_shown(None)
        return super().state_body()

    def load(self, cards: Sequence[str]) -> None:
        super().load(cards)
        self.recounted()

    def forget(self) -> None:
        super().forget()
        self.recounted()

    def on_command(self, name: str, values: dict[str, Any]) -> int:
        status = super().on_command(name, values)
        if name == "start_shuffle":
            self.recounted()
        return status

    def restart(self) -> None:
        with self.lock:
            lost = {(b, n) for b, n, *_ in self.pending}
        # lost, unless the controller had it already (received, not yet journaled and acknowledged)
        self.maybe_lost += [(i, c) for b, n, i, c in self.reports if (b, n) in lost]
        self.reports = [r for r in self.reports if (r[0], r[1]) not in lost]
        super().restart()


class SimJournal(SqliteJournal):
    """The table's journal on disk, which a fault can make fail (an I/O error or a full disk)."""

    trouble: Callable[[], str | None] = staticmethod(lambda: None)
    refused: Callable[[str], None] = staticmethod(lambda trouble: None)
    """Called with the trouble (``error`` or ``full``) as a write is refused for it."""

    def __init__(self, path: Path, clock: Callable[[], float]) -> None:
        # No sync at each commit (the durability port, from the start: the schema's commits too): a
        # simulated crash closes the connection (what was committed is in the file), and the machine
        # does not lose power under a simulation; the bytes are the same.
        super().__init__(path, clock=clock, sync=Sync.OFF)

    def _check(self) -> None:
        trouble = self.trouble()
        if trouble is not None:
            self.refused(trouble)
        if trouble == "full":
            raise JournalFull(self.path, "disk full: 0 bytes free on /sim (simulated)")
        if trouble == "error":
            # named by its file name alone: a seed's journal is the same byte for byte in any folder
            raise JournalError(f"{self.path.name}: cannot write the journal: disk I/O error (simulated)")

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
        end = world.now + min(timeout, world.wait_s)
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
                world.jump(end)  # the ticks in which nothing happens: the same state, the same checks
                world.advance(TICK)


class World:
    """The table of ``table`` for one seed, its journal at ``path``, the faults of ``faults``."""

    skip_idle = True
    """A link whose next request is not due is not run in a tick (:meth:`_run_links`); False:
    every link run every tick (the same journal, slower)."""

    look_again = False
    """After an event that changed nothing but the version in the table's snapshot and in the
    players' hands, and nothing on the panel's display (the table publishes its last snapshot
    again with the next version after about half a round's events: a device's reply to a
    command), the face-down checks are not run again: each would give the same answer (the
    model's face-down cards follow from the hands and the snapshot alone, and a version is a
    number, naming no card). True: they run after every event (the same answers, slower)."""

    def __init__(
        self,
        table: TableConfig,
        seed: int,
        faults: list[Fault],
        path: Path,
        tolerate: frozenset[str] = frozenset(),
        wait_s: float = WAIT_S,
        framed: bool = True,
    ) -> None:
        self.table, self.seed, self.path = table, seed, path
        self.framed = framed
        """Each reply fed to the protocol in the pieces its line cuts it into (False: whole, see
        :attr:`hil.wire.SimWire.whole`; the journal is the same)."""
        self.wait_s = wait_s
        """How long a player waits for the effect of an action (:data:`WAIT_S`, or :data:`SWARM_WAIT_S`)."""
        self.tolerate = tolerate
        """Invariants not checked (a known bug's, so that a run can go past it to check the rest)."""
        # Every draw comes from a stream of its own (:mod:`.streams`): a line that polls more or
        # less often, or a device that boots once more, moves no other line's losses, no fault, no
        # supervisor's choice (the players' and the shoe's are the bench's, per round).
        self.start_draws = self._stream("table", "start")
        """The table's start draws (its ``randbelow`` port)."""
        self.line_draws = {role: self._stream("line", role) for role in ROLES}
        """Each line's losses, cuts and link sessions' numbers (kept across the table's restarts)."""
        self.timers = SimTimers()
        shoe, spots, panel = CountingShoe(), BetSpotSim(address=2), PanelSim(address=3)
        self.shoe, self.spots, self.panel = shoe, spots, panel
        self.sims: dict[str, SimDevice] = {"shoe": shoe, "bet_spots": spots, "panel": panel}
        for role, sim in self.sims.items():
            sim.rng = self._stream("boot", role)
            sim.boot_id = new_boot_id(rng=sim.rng)
            # each device's own clock: the simulated time from a start of its own (the controller
            # learns each offset from the device's answers)
            start = self._stream("clock", role).uniform(0.0, 1000.0)
            sim.clock = functools.partial(self._device_clock, role, start)
        # replies mostly whole; a link now and then split, or a byte at a time (slow to simulate)
        # and now and then a request or a reply lost on the line (retries, repeats)
        self.lines = {role: _line(self._stream("line", role, "kind")) for role in ROLES}
        self._decisions: Counter[int] = Counter()
        """The supervisor's decisions so far in each round (each drawn from a stream of its own)."""
        self.played: list[RoundResult] = []
        self.trouble: str | None = None
        self._agenda: list[tuple[float, int, Callable[[], None]]] = []
        self._n = 0
        self._triggers: dict[tuple[int, str, str], list[Fault]] = {}
        """Swarm faults not started yet, by (round of the seed, step, edge) (:mod:`.swarm`)."""
        self._in_deal: dict[tuple[int, str], list[Fault]] = {}
        """Count faults placed as a deal step begins, by (round of the seed, step): they change the
        shoe's count between two cards of that deal (:meth:`_between_cards`)."""
        for fault in faults:
            if fault.kind in _COUNT_KINDS and fault.step in _DEAL_STEPS and fault.edge == "enter":
                self._in_deal.setdefault((fault.round_no, fault.step), []).append(fault)
            elif fault.step:
                self._triggers.setdefault((fault.round_no, fault.step, fault.edge), []).append(fault)
            else:
                self._at(fault.at, functools.partial(self.inject, fault))
        self._rounds_seen: list[int] = []
        self._was: tuple[int, str, str | None] = (0, "", None)
        """The round, step and step held from at the last event (for the swarm's edges)."""
        self.reached: list[Reached] = []
        """Each fault that acted: its kind and the step the table was at when it did, held or not
        (coverage: a fault that never acted is not in it; :meth:`_acted`)."""
        self._waiting: dict[str, list[Fault]] = {}
        """Faults injected whose effect waits for something (:meth:`_act`): ``line ROLE`` (a
        request lost to the pulled line), ``journal error`` or ``journal full`` (a write refused),
        ``answer ROLE`` (a state answer refused or damaged), ``count`` (the shoe's count reaches the
        controller: :attr:`CountingShoe.count_shown`), ``crash`` (the controller dies)."""
        for role, line in self.lines.items():
            line.cut = functools.partial(self._act, f"line {role}")
            self.sims[role].damaged = functools.partial(self._act, f"answer {role}")
        shoe.count_shown = self._count_shown
        shoe.between_cards = self._between_cards
        shoe.recounted = self._recounted
        self._count_cards: dict[int, list[Fault]] = {}
        """Count faults whose changed count a card carries, by the shoe's event number of its report,
        until the table handles that card (they act then, at the step it was at)."""
        self._before: TableSnapshot | None = None
        """The table's snapshot before the event being checked (:meth:`_check`)."""
        self._late: dict[tuple[int, int, str], tuple[int | None, int]] = {}
        """Late bets a fault placed outside any wager step and not yet seen by the supervisor:
        (round, seat, spot) -> (the wager before, the chips placed) (invariant ``late_bet``)."""
        self.crash_due = False
        self.crashes = 0
        self.faults_done: list[str] = []
        self.down: set[str] = set(ROLES)
        """The devices the table has not seen up (never connected, or a LinkDown since)."""
        self.ever_up: set[str] = set()
        """The devices the table has seen up since it (last) started: one not connected again
        since a restart is one never connected, which refuses "no more bets" instead of holding."""
        self.last_move = 0.0
        self._last_where: tuple[int, str] = (0, "")
        self._held: tuple[int, str | None] | None = None
        self._calm_hold: tuple[int, str, float] | None = None
        """The hold that ends by itself on while no fault's effect is under way: (round, reason, since when)."""
        self._asked: dict[int, set[str]] = {}
        """Each round's steps the dealer was asked to settle before its settlement (Boston 5's bonus)."""
        """The round and step the table held from, while it holds."""
        self.watch = LogWatch()
        self.seen = VisibilityWatch(table.path)
        """The reference model's face-down cards, looked for in every outward payload (issue 41 item 3)."""
        self.pre_deal = PreDealWatch(table.game)
        """The open round's pre-deal wagers, followed from its first card out (``pre_deal_wager``)."""
        self._corrected = ""
        """The screen the dealer last took chips back for (a correction shows until the next press)."""
        self.broken: Broken | None = None
        """The first invariant an event broke (raised from the step that handled it)."""
        self.events = 0
        self.jumped = 0
        """Ticks jumped over (nothing due in them: time compressed)."""
        self._fresh = False
        """Every link was run after the table last handled an event (their waits are current)."""
        self.idle_skipped = 0
        """Runs of a link left out so (a link idle in a tick not jumped over)."""
        self._looked: tuple[object, ...] = ()
        """What the face-down checks last looked at (:meth:`_check`): the snapshot less its
        version, the players' hands less theirs, the panel's display."""
        self.looks = 0
        """Events after which the face-down checks looked (the others left the snapshot as it was)."""
        self.runtime: TableRuntime
        self.wires: dict[str, SimWire] = {}
        self._boot()

    def _stream(self, *names: object) -> random.Random:
        """The stream ``names`` of this seed and game (:func:`.streams.stream_name`), from its start."""
        return stream(self.seed, self.table.game, *names)

    def wall(self) -> float:
        """The simulated wall-clock time (seconds since 1970)."""
        return EPOCH + self.timers.now

    def _device_clock(self, role: str, start: float) -> float:
        """A device's clock: simulated seconds since ``start`` before the simulation began, as its
        link has run to (each link runs on to the world's time in turn)."""
        wire = getattr(self, "wires", _NO_WIRES).get(role)
        return start + (wire.now if wire is not None else self.timers.now)

    @property
    def now(self) -> float:
        """Simulated seconds since the start."""
        return self.timers.now

    def _clock(self) -> float:
        """The links' clock (:attr:`drivers.link.Link.clock`): simulated seconds since the start."""
        return self.timers.now

    # --- the table ------------------------------------------------------------------------------------

    def _boot(self) -> None:
        """Open the journal and start the table on it (first, or again after a crash)."""
        journal = SimJournal(self.path, clock=self.wall)
        journal.trouble = lambda: self.trouble
        journal.refused = lambda trouble: self._act(f"journal {trouble}")
        urls = {role: "loop://" for role in ROLES}
        ports = RuntimePorts(
            wall=self.wall,
            start_timer=self.timers.start,
            randbelow=self.start_draws.randrange,
            link_protocol=LINK,  # the protocol's own timing (the bench configs poll every few ms of real time)
            share_hands=True,
            status_file=False,  # `tablectl status`'s file: not read here, and each write costs a sync
        )
        runtime = TableRuntime(
            self.table, urls, journal, on_round=self.played.append, link_base=LinkConfig(), ports=ports
        )
        runtime.observers.append(self._observe)
        for driver in runtime.drivers.values():
            driver.link.clock = self._clock  # its pace's clock: a command queued stirs it now
            driver.link.pace.start(self.now)  # as the runner starts running a link
        self.wires = {
            role: SimWire(
                runtime.drivers[role].link.protocol,
                self.sims[role],
                self.line_draws[role],
                self.lines[role],
                now=self.now,
                deliver=runtime.drivers[role].link.dispatch,
                whole=not self.framed,
                pace=runtime.drivers[role].link.pace,
            )
            for role in ROLES
        }
        self.runtime = runtime
        self.down = set(ROLES)
        self.ever_up = set()  # since this start: a device not connected again yet holds nothing by itself
        runtime.prepare()
        runtime.heartbeat(True)
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
        # a round recovered held: the step it holds from is where it is
        was = (before.round_no, before.held_from or before.step, before.dealt, before.wagers())
        now = (after.round_no, after.held_from or after.step, after.dealt, after.wagers())
        if was != now:
            raise Broken(
                "resume",
                f"crash {self.crashes}: round {before.round_no} at {was[1]} with {before.dealt} cards before, "
                f"round {after.round_no} at {now[1]} with {after.dealt} cards after"
                + ("" if was[:3] != now[:3] else " (the wagers differ)"),
            )

    def _observe(self, event: object) -> None:
        """After each live event the table handled: the per-event invariants (a broken one is kept
        and raised once the engine's step is done: the runtime logs an observer's error, never raises it)."""
        if self.broken is None:
            try:
                self._check(event)
            except Broken as exc:
                self.broken = exc

    def _check(self, event: object) -> None:
        self.events += 1
        if self._count_cards and isinstance(event, (CardDealt, CardUnreadable)):
            for fault in self._count_cards.pop(event.event_no, ()):
                self._acted(fault, self._before)
        if isinstance(event, LinkUp):
            self.down.discard(event.device)
            self.ever_up.add(event.device)
        elif isinstance(event, LinkDown):
            self.down.add(event.device)
        s = self.runtime.latest.get()
        where = (s.round_no, s.step)
        if where != self._last_where:
            opened = s.round_no != self._last_where[0] and self._last_where[1] not in ("", "closed")
            if opened and "open_while_down" not in self.tolerate:
                check_open_held(s, self.down & self.ever_up)
            self._last_where, self.last_move = where, self.now
        hands = self.runtime.latest.hands()
        looked = (s[1:], None if hands is None else _shown(hands), dict(self.panel.display))
        if self.look_again or looked != self._looked:
            hidden = hidden_cards(s, hands)
            check_hidden(s, hidden)
            self.seen.observe(s, hands, self.panel.display)
            self.watch.hidden = hidden | self.seen.hidden
            self._looked = looked
            self.looks += 1
        if "deal_while_down" not in self.tolerate:
            check_deal_prompt(s, self.down)
        if s.step == "bonus_settlement":
            self._asked.setdefault(s.round_no, set()).add(s.asked)
        check_settled_once(s, self._asked.get(s.round_no, ()))
        self._check_resume(s)
        if self._late:
            self._check_late_bets(s)
        self.pre_deal.observe(s)  # after late_bet: a late bet taken without the supervisor is that check's
        if self._triggers or self._in_deal:
            self._start_swarm(s)
        if self.watch.broken is not None:
            self.broken = self.watch.broken
        self._before = s

    def _check_resume(self, s: TableSnapshot) -> None:
        """A held round resumes only once every device is back (a link hold ends by itself then;
        the supervisor's clear fault is refused until then): never with a link down."""
        held, self._held = self._held, (s.round_no, s.held_from) if s.step == "hold" else None
        if held is not None and (s.round_no, s.step) == held and self.down:
            raise Broken(
                "resume_while_down",
                f"round {s.round_no}: play resumes in {s.step} while {', '.join(sorted(self.down))} is down",
            )

    def _check_late_bets(self, s: TableSnapshot) -> None:
        """A late bet (chips placed on a locked spot) enters the round's wagers only once the
        supervisor accepts it: never by itself (the world knows what it placed, and when the
        supervisor pressed a button). With the key on, any press may be his acceptance (a dealer's
        ``next`` is one then): what was placed before is no longer followed."""
        if s.key_on:
            self._late.clear()
            return
        for key, (before, cents) in list(self._late.items()):
            number, seat, spot = key
            if number != s.round_no or s.wager_step is not None:  # a new round, or a step taking wagers
                del self._late[key]
                continue
            now = s.wagers().get(seat, {}).get(spot)
            if now == cents and now != before:
                raise Broken(
                    "late_bet",
                    f"round {number}: seat {seat} {spot} {cents / 100:.2f}, placed late in {s.held_from or s.step}, "
                    "counted as a wager without the supervisor's acceptance",
                )

    def _start_swarm(self, s: TableSnapshot) -> None:
        """Start the swarm faults placed at the step the table just entered, left or held from."""
        held_from = s.held_from if s.step == "hold" else None
        was_round, was_step, was_held = self._was
        if s.step == "closed":  # before the first round opens: no round of the seed yet
            return
        self._was = (s.round_no, s.step, held_from)
        if s.round_no not in self._rounds_seen:
            self._rounds_seen.append(s.round_no)
        n = self._rounds_seen.index(s.round_no) + 1
        edges = []
        if (s.round_no, s.step) != (was_round, was_step):
            if was_step and was_step != "hold" and (held_from != was_step or was_round != s.round_no):
                edges.append((self._rounds_seen.index(was_round) + 1, was_step, "leave"))
            if s.step != "hold":
                edges.append((n, s.step, "enter"))
        if held_from is not None and was_held != held_from:
            edges.append((n, held_from, "held"))
        for edge in edges:
            for fault in self._triggers.pop(edge, ()):
                self._at(self.now + fault.at, functools.partial(self.inject, fault))

    def wait_links(self, limit: float = 5.0) -> None:
        """Run on until the table has seen every device up (at most ``limit`` simulated seconds)."""
        end = self.now + limit
        while self.down and self.now < end:
            self.jump(end)
            self.advance(TICK)

    def unstick(self) -> None:
        """A player's wait ran out: the dealer reads the screen instead of his own count (a fault
        may have dealt a card or moved a chip the player does not know of): a card when the screen
        asks for cards, else in betting each correction shown (chips taken back, a pai gow envy
        marker placed or taken away) or ``no more bets`` when it is taken."""
        s = self.runtime.snapshot
        if s.hold is not None:
            return
        text = " ".join(s.screen)
        if re.search(r"\bdeal\b", text) and not self.shoe.stub_count and s.step != "betting":
            self._void()  # the cards it asks for are on the layout already (a shoe that lost them): a misdeal
        elif re.search(r"\bdeal\b", text) and self.shoe.stub_count and s.step != "betting":
            step = s.step
            for _ in range(60):  # card after card while the screen asks for them (cards the table never heard of
                # are on the layout: a restart without memory lost them)
                self.shoe.deal(1)
                self.advance(TICK * 2)
                s = self.runtime.snapshot
                if s.step != step or s.hold is not None or not self.shoe.stub_count:
                    break
                if not re.search(r"\bdeal\b", " ".join(s.screen)):
                    break
        elif s.step == "betting":
            taken = False  # a wager a fault placed (alone, or on a spot not bet before the deal): taken back
            seen, self._corrected = self._corrected, text  # (a correction shown stays until the next press:
            for wrong in re.finditer(r"correct: seat (\d+)(?: ([a-z_]+))?\b", "" if text == seen else text):
                seat, spot = int(wrong.group(1)), wrong.group(2)
                after = text[wrong.end() : wrong.end() + 60]
                if re.match(r"[^:]*:\s+place\s+its\s+envy\s+marker", after):  # 11.15(c): the dealer puts
                    self.spots.place(seat, "envy_marker", 1)  # the marker in front of the bonus wager
                    taken = True
                    continue
                if spot == "envy" and re.match(r"\s+marker\b", after):  # a marker not wanted: taken away
                    spot = "envy_marker"
                for key in [k for k in self.spots.chips if k[0] == seat and spot in (None, k[1])]:
                    self.spots.place(key[0], key[1], 0)
                    taken = True
            if not taken and s.can_press("no_more_bets"):  # the same one again: press, and it is looked at again)
                self.panel.press("no_more_bets")
        elif "confirm" in text and s.can_confirm():  # a count by hand, a step to confirm
            self.panel.press("confirm")
        self.advance(TICK * 4)

    def _void(self) -> None:
        """The supervisor voids the round (key on, void, key off), when the table lets him."""
        self.panel.key(True)
        self._wait(lambda x: x.key_on, 5.0)
        if self.runtime.snapshot.can_void():
            self.panel.press("void")
            self.advance(TICK * 4)
        self.panel.key(False)
        self.advance(TICK * 4)

    def stop_faults(self) -> None:
        """No fault starts from now on; the effects of those under way end as scheduled: run on
        until the last has (issue 41's liveness phase starts then)."""
        inject = self.inject
        self._triggers.clear()
        self._in_deal.clear()
        self._agenda = [a for a in self._agenda if getattr(a[2], "func", None) != inject]
        heapq.heapify(self._agenda)
        if self._agenda:
            self.advance(max(a[0] for a in self._agenda) - self.now + TICK)

    def settle_down(self) -> None:
        """The faults are over: every line back, the journal writable; run on until every device
        has delivered what it holds (or a while has passed)."""
        self._agenda.clear()
        self._triggers.clear()
        self._in_deal.clear()
        self.trouble = None
        for line in self.lines.values():
            line.connected = True
        for _ in range(200):
            self.advance(TICK * 4)
            if not any(sim.pending for sim in self.sims.values()) and all(w.protocol.up for w in self.wires.values()):
                break

    def check_cards(self, journal: SeedJournal) -> None:
        """No card lost, doubled or placed where the ``journal`` (this world's, read at the seed's
        end) does not say: every card the shoe reported (less one still in its queue, or lost in
        its restart without memory) is journaled once, and every card a round's record places is a
        card journaled (or the supervisor's entry of one misread)."""
        rounds: list[list[dict[str, Any]]] = []
        journaled: list[tuple[int, str]] = []
        for r in journal.records:
            if r.kind == "RoundSettled":
                rounds.append(list(r.data.get("cards", [])))
            elif r.kind == "CardDealt" and r.data.get("device") == "shoe":
                journaled.append((int(r.data["index"]), str(r.data["card"])))
            elif r.kind == "CardUnreadable" and r.data.get("device") == "shoe":
                journaled.append((int(r.data["index"]), "?"))
        hands = self.runtime.latest.hands()  # the open round's cards, as the players' own view has them
        if hands is not None and hands.round_no == self.runtime.snapshot.round_no:
            rounds.append([{"index": i, "card": c, "to": to} for i, c, to in hands.log])
        with self.shoe.lock:
            waiting = {(b, n) for b, n, *_ in self.shoe.pending}
        made = [(i, c) for b, n, i, c in self.shoe.reports if (b, n) not in waiting]
        lost = Counter(made) - Counter(journaled)
        extra = Counter(journaled) - Counter(made) - Counter(self.shoe.maybe_lost)
        if lost or extra:
            raise Broken(
                "cards",
                f"the shoe reported {len(made)} cards, the journal holds {len(journaled)}: "
                f"{sum(lost.values())} report(s) not journaled (shoe numbers {', '.join(str(i) for i, _ in sorted(lost))}),"
                f" {sum(extra.values())} journaled twice or never made (shoe numbers "
                f"{', '.join(str(i) for i, _ in sorted(extra))})",
            )
        known = set(journaled)
        misread = {
            i
            for cards in rounds
            for c in cards
            if str(c["to"]) in (UNREADABLE, DUPLICATE)
            for i in [int(str(c["index"]))]
        }
        for n, cards in enumerate(rounds, 1):
            for c in cards:
                index, card = int(str(c["index"])), str(c["card"])
                if card != "??" and (index, card) not in known and index not in misread:
                    raise Broken(
                        "cards", f"round record {n} places a card (shoe number {index}) no report of the shoe gave"
                    )

    # --- time -----------------------------------------------------------------------------------------

    def _at(self, at: float, call: Callable[[], None]) -> None:
        self._n += 1
        heapq.heappush(self._agenda, (at, self._n, call))

    def _quiet_until(self) -> float:
        """Until when (exclusive) a tick does nothing: no agenda item, no table timer (cancelled
        or not) and no link due, nothing queued for the table (0.0 when something may be)."""
        if not self._fresh or self.crash_due or not self.runtime.engine.queue.empty():
            return 0.0
        quiet = float("inf")
        for wire in self.wires.values():  # (a loop: three links, cheaper than min over a generator)
            if wire.idle_to < quiet:
                quiet = wire.idle_to
        if self._agenda:
            quiet = min(quiet, self._agenda[0][0])
        due = self.timers.due()
        return quiet if due is None else min(quiet, due)

    def advance(self, dt: float) -> None:
        """Run the world ``dt`` simulated seconds on. Time is compressed (issue 41 item 6): a tick in
        which nothing is due (:meth:`_quiet_until`) is jumped over when the tick after it is quiet
        too, the clock and each link set to where running it would have left them; the last quiet
        tick before a busy one (or the end) runs, so each link's protocol is stepped at the times it
        was, and the ticks' times are the same sums of :data:`TICK`: every journal stays the same."""
        end = self.now + dt
        quiet = self._quiet_until()
        while self.now < end - 1e-9:
            t = min(end, self.now + TICK)
            if t < quiet:
                after = min(end, t + TICK)
                if t < end - 1e-9 and after < quiet and after - self.last_move <= STUCK_S:
                    self.timers.now = t  # tick t does nothing, nor does the next: jumped over
                    for wire in self.wires.values():
                        wire.now = t
                    self.jumped += 1
                    continue
            self.timers.now = t
            # a link whose next request is not due yet is not run in the tick's first pass, unless
            # something may have changed it since it was run (the table handled an event, a
            # timer fired, a fault began or ended): running it would only set its clock
            idle = self.skip_idle and self._fresh and not (self._agenda and self._agenda[0][0] <= t)
            while self._agenda and self._agenda[0][0] <= t:
                _, _, call = heapq.heappop(self._agenda)
                call()
            idle = self.timers.fire() == 0 and idle
            self._fresh = False
            for _ in range(100):
                skipped = self._run_links(t, idle)
                idle = False
                if skipped and not self.runtime.engine.queue.empty():
                    for wire in skipped:  # the table handles an event now: each link where it would be
                        wire.run(t, EPOCH)
                if not self._drain():
                    self._fresh = True  # every link run since the table last handled anything
                    break
            quiet = self._quiet_until()
            self._check_no_spin()
            self._check_hold_clears()
            if self.now - self.last_move > STUCK_S:
                s = self.runtime.snapshot
                raise Broken(
                    "stuck",
                    f"round {s.round_no}: no new step for {STUCK_S:.0f} s in {s.step} with {s.dealt} cards"
                    + (f" (hold: {s.hold.reason}; clears: {s.hold.clears})" if s.hold is not None else "")
                    + f"; screen {' / '.join(x for x in s.screen if x)!r}",
                )

    def _check_no_spin(self) -> None:
        """A link never spins: a run of its wire to a tick that used up the wire's budget of
        requests (:attr:`~hil.wire.SimWire.spun`) sent them without its clock moving on, which a
        correct protocol never does (``liveness``; found so: requests sent at the ``link_down_s``
        boundary with their deadline already past, docs/protocol.md 4.7)."""
        for role, wire in self.wires.items():
            if wire.spun is not None:
                raise Broken(
                    "liveness",
                    f"the {role} link spun: its wire used up its budget of requests at {wire.spun:.3f} s "
                    f"({wire.protocol.stats.timeouts} timeouts, {wire.protocol.stats.retries} retries so far)",
                )

    def _check_hold_clears(self) -> None:
        """Issue 41 item 4 while faults still come: a hold that ends by itself (a device back and
        read, the shoe ok) ends within :data:`HOLD_S` once no fault's effect is under way (nothing
        on the agenda, every line connected, the journal writable), as in the liveness phase
        (:mod:`.liveness`); else ``liveness`` breaks (a hold saying it clears by itself that never
        does, which the ``stuck`` bound found only after 240 s and without naming the way)."""
        s = self.runtime.snapshot
        hold = s.hold
        if (
            hold is None
            or not hold.by_itself
            or self._agenda
            or self.trouble is not None
            or not all(line.connected for line in self.lines.values())
        ):
            self._calm_hold = None
            return
        calm = self._calm_hold
        if calm is None or calm[:2] != (s.round_no, hold.reason):
            self._calm_hold = (s.round_no, hold.reason, self.now)
        elif self.now - calm[2] > HOLD_S:
            raise Broken(
                "liveness",
                f"round {s.round_no}: a hold that clears by itself ({hold.reason}; clears: {hold.clears}) still on "
                f"{self.now - calm[2]:.0f} s after the last fault's effect ended, every line connected",
            )

    def _run_links(self, t: float, idle: bool) -> list[SimWire]:
        """Run each link to ``t``; ``idle``: a link with nothing due before ``t`` (its
        :attr:`~hil.wire.SimWire.idle_to` after ``t``, nothing having changed it since) is set to
        ``t`` instead, as running it would leave it (its protocol waits: no request, no output,
        and its stamp is read only by what it outputs), and returned."""
        if not idle:
            for wire in self.wires.values():
                wire.run(t, EPOCH)
            self._wake_links(t)
            return []
        skipped = []
        for wire in self.wires.values():
            if t < wire.idle_to:
                wire.now = t
                skipped.append(wire)
            else:
                wire.run(t, EPOCH)
        self.idle_skipped += len(skipped)
        self._wake_links(t)
        return skipped

    def _wake_links(self, t: float) -> None:
        """What the runner's loop does after serving a table's links: something on one of them
        (an event received, a command queued) brings every link back from the idle pace
        (:func:`drivers.link_pace.stirred`); a link brought back is served at once (its next
        poll brought forward)."""
        wires = self.wires.values()
        if stirred(wire.pace for wire in wires if wire.pace is not None):
            for wire in wires:
                if wire.pace is not None and wire.pace.wake(t):
                    wire.run(t, EPOCH)

    def jump(self, before: float) -> None:
        """Jump the clock over the ticks of :meth:`advance` by :data:`TICK` that do nothing, each
        before ``before``, as long as the tick after each does nothing either (a caller waiting for
        a change, looking after each tick, would look at the same state in each)."""
        quiet = self._quiet_until()
        while True:
            t = self.now + TICK
            after = t + TICK
            if t >= before or after >= quiet or after - self.last_move > STUCK_S:
                return
            self.timers.now = t
            for wire in self.wires.values():
                wire.now = t
            self.jumped += 1

    def _drain(self) -> bool:
        """Handle every event queued; True when there was any."""
        engine = self.runtime.engine
        waiting = engine.queue.empty  # (one look a drain finds nothing: most; a refused get raises, slower)
        handled = False
        while not waiting():
            event = engine.queue.get_nowait()
            handled = True
            engine.run_one(event)
            broken = self.broken or self.watch.broken
            if broken is not None:
                raise broken
        if self.crash_due:
            self.crash_due = False
            self._act("crash")
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
        # the round's n-th decision: not the snapshot's version, which a line's losses move
        self._decisions[s.round_no] += 1
        rng = self._stream("supervisor", s.round_no, self._decisions[s.round_no])
        options = [o for o in s.supervisor_options if o.refused is None]
        ways = [o for o in options if o.action not in ("void", "misdeal")]
        pick = ways if ways and rng.random() < 0.9 else options
        if pick:
            self._late.clear()  # the supervisor may accept a late bet now
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
            self.jump(end)
            self.advance(TICK)

    # --- faults -----------------------------------------------------------------------------------------

    def inject(self, fault: Fault) -> None:
        """Do ``fault`` now (and schedule its end)."""
        self.faults_done.append(fault.kind)
        _INJECT[fault.kind](self, fault, self.now + fault.duration)

    def _acted(self, fault: Fault, at: TableSnapshot | None = None) -> None:
        """``fault`` acts now: the table meets its effect (docs/simulate.md, "When a fault acted"),
        recorded with the step the table is at (the step it holds from, while it holds), or was
        at before the event that brought the effect (``at``)."""
        s = self.runtime.snapshot if at is None else at
        held = s.step == "hold"
        self.reached.append(Reached(fault.kind, (s.held_from or s.step) if held else s.step, held))

    def _act_on(self, what: str, fault: Fault) -> None:
        """``fault`` acts when ``what`` next happens (:attr:`_waiting`)."""
        self._waiting.setdefault(what, []).append(fault)

    def _act(self, what: str) -> None:
        """``what`` happened: each fault waiting for it acts now (once)."""
        if what in self._waiting:
            for fault in self._waiting.pop(what):
                self._acted(fault)

    def _count_shown(self, number: int | None) -> None:
        """The shoe's count goes to the controller: in its state answer (the count faults waiting
        act now), or with the card of report ``number`` (they act as the table handles it)."""
        if number is None:
            self._act("count")
        elif "count" in self._waiting:
            self._count_cards.setdefault(number, []).extend(self._waiting.pop("count"))

    def _between_cards(self, k: int, n: int) -> None:
        """Between the ``k``-th and the next card of a deal of ``n``: a count fault placed as this
        deal's step begins changes the count here, its delay (0 to 0.25 s) taken as how far into
        the deal (the shoe's count jumps, repeats or starts over between two cards: the next one
        carries it, and the table meets it within the deal)."""
        if not self._in_deal:
            return
        s = self.runtime.snapshot
        if s.step == "hold" or s.round_no not in self._rounds_seen:
            return
        step = s.step if s.step in _DEAL_STEPS else _FIRST_DEAL.get(self.table.game, "dealing")
        if s.step != step and s.step != "no_more_bets":
            return
        key = (self._rounds_seen.index(s.round_no) + 1, step)
        for fault in list(self._in_deal.get(key, ())):
            if min(n - 1, 1 + int(fault.at / 0.25 * (n - 1))) == k:
                self._in_deal[key].remove(fault)
                self.faults_done.append(fault.kind)
                self._count(fault, self.now + fault.duration)

    def _recounted(self) -> None:
        """The shoe's count started over by itself: a count fault not acted on yet never will."""
        self._waiting.pop("count", None)

    def _power_cycle(self, fault: Fault, end: float) -> None:
        sim = self.sims[fault.device]
        if fault.kind == "restart":
            sim.restart()
        else:
            sim.reboot()
        self._acted(fault)

    def _fault_rng(self, fault: Fault) -> random.Random:
        """``fault``'s own stream (named by all it is: two faults alike draw alike)."""
        return self._stream("fault", fault.kind, fault.device, fault.at, fault.round_no, fault.step, fault.edge)

    def _line_down(self, fault: Fault, end: float) -> None:
        line = self.lines[fault.device]
        line.connected = False
        self._act_on(f"line {fault.device}", fault)
        self._at(end, lambda: setattr(line, "connected", True))

    def _journal_trouble(self, fault: Fault, end: float) -> None:
        self.trouble = "error" if fault.kind == "journal_error" else "full"
        self._act_on(f"journal {self.trouble}", fault)
        self._at(end, lambda: setattr(self, "trouble", None))
        self._at(self.now + min(0.05, fault.duration / 2), functools.partial(self._burst, self._fault_rng(fault)))

    def _crash_soon(self, fault: Fault, end: float) -> None:
        self.crash_due = True
        self._act_on("crash", fault)

    def _jam(self, fault: Fault, end: float) -> None:
        self.shoe.jam(True)  # reported at once
        self._acted(fault)
        self._at(end, lambda: self.shoe.jam(False))

    def _door(self, fault: Fault, end: float) -> None:
        self.shoe.door(True)  # reported at once
        self._acted(fault)
        self._at(end, lambda: self.shoe.door(False))

    def _count(self, fault: Fault, end: float) -> None:
        """The shoe's count changes; the fault acts when the count reaches the controller (the next
        card out of the shoe, or the shoe's whole state read after a link-up), unless the count
        starts over by itself first (a new deck loaded, a shuffle, a restart without memory); a
        count already where it would put it is no fault (a repeat or a restart at 0)."""
        before = self.shoe.count
        if fault.kind == "count_jump":
            self.shoe.count += fault.value
        elif fault.kind == "count_repeat":
            self.shoe.count = max(0, self.shoe.count - 1)
        else:  # count_restart
            self.shoe.count = 0
        if self.shoe.count != before:
            self._act_on("count", fault)

    def _misread(self, fault: Fault, end: float) -> None:
        if fault.kind == "duplicate_card":
            if self.shoe.last_read is not None:
                self.shoe.duplicate()
                self._acted(fault)
        elif self.shoe.position < len(self.shoe.cards):  # unreadable_card
            self.shoe.unreadable()
            self._acted(fault)

    def _late_bet(self, fault: Fault, end: float) -> None:
        s = self.runtime.snapshot
        if fault.device.startswith(LATE_ACCEPTED):
            self._late_accepted(fault, s)
        elif not s.can_bet(1, "x"):
            rng = self._fault_rng(fault)
            spots = self.table.catalog.wager_spots
            seat = rng.randint(1, self.table.seats)
            spot, cents = rng.choice(spots), rng.choice([100, 500, 1000])
            self.spots.place(seat, spot, cents)
            self._acted(fault)
            if s.wager_step is None and s.step not in ("closed", "round_complete"):  # locked: a late bet
                self._late[(s.round_no, seat, spot)] = (s.wagers().get(seat, {}).get(spot), cents)

    def _late_accepted(self, fault: Fault, s: TableSnapshot) -> None:
        """A targeted late change (``device`` ``accepted:SPOT``, :data:`LATE_ACCEPTED`, SPOT one of
        the game's wagers placed before the deal): ``value`` cents more on SPOT at the first seat
        still in play without a wager there (else the first with one), in seat order; once a card of
        the round is out and the table shows the change pending (within two simulated seconds)
        the supervisor turns the key
        and at once presses ``next``, which accepts it (the key's report and the press reach the
        table in that order), and turns the key off. The change must not enter once a card of
        the round is out (``pre_deal_wager``)."""
        spot = fault.device.removeprefix(LATE_ACCEPTED)
        seats = sorted(s.in_play(), key=lambda seat: (spot in seat.wager_map(), seat.number))
        if not seats or spot not in PRE_DEAL_SPOTS.get(self.table.game, frozenset()):
            return
        seat = seats[0]
        self.spots.place(seat.number, spot, seat.wager_map().get(spot, 0) + fault.value)
        self._acted(fault)
        self._at(self.now + TICK, functools.partial(self._accept_late, self.now + 2.0))

    def _accept_late(self, until: float) -> None:
        """The supervisor accepts the oldest late change the table shows pending once a card of the
        round is out (he turns the key and presses ``next`` at once), or looks again in a tick
        until ``until``."""
        s = self.runtime.snapshot
        if s.late_bets and s.dealt:
            self._late.clear()
            self.panel.key(True)
            self.panel.press("next")
            self._at(self.now + 0.3, lambda: self.panel.key(False))
        elif self.now < until:
            self._at(self.now + TICK, functools.partial(self._accept_late, until))

    def _key(self, fault: Fault, end: float) -> None:
        """The supervisor turns the key: a swarm fault (placed at a step) presses at once a way the
        table offers him now (the key and the press reach the table in that order); else, and
        always in the default schedule (its journals as they were), at the fault's end if the
        table offers one then (:meth:`_key_press`)."""
        self.panel.key(True)
        rng = self._fault_rng(fault)
        if fault.step and self._offered(self.runtime.snapshot):
            self._key_press(fault, rng, at_once=True)
        else:
            self._at(end, functools.partial(self._key_press, fault, rng))

    def _wrong_press(self, fault: Fault, end: float) -> None:
        s = self.runtime.snapshot
        wrong = [b for b in BUTTONS if b != "supervisor_key" and not s.can_press(b)]
        if wrong:
            self.panel.press(self._fault_rng(fault).choice(wrong))
            self._acted(fault)

    def _early_card(self, fault: Fault, end: float) -> None:
        """A card out of the shoe when the table expects none: the dealer pulls a card before its
        time. A swarm fault (placed at a step) does so at whatever step the table is at, held from
        it or not; the table journals it and holds for it ("card N from the shoe dealt when none was
        expected"; during a hold it waits for the supervisor: docs/dealer-guide.md, "N cards dealt
        while held"). A card at a deal step not held, or at "no more bets" where the deal starts
        with its first card, is the deal's next card, an ordinary one: no early card can come there
        (:mod:`.impossible_pairs`); nor when the shoe holds no card. A fault of the default schedule
        (placed at a time) deals only at betting, "no more bets" and settlement, held or not, as
        before swarm faults acted at their steps (its seeds' journals stay as they were)."""
        s = self.runtime.snapshot
        held = s.step == "hold"
        step = (s.held_from or s.step) if held else s.step
        if not self.shoe.stub_count or step == "closed" or (step in _DEAL_STEPS and not held):
            return  # (at a deal step the dealer deals the deal's cards: none is early)
        if not fault.step and step not in _TIMED_EARLY_CARD_STEPS:
            return
        self.shoe.deal(1)
        # a card as "no more bets" shows starts the deal where a card does (an ordinary card)
        if held or step != "no_more_bets" or self.table.game in _DICE_FIRST:
            self._acted(fault)

    def _state_nak(self, fault: Fault, end: float) -> None:
        """The device refuses its next ``value`` state requests (whenever they come: after a link
        outage, a restart of either side, a journal outage, the shoe's watch); refusals not used yet
        are not added to (a device refuses a few, never dozens: 1 to 3 take under a second)."""
        sim = self.sims[fault.device]
        with sim.lock:
            if sim.nak_states < fault.value:  # else it adds nothing: the refusals already due act
                sim.nak_states = fault.value
                self._act_on(f"answer {fault.device}", fault)

    def _state_garbled(self, fault: Fault, end: float) -> None:
        """The device damages its next state answers (whenever they come, as ``state_nak``'s): a
        ``value`` of 1 cuts the next one short (2 bytes, too short to read); 2 or 3 make as many
        name a part they were not asked for (3 in a row: the controller's tries run out)."""
        sim = self.sims[fault.device]
        with sim.lock:
            if fault.value == 1 and sim.short_states < 1:
                sim.short_states = 1
            elif fault.value > 1 and sim.bad_states < fault.value:
                sim.bad_states = fault.value
            else:  # it adds nothing: the damage already due acts
                return
        self._act_on(f"answer {fault.device}", fault)

    def _void_fault(self, fault: Fault, end: float) -> None:
        """The ``void`` fault: the supervisor turns the key and at once presses void, when the table
        offers a void at this step (the key aside: the two reports reach the table in that order);
        he turns the key off at the fault's end (at least 0.2 s on). It acted when the void was
        pressed; a void the table does not offer now (none, or refused: a round already paid) is
        the key turned and nothing more. At once, not at the fault's end: a void placed at a short
        step (Mississippi Stud's dealing) is pressed while that step is current."""
        self.panel.key(True)
        option = self.runtime.snapshot.option("void")
        if option is not None and option.action in ("void", "misdeal") and option.refused is None:
            self._late.clear()
            self.panel.press("void")
            self._acted(fault)
        self._at(max(end, self.now + 0.2), lambda: self.panel.key(False))

    def _burst(self, rng: random.Random) -> None:
        """Events on every device at once (during a journal outage): a dealer button the table
        takes now, a bet where betting is open, a card out of the shoe."""
        s = self.runtime.snapshot
        buttons = [b for b in s.dealer_buttons if s.can_press(b)]
        if buttons:
            self.panel.press(rng.choice(buttons))
        seat = rng.randint(1, self.table.seats)
        spot = self.table.catalog.wager_spots[0]
        if s.can_bet(seat, spot):
            self.spots.place(seat, spot, rng.choice([500, 1000]))
        if self.shoe.stub_count and s.step not in ("betting", "closed"):
            self.shoe.deal(1)

    @staticmethod
    def _offered(s: TableSnapshot) -> list[SupervisorOption]:
        """The ways the table offers the supervisor now (the key aside), but a void or a misdeal."""
        return [o for o in s.supervisor_options if o.refused is None and o.action not in ("void", "misdeal")]

    def _key_press(self, fault: Fault, rng: random.Random, at_once: bool = False) -> None:
        """The supervisor, key on, presses something the table offers him now (drawn from ``rng``,
        the fault's stream, made as the key turns), then turns the key off. The ``key`` fault acted
        when he pressed (a key turned while the table offers nothing is no fault). ``at_once``: as
        he turns the key (the table has not seen it on yet)."""
        s = self.runtime.snapshot
        options = self._offered(s)
        if options and (s.key_on or at_once):
            self._late.clear()  # the supervisor may accept a late bet now
            self.panel.press(rng.choice(options).button)
            self._acted(fault)
        self._at(self.now + 0.3, lambda: self.panel.key(False))


LATE_ACCEPTED = "accepted:"
"""The start of a ``late_bet`` fault's device (``accepted:SPOT``) that makes it the targeted late
change the supervisor accepts after the deal (:meth:`World._late_accepted`; :data:`.swarm.LATE_SCENARIOS`)."""

_TIMED_EARLY_CARD_STEPS = frozenset({"betting", "no_more_bets", "settlement", "round_complete"})
"""The steps an ``early_card`` fault of the default schedule deals at (held from them too)."""

_DEAL_STEPS = frozenset({"dealing", "first_deal", "final_deal"})
"""The steps at which the table expects cards from the shoe (each game's deals)."""

_FIRST_DEAL = {"boston5": "first_deal"}
"""A game's first deal step, where it is not ``dealing``."""

_COUNT_KINDS = frozenset({"count_jump", "count_repeat", "count_restart"})
"""The faults of the shoe's card count."""

_DICE_FIRST = frozenset({"pai_gow"})
"""Games whose deal does not start with a card at "no more bets" (pai gow's dice total comes first,
31.4): elsewhere a card then is the deal's first, an ordinary card (an ``early_card`` fault dealing
it did not act as one)."""


def _line(draws: random.Random) -> Line:
    """A line as ``draws`` makes it: replies mostly whole, now and then split or a byte at a time;
    mostly no losses, now and then 2% or 10% of the requests or replies lost."""
    return Line(chunking=draws.choices(CHUNKINGS, (16, 3, 1))[0], drop=draws.choice((0.0, 0.0, 0.02, 0.1)))


def _shown(hands: PlayerHands) -> tuple[object, ...]:
    """The players' hands less their version (what the face-down checks read of them)."""
    return (hands.round_no, hands.hands, hands.dealer, hands.log, hands.entry)


_INJECT: dict[str, Callable[[World, Fault, float], None]] = {
    "link_down": World._line_down,
    "panel_outage": World._line_down,
    "never_connected": World._line_down,
    "restart": World._power_cycle,
    "reboot": World._power_cycle,
    "journal_error": World._journal_trouble,
    "disk_full": World._journal_trouble,
    "crash": World._crash_soon,
    "jam": World._jam,
    "door": World._door,
    "count_jump": World._count,
    "count_repeat": World._count,
    "count_restart": World._count,
    "duplicate_card": World._misread,
    "unreadable_card": World._misread,
    "late_bet": World._late_bet,
    "key": World._key,
    "wrong_press": World._wrong_press,
    "early_card": World._early_card,
    "void": World._void_fault,
    "state_nak": World._state_nak,
    "state_garbled": World._state_garbled,
}
"""What each fault kind does (:meth:`World.inject`), given the fault and when its effect ends."""
