"""A running table: drivers from the config's ``devices:``, one engine, the game's machine.

The state machine is the only place rules and devices meet: this module wires the drivers'
events into the engine's queue and the machine's commands out to the drivers. It also logs each
link going down and coming back, journals every link's counters (``LinkStats``) at each round's
end, and tells systemd it is ready and alive (``controller.table.sdnotify``).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller.journal import JournalError, SqliteJournal, check_tail
from controller.journal.keys import read_hmac_key
from controller.journal.meters import meters_for_round
from controller.journal.records import Journal
from controller.table.base import RoundResult
from controller.table.boston5 import Boston5Table
from controller.table.devices import DriverDevices, RecordingDevices, resend_state
from controller.table.engine import Engine, failure_text
from controller.table.events import EventDecodeError, OpenTable, decode_event
from controller.table.latest import LatestSnapshot
from controller.table.mississippi_stud import MississippiTable
from controller.table.pai_gow import PaiGowTable
from controller.table.sdnotify import SystemdNotifier
from controller.table.snapshot import TableSnapshot
from controller.table.snapshot_build import build_hands, build_snapshot
from controller.table_config import TableConfig
from drivers.link import DeviceFault, LinkConfig, LinkDown, LinkStats, LinkUp
from drivers.registry import driver_class

log = logging.getLogger("tablectl.runtime")

__all__ = [
    "OpenTable",
    "TableRuntime",
    "GAME_TABLES",
    "open_journal",
    "journaled_event_windows",
    "snapshot_path",
    "write_snapshot_file",
]

GAME_TABLES: dict[str, type] = {"mississippi_stud": MississippiTable, "boston5": Boston5Table, "pai_gow": PaiGowTable}
"""The games the controller can run at a table so far."""

_FAULTS = ("DeviceFault", "LinkDown", "CardUnreadable", "JournalFault")
"""Event kinds counted as faults in the round's meters."""


def open_journal(table: TableConfig, default_dir: Path | str) -> SqliteJournal:
    """The durable journal of ``table``: its ``journal.path``, else ``default_dir/<game>.db``;
    signed with the key in ``journal.hmac_key_file`` when one is set."""
    config = table.journal
    path = Path(config.path) if config.path else Path(default_dir) / f"{table.game}.db"
    key = None
    if config.hmac_key_file:
        try:
            key = read_hmac_key(config.hmac_key_file)
        except JournalError as exc:
            raise JournalError(f"{table.path}: journal.hmac_key_file: {exc}") from exc
    return SqliteJournal(path, key)


def journaled_event_windows(path: Path, devices: set[str]) -> dict[str, tuple[int, int]]:
    """Each device's event window as the journal at ``path`` left it: the boot id of its last
    ``LinkUp`` and the number of the last event it sent after that (0 if none), so that a
    controller started again acknowledges what it already journaled and takes nothing twice.
    Read newest first, read-only, stopping once every device's last link-up is found."""
    windows: dict[str, tuple[int, int]] = {}
    newest: dict[str, int] = {}
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT kind, json_extract(data, '$.device'), json_extract(data, '$.event_no'), "
            "json_extract(data, '$.boot_id') FROM records WHERE event = 1 "
            "AND (kind = 'LinkUp' OR json_extract(data, '$.event_no') > 0) ORDER BY seq DESC"
        )
        for kind, device, event_no, boot_id in rows:
            if device not in devices or device in windows:
                continue
            if kind == "LinkUp":
                windows[device] = (int(boot_id), newest.get(device, 0))
                if len(windows) == len(devices):
                    break
            elif device not in newest:
                newest[device] = int(event_no)
    finally:
        db.close()
    return windows


def snapshot_path(journal_path: Path | str) -> Path:
    """Where a running table keeps its latest snapshot as JSON: beside its journal
    (``boston5.db`` -> ``boston5.snapshot.json``), read by ``tablectl status``."""
    path = Path(journal_path)
    return path.with_name(f"{path.stem}.snapshot.json")


def write_snapshot_file(path: Path, snapshot: TableSnapshot) -> None:
    """Write ``snapshot`` to ``path`` atomically (a temporary file in the same folder, mode 0600,
    renamed over the old one): a reader sees the old file or the new one, never a part."""
    data = {"written_at": time.time(), "pid": os.getpid(), "snapshot": snapshot.to_json()}
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:  # mkstemp makes it 0600
            json.dump(data, f, separators=(",", ":"))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class TableRuntime:
    """Drivers, engine and table machine for one table config; ``urls`` overrides device ports;
    ``link_base`` the links' timing (each device's baud rate and poll interval still its config's).

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
    ) -> None:
        if table.game not in GAME_TABLES:
            raise ValueError(
                f"{table.path}: the {table.game} table is not available yet (available: {', '.join(GAME_TABLES)})"
            )
        missing = [role for role in ("shoe", "bet_spots", "panel") if role not in table.devices]
        if missing:
            raise ValueError(f"{table.path}: devices: missing {', '.join(missing)}")
        self.config = table
        self.notifier = notifier or SystemdNotifier()
        self._watchdog_stop = threading.Event()
        self._watchdog: threading.Thread | None = None
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
        )
        self.journal = self.engine.journal
        self.durable = isinstance(self.journal, SqliteJournal)
        self.drivers: dict[str, Any] = {}
        for role, device in table.devices.items():
            url = (urls or {}).get(role, device.url)
            if url.startswith("sim://"):
                raise ValueError(
                    f"{table.path}:{device.line}: devices.{role}: {url} is served by `tablectl bench`, not a port"
                )
            config = replace(
                link_base or LinkConfig(), baudrate=device.baudrate, poll_interval_s=device.poll_interval_s
            )
            self.drivers[role] = driver_class(device.driver)(
                role, url, self.engine.queue, address=device.address, config=config
            )
            self.drivers[role].link.ack_when_journaled = True  # nothing acknowledged before it is journaled
        self.devices = DriverDevices(
            self.drivers["panel"], self.drivers["bet_spots"], self.drivers["shoe"], self.engine.post
        )
        self.table = GAME_TABLES[table.game](table, self.devices, self._round_done, self._audit)
        self.latest = LatestSnapshot()
        """The table's latest snapshot, published by the controller thread after each live event:
        what every reader on another thread (web view, bench players) reads, never the table."""
        self._version = 0
        self._written: object = None
        self.snapshot_file: Path | None = snapshot_path(self.journal.path) if self.durable else None  # type: ignore[attr-defined]
        """Where the latest snapshot is written for ``tablectl status`` (a durable journal only)."""
        self._unwritten_rounds: list[tuple[int, dict[str, Any]]] = []
        self.services: list[Any] = []
        """Things beside the controller that read the journal (e.g. the floor forwarder): each
        ``start()``-ed once the journal is recovered, ``stop()``-ed before it is closed."""

    # --- the controller thread --------------------------------------------------------------------

    def _handle(self, event: object) -> None:
        self._dispatch(event, self.engine.current_seq)
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

    def publish(self) -> TableSnapshot:
        """Build the table's snapshot and publish it (the controller thread, or before it starts);
        the snapshot file is written again when what ``tablectl status`` shows changed."""
        self._version += 1
        snapshot = build_snapshot(self.table, self._version)
        hands = build_hands(self.table, self._version) if self.latest.share_hands else None
        self.latest.publish(snapshot, hands)
        if self.snapshot_file is not None:
            key = (
                snapshot.round_no,
                snapshot.step,
                snapshot.hold,
                snapshot.key_on,
                snapshot.links_pending,
                snapshot.asked,
            )
            if key != self._written:
                try:
                    write_snapshot_file(self.snapshot_file, snapshot)
                    self._written = key
                except OSError as exc:
                    log.warning("cannot write the table's snapshot to %s: %s", self.snapshot_file, exc)
        return snapshot

    @property
    def snapshot(self) -> TableSnapshot:
        """The latest published snapshot."""
        return self.latest.get()

    def _dispatch(self, event: object, seq: int) -> None:
        if isinstance(event, LinkStats):
            return  # a record for people and `tablectl status`, not for the table
        if not self.replaying:
            self._log_link(event)
        at = getattr(event, "at", None)
        if at is not None and not self.replaying:
            self.latencies.append(time.time() - at)
        if type(event).__name__ in _FAULTS:
            self.round_faults += 1
        self.table.handle(event)
        if self.table.round_started:
            self.table.round_started = False
            self.round_first_seq, self.round_faults = seq + 1, 0
            if self.durable:
                try:
                    self.journal.snapshot(seq, self.table.round_no, self.table.snapshot_state())  # type: ignore[attr-defined]
                except JournalError as exc:
                    log.warning("journal: %s: round %s's start snapshot not kept", exc, self.table.round_no)

    def _log_link(self, event: object) -> None:
        """Log a link going down or coming back, and every device fault."""
        if isinstance(event, LinkDown):
            log.warning("link %s down: %s", event.device, event.reason, extra={"device": event.device})
        elif isinstance(event, LinkUp):
            log.info(
                "link %s up (boot %08x%s)",
                event.device,
                event.boot_id,
                ", rebooted" if event.rebooted else "",
                extra={"device": event.device},
            )
        elif isinstance(event, DeviceFault):
            log.warning("device %s: %s", event.device, event.error, extra={"device": event.device})

    def post_link_stats(self) -> None:
        """Journal every link's state and counters now (``LinkStats`` events)."""
        for driver in self.drivers.values():
            self.engine.post(driver.stats)

    def _audit(self, kind: str, data: dict[str, Any]) -> None:
        if self.replaying:
            return  # already journaled before the restart
        try:
            self.journal.append(kind, data)
        except JournalError as exc:
            log.error("journal: %s (%s not recorded; the event that caused it is)", exc, kind)

    def _journal_failed(self, reason: str) -> None:
        self.table.journal_failed(reason)
        self.publish()  # the hold is seen at once (no event was handled to publish it)

    def _write_rounds(self) -> None:
        """Write the round records not written yet (the journal could not take them: written
        once it takes records again, in order)."""
        while self._unwritten_rounds:
            number, data = self._unwritten_rounds[0]
            try:
                self.journal.append_round(number, data, meters_for_round(data))  # type: ignore[attr-defined]
            except JournalError as exc:
                log.error("journal: %s: round %s's record is written once the journal takes records again", exc, number)
                return
            self._unwritten_rounds.pop(0)

    def _journaled(self, event: object) -> None:
        """``event`` is journaled: the device that sent it may be acknowledged now (and a round
        record that could not be written is written now)."""
        if self._unwritten_rounds:
            self._write_rounds()
        driver = self.drivers.get(str(getattr(event, "device", "")))
        if driver is not None:
            driver.link.journaled(event)

    def _not_journaled(self, event: object) -> bool:
        """``event`` could not be journaled: True when its device will send it again."""
        driver = self.drivers.get(str(getattr(event, "device", "")))
        return driver is not None and bool(driver.link.refused(event))

    def _round_done(self, result: RoundResult) -> None:
        if self.durable and not self.journal.has_round(result.number):  # type: ignore[attr-defined]
            data = {
                "round": result.number,
                "game": self.config.game,
                "table": self.config.path,
                "table_sha256": self.config.sha256,
                "record": result.record,
                "settlement": result.settlement.to_json() if result.settlement else None,
                "late_bets": list(result.late_bets),
                "faults": self.round_faults,
                "cards": list(self.table.card_log),
                "first_seq": self.round_first_seq,
                "last_seq": self.engine.current_seq,
            }
            self._unwritten_rounds.append((result.number, data))
            self._write_rounds()
        if not self.replaying:
            self.post_link_stats()
        if self.user_on_round and not self.replaying:
            self.user_on_round(result)

    # --- starting and stopping --------------------------------------------------------------------

    def recover(self) -> bool:
        """Rebuild the open round from the journal: the last snapshot, then every event after it
        replayed into the machine (devices recorded, not sent); then the devices are sent the
        display and lamp state that left, and asked again for what the table was waiting for.
        Holds active at the stop stay active. Returns False when the journal has no events."""
        journal: Any = self.journal
        snapshot = journal.last_snapshot()
        problems = check_tail(journal, snapshot.seq if snapshot else 0)
        if problems:
            raise JournalError(f"{journal.path}: {problems[0]} (run `tablectl journal verify`)")
        after = snapshot.seq if snapshot else 0
        events = [r for r in journal.records(after) if r.event]
        if snapshot is None and not events:
            return False
        recording = RecordingDevices()
        self.table.devices = recording
        self.replaying = True
        try:
            if snapshot is not None:
                self.table.restore(snapshot.state)
                self.table.round_started = False
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
            self.table.devices = self.devices
        self.recovered = len(events)
        self.engine.processed = 0
        resend_state(recording.commands, self.devices)
        self.table.resend_requests()
        self.publish()  # readers (the bench's players restoring their simulators) see the recovered round
        log.info(
            "recovered round %s in %s from %d events after record %d",
            self.table.round_no,
            self.table.phase.value,
            len(events),
            after,
        )
        return True

    def start(self, after_recovery: Callable[[], None] | None = None) -> None:
        """Start the drivers and the controller: recover the open round from a durable journal
        (then call ``after_recovery``, before any device is talked to), or open the table."""
        recovered = self.durable and self.recover()
        if recovered and after_recovery is not None:
            after_recovery()
        if self.durable:
            self._restore_event_windows()
        self.publish()
        if not recovered:
            # Queued before any device can report: chips already on a spot when the table opens
            # are bets of its first round, never late bets of a table not yet open.
            self.engine.post(OpenTable())
        for service in self.services:
            service.start()
        for driver in self.drivers.values():
            driver.start()
        self.engine.start()
        self.notifier.ready(f"table {self.config.name} running")
        if self.notifier.watchdog_s and self._watchdog is None:
            self._watchdog_stop.clear()
            self._watchdog = threading.Thread(target=self._keep_alive, name="watchdog", daemon=True)
            self._watchdog.start()

    def _restore_event_windows(self) -> None:
        """Give each link the event window the journal left (a device that kept running keeps its
        boot and numbering: the event it sent just before the stop is not taken again)."""
        try:
            windows = journaled_event_windows(self.journal.path, set(self.drivers))  # type: ignore[attr-defined]
        except (sqlite3.Error, OSError, ValueError, TypeError) as exc:
            log.warning("journal: cannot read the devices' event windows (%s): events may repeat once", exc)
            return
        for role, (boot_id, last_event_no) in windows.items():
            self.drivers[role].link.set_window(boot_id, last_event_no)

    def alive(self) -> bool:
        """Whether the controller thread and every link thread are running and the controller is
        not stuck (it has handled something since the last look, or has nothing to handle)."""
        engine = self.engine._thread
        if engine is None or not engine.is_alive():
            return False
        if any(d.link._thread is None or not d.link._thread.is_alive() for d in self.drivers.values()):
            return False
        processed, self._last_processed = self.engine.processed, getattr(self, "_last_processed", -1)
        return processed != self._last_processed or self.engine.queue.empty()

    def _keep_alive(self) -> None:
        """Send systemd a keep-alive at half its watchdog interval while the table is alive; a
        stuck table stops them, and systemd restarts the service."""
        assert self.notifier.watchdog_s is not None
        interval = self.notifier.watchdog_s / 2
        while not self._watchdog_stop.wait(interval):
            if self.alive():
                self.notifier.watchdog()
            else:
                log.error("controller not alive: no watchdog keep-alive sent")

    def stop(self) -> None:
        """Stop the controller after the events already queued, then the drivers (idempotent)."""
        self.notifier.stopping()
        self._watchdog_stop.set()
        if self._watchdog is not None:
            self._watchdog.join(timeout=5)
            self._watchdog = None
        self.engine.stop()
        for driver in self.drivers.values():
            driver.close()
        for service in self.services:
            service.stop()
        if self.durable:
            self.journal.close()  # type: ignore[attr-defined]
