"""A running table: drivers from the config's ``devices:``, one engine, the game's machine.

The state machine is the only place rules and devices meet: this module wires the drivers'
events into the engine's queue and the machine's commands out to the drivers, publishes the
table's snapshot after each event, journals every link's counters (``LinkStats``) at each round's
end, and recovers the open round on a restart. Its collaborators each have a module:
:mod:`.table_drivers` (the drivers from the config), :mod:`.journal_files` (the durable journal
and the devices' event windows in it), :mod:`.round_records` (each round's record),
:mod:`.snapshot_file` (the file ``tablectl status`` reads), :mod:`.link_log` (links down and
back in the log), :mod:`.hold_log` (each hold and its end in the log), :mod:`.hold_journal` (the
same as journal records) and :mod:`.watchdog`
(systemd's keep-alives, :mod:`.sdnotify`).
"""

from __future__ import annotations

import gc
import logging
import sqlite3
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from controller.configuration import TableConfig
from controller.journal import JournalError, SqliteJournal, check_tail
from controller.journal.records import Journal
from controller.table._carry_over import CarryOver
from controller.table._hold_journal import HoldJournal
from controller.table._hold_log import HoldLog
from controller.table._link_log import log_link_event
from controller.table._round_folder import RoundFolder
from controller.table._round_records import RoundRecords, round_record
from controller.table._sdnotify import SystemdNotifier
from controller.table._snapshot_file import SnapshotFile, snapshot_path
from controller.table._watchdog import Watchdog
from controller.table.devices import DriverDevices, RecordingDevices, resend_state
from controller.table.engine import Engine, JournalFault, TimerStart, failure_text, thread_timer
from controller.table.events import DevicesExpected, EventDecodeError, OpenTable, decode_event
from controller.table.game_tables import GAME_TABLES
from controller.table.journal_files import journaled_event_windows
from controller.table.latest import LatestSnapshot
from controller.table.round import RoundTable
from controller.table.round_data import RoundResult
from controller.table.snapshot import PlayerHands, TableSnapshot
from controller.table.snapshot_build import build_hands, build_snapshot, with_version
from controller.table.table_drivers import check_roles, open_drivers
from drivers.link import LinkConfig, LinkStats
from drivers.panel import BadgeRead, PinEntered, SignOff

log = logging.getLogger("tablectl.runtime")

__all__ = ["TableRuntime", "RuntimePorts", "freeze_start_up"]

_FAULTS = ("DeviceFault", "LinkDown", "CardUnreadable", "JournalFault")
"""Event kinds counted as faults in the round's meters."""


class Service(Protocol):
    """Something beside the controller that reads the journal (e.g. the floor forwarder)."""

    def start(self) -> object:
        """Start, once the journal is recovered."""
        ...

    def stop(self) -> object:
        """Stop, before the journal is closed."""
        ...


@dataclass(frozen=True)
class RuntimePorts:
    """What a runtime runs on, given to it when it is made (a simulation or a bench passes its own
    rather than patching the runtime afterwards); the defaults are a dealer's table."""

    wall: Callable[[], float] = time.time
    """The wall clock: the start is stamped with it, and each link's events."""
    start_timer: TimerStart = thread_timer
    """Starts the engine's timers (a simulation runs them on its own clock)."""
    randbelow: Callable[[int], int] | None = None
    """The random source of a drawn starting number (None: the operating system's)."""
    link_protocol: LinkConfig | None = None
    """Each link's protocol timing, whole (None: ``link_base`` with each device's baud rate and
    poll interval)."""
    share_hands: bool = False
    """Publish the players' hands beside the snapshot (simulated players look at their own cards)."""
    status_file: bool = True
    """Keep the file ``tablectl status`` reads beside a durable journal (each write costs a sync)."""
    fold_rounds: bool = True
    """Fold the closed rounds of a durable journal into compact blocks (a test or a benchmark turns
    it off to compare the same rounds kept as rows)."""


def freeze_start_up() -> None:
    """Take what a table's start made out of the garbage collector's scans: the config, the
    paytables, the hand tables, the drivers, the recovered round. Call once, in a process that
    runs one table (``tablectl run``, ``tablectl bench``), after :meth:`TableRuntime.start`.

    Each full collection otherwise walks every one of those objects again, though none of them
    ever becomes garbage (a tenth of a table's CPU, ``benchmarks/bench_table.py``). What is
    frozen is still freed when its last reference goes; only a cycle among frozen objects stays.
    The garbage of the start is collected first, so that it is not frozen with the rest."""
    gc.collect()
    gc.freeze()


class TableRuntime:
    """Drivers, engine and table machine for one table config; ``urls`` overrides device ports;
    ``link_base`` the links' timing (each device's baud rate and poll interval still its config's);
    ``ports`` the clock, timers, random source and links' timing it runs on (:class:`RuntimePorts`).

    With a durable ``journal`` (:class:`~controller.journal.SqliteJournal`) the runtime also
    snapshots the table at each round's start, writes each finished round with its meters, and
    on ``start`` recovers the open round from the journal (see :meth:`recover`).
    """

    def __init__(
        self,
        table: TableConfig,
        urls: Mapping[str, str] | None = None,
        journal: Journal | None = None,
        on_round: Callable[[RoundResult], None] | None = None,
        notifier: SystemdNotifier | None = None,
        link_base: LinkConfig | None = None,
        ports: RuntimePorts | None = None,
    ) -> None:
        ports = ports or RuntimePorts()
        if table.game not in GAME_TABLES:
            raise ValueError(
                f"{table.path}: the {table.game} table is not available yet (available: {', '.join(GAME_TABLES)})"
            )
        check_roles(table)
        self.config = table
        self.notifier = notifier or SystemdNotifier()
        self.watchdog = Watchdog(self.notifier, self.alive)
        self.latencies: deque[float] = deque(maxlen=100_000)
        """Device event to controller, seconds: the most recent events."""
        self.user_on_round = on_round
        self.replaying = False
        self.round_first_seq = 0
        self.round_faults = 0
        self.recovered = 0
        """How many events were replayed to rebuild the open round at start."""
        self.observers: list[Callable[[object], None]] = []
        """Called on the controller thread after each live event is handled (read-only views,
        e.g. the web table view); never during a replay. A failing observer is logged, not fatal."""
        self.engine = Engine(
            self._handle,
            journal,
            on_journal_error=self._journal_failed,
            on_recorded=self._journaled,
            on_refused=self._not_journaled,
            start_timer=ports.start_timer,
            prepare=self._checked,
        )
        self.journal = self.engine.journal
        self.store: SqliteJournal | None = self.journal if isinstance(self.journal, SqliteJournal) else None
        """The durable journal (None: the journal is in memory)."""
        self.rounds = RoundRecords(self.store) if self.store is not None else None
        """Each finished round's record, with a durable journal."""
        self.folder = (
            RoundFolder(self.store, table.floor is not None) if self.store is not None and ports.fold_rounds else None
        )
        """Folds the closed rounds into compact blocks, with a durable journal."""
        self.drivers = open_drivers(table, self.engine.queue, urls, link_base)
        for driver in self.drivers.values():
            if ports.link_protocol is not None:
                driver.link.protocol.config = ports.link_protocol
            driver.link.wall = ports.wall
        self.devices = DriverDevices(
            self.drivers["panel"], self.drivers["bet_spots"], self.drivers["shoe"], self.engine.post
        )
        self.devices.randbelow = ports.randbelow
        self.round: RoundTable = GAME_TABLES[table.game](table, self.devices, self._round_done, self._audit)
        """The game's round machine (read by the runtime only: everything else reads its snapshot)."""
        self.hold_log = HoldLog()
        """Each hold begun, its reason changed and its end, in the log."""
        self.hold_journal = HoldJournal(self.journal, ports.wall)
        """The same, as journal records (with how each cleared, by whom, how long it lasted)."""
        self.latest = LatestSnapshot()
        self.latest.share_hands = ports.share_hands
        """The table's latest snapshot, published by the controller thread after each live event:
        what every reader on another thread (web view, bench players) reads, never the table."""
        self._version = 0
        self.prepared: TableSnapshot | None = None
        """The snapshot :meth:`prepare` published, before any thread started: the round as recovered
        (what ``tablectl run``'s start line names; :attr:`snapshot` may already be later)."""
        self._published: tuple[TableSnapshot, PlayerHands | None] | None = None
        """The snapshot (and players' hands) last published: published again after an event that
        changed nothing the table shows."""
        self._last_processed = -1
        """How many events the controller had handled at the last :meth:`alive`."""
        self.snapshot_file = (
            SnapshotFile(snapshot_path(self.store.path)) if self.store is not None and ports.status_file else None
        )
        """Where the latest snapshot is written for ``tablectl status`` (a durable journal only)."""
        self.wall = ports.wall
        """The wall clock the start is stamped with."""
        self.services: list[Service] = []
        """Things beside the controller that read the journal (e.g. the floor forwarder): each
        ``start()``-ed once the journal is recovered, ``stop()``-ed before it is closed."""

    @property
    def table(self) -> RoundTable:
        """The game's round machine (:attr:`round`)."""
        return self.round

    @table.setter
    def table(self, round_table: RoundTable) -> None:
        self.round = round_table
        self._published = None  # another table: its snapshot is built before it is published again

    # --- the controller thread --------------------------------------------------------------------

    def _handle(self, event: object) -> None:
        self._dispatch(event, self.engine.current_seq)
        if self.round.changes_nothing(event) and self._published is not None:
            self._publish_again(*self._published)
        else:
            self.publish()
        for observe in self.observers:
            try:
                observe(event)
            except Exception as exc:
                # The event's kind and journal record number, never its repr (a card dealt face down
                # is in it); the error's type and where it was raised, never its text (it may name one).
                log.error(
                    "observer %s failed on %s (record %d): %s",
                    getattr(observe, "__qualname__", type(observe).__name__),
                    type(event).__name__,
                    self.engine.current_seq,
                    failure_text(exc),
                )

    @property
    def prepared_version(self) -> int:
        """The version of the snapshot :meth:`prepare` published (0 before it). The first event the
        table handles after it is its start (``DevicesExpected``, queued first): a reader that must
        not act before the table handled its start (the bench's players) waits for a later version
        (one is also published if the journal fails as that event is written: the table then holds)."""
        return 0 if self.prepared is None else self.prepared.version

    def publish(self) -> TableSnapshot:
        """Build the table's snapshot and publish it (the controller thread, or before it starts);
        the snapshot file is written again when what ``tablectl status`` shows changed."""
        self._version += 1
        snapshot = build_snapshot(self.round, self._version)
        hands = build_hands(self.round, self._version) if self.latest.share_hands else None
        self._published = (snapshot, hands)
        return self._seen(snapshot, hands)

    def _publish_again(self, snapshot: TableSnapshot, hands: PlayerHands | None) -> None:
        """After an event that changed nothing the table shows (:meth:`RoundTable.changes_nothing`:
        a device's reply to a command, about half a round's events): the last snapshot published
        again with the next version, not built again (the same fields, the same bytes)."""
        self._version += 1
        snapshot = with_version(snapshot, self._version)
        if hands is not None:
            hands = PlayerHands(  # ``dataclasses.replace`` reads every field by name first
                round_no=hands.round_no,
                version=self._version,
                hands=hands.hands,
                dealer=hands.dealer,
                log=hands.log,
                entry=hands.entry,
            )
        self._published = (snapshot, hands)
        self._seen(snapshot, hands)

    def _seen(self, snapshot: TableSnapshot, hands: PlayerHands | None) -> TableSnapshot:
        self.latest.publish(snapshot, hands)
        self.hold_log.seen(snapshot)
        if not self.replaying:
            self.hold_journal.seen(snapshot)
        if self.snapshot_file is not None:
            self.snapshot_file.update(snapshot)
        return snapshot

    @property
    def snapshot(self) -> TableSnapshot:
        """The latest published snapshot."""
        return self.latest.get()

    def _checked(self, event: object) -> object:
        """A PIN entry or badge read as the sign-in it checks to (journaled instead of it); a
        sign-off with its id as the roster writes it, or "" when not on it (never as keyed)."""
        if isinstance(event, (PinEntered, BadgeRead)):
            return self.round.signins.check(event)
        if isinstance(event, SignOff):
            return self.round.signins.checked_sign_off(event)
        return event

    def _dispatch(self, event: object, seq: int) -> None:
        if isinstance(event, LinkStats):
            return  # a record for people and `tablectl status`, not for the table
        if not self.replaying:
            log_link_event(event)
        at = getattr(event, "at", None)
        if at is not None and not self.replaying:
            self.latencies.append(self.wall() - at)  # the events' own clock (a simulation's)
        if type(event).__name__ in _FAULTS:
            self.round_faults += 1
        self.round.handle(event)
        if isinstance(event, JournalFault) and not self.replaying:
            # an outage of every device at once: each is read again (controller.table._links)
            for driver in self.drivers.values():
                driver.link.read_state_again()
        if self.round.round_started:
            self.round.round_started = False
            self.round_first_seq, self.round_faults = seq + 1, 0
            if self.store is not None:
                try:
                    self.store.snapshot(seq, self.round.round_no, self.round.snapshot_state())
                except JournalError as exc:
                    log.warning("journal: %s: round %s's start snapshot not kept", exc, self.round.round_no)
                else:
                    if self.folder is not None and not self.replaying:
                        self.folder.fold()

    def post_link_stats(self) -> None:
        """Journal every link's state and counters now (``LinkStats`` events)."""
        for driver in self.drivers.values():
            self.engine.post(driver.stats)

    def _audit(self, kind: str, data: dict[str, object]) -> None:
        if self.replaying:
            return  # already journaled before the restart
        try:
            seq = self.journal.append(kind, data)
        except JournalError as exc:
            log.error("journal: %s (%s not recorded; the event that caused it is)", exc, kind)
            return
        self.hold_journal.audited(kind, data, seq)

    def _journal_failed(self, reason: str) -> None:
        self.round.journal_failed(reason)
        self.publish()  # the hold is seen at once (no event was handled to publish it)

    def _journaled(self, event: object) -> None:
        """``event`` is journaled: the device that sent it may be acknowledged now (and a round
        record that could not be written is written now)."""
        if self.rounds is not None and self.rounds.pending:
            self.rounds.flush()
        driver = self.drivers.get(str(getattr(event, "device", "")))
        if driver is not None:
            driver.link.journaled(event)

    def _not_journaled(self, event: object) -> bool:
        """``event`` could not be journaled: True when its device will send it again."""
        driver = self.drivers.get(str(getattr(event, "device", "")))
        return driver is not None and bool(driver.link.refused(event))

    def _round_done(self, result: RoundResult) -> None:
        if not self.replaying:  # a hold the round's end ends: ended among the round's own records
            self.hold_journal.round_ended(result.number, result.settlement is None)
        if self.rounds is not None and not self.rounds.has(result.number):
            self.rounds.add(
                result.number,
                round_record(
                    self.config,
                    result,
                    faults=self.round_faults,
                    cards=list(self.round.card_log),
                    first_seq=self.round_first_seq,
                    last_seq=self.engine.current_seq,
                    dealer=self.round.signins.dealer_of(result.number),
                ),
            )
        if not self.replaying:
            self.post_link_stats()
        if self.user_on_round and not self.replaying:
            self.user_on_round(result)

    # --- starting and stopping --------------------------------------------------------------------

    def recover(self) -> bool:
        """Rebuild the open round from the durable journal: the last snapshot, then every event
        after it replayed into the machine (devices recorded, not sent); then the devices are sent
        the display and lamp state that left, and asked again for what the table was waiting for.
        Holds active at the stop stay active. Returns False when the journal has no events (or is
        in memory)."""
        journal = self.store
        if journal is None:
            return False
        snapshot = journal.last_snapshot()
        problems = check_tail(journal, snapshot.seq if snapshot else 0)
        if problems:
            raise JournalError(f"{journal.path}: {problems[0]} (run `tablectl journal verify`)")
        after = snapshot.seq if snapshot else 0
        events = [r for r in journal.records(after) if r.event]
        if snapshot is None and not events:
            return False
        recording = RecordingDevices()
        self.round.devices = recording
        self.replaying = True
        try:
            if snapshot is not None:
                wrong = CarryOver.problem(snapshot.state, self.drivers)
                if wrong is not None:
                    raise JournalError(f"{journal.path}: the snapshot at record {snapshot.seq}: {wrong}")
                self.round.restore(snapshot.state)
                self.round.round_started = False
                self.round_first_seq = snapshot.seq + 1
            for record in events:
                try:
                    event = decode_event(record.kind, record.data)
                except EventDecodeError as exc:
                    raise JournalError(f"{journal.path}: record {record.seq}: {exc}") from exc
                self.engine.current_seq = record.seq
                self._dispatch(event, record.seq)
        finally:
            self.replaying = False
            self.round.devices = self.devices
        self.recovered = len(events)
        self.engine.processed = 0
        resend_state(recording.commands, self.devices)
        self.round.resend_requests()
        self.publish()  # readers (the bench's players restoring their simulators) see the recovered round
        log.info(
            "recovered round %s in %s from %d events after record %d",
            self.round.round_no,
            self.round.phase.value,
            len(events),
            after,
        )
        return True

    def start(self, after_recovery: Callable[[], None] | None = None) -> None:
        """Start the drivers and the controller: recover the open round from a durable journal
        (then call ``after_recovery``, before any device is talked to), or open the table."""
        self.prepare(after_recovery)
        for service in self.services:
            service.start()
        for driver in self.drivers.values():
            driver.start()
        self.engine.start()
        self.heartbeat(True)
        self.notifier.ready(f"table {self.config.name} running")
        self.watchdog.start()

    def prepare(self, after_recovery: Callable[[], None] | None = None) -> bool:
        """Everything :meth:`start` does before any thread starts: recover the open round from a
        durable journal (then call ``after_recovery``), give each link its event window from the
        journal, publish, and queue the table's opening when nothing was recovered (a simulation
        in one thread calls this and then drives the engine and the links itself). True when a
        round was recovered."""
        recovered = self.recover()
        if recovered and after_recovery is not None:
            after_recovery()
        if self.store is not None:
            self._restore_event_windows(self.store.path)
        self.prepared = self.publish()
        # Every device counts as never connected until its link is up and its state read: one that
        # cannot come up holds the table, with why (posted first: a replay sees it where it was).
        # A round recovered: what the devices did while the table was stopped is taken as after a
        # journal outage (docs/protocol.md, section 4.8).
        since = self.wall() if recovered else 0.0
        self.engine.post(DevicesExpected(tuple(sorted(self.drivers)), reread=recovered, since=since))
        if not recovered:
            # Queued before any device can report: chips already on a spot when the table opens
            # are bets of its first round, never late bets of a table not yet open.
            self.engine.post(OpenTable())
        return recovered

    def _restore_event_windows(self, journal_path: Path) -> None:
        """Give each link the event window the journal left (a device that kept running keeps its
        boot and numbering: the event it sent just before the stop is not taken again)."""
        try:
            windows = journaled_event_windows(journal_path, set(self.drivers))
        except (sqlite3.Error, OSError, ValueError, TypeError) as exc:
            log.warning("journal: cannot read the devices' event windows (%s): events may repeat once", exc)
            return
        for role, (boot_id, last_event_no) in windows.items():
            self.drivers[role].link.set_window(boot_id, last_event_no)

    def heartbeat(self, running: bool) -> None:
        """Tell every device, in each POLL, whether the table runs (its engine takes events): a
        device that misses it knows the table has stopped (docs/protocol.md, section 4.8)."""
        for driver in self.drivers.values():
            driver.link.running = running

    def alive(self) -> bool:
        """Whether the controller thread and every link thread are running and the controller is
        not stuck (it has handled something since the last look, or has nothing to handle)."""
        engine = self.engine._thread
        if engine is None or not engine.is_alive():
            return False
        if not all(d.link.is_alive() for d in self.drivers.values()):
            return False
        processed = self.engine.processed
        last, self._last_processed = self._last_processed, processed
        return processed != last or self.engine.queue.empty()

    def stop(self) -> None:
        """Stop the controller after the events already queued, then the drivers (idempotent)."""
        self.notifier.stopping()
        self.watchdog.stop()
        self.heartbeat(False)
        self.engine.stop()
        for driver in self.drivers.values():
            driver.close()
        for service in self.services:
            service.stop()
        if self.store is not None:
            self.store.close()
