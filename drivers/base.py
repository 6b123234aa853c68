"""The driver interface every device class implements (python-can's ``Bus`` in spirit).

A driver owns one :class:`~drivers.link.Link`, turns event bodies into frozen, timestamped
event dataclasses on the controller's queue, and turns command calls into frames. Commands
never block. Drivers are context managers; ``close()`` is idempotent.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar, Protocol

from drivers.link import DeviceFault, Link, LinkConfig, LinkStats
from drivers.messages import BodyError, DeviceEvent, MessageSpec, decode_body, encode_body
from drivers.state import DeviceState

_LISTS = ("spots", "u8s", "strs", "cards")
"""Field kinds that a state answer in several parts splits (the parts' lists are joined)."""

__all__ = ["Driver"]


class EventSink(Protocol):
    """Where a driver puts the events it reads (the table's event queue)."""

    def put(self, item: DeviceEvent, /) -> None:
        """Queue ``item`` for the table."""


class Driver:
    """Base of the device drivers: subclasses list their ``EVENTS`` and ``COMMANDS``."""

    kind: ClassVar[str] = ""
    EVENTS: ClassVar[dict[int, type[DeviceEvent]]] = {}
    COMMANDS: ClassVar[dict[str, MessageSpec]] = {}
    STATE: ClassVar[MessageSpec | None] = None
    """The body of the device's answer to the state request (None: the device has none)."""

    def __init__(
        self,
        name: str,
        url: str,
        events: EventSink,
        *,
        address: int = 1,
        config: LinkConfig = LinkConfig(),  # noqa: B008 (frozen, shared safely)
        last_event_no: int = 0,
        boot_id: int | None = None,
    ) -> None:
        self._closed = True
        self.name = name
        self.events = events
        self.link = Link(
            name,
            url,
            address,
            events.put,
            self._read_event,
            config,
            last_event_no,
            boot_id=boot_id,
            on_state=self._read_state if self.STATE is not None else None,
            watch=self._watch,
        )
        self._closed = False

    def start(self) -> Driver:
        """Start talking to the device."""
        self.link.start()
        return self

    def close(self) -> None:
        """Stop the link and close the port (idempotent)."""
        if not self._closed:
            self._closed = True
            self.link.close()

    def __enter__(self) -> Driver:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if not getattr(self, "_closed", True):
            warnings.warn(f"driver {self.name} was never closed", ResourceWarning, stacklevel=1)

    @property
    def stats(self) -> LinkStats:
        """The link's state and counters now."""
        return self.link.snapshot()

    def _command(self, name: str, **values: Any) -> None:
        spec = self.COMMANDS[name]
        self.link.send_command(name, spec.code, encode_body(spec, values))

    def _read_event(self, event_no: int, code: int, body: bytes, at: float) -> DeviceEvent:
        """What the device's event ``event_no`` (``code``, ``body``, made at ``at``) is: its typed
        event, or a ``bad_event`` fault for a code or body this driver does not know (raises
        :class:`BodyError` for a value its :meth:`_convert` finds out of range). The link delivers
        it, stamped with the time it happened, and acknowledges it once it is journaled."""
        cls = self.EVENTS.get(code)
        if cls is None or cls.spec is None:
            return DeviceFault(
                device=self.name,
                event_no=event_no,
                kind="bad_event",
                error=f"event {event_no}: unknown event code {code}",
            )
        try:
            values = decode_body(cls.spec, body)
        except BodyError as exc:
            return DeviceFault(device=self.name, event_no=event_no, kind="bad_event", error=f"event {event_no}: {exc}")
        return cls(device=self.name, at=at, event_no=event_no, **self._convert(cls, values))

    def _watch(self, event: DeviceEvent) -> object:
        """What of ``event`` (an event, or the state snapshot) makes the device's state worth
        reading again until it changes, as the link does every ``STATE_WATCH_S``; None: nothing
        (subclasses: the shoe's jam and open door, which no event says the end of)."""
        return None

    def _convert(self, cls: type[DeviceEvent], values: dict[str, Any]) -> dict[str, Any]:
        """Turn wire values into the event's fields (subclasses map ids to names)."""
        return values

    def _read_state(self, bodies: list[bytes], at: float) -> DeviceEvent:
        """The state event from the bodies of the state answer's parts: the fixed fields from the
        first part, the lists of every part joined (raises :class:`BodyError` on a bad body)."""
        assert self.STATE is not None
        parts = [decode_body(self.STATE, body) for body in bodies]
        values = dict(parts[0])
        for name, kind in self.STATE.fields:
            if kind in _LISTS:
                values[name] = tuple(item for part in parts for item in part[name])
        return self._state_event(values, at)

    def _state_event(self, values: dict[str, Any], at: float) -> DeviceState:
        """Turn the state answer's values into the driver's state event (subclasses)."""
        raise NotImplementedError
