"""The device side of the wire protocol (docs/protocol.md), shared by every simulator.

A simulated device keeps its unacknowledged events, its next event number and its boot id in a
small state file (when given), so a simulated reboot loses only what a real device loses: the
reply it was about to resend. Simulators are driven from Python (``emit``) or YAML scenarios.
"""

from __future__ import annotations

import json
import os
import struct
import threading
from pathlib import Path
from typing import Any, ClassVar

from drivers.base import Driver
from drivers.framing import Frame, MsgType, encode
from drivers.messages import BodyError, DeviceEvent, decode_body, encode_body

__all__ = ["SimDevice", "STATUS_OK", "STATUS_UNKNOWN", "STATUS_BAD_BODY"]

STATUS_OK, STATUS_UNKNOWN, STATUS_BAD_BODY = 0, 1, 2


class SimDevice:
    """A simulated device at ``address``; subclasses set ``driver`` and handle commands."""

    driver: ClassVar[type[Driver]]

    def __init__(self, address: int = 1, state_file: Path | str | None = None) -> None:
        self.address = address
        self.state_file = Path(state_file) if state_file else None
        self.lock = threading.Lock()
        self.pending: list[tuple[int, int, bytes]] = []
        self.next_event_no = 1
        self.boot_id = 1
        self.commands: list[tuple[str, dict[str, Any]]] = []
        self._last: tuple[int, bytes] | None = None  # (seq, reply) for resending on a retry
        if self.state_file and self.state_file.exists():
            self._load()
        self._save()

    # --- state ------------------------------------------------------------------------------

    def _load(self) -> None:
        assert self.state_file is not None
        data = json.loads(self.state_file.read_text())
        self.next_event_no, self.boot_id = data["next_event_no"], data["boot_id"]
        self.pending = [(n, c, bytes.fromhex(b)) for n, c, b in data["pending"]]

    def _save(self) -> None:
        if self.state_file is None:
            return
        tmp = self.state_file.with_suffix(".tmp")
        data = {
            "next_event_no": self.next_event_no,
            "boot_id": self.boot_id,
            "pending": [[n, c, b.hex()] for n, c, b in self.pending],
        }
        tmp.write_text(json.dumps(data))
        os.replace(tmp, self.state_file)

    def reboot(self) -> None:
        """Simulate a power cycle: a new boot id; events and numbering come back from the state file."""
        with self.lock:
            self.boot_id += 1
            self._last = None
            if self.state_file and self.state_file.exists():
                boot = self.boot_id
                self._load()
                self.boot_id = boot
            self._save()

    # --- events -----------------------------------------------------------------------------

    def emit(self, event: type[DeviceEvent], **values: Any) -> int:
        """Queue an event of class ``event`` with wire ``values``; returns its event number."""
        spec = event.spec
        assert spec is not None
        body = encode_body(spec, values)
        with self.lock:
            number = self.next_event_no
            self.next_event_no += 1
            self.pending.append((number, spec.code, body))
            self._save()
        return number

    def emit_raw(self, code: int, body: bytes) -> int:
        """Queue an event with any code and body (to test how drivers handle bad events)."""
        with self.lock:
            number = self.next_event_no
            self.next_event_no += 1
            self.pending.append((number, code, body))
            self._save()
        return number

    # --- the protocol -----------------------------------------------------------------------

    def reply_to(self, frame: Frame) -> bytes | None:
        """The wire reply to one request from the controller (``None``: not for us)."""
        if frame.address != self.address:
            return None
        with self.lock:
            if self._last is not None and self._last[0] == frame.seq:
                return self._last[1]  # a retry: the same answer, the command not run twice
            boot = struct.pack(">I", self.boot_id)
            if frame.type is MsgType.POLL and len(frame.payload) == 4:
                acked = struct.unpack(">I", frame.payload)[0]
                if any(n <= acked for n, _, _ in self.pending):
                    self.pending = [p for p in self.pending if p[0] > acked]
                    self._save()
                if self.pending:
                    number, code, body = self.pending[0]
                    reply = Frame(
                        self.address, 0, frame.seq, MsgType.EVENT, boot + struct.pack(">IB", number, code) + body
                    )
                else:
                    reply = Frame(self.address, 0, frame.seq, MsgType.ACK, boot)
            elif frame.type is MsgType.CMD and frame.payload:
                code = frame.payload[0]
                status = self._command(code, frame.payload[1:])
                reply = Frame(self.address, 0, frame.seq, MsgType.RESP, boot + bytes((status, code)))
            else:
                reply = Frame(self.address, 0, frame.seq, MsgType.NAK, boot)
            wire = encode(reply)
            self._last = (frame.seq, wire)
        return wire

    def _command(self, code: int, body: bytes) -> int:
        spec = next((s for s in self.driver.COMMANDS.values() if s.code == code), None)
        if spec is None:
            return STATUS_UNKNOWN
        try:
            values = decode_body(spec, body)
        except BodyError:
            return STATUS_BAD_BODY
        self.commands.append((spec.name, values))
        # Called with the lock held; handlers emit through _emit_locked.
        self.on_command(spec.name, values)
        return STATUS_OK

    def _emit_locked(self, event: type[DeviceEvent], **values: Any) -> None:
        spec = event.spec
        assert spec is not None
        self.pending.append((self.next_event_no, spec.code, encode_body(spec, values)))
        self.next_event_no += 1
        self._save()

    def on_command(self, name: str, values: dict[str, Any]) -> None:
        """React to a command (subclasses)."""
