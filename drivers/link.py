"""Link supervision: the controller side of one device link.

The controller polls the device every ``poll_interval_s``; the device answers with its oldest
unacknowledged event or an empty ACK. Each POLL carries the number of the last event received,
which acknowledges it; the device keeps every event until then, so each event arrives exactly
once (duplicates by event number are dropped here) across corruption, loss, duplication,
retries and device reboots. Commands go out between polls, one at a time.

A request unanswered within ``response_timeout_s`` is sent again (same sequence number, so the
device resends its reply rather than acting twice), up to ``retries`` times. After
``link_down_s`` without a good reply the link is down: the port is closed and reopened with
exponential backoff from ``reconnect_min_s`` to ``reconnect_max_s``. Everything runs in one
thread per link; an exception in it is reported as a :class:`DeviceFault` and the supervisor
starts it again, so it never dies silently.
"""

from __future__ import annotations

import queue
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from drivers.framing import Decoder, DecoderStats, Frame, MsgType, encode
from drivers.messages import DeviceEvent
from drivers.transport import Transport, TransportError

__all__ = ["LinkConfig", "LinkStats", "Link", "LinkUp", "LinkDown", "DeviceFault", "CommandResult"]


@dataclass(frozen=True, slots=True)
class LinkConfig:
    """Timing of one link (seconds)."""

    baudrate: int = 115200
    poll_interval_s: float = 0.05
    response_timeout_s: float = 0.1
    retries: int = 3
    link_down_s: float = 1.0
    reconnect_min_s: float = 0.1
    reconnect_max_s: float = 5.0


@dataclass
class LinkStats(DecoderStats):
    """Per-link counters: the decoder's (frames ok, CRC errors, malformed, oversize, resyncs) and the link's."""

    timeouts: int = 0
    retries: int = 0
    reconnects: int = 0
    link_downs: int = 0
    duplicates: int = 0
    events: int = 0
    faults: int = 0


@dataclass(frozen=True, kw_only=True)
class LinkUp(DeviceEvent):
    """The device answered; ``rebooted`` when its boot id changed since it was last up."""

    boot_id: int
    rebooted: bool


@dataclass(frozen=True, kw_only=True)
class LinkDown(DeviceEvent):
    """No good reply for ``link_down_s``, or the port failed."""

    reason: str


@dataclass(frozen=True, kw_only=True)
class DeviceFault(DeviceEvent):
    """Something went wrong on the link or in a driver (the link keeps running)."""

    error: str


@dataclass(frozen=True, kw_only=True)
class CommandResult(DeviceEvent):
    """A device's answer to a command: status 0 is success (docs/protocol.md)."""

    command: str
    status: int

    @property
    def ok(self) -> bool:
        return self.status == 0


@dataclass(frozen=True, slots=True)
class _Command:
    name: str
    code: int
    body: bytes


class Link:
    """The supervised link to one device at ``address`` on ``url``.

    ``on_event(event_no, code, body, at)`` is called for each new event (in the link thread);
    link events and command results go to ``emit``.
    """

    def __init__(
        self,
        name: str,
        url: str,
        address: int,
        emit: Callable[[DeviceEvent], None],
        on_event: Callable[[int, int, bytes, float], None],
        config: LinkConfig = LinkConfig(),
        last_event_no: int = 0,
    ) -> None:
        self.name, self.url, self.address, self.config = name, url, address, config
        self._emit, self._on_event = emit, on_event
        self.last_event_no = last_event_no
        self.stats = LinkStats()
        self.up = False
        self._boot_id: int | None = None
        self._commands: queue.Queue[_Command] = queue.Queue()
        self._stop = threading.Event()
        self._wake = threading.Event()  # set when a command is queued, so it goes out at once
        self._thread: threading.Thread | None = None
        self._transport: Transport | None = None
        self._decoder = Decoder(stats=self.stats)
        self._seq = 0
        self._last_good = time.monotonic()

    # --- public -----------------------------------------------------------------------------

    def start(self) -> None:
        """Start the link thread."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._supervise, name=f"link-{self.name}", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop the link thread and close the port (idempotent)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._close_port()

    def send_command(self, name: str, code: int, body: bytes = b"") -> None:
        """Queue a command for the device; its result arrives as a :class:`CommandResult`."""
        self._commands.put(_Command(name, code, body))
        self._wake.set()

    def snapshot(self) -> LinkStats:
        """A copy of the counters."""
        return replace(self.stats)

    # --- the thread -------------------------------------------------------------------------

    def _supervise(self) -> None:
        delay = self.config.reconnect_min_s
        while not self._stop.is_set():
            try:
                self._run()
                delay = self.config.reconnect_min_s
            except TransportError as exc:
                self._link_down(str(exc))
            except Exception as exc:  # noqa: BLE001 - reported, then the link restarts
                self.stats.faults += 1
                self._emit(DeviceFault(device=self.name, error=f"link thread: {type(exc).__name__}: {exc}"))
                self._link_down(f"link thread failed: {exc}")
            self._close_port()
            if self._stop.wait(delay):
                break
            delay = min(max(delay * 2, self.config.reconnect_min_s), self.config.reconnect_max_s)
            self.stats.reconnects += 1

    def _close_port(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None

    def _link_down(self, reason: str) -> None:
        if self.up:
            self.up = False
            self.stats.link_downs += 1
            self._emit(LinkDown(device=self.name, reason=reason))

    def _run(self) -> None:
        self._transport = Transport(self.url, self.config.baudrate)
        self._decoder = Decoder(stats=self.stats)
        self._last_good = time.monotonic()
        next_poll = 0.0
        while not self._stop.is_set():
            try:
                command = self._commands.get_nowait()
            except queue.Empty:
                command = None
            if command is None:
                wait = next_poll - time.monotonic()
                if wait > 0:
                    self._wake.wait(min(wait, self.config.poll_interval_s))
                    self._wake.clear()
                    if self._stop.is_set():
                        return
                    if not self._commands.empty() or time.monotonic() < next_poll:
                        continue
                next_poll = time.monotonic() + self.config.poll_interval_s
                reply = self._exchange(MsgType.POLL, struct.pack(">I", self.last_event_no))
            else:
                reply = self._exchange(MsgType.CMD, bytes((command.code,)) + command.body)
            if reply is None:
                if time.monotonic() - self._last_good > self.config.link_down_s:
                    self._link_down(f"no reply for {self.config.link_down_s} s")
                    return
                if command is not None:
                    self._emit(CommandResult(device=self.name, command=command.name, status=255))
                continue
            if self._handle(reply, command):
                next_poll = 0.0  # the device may hold more events: drain them without waiting

    def _exchange(self, kind: MsgType, payload: bytes) -> Frame | None:
        assert self._transport is not None
        self._seq = (self._seq + 1) % 256
        wire = encode(Frame(self.address, self._seq, 0, kind, payload))
        for attempt in range(self.config.retries + 1):
            if attempt:
                self.stats.retries += 1
            self._transport.write(wire)
            deadline = min(time.monotonic() + self.config.response_timeout_s, self._last_good + self.config.link_down_s)
            while time.monotonic() < deadline and not self._stop.is_set():
                for frame in self._decoder.feed(self._transport.read()):
                    if frame.address == self.address and frame.ack == self._seq and frame.type is not MsgType.POLL:
                        return frame
            self.stats.timeouts += 1
            if time.monotonic() - self._last_good > self.config.link_down_s:
                break  # silent too long: the caller declares the link down
        return None

    def _handle(self, reply: Frame, command: _Command | None) -> bool:
        """Act on a reply; True when it carried an event."""
        now = time.time()
        self._last_good = time.monotonic()
        p = reply.payload
        if len(p) < 4:
            self._emit(DeviceFault(device=self.name, error=f"frame seq {reply.seq}: reply too short"))
            return False
        boot_id = struct.unpack_from(">I", p)[0]
        if not self.up:
            self.up = True
            self._emit(
                LinkUp(
                    device=self.name, boot_id=boot_id, rebooted=self._boot_id is not None and boot_id != self._boot_id
                )
            )
        elif boot_id != self._boot_id:
            self._emit(LinkUp(device=self.name, boot_id=boot_id, rebooted=True))
        self._boot_id = boot_id
        if reply.type is MsgType.EVENT and len(p) >= 9:
            event_no, code = struct.unpack_from(">IB", p, 4)
            if event_no <= self.last_event_no:
                self.stats.duplicates += 1
                return True
            if event_no != self.last_event_no + 1 and self.last_event_no:
                self._emit(
                    DeviceFault(
                        device=self.name, error=f"events {self.last_event_no + 1} to {event_no - 1} never arrived"
                    )
                )
            self.last_event_no = event_no
            self.stats.events += 1
            try:
                self._on_event(event_no, code, bytes(p[9:]), now)
            except Exception as exc:  # noqa: BLE001 - a bad event must not stop the link
                self.stats.faults += 1
                self._emit(
                    DeviceFault(device=self.name, event_no=event_no, error=f"event {event_no} (code {code}): {exc}")
                )
            return True
        if reply.type is MsgType.RESP and len(p) >= 6:
            status = p[4]
            self._emit(CommandResult(device=self.name, command=command.name if command else "?", status=status))
        elif reply.type is MsgType.NAK:
            self._emit(DeviceFault(device=self.name, error=f"device refused frame seq {reply.seq}"))
        return False
