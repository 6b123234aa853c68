"""The device side of the wire protocol (docs/protocol.md), shared by every simulator.

Every power-up gets a new random 32-bit boot id and numbers its events from 1 again. Two ways
to start again: :meth:`SimDevice.reboot` is a power cycle of a device with non-volatile memory
(its unacknowledged events, each still named by the boot that made it, come back from the state
file when one is given); :meth:`SimDevice.restart` is one of a device without any (everything is
forgotten: events, lamps, display, the lock; only what is physically there, chips on spots or a
key switch turned, stays). Simulators answer the state request from their ``state_body``, can be
told to answer ``busy`` (``busy_next``) and are driven from Python (``emit``) or YAML scenarios.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from drivers.base import Driver
from drivers.framing import MAX_PAYLOAD, Frame, MsgType, encode_fields
from drivers.messages import BodyError, DeviceEvent, decode_body, encode_body

__all__ = ["SimDevice", "new_boot_id", "STATUS_OK", "STATUS_UNKNOWN", "STATUS_BAD_BODY", "STATUS_BUSY"]

STATUS_OK, STATUS_UNKNOWN, STATUS_BAD_BODY, STATUS_BUSY = 0, 1, 2, 3

Pending = tuple[int, int, int, bytes, int]
"""An unacknowledged event: (the boot that made it, its number in that boot, code, body, the
device's clock when it was made)."""

_POLL = struct.Struct(">IIB").unpack
_PACK_U32 = struct.Struct(">I").pack
_EVENT_HEAD = struct.Struct(">IIIIB").pack
_POLL_T, _ACK_T, _STATE_REQ_T = MsgType.POLL, MsgType.ACK, MsgType.STATE_REQ  # (a member read through its enum is slow)


def _ticks(seconds: float) -> int:
    """A device clock reading of ``seconds`` as sent: milliseconds modulo 2^32."""
    return int(seconds * 1000) % (1 << 32)


HEARTBEAT_S = 1.0
"""How long a device goes without a POLL carrying the controller's heartbeat before it knows the
table has stopped (docs/protocol.md, section 4.8: the controller's ``link_down_s``)."""


def new_boot_id(previous: int | None = None, rng: random.Random | None = None) -> int:
    """A random non-zero 32-bit boot id (different from ``previous``; drawn from ``rng`` when given,
    so a simulation seeded once is the same every time)."""
    while True:
        boot = rng.getrandbits(32) if rng is not None else secrets.randbits(32)
        if boot and boot != previous:
            return boot


class SimDevice:
    """A simulated device at ``address``; subclasses set ``driver`` and handle commands."""

    driver: ClassVar[type[Driver]]

    rng: random.Random | None = None
    """Where boot ids are drawn from (None: the system's random source); set before a power-up."""

    clock: Callable[[], float] = staticmethod(time.monotonic)
    """The device's own clock (seconds; a simulation sets its own): events are stamped with it,
    in milliseconds modulo 2^32, and each answer to a POLL says it (docs/protocol.md, section 5.1)."""

    def __init__(self, address: int = 1, state_file: Path | str | None = None) -> None:
        self.address = address
        self.state_file = Path(state_file) if state_file else None
        self.lock = threading.Lock()
        self.pending: list[Pending] = []
        self.next_event_no = 1
        self.boot_id = new_boot_id(rng=self.rng)
        self.boots = 1
        """Power-ups so far (reboots and restarts count)."""
        self.busy_next = 0
        """How many of the next commands to answer ``busy`` (not acting on them)."""
        self.nak_commands = False
        """Answer every command with NAK (a device that does not know the CMD type)."""
        self.nak_states = 0
        """How many of the next state requests to refuse with NAK (a device busy or confused)."""
        self.bad_states = 0
        """How many of the next state answers to damage: each names a part it was not asked for."""
        self.short_states = 0
        """How many of the next state answers to cut short (2 bytes: not even the boot id)."""
        self.damaged: Callable[[], None] | None = None
        """Called (under the lock) as a refused, damaged or cut state answer is made (a simulation
        notes when such a fault acted)."""
        self.commands: list[tuple[str, dict[str, Any]]] = []
        self._last: tuple[int, bytes] | None = None  # (seq, reply) for resending on a retry
        self._parts: list[bytes] = []  # the state answer being read, taken when part 0 was asked
        self._parts_newest = 0
        self.heartbeat_at: float | None = None
        """When (``clock``) a POLL last carried the controller's heartbeat (None: never)."""
        if self.state_file and self.state_file.exists():
            self._load()
        self._save()

    # --- state ------------------------------------------------------------------------------

    def _load(self) -> None:
        assert self.state_file is not None
        data = json.loads(self.state_file.read_text())
        self.pending = [
            (b, n, c, bytes.fromhex(body), int(rest[0]) if rest else 0) for b, n, c, body, *rest in data["pending"]
        ]

    def _save(self) -> None:
        if self.state_file is None:
            return
        tmp = self.state_file.with_suffix(".tmp")
        data = {"boot_id": self.boot_id, "pending": [[b, n, c, body.hex(), at] for b, n, c, body, at in self.pending]}
        tmp.write_text(json.dumps(data))
        os.replace(tmp, self.state_file)

    def reboot(self) -> None:
        """A power cycle with non-volatile memory: a new boot id and numbering from 1; the
        unacknowledged events come back from the state file (when there is one)."""
        with self.lock:
            self._power_up()
            if self.state_file and self.state_file.exists():
                self._load()
            self._save()

    def restart(self) -> None:
        """A power cycle that forgets everything: a new boot id, no events, numbering from 1,
        and the device's own settings (lamps, display, lock) back to power-up values."""
        with self.lock:
            self._power_up()
            self.pending = []
            self.forget()
            self._save()

    def _power_up(self) -> None:
        self.boot_id = new_boot_id(self.boot_id, self.rng)
        self.boots += 1
        self.next_event_no = 1
        self._last = None
        self._parts = []
        self.heartbeat_at = None

    def forget(self) -> None:
        """Reset what the device itself holds to its power-up values (subclasses; lock held)."""

    def heartbeat(self, now: float) -> None:
        """A POLL carried the controller's heartbeat at ``now`` (``clock``; lock held)."""
        self.heartbeat_at = now

    # --- events -----------------------------------------------------------------------------

    def emit(self, event: type[DeviceEvent], **values: Any) -> int:
        """Queue an event of class ``event`` with wire ``values``; returns its event number."""
        spec = event.spec
        assert spec is not None
        body = encode_body(spec, values)
        with self.lock:
            return self._queue(spec.code, body)

    def emit_raw(self, code: int, body: bytes) -> int:
        """Queue an event with any code and body (to test how drivers handle bad events)."""
        with self.lock:
            return self._queue(code, body)

    def ticks(self) -> int:
        """The device's clock now, as sent: milliseconds modulo 2^32."""
        return _ticks(self.clock())

    def table_stopped(self) -> bool:
        """The controller's heartbeat has not been heard for :data:`HEARTBEAT_S` (or ever)."""
        return self.heartbeat_at is None or self.clock() - self.heartbeat_at > HEARTBEAT_S

    def _queue(self, code: int, body: bytes) -> int:
        number = self.next_event_no
        self.next_event_no += 1
        self.pending.append((self.boot_id, number, code, body, self.ticks()))
        self._save()
        return number

    def _emit_locked(self, event: type[DeviceEvent], **values: Any) -> None:
        spec = event.spec
        assert spec is not None
        self._queue(spec.code, encode_body(spec, values))

    # --- the protocol -----------------------------------------------------------------------

    def reply_to(self, frame: Frame) -> bytes | None:
        """The wire reply to one request from the controller (``None``: not for us)."""
        if frame.address != self.address:
            return None
        with self.lock:
            if self._last is not None and self._last[0] == frame.seq:
                return self._last[1]  # a retry: the same answer, the command not run twice
            if frame.type is _STATE_REQ_T and self.short_states > 0:
                self.short_states -= 1
                self._damaged()
                reply = (MsgType.STATE, _PACK_U32(self.boot_id)[:2])  # too short to read at all
            else:
                kind, body = self._answer(frame)
                reply = (kind, _PACK_U32(self.boot_id) + body)
            wire = encode_fields(self.address, 0, frame.seq, reply[0], reply[1])
            self._last = (frame.seq, wire)
        return wire

    def _answer(self, frame: Frame) -> tuple[MsgType, bytes]:
        if frame.type is _POLL_T and len(frame.payload) == 9:
            boot, number, running = _POLL(frame.payload)
            now = self.clock()  # (the device answers at one time: its heartbeat's and its clock's)
            if running:
                self.heartbeat(now)
            if self.pending:  # (nothing to delete otherwise: most POLLs)
                self._acknowledge(boot, number)
            ticks = _ticks(now)
            if self.pending:
                boot, number, code, body, at = self.pending[0]
                return MsgType.EVENT, _EVENT_HEAD(ticks, boot, number, at, code) + body
            return _ACK_T, _PACK_U32(ticks)
        if frame.type is MsgType.CMD and frame.payload and not self.nak_commands:
            code = frame.payload[0]
            return MsgType.RESP, bytes((self._command(code, frame.payload[1:]), code))
        if frame.type is MsgType.STATE_REQ and len(frame.payload) == 1 and self.nak_states > 0:
            self.nak_states -= 1
            self._damaged()
            return MsgType.NAK, b""
        if frame.type is MsgType.STATE_REQ and len(frame.payload) == 1:
            part = frame.payload[0]
            if part == 0:
                self._parts = self._split(self.state_body())
                self._parts_newest = self.next_event_no - 1
            if part < len(self._parts):
                named = part
                if self.bad_states > 0:  # damaged: it names a part it was not asked for
                    self.bad_states -= 1
                    self._damaged()
                    named = (part + 1) % 256
                head = struct.pack(">IBB", self._parts_newest, named, len(self._parts))
                return MsgType.STATE, head + self._parts[part]
        return MsgType.NAK, b""

    def _damaged(self) -> None:
        if self.damaged is not None:
            self.damaged()

    def _acknowledge(self, boot: int, number: int) -> None:
        """Delete every event up to and including the last one the controller says it received."""
        pending = self.pending
        for last in range(len(pending) - 1, -1, -1):  # the last one it names, from the newest
            if pending[last][0] == boot and pending[last][1] <= number:
                del pending[: last + 1]
                self._save()
                return

    def _split(self, body: tuple[bytes, list[bytes] | None]) -> list[bytes]:
        """The state answer's parts: ``body`` is (fixed fields, list entries or None when the state
        has no list); each part repeats the fixed fields and holds as many whole entries as fit,
        after a count byte."""
        fixed, entries = body
        if entries is None:
            return [fixed]
        room = MAX_PAYLOAD - 4 - 6 - len(fixed) - 1
        parts: list[bytes] = []
        chunk: list[bytes] = []
        for entry in entries:
            if chunk and (sum(map(len, chunk)) + len(entry) > room or len(chunk) == 255):
                parts.append(fixed + bytes((len(chunk),)) + b"".join(chunk))
                chunk = []
            chunk.append(entry)
        parts.append(fixed + bytes((len(chunk),)) + b"".join(chunk))
        return parts

    def state_body(self) -> tuple[bytes, list[bytes] | None]:
        """The device's whole state for the state request: its fixed fields and the entries of its
        one list, which comes last (None: no list) (subclasses; called with the lock held)."""
        raise NotImplementedError

    def _command(self, code: int, body: bytes) -> int:
        spec = next((s for s in self.driver.COMMANDS.values() if s.code == code), None)
        if spec is None:
            return STATUS_UNKNOWN
        try:
            values = decode_body(spec, body)
        except BodyError:
            return STATUS_BAD_BODY
        if self.busy_next > 0:
            self.busy_next -= 1
            return STATUS_BUSY
        # Called with the lock held; handlers emit through _emit_locked.
        status = self.on_command(spec.name, values)
        if status == STATUS_OK:
            self.commands.append((spec.name, values))
        return status

    def on_command(self, name: str, values: dict[str, Any]) -> int:
        """React to a command (subclasses); returns the status to answer."""
        return STATUS_OK
